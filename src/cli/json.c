/*
 * json.c: the JSON reader of json.h: a recursive-descent parser over a
 * byte range, strict to RFC 8259 (no comments, no trailing commas, no
 * leading zeros, no control characters in strings, strings of UTF-8 with
 * surrogates only in pairs), bounded in depth, and careful with every
 * length, since it reads files from elsewhere.
 */
#include "json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *text;
    size_t size;
    size_t at;
    char *err;
    size_t cap;
};

/* Says where and what went wrong (once: the first error is the one kept); returns -1. */
static int fail(struct parser *p, const char *format, ...)
{
    size_t line = 1, column = 1;
    if (p->err[0] != '\0')
        return -1;
    for (size_t i = 0; i < p->at && i < p->size; i++) {
        column = p->text[i] == '\n' ? 1 : column + 1;
        line += p->text[i] == '\n';
    }
    int used = snprintf(p->err, p->cap, "line %zu, column %zu: ", line, column);
    if (used >= 0 && (size_t)used < p->cap) {
        va_list args;
        va_start(args, format);
        vsnprintf(p->err + used, p->cap - (size_t)used, format, args);
        va_end(args);
    }
    return -1;
}

static void skip_space(struct parser *p)
{
    while (p->at < p->size && (p->text[p->at] == ' ' || p->text[p->at] == '\t' ||
                               p->text[p->at] == '\n' || p->text[p->at] == '\r'))
        p->at++;
}

static int peek(const struct parser *p)
{
    return p->at < p->size ? (unsigned char)p->text[p->at] : -1;
}

static void release(struct json_value *v)
{
    if (v->kind == JSON_STRING)
        free(v->string);
    if (v->kind == JSON_ARRAY || v->kind == JSON_OBJECT) {
        for (size_t i = 0; i < v->length; i++) {
            release(&v->items[i]);
            if (v->keys != NULL)
                free(v->keys[i]);
        }
        free(v->items);
        free(v->keys);
    }
    memset(v, 0, sizeof *v);
}

static int parse_value(struct parser *p, struct json_value *v, int depth);

/* Four hex digits after "\u"; -1 if they are not. */
static long hex4(struct parser *p)
{
    long value = 0;
    for (int i = 0; i < 4; i++) {
        int c = peek(p);
        int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0)
            return -1;
        value = value * 16 + digit;
        p->at++;
    }
    return value;
}

/* Writes a code point as UTF-8; returns its length. */
static size_t put_utf8(char *out, unsigned long cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/*
 * One escape after the backslash, written to out; its length, or 0 on
 * error. A UTF-16 surrogate must come as a pair, high (\ud800..\udbff) then
 * low (\udc00..\udfff), which makes one character from U+10000 to U+10FFFF;
 * either half alone is refused, as it names no character.
 */
static size_t parse_escape(struct parser *p, char *out)
{
    static const char FROM[] = "\"\\/bfnrt", TO[] = "\"\\/\b\f\n\r\t";
    int c = peek(p);
    const char *simple = c > 0 ? strchr(FROM, c) : NULL;
    if (simple != NULL) {
        p->at++;
        out[0] = TO[simple - FROM];
        return 1;
    }
    if (c != 'u')
        return fail(p, "unknown escape in a string"), 0;
    p->at++;
    long cp = hex4(p);
    if (cp < 0)
        return fail(p, "\\u needs four hex digits"), 0;
    if (cp >= 0xdc00 && cp < 0xe000)
        return fail(p, "a low surrogate (\\u%04lx) with no high one before it", cp), 0;
    if (cp >= 0xd800 && cp < 0xdc00) {
        if (!(p->at + 1 < p->size && p->text[p->at] == '\\' && p->text[p->at + 1] == 'u'))
            return fail(p, "a high surrogate (\\u%04lx) with no \\u escape of a low one after it", cp), 0;
        p->at += 2;
        long low = hex4(p);
        if (low < 0)
            return fail(p, "\\u needs four hex digits"), 0;
        if (!(low >= 0xdc00 && low < 0xe000))
            return fail(p, "a high surrogate followed by \\u%04lx, not by a low one (\\udc00..\\udfff)",
                        low), 0;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    return put_utf8(out, (unsigned long)cp);
}

/* A string at p->at (its opening quote); its bytes go to a new buffer. */
static int parse_string(struct parser *p, char **out, size_t *length)
{
    size_t start = ++p->at, bound = 0;
    /* The unescaped text is never longer than the escaped one. */
    while (start + bound < p->size && p->text[start + bound] != '"')
        bound += p->text[start + bound] == '\\' ? 2 : 1;
    char *buf = malloc(bound + 1);
    size_t used = 0;
    if (buf == NULL)
        return fail(p, "out of memory");
    for (;;) {
        int c = peek(p);
        if (c < 0) {
            free(buf);
            return fail(p, "a string is not closed");
        }
        p->at++;
        if (c == '"')
            break;
        if (c < 0x20) {
            free(buf);
            return fail(p, "a control character in a string");
        }
        if (c >= 0x80) { /* a UTF-8 character, copied whole where it is one */
            size_t n = json_utf8_length(p->text + p->at - 1, p->size - (p->at - 1));
            if (n == 0 || used + n > bound) {
                p->at--;
                free(buf);
                return fail(p, "a byte that is not UTF-8 (0x%02x) in a string", c);
            }
            memcpy(buf + used, p->text + p->at - 1, n);
            used += n;
            p->at += n - 1;
            continue;
        }
        if (c != '\\') {
            buf[used++] = (char)c;
            continue;
        }
        char code[4];
        size_t n = parse_escape(p, code);
        if (n == 0 || used + n > bound) {
            free(buf);
            return fail(p, "a bad escape in a string");
        }
        memcpy(buf + used, code, n);
        used += n;
    }
    buf[used] = '\0';
    *out = buf;
    *length = used;
    return 0;
}

/* RFC 8259's number grammar, then strtod on a terminated copy. */
static int parse_number(struct parser *p, struct json_value *v)
{
    size_t start = p->at;
    char copy[512];
    if (peek(p) == '-')
        p->at++;
    if (peek(p) == '0')
        p->at++;
    else if (peek(p) >= '1' && peek(p) <= '9')
        while (peek(p) >= '0' && peek(p) <= '9')
            p->at++;
    else
        return fail(p, "expected a value");
    if (peek(p) == '.') {
        p->at++;
        if (!(peek(p) >= '0' && peek(p) <= '9'))
            return fail(p, "expected a digit after '.'");
        while (peek(p) >= '0' && peek(p) <= '9')
            p->at++;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->at++;
        if (peek(p) == '+' || peek(p) == '-')
            p->at++;
        if (!(peek(p) >= '0' && peek(p) <= '9'))
            return fail(p, "expected a digit in an exponent");
        while (peek(p) >= '0' && peek(p) <= '9')
            p->at++;
    }
    if (p->at - start >= sizeof copy)
        return fail(p, "a number of more than %zu characters", sizeof copy - 1);
    memcpy(copy, p->text + start, p->at - start);
    copy[p->at - start] = '\0';
    v->kind = JSON_NUMBER;
    v->number = strtod(copy, NULL);
    return 0;
}

/* Appends one member slot to an array or object; the new slot, or NULL. */
static struct json_value *grow(struct parser *p, struct json_value *v, size_t *capacity)
{
    if (v->length == *capacity) {
        size_t more = *capacity ? 2 * *capacity : 4;
        struct json_value *items = realloc(v->items, more * sizeof *items);
        if (items == NULL)
            return fail(p, "out of memory"), NULL;
        v->items = items;
        if (v->kind == JSON_OBJECT) {
            char **keys = realloc(v->keys, more * sizeof *keys);
            if (keys == NULL)
                return fail(p, "out of memory"), NULL;
            v->keys = keys;
        }
        *capacity = more;
    }
    memset(&v->items[v->length], 0, sizeof v->items[0]);
    return &v->items[v->length];
}

/* An array or an object at p->at (its bracket); `v->kind` is set by the caller. */
static int parse_members(struct parser *p, struct json_value *v, int depth)
{
    const char close = v->kind == JSON_ARRAY ? ']' : '}';
    size_t capacity = 0;
    p->at++;
    skip_space(p);
    if (peek(p) == close) {
        p->at++;
        return 0;
    }
    for (;;) {
        struct json_value *item = grow(p, v, &capacity);
        char *key = NULL;
        size_t key_length;
        if (item == NULL)
            return -1;
        skip_space(p);
        if (v->kind == JSON_OBJECT) {
            if (peek(p) != '"')
                return fail(p, "expected a member name in quotes");
            if (parse_string(p, &key, &key_length) != 0)
                return -1;
            skip_space(p);
            if (peek(p) != ':') {
                free(key);
                return fail(p, "expected ':' after a member name");
            }
            p->at++;
            v->keys[v->length] = key;
        }
        if (parse_value(p, item, depth + 1) != 0) {
            free(key);
            release(item);
            return -1;
        }
        v->length++;
        skip_space(p);
        if (peek(p) == close) {
            p->at++;
            return 0;
        }
        if (peek(p) != ',')
            return fail(p, "expected ',' or '%c'", close);
        p->at++;
    }
}

/* Whether the text at p->at is `word`; consumes it if so. */
static bool literal(struct parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->size - p->at < n || memcmp(p->text + p->at, word, n) != 0)
        return false;
    p->at += n;
    return true;
}

static int parse_value(struct parser *p, struct json_value *v, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return fail(p, "nested deeper than %d levels", JSON_MAX_DEPTH);
    skip_space(p);
    switch (peek(p)) {
    case '{': v->kind = JSON_OBJECT; return parse_members(p, v, depth);
    case '[': v->kind = JSON_ARRAY; return parse_members(p, v, depth);
    case '"':
        if (parse_string(p, &v->string, &v->length) != 0)
            return -1;
        v->kind = JSON_STRING;
        return 0;
    case 't': v->kind = JSON_TRUE; return literal(p, "true") ? 0 : fail(p, "expected a value");
    case 'f': v->kind = JSON_FALSE; return literal(p, "false") ? 0 : fail(p, "expected a value");
    case 'n': v->kind = JSON_NULL; return literal(p, "null") ? 0 : fail(p, "expected a value");
    case -1: return fail(p, "the text ends where a value should be");
    default: return parse_number(p, v);
    }
}

struct json_value *json_parse(const char *text, size_t size, char *err, size_t cap)
{
    struct parser p = {text, size, 0, err, cap};
    struct json_value *root = calloc(1, sizeof *root);
    if (cap > 0)
        err[0] = '\0';
    if (root == NULL) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    if (parse_value(&p, root, 0) == 0) {
        skip_space(&p);
        if (p.at == p.size)
            return root;
        fail(&p, "text after the value");
    }
    json_free(root);
    return NULL;
}

void json_free(struct json_value *root)
{
    if (root == NULL)
        return;
    release(root);
    free(root);
}

const char *json_kind_name(enum json_kind kind)
{
    switch (kind) {
    case JSON_NULL: return "null";
    case JSON_FALSE:
    case JSON_TRUE: return "a boolean";
    case JSON_NUMBER: return "a number";
    case JSON_STRING: return "a string";
    case JSON_ARRAY: return "an array";
    case JSON_OBJECT: return "an object";
    }
    return "a value";
}

size_t json_utf8_length(const char *s, size_t avail)
{
    static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
    const unsigned char *u = (const unsigned char *)s;
    if (avail == 0)
        return 0;
    size_t n = u[0] < 0x80 ? 1 : u[0] >= 0xc2 && u[0] <= 0xdf ? 2 : u[0] >= 0xe0 && u[0] <= 0xef ? 3
             : u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : 0;
    if (n == 0 || avail < n)
        return 0;
    unsigned long cp = u[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) { /* a NUL is no continuation byte: the loop stops there */
        if ((u[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (u[i] & 0x3f);
    }
    return cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000) ? 0 : n;
}

const struct json_value *json_member(const struct json_value *object, const char *key)
{
    if (object == NULL || object->kind != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < object->length; i++)
        if (strcmp(object->keys[i], key) == 0)
            return &object->items[i];
    return NULL;
}

const char *json_member_string(const struct json_value *object, const char *key)
{
    const struct json_value *v = json_member(object, key);
    return v != NULL && v->kind == JSON_STRING ? v->string : NULL;
}

double json_member_number(const struct json_value *object, const char *key, double otherwise)
{
    const struct json_value *v = json_member(object, key);
    return v != NULL && v->kind == JSON_NUMBER ? v->number : otherwise;
}
