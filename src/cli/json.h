/*
 * json.h: a small JSON reader (json.c) for `clfold compare`, which reads
 * saved `clfold bench --format json` runs. It parses a whole text into a
 * tree (RFC 8259: strict grammar, at most JSON_MAX_DEPTH levels, strings
 * unescaped to UTF-8; a string's raw bytes must be UTF-8 and a \u surrogate
 * must come in a pair) and never prints; tests/fuzz/fuzz_json.c fuzzes it.
 */
#ifndef CLFOLD_CLI_JSON_H
#define CLFOLD_CLI_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH 64

enum json_kind { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_value {
    enum json_kind kind;
    double number;              /* JSON_NUMBER */
    char *string;               /* JSON_STRING: NUL-terminated UTF-8 (may hold NULs: see length) */
    size_t length;              /* strings: bytes; arrays and objects: members */
    struct json_value *items;   /* arrays and objects: the members' values, in order */
    char **keys;                /* objects: the members' names, NUL-terminated */
};

/*
 * Parses text[0..size) (no terminator needed). Returns the root, to be
 * released by json_free, or NULL with a one-line reason in err ("line 3,
 * column 7: ...").
 */
struct json_value *json_parse(const char *text, size_t size, char *err, size_t cap);

/* Releases a tree from json_parse; NULL is fine. */
void json_free(struct json_value *root);

/* The value of `object`'s first member named `key`; NULL if none or not an object. */
const struct json_value *json_member(const struct json_value *object, const char *key);

/* The member's string, or NULL where it is absent or not a string. */
const char *json_member_string(const struct json_value *object, const char *key);

/* The member's number, or `otherwise` where it is absent or not a number. */
double json_member_number(const struct json_value *object, const char *key, double otherwise);

/* What a value is, for messages: "null", "a boolean", "a number", "a string", "an array", "an object". */
const char *json_kind_name(enum json_kind kind);

/*
 * The length in bytes (1 to 4) of the UTF-8 character that starts s, reading
 * at most `avail` bytes and never past a NUL; 0 where the bytes are not one
 * (a stray continuation byte, a cut or overlong sequence, a UTF-16 surrogate,
 * or a code point above U+10FFFF).
 */
size_t json_utf8_length(const char *s, size_t avail);

#endif /* CLFOLD_CLI_JSON_H */
