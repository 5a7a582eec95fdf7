/*
 * test_json.c: the JSON reader of `clfold compare` (src/cli/json.c) on its
 * own, host only: what it builds from valid texts (escapes, surrogate pairs,
 * numbers, nesting, members), and that every malformed text is refused with
 * a one-line reason that says where. CI also runs it under valgrind;
 * fuzz/fuzz_json.c fuzzes the same reader.
 */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "util.h"

/* Parses the C string; the root, or NULL with the reason in err. */
static struct json_value *parse(const char *text, char *err, size_t cap)
{
    return json_parse(text, strlen(text), err, cap);
}

static void test_values(void)
{
    char err[256];
    struct json_value *v = parse(" {\"a\": [1, -2.5e3, 0, true, false, null], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\","
                                 " \"e\": {}, \"z\": [], \"a\": 7} ", err, sizeof err);
    EXPECT(v != NULL && v->kind == JSON_OBJECT && v->length == 5, "object: %s", err);
    if (v == NULL)
        return;
    const struct json_value *a = json_member(v, "a");
    EXPECT(a != NULL && a->kind == JSON_ARRAY && a->length == 6, "array");
    EXPECT(a->items[0].number == 1 && a->items[1].number == -2500 && a->items[2].number == 0, "numbers");
    EXPECT(a->items[3].kind == JSON_TRUE && a->items[4].kind == JSON_FALSE && a->items[5].kind == JSON_NULL,
           "literals");
    EXPECT(strcmp(json_member_string(v, "s"), "x\xc3\xa9\xf0\x9f\x98\x80\n") == 0, "escapes and a surrogate pair");
    EXPECT(json_member(v, "e")->kind == JSON_OBJECT && json_member(v, "z")->length == 0, "empty members");
    EXPECT(json_member_number(v, "missing", -7) == -7 && json_member_string(v, "a") == NULL, "absent, or not a string");
    EXPECT(json_member(a, "a") == NULL, "an array has no members");
    json_free(v);
    v = parse("\"\\ud800x\"", err, sizeof err); /* a lone surrogate becomes U+FFFD */
    EXPECT(v != NULL && strcmp(v->string, "\xef\xbf\xbdx") == 0, "lone surrogate: %s", err);
    json_free(v);
    v = parse("\"a\\u0000b\"", err, sizeof err);
    EXPECT(v != NULL && v->length == 3 && v->string[1] == '\0', "an escaped NUL keeps the length");
    json_free(v);
    json_free(NULL);
}

/* Builds "[[[...]]]" `depth` deep. */
static void nested(char *buf, int depth)
{
    memset(buf, '[', (size_t)depth);
    memset(buf + depth, ']', (size_t)depth);
    buf[2 * depth] = '\0';
}

static void test_refused(void)
{
    static const char *const BAD[] = {
        "", " ", "{", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{a: 1}", "{\"a\": 1,}", "01", "1.",
        "-", "1e", "+1", ".5", "tru", "nul", "\"abc", "\"a\\x\"", "\"\\u12g4\"", "\"tab\there\"",
        "[1] x", "{} {}", "NaN", "Infinity", "'a'", "[\"a\\", "\xef\xbb\xbf{}",
    };
    char err[256], deep[2 * (JSON_MAX_DEPTH + 2) + 1];
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        memset(err, 'x', sizeof err);
        struct json_value *v = parse(BAD[i], err, sizeof err);
        EXPECT(v == NULL, "accepted \"%s\"", BAD[i]);
        EXPECT(strncmp(err, "line 1, column ", 15) == 0 && strchr(err, '\n') == NULL,
               "\"%s\": the reason \"%s\"", BAD[i], err);
        json_free(v);
    }
    struct json_value *v = parse("{\n  \"a\": [1,\n  2,]}", err, sizeof err);
    EXPECT(v == NULL && strncmp(err, "line 3, column 5:", 17) == 0, "where: %s", err);
    nested(deep, JSON_MAX_DEPTH + 2);
    EXPECT(parse(deep, err, sizeof err) == NULL && strstr(err, "deeper") != NULL, "too deep: %s", err);
    nested(deep, JSON_MAX_DEPTH);
    v = parse(deep, err, sizeof err);
    EXPECT(v != NULL, "%d levels: %s", JSON_MAX_DEPTH, err);
    json_free(v);
    /* Not NUL-terminated: the reader stops at size. */
    v = json_parse("[1]]", 3, err, sizeof err);
    EXPECT(v != NULL && v->length == 1, "a range without a terminator: %s", err);
    json_free(v);
    char small[8];
    EXPECT(json_parse("[", 1, small, sizeof small) == NULL && memchr(small, '\0', sizeof small) != NULL,
           "an 8-byte reason buffer");
}

int main(void)
{
    test_values();
    test_refused();
    return test_finish("test_json");
}
