/*
 * fuzz_args.c: libFuzzer target for the runner's command line, cli_parse()
 * and cli_parse_count() in src/cli/args.c. The input is argv[1..]: words
 * separated by NUL bytes (at most 64). Besides the sanitizers' findings it
 * traps when the parser breaks its contract (src/cli/args.h):
 *   - refused: -1 and a one-line, non-empty, NUL-terminated reason;
 *   - accepted: a command (or --help/--version); a block size of 0 or a
 *     power of two; reduce with a file unless --help; every string it keeps
 *     points into argv.
 * Seeds: tests/fuzz/corpus/args/; tokens: tests/fuzz/args.dict.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define REQUIRE(cond)              \
    do {                           \
        if (!(cond))               \
            __builtin_trap();      \
    } while (0)

#define MAX_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* NULL, or a pointer into one of the words. */
static int inside(const char *p, char *const *words, int n)
{
    if (p == NULL)
        return 1;
    for (int i = 0; i < n; i++)
        if (p >= words[i] && p <= words[i] + strlen(words[i]))
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    char *argv[MAX_WORDS + 2];
    int argc = 1;
    struct cli_args args;
    char err[512];
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    argv[0] = (char *)"clfold";
    for (size_t at = 0; at <= size && argc <= MAX_WORDS; at += strlen(text + at) + 1)
        argv[argc++] = text + at;
    argv[argc] = NULL;

    memset(err, 'x', sizeof err);
    if (cli_parse(argc, argv, &args, err, sizeof err) != 0) {
        REQUIRE(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
        REQUIRE(strchr(err, '\n') == NULL);
    } else {
        REQUIRE(args.command != CMD_NONE || args.help || args.version);
        REQUIRE(args.block == 0 || (args.block & (args.block - 1)) == 0);
        REQUIRE(args.command != CMD_REDUCE || args.help || args.file != NULL);
        REQUIRE(inside(args.device, argv, argc) && inside(args.file, argv, argc));
        REQUIRE(clfold_type_name(args.type) != NULL && clfold_op_name(args.op) != NULL &&
                clfold_kernel_name(args.kernel) != NULL);
    }
    for (int i = 1; i < argc; i++) {
        size_t count = 12345;
        if (cli_parse_count(argv[i], &count) != 0)
            REQUIRE(count == 12345); /* untouched when refused */
    }
    free(text);
    return 0;
}
