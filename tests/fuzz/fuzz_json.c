/*
 * fuzz_json.c: libFuzzer target for the JSON reader of `clfold compare`,
 * json_parse() in src/cli/json.c. The input is the text, not terminated.
 * Besides the sanitizers' findings it traps when the reader breaks its
 * contract (src/cli/json.h): refused, a one-line reason; accepted, a tree
 * whose strings are valid UTF-8 terminated at their length and whose members
 * all have names, with json_member finding the first of each name.
 * Seeds: tests/fuzz/corpus/json/; tokens: tests/fuzz/json.dict.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define REQUIRE(cond)              \
    do {                           \
        if (!(cond))               \
            __builtin_trap();      \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Walks the tree, checking each value; returns its depth. */
static int walk(const struct json_value *v)
{
    int deepest = 0;
    if (v->kind == JSON_STRING) {
        REQUIRE(v->string != NULL && v->string[v->length] == '\0');
        for (size_t at = 0, n; at < v->length; at += n) /* valid UTF-8, NULs from \u0000 included */
            REQUIRE((n = v->string[at] == '\0' ? 1 : json_utf8_length(v->string + at, v->length - at)) > 0);
    }
    if (v->kind == JSON_OBJECT || v->kind == JSON_ARRAY) {
        REQUIRE(v->length == 0 || v->items != NULL);
        for (size_t i = 0; i < v->length; i++) {
            if (v->kind == JSON_OBJECT) {
                REQUIRE(v->keys[i] != NULL);
                const struct json_value *first = json_member(v, v->keys[i]);
                REQUIRE(first != NULL && first <= &v->items[i]);
            }
            int depth = walk(&v->items[i]);
            deepest = depth > deepest ? depth : deepest;
        }
        return deepest + 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    char *copy = malloc(size + 1); /* exactly `size` bytes readable: ASan sees any overrun */
    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    memset(err, 'x', sizeof err);
    struct json_value *root = json_parse(copy, size, err, sizeof err);
    if (root == NULL) {
        REQUIRE(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
        REQUIRE(strchr(err, '\n') == NULL);
    } else {
        REQUIRE(walk(root) <= JSON_MAX_DEPTH + 1);
    }
    json_free(root);
    free(copy);
    return 0;
}
