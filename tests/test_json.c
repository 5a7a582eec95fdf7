/*
 * test_json.c: the JSON reader of `clfold compare` (src/cli/json.c) on its
 * own, host only: what it builds from valid texts (escapes, surrogate pairs,
 * numbers, nesting, members), and that every malformed text is refused with
 * a one-line reason that says where; then the runner's writers of JSON and
 * of text for a terminal (src/cli/output.c). CI also runs it under valgrind;
 * fuzz/fuzz_json.c fuzzes the same reader.
 */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "output.h"
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
    v = parse("\"a\\u0000b\"", err, sizeof err);
    EXPECT(v != NULL && v->length == 3 && v->string[1] == '\0', "an escaped NUL keeps the length");
    json_free(v);
    json_free(NULL);
}

/* The string that the JSON string literal `text` holds, or NULL (the reason in err). */
static char *string_of(const char *text, char *err, size_t cap, size_t *length)
{
    struct json_value *v = parse(text, err, cap);
    char *copy = NULL;
    if (v != NULL && v->kind == JSON_STRING && (copy = malloc(v->length + 1)) != NULL) {
        memcpy(copy, v->string, v->length + 1);
        *length = v->length;
    }
    json_free(v);
    return copy;
}

/*
 * \u escapes at the edges of UTF-8's lengths and of the surrogates: a pair
 * makes one 4-byte character, from U+10000 (\ud800\udc00) to U+10FFFF
 * (\udbff\udfff); a surrogate without its other half is refused, by name.
 * Raw UTF-8 is taken as it is where it is valid, refused where it is not.
 */
static void test_unicode(void)
{
    static const struct { const char *text, *utf8; } GOOD[] = {
        {"\"\\u007f\"", "\x7f"},                 {"\"\\u0080\"", "\xc2\x80"},
        {"\"\\u07ff\"", "\xdf\xbf"},             {"\"\\u0800\"", "\xe0\xa0\x80"},
        {"\"\\ud7ff\"", "\xed\x9f\xbf"},         {"\"\\ue000\"", "\xee\x80\x80"},
        {"\"\\uffff\"", "\xef\xbf\xbf"},         {"\"\\ud800\\udc00\"", "\xf0\x90\x80\x80"},
        {"\"\\ud800\\udfff\"", "\xf0\x90\x8f\xbf"}, {"\"\\udbff\\udc00\"", "\xf4\x8f\xb0\x80"},
        {"\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf"}, {"\"\\uD83D\\uDE00\"", "\xf0\x9f\x98\x80"},
        {"\"a\\ud800\\udc00\\ud800\\udc00b\"", "a\xf0\x90\x80\x80\xf0\x90\x80\x80" "b"},
        {"\"\xf0\x90\x80\x80\"", "\xf0\x90\x80\x80"}, {"\"\xf4\x8f\xbf\xbf\"", "\xf4\x8f\xbf\xbf"},
        {"\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\"", "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf"},
    };
    static const struct { const char *text, *reason; } BAD[] = {
        {"\"\\ud800\"", "surrogate"},         {"\"\\udbff\"", "surrogate"},
        {"\"\\ud800x\"", "surrogate"},        {"\"\\udc00\"", "surrogate"},
        {"\"\\udfff\"", "surrogate"},         {"\"\\udc00\\ud800\"", "surrogate"},
        {"\"\\ud800\\u0041\"", "surrogate"},  {"\"\\ud800\\ud800\"", "surrogate"},
        {"\"\\udbff\\ue000\"", "surrogate"},  {"\"\\ud800\\n\"", "surrogate"},
        {"\"\\ud800\\u12\"", "hex"},         {"\"\xff\"", "UTF-8"},
        {"\"\x80\"", "UTF-8"},                 {"\"\xc0\x80\"", "UTF-8"},
        {"\"\xc1\xbf\"", "UTF-8"},             {"\"\xe0\x9f\xbf\"", "UTF-8"},
        {"\"\xed\xa0\x80\"", "UTF-8"},         {"\"\xf0\x8f\xbf\xbf\"", "UTF-8"},
        {"\"\xf4\x90\x80\x80\"", "UTF-8"},     {"\"\xf5\x80\x80\x80\"", "UTF-8"},
        {"\"\xe2\x82\"", "UTF-8"},             {"\"\xe2\x82", "UTF-8"},
    };
    char err[256];
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++) {
        size_t length = 0;
        char *got = string_of(GOOD[i].text, err, sizeof err, &length);
        EXPECT(got != NULL && length == strlen(GOOD[i].utf8) && strcmp(got, GOOD[i].utf8) == 0,
               "%s: %s", GOOD[i].text, got != NULL ? "other bytes" : err);
        free(got);
    }
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        struct json_value *v = parse(BAD[i].text, err, sizeof err);
        EXPECT(v == NULL && strncmp(err, "line 1, column ", 15) == 0 && strstr(err, BAD[i].reason) != NULL,
               "%s: %s", BAD[i].text, v != NULL ? "accepted" : err);
        json_free(v);
    }
}

/* What json_string, csv_word or plain_text write for `text`, in buf. */
static const char *written(const char *text, int writer, char *buf, size_t cap)
{
    FILE *out = tmpfile();
    size_t got = 0;
    buf[0] = '\0';
    if (writer == 2)
        return plain_text(buf, cap, text);
    if (out == NULL)
        return buf;
    if (writer == 0)
        json_string(out, text);
    else
        csv_word(out, text);
    rewind(out);
    got = fread(buf, 1, cap - 1, out);
    buf[got] = '\0';
    fclose(out);
    return buf;
}

/*
 * The writers: json_string escapes what JSON must and writes UTF-8 as it is,
 * 4-byte characters at both ends of their range too, and each byte that is
 * no part of a UTF-8 character as \ufffd, so that its output is always valid
 * JSON, which the reader takes back; csv_word quotes only what needs it;
 * plain_text escapes what a terminal would obey.
 */
static void test_writers(void)
{
    static const struct { const char *text, *json; } JSON[] = {
        {"a\"b\\c", "\"a\\\"b\\\\c\""},
        {"\x1b[2J\x07\n\x7f", "\"\\u001b[2J\\u0007\\u000a\x7f\""},
        {"\xf0\x90\x80\x80 \xf4\x8f\xbf\xbf \xef\xbf\xbf", "\"\xf0\x90\x80\x80 \xf4\x8f\xbf\xbf \xef\xbf\xbf\""},
        {"x\xffy", "\"x\\ufffdy\""},
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""},
        {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""},
        {"cut \xe2\x82", "\"cut \\ufffd\\ufffd\""},
    };
    static const struct { const char *text, *csv; } CSV[] = {
        {"float", "float"}, {"sum,\"x", "\"sum,\"\"x\""}, {"a\nb", "\"a b\""}, {"", ""},
    };
    static const struct { const char *text, *plain; } PLAIN[] = {
        {"Evil\x1b[2J\x07\n\t\r\\x", "Evil\\x1b[2J\\x07\\n\\t\\r\\\\x"},
        {"\x7f\xc2\x9b\xc2\xa0\xff", "\\x7f\\u009b\xc2\xa0\\xff"},
        {"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"},
        {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},
    };
    char buf[256], err[256];
    for (size_t i = 0; i < sizeof JSON / sizeof JSON[0]; i++) {
        written(JSON[i].text, 0, buf, sizeof buf);
        struct json_value *v = parse(buf, err, sizeof err);
        EXPECT(strcmp(buf, JSON[i].json) == 0 && v != NULL, "json_string: %s, read back: %s", buf,
               v != NULL ? "yes" : err);
        json_free(v);
    }
    for (size_t i = 0; i < sizeof CSV / sizeof CSV[0]; i++)
        EXPECT(strcmp(written(CSV[i].text, 1, buf, sizeof buf), CSV[i].csv) == 0, "csv_word: %s", buf);
    for (size_t i = 0; i < sizeof PLAIN / sizeof PLAIN[0]; i++)
        EXPECT(strcmp(written(PLAIN[i].text, 2, buf, sizeof buf), PLAIN[i].plain) == 0, "plain_text: %s", buf);
    char small[6]; /* "ab\\x1b" needs 7 */
    EXPECT(strcmp(plain_text(small, sizeof small, "ab\x1b"), "ab") == 0, "plain_text cuts before an escape");
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
    test_unicode();
    test_writers();
    return test_finish("test_json");
}
