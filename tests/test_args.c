/*
 * test_args.c: the runner's command-line parser (src/cli/args.c) on its own,
 * host only: what each accepted command line sets, and that every malformed
 * one is refused with a one-line reason that names the culprit. CI also runs
 * it under valgrind; fuzz/fuzz_args.c fuzzes the same parser.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "util.h"

#define MAX_WORDS 16

/* Parses "clfold" plus the NULL-terminated words; the reason lands in err. */
static int parse(struct cli_args *args, char *err, size_t cap, const char *first, ...)
{
    static char storage[MAX_WORDS][128];
    char *argv[MAX_WORDS + 1];
    int argc = 0;
    va_list words;
    argv[argc++] = (char *)"clfold";
    va_start(words, first);
    for (const char *w = first; w != NULL && argc < MAX_WORDS; w = va_arg(words, const char *)) {
        snprintf(storage[argc], sizeof storage[argc], "%s", w);
        argv[argc] = storage[argc];
        argc++;
    }
    va_end(words);
    argv[argc] = NULL;
    return cli_parse(argc, argv, args, err, cap);
}

#define ACCEPT(args, ...)                                                               \
    do {                                                                                \
        char err_[256] = "";                                                            \
        EXPECT(parse(args, err_, sizeof err_, __VA_ARGS__, (const char *)NULL) == 0,     \
              "refused: %s", err_);                                                     \
    } while (0)

/* Refused, with a one-line reason containing `needle`. */
#define REFUSE(needle, ...)                                                             \
    do {                                                                                \
        struct cli_args a_;                                                             \
        char err_[256] = "";                                                            \
        int rc_ = parse(&a_, err_, sizeof err_, __VA_ARGS__, (const char *)NULL);       \
        EXPECT(rc_ == -1 && strstr(err_, needle) != NULL && strchr(err_, '\n') == NULL,  \
              "%s: rc %d, reason \"%s\" (want \"%s\")", #__VA_ARGS__, rc_, err_, needle); \
    } while (0)

static void test_accepted(void)
{
    struct cli_args a;
    ACCEPT(&a, "ladder");
    EXPECT(a.command == CMD_LADDER && a.n == (size_t)1 << 22 && a.type == CLFOLD_INT32 &&
              a.op == CLFOLD_SUM && a.block == 0 && a.format == FORMAT_TABLE && !a.verbose &&
              a.device == NULL,
          "ladder defaults");
    ACCEPT(&a, "ladder", "-d", "0:0", "-n", "2^12", "-t", "float", "-o", "max", "-b", "64",
           "--accuracy", "compensated", "--format=csv", "-v");
    EXPECT(a.device != NULL && strcmp(a.device, "0:0") == 0 && a.n == 4096 &&
              a.type == CLFOLD_FLOAT && a.op == CLFOLD_MAX && a.block == 64 &&
              a.accuracy == CLFOLD_ACCURACY_COMPENSATED && a.format == FORMAT_CSV && a.verbose,
          "ladder with every option");
    ACCEPT(&a, "ladder", "--count=12345", "--type=UINT8", "--op", "XOR", "--block=1");
    EXPECT(a.n == 12345 && a.type == CLFOLD_UINT8 && a.op == CLFOLD_XOR && a.block == 1,
          "long options, names in capitals");
    ACCEPT(&a, "ladder", "-n", "18446744073709551615");
    EXPECT(a.n == SIZE_MAX, "-n SIZE_MAX: %zu", a.n);
    ACCEPT(&a, "ladder", "-n", "2^31");
    EXPECT(a.n == (size_t)1 << 31, "-n 2^31: %zu", a.n);
    REFUSE("--kernel is given twice", "reduce", "-k", "k6", "--kernel=atomic", "file.npy");
    REFUSE("--op is given twice", "reduce", "-o", "sum", "-o", "max", "file.npy");
    ACCEPT(&a, "bench", "--peer", "a", "--peer", "b");
    EXPECT(a.n_peers == 2, "bench: --peer as often as there are peers");
    ACCEPT(&a, "reduce", "-o", "max", "--", "-x.npy");
    EXPECT(a.file != NULL && strcmp(a.file, "-x.npy") == 0 && a.op == CLFOLD_MAX,
          "-- ends the options");
    REFUSE("unexpected argument \"-o\"", "reduce", "--", "-x.npy", "-o");
    REFUSE("--device needs a value, not an empty one", "reduce", "-d", "", "x.npy");
    ACCEPT(&a, "reduce", "-");
    EXPECT(a.file != NULL && strcmp(a.file, "-") == 0, "a lone '-' is a file name");
    ACCEPT(&a, "reduce", "--help");
    EXPECT(a.help && a.file == NULL, "reduce --help needs no file");
    ACCEPT(&a, "scan", "-k", "blelloch-padded", "--exclusive", "-o", "max", "-O", "out.npy",
           "in.npy");
    EXPECT(a.command == CMD_SCAN && a.scan_kernel == CLFOLD_SCAN_BLELLOCH_PADDED && a.exclusive &&
              a.op == CLFOLD_MAX && a.output != NULL && strcmp(a.output, "out.npy") == 0 &&
              a.file != NULL && strcmp(a.file, "in.npy") == 0,
          "scan with a ladder kernel, --exclusive and -O");
    ACCEPT(&a, "ladder", "--scan");
    EXPECT(a.command == CMD_LADDER && a.scan && !a.exclusive, "ladder --scan");
    ACCEPT(&a, "reduce", "--mpi", "-d", "local-rank", "-o", "argmax", "in.npy");
    EXPECT(a.command == CMD_REDUCE && a.mpi && a.device != NULL &&
              strcmp(a.device, "local-rank") == 0 && a.op == CLFOLD_ARGMAX,
          "reduce --mpi -d local-rank");
    ACCEPT(&a, "devices", "--format", "json");
    EXPECT(a.command == CMD_DEVICES && a.format == FORMAT_JSON, "devices --format json");
    ACCEPT(&a, "--version");
    EXPECT(a.version && a.command == CMD_NONE, "--version");
    ACCEPT(&a, "-h");
    EXPECT(a.help && a.command == CMD_NONE, "-h");
}

static void test_refused(void)
{
    struct cli_args a;
    char err[256] = "";
    EXPECT(parse(&a, err, sizeof err, (const char *)NULL) == -1 && strstr(err, "no command") != NULL,
          "no words: \"%s\"", err);
    REFUSE("unknown command \"\"", "");
    REFUSE("unknown command \"frobnicate\"", "frobnicate");
    REFUSE("unknown command \"LADDER\"", "LADDER");
    REFUSE("unknown option \"--frobnicate\"", "ladder", "--frobnicate");
    REFUSE("unknown option \"-x\"", "ladder", "-x");
    REFUSE("unknown option \"-k\"", "ladder", "-k", "k3");
    REFUSE("unknown option \"-n\"", "devices", "-n", "5");
    REFUSE("unknown option \"-d=0:0\"", "ladder", "-d=0:0");
    REFUSE("needs a value", "ladder", "-n");
    REFUSE("needs a value", "ladder", "--format");
    REFUSE("takes no value", "ladder", "--verbose=yes");
    REFUSE("--count needs a value, not an empty one", "ladder", "-n", "");
    const char *counts[] = {"12abc", "-5", " 12", "2^64", "2^-1", "2^", "0x10", "1e6",
                            "99999999999999999999999", "1 2", "3.5", "3^4", "2^3x"};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        REFUSE("-n takes a count", "ladder", "-n", counts[i]);
    const char *blocks[] = {"0", "3", "96", "12abc", "2^64", "-64", "1000000"};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        REFUSE("-b takes a power of two", "ladder", "-b", blocks[i]);
    REFUSE("unknown type \"complex\"", "ladder", "-t", "complex");
    REFUSE("--type needs a value, not an empty one", "ladder", "-t", "");
    REFUSE("unknown operator \"nand\"", "reduce", "--op=nand", "x.npy");
    REFUSE("unknown kernel \"k9\"", "reduce", "-k", "k9", "x.npy");
    REFUSE("--accuracy takes", "ladder", "--accuracy", "precise");
    REFUSE("--format needs a value, not an empty one", "ladder", "--format=");
    REFUSE("--format takes", "ladder", "--format", "xml");
    REFUSE("devices --format takes table or json", "devices", "--format", "csv");
    REFUSE("reduce needs a .npy FILE", "reduce");
    REFUSE("scan needs -O OUT.npy", "scan", "in.npy");
    REFUSE("unknown scan kernel \"k3\"", "scan", "-k", "k3", "-O", "o.npy", "in.npy");
    REFUSE("unknown option \"--exclusive\"", "reduce", "--exclusive", "x.npy");
    REFUSE("unexpected argument \"b.npy\"", "reduce", "a.npy", "b.npy");
    REFUSE("--mpi reduces whole arrays: not with --axis", "reduce", "--mpi", "--axis", "0", "x.npy");
    REFUSE("--mpi reduces whole arrays: not with --segments", "reduce", "--mpi", "--segments",
           "o.npy", "x.npy");
    REFUSE("-d local-rank needs --mpi", "reduce", "-d", "local-rank", "x.npy");
    REFUSE("unknown option \"--mpi\"", "scan", "--mpi", "-O", "o.npy", "x.npy");
    REFUSE("unexpected argument \"extra\"", "ladder", "extra");
    /* The user's words are quoted with their control characters replaced: one line. */
    REFUSE("unknown option \"--?kernel\"", "ladder", "--\nkernel");
    REFUSE("not \"1?2\"", "ladder", "-n", "1\r2");
    REFUSE("unknown command \"a?b\"", "a\033b");
}

/* Counts: digits or 2^K, nothing else; a refused one leaves the value alone. */
static void test_counts(void)
{
    const struct {
        const char *text;
        size_t value;
    } good[] = {{"0", 0}, {"1", 1}, {"007", 7}, {"2^0", 1}, {"2^10", 1024}, {"02^5", 32},
                {"4294967296", (size_t)1 << 32}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t value = 12345;
        EXPECT(cli_parse_count(good[i].text, &value) == 0 && value == good[i].value,
              "\"%s\": %zu", good[i].text, value);
    }
    size_t value = 12345;
    EXPECT(cli_parse_count(NULL, &value) == -1 && value == 12345, "NULL");
    EXPECT(cli_parse_count("2^64", &value) == -1 && value == 12345, "2^64");
    EXPECT(cli_parse_count("18446744073709551616", &value) == -1 && value == 12345, "2^64 in digits");
}

/* Reasons are cut to the buffer and stay terminated. */
static void test_small_buffer(void)
{
    struct cli_args a;
    char err[8];
    memset(err, 'x', sizeof err);
    EXPECT(parse(&a, err, sizeof err, "frobnicate", (const char *)NULL) == -1 &&
              memchr(err, '\0', sizeof err) != NULL,
          "an 8-byte buffer");
}

int main(void)
{
    test_accepted();
    test_refused();
    test_counts();
    test_small_buffer();
    return test_finish("test_args");
}
