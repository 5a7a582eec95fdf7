/*
 * args.c: the runner's command-line grammar:
 *   clfold [--help | --version]
 *   clfold devices [--format table|json]
 *   clfold ladder  [-d SEL] [-n N] [-t TYPE] [-o OP] [-b BLOCK] [--accuracy A]
 *                  [--format table|csv|json] [-v]
 *   clfold reduce  [-d SEL] [-o OP] [-k KERNEL] [-b BLOCK] [--accuracy A] [-v] FILE
 *   clfold bench   [-d SEL] [--sizes LIST] [-t TYPES] [-o OPS] [-k KERNELS] [--accuracy A]
 *                  [--peer CMD]... [--format table|csv|json] [--plot FILE.png] [-v]
 * Options take their value as the next word or after '=' (--format=json).
 */
#include "args.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which options each command takes. */
enum { OPT_DEVICE = 1, OPT_N = 2, OPT_TYPE = 4, OPT_OP = 8, OPT_KERNEL = 16, OPT_BLOCK = 32,
       OPT_FORMAT = 64, OPT_VERBOSE = 128, OPT_ACCURACY = 256, OPT_SIZES = 512,
       OPT_PEER = 1024, OPT_PLOT = 2048 };

struct option_spec {
    const char *short_name; /* "-d" */
    const char *long_name;  /* "--device" */
    unsigned flag;
    bool takes_value;
};

static const struct option_spec OPTIONS[] = {
    {"-d", "--device", OPT_DEVICE, true},  {"-n", "--count", OPT_N, true},
    {"-t", "--type", OPT_TYPE, true},      {"-o", "--op", OPT_OP, true},
    {"-k", "--kernel", OPT_KERNEL, true},  {"-b", "--block", OPT_BLOCK, true},
    {NULL, "--format", OPT_FORMAT, true},  {"-v", "--verbose", OPT_VERBOSE, false},
    {NULL, "--accuracy", OPT_ACCURACY, true}, {NULL, "--sizes", OPT_SIZES, true},
    {NULL, "--peer", OPT_PEER, true},         {NULL, "--plot", OPT_PLOT, true},
};

static const struct {
    const char *name;
    enum cli_command command;
    unsigned options;
} COMMANDS[] = {
    {"devices", CMD_DEVICES, OPT_FORMAT},
    {"ladder", CMD_LADDER,
     OPT_DEVICE | OPT_N | OPT_TYPE | OPT_OP | OPT_BLOCK | OPT_FORMAT | OPT_VERBOSE | OPT_ACCURACY},
    {"reduce", CMD_REDUCE, OPT_DEVICE | OPT_OP | OPT_KERNEL | OPT_BLOCK | OPT_VERBOSE | OPT_ACCURACY},
    {"bench", CMD_BENCH,
     OPT_DEVICE | OPT_TYPE | OPT_OP | OPT_KERNEL | OPT_FORMAT | OPT_VERBOSE | OPT_ACCURACY |
         OPT_SIZES | OPT_PEER | OPT_PLOT},
};

/*
 * Writes the reason into err; returns -1. The reason quotes the user's words,
 * which may hold any byte: control characters become '?', so that it stays
 * one line (found by tests/fuzz/fuzz_args.c: "--\nkernel").
 */
static int usage_error(char *err, size_t cap, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(err, cap, format, args);
    va_end(args);
    for (char *c = err; cap > 0 && *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return -1;
}

int cli_parse_count(const char *text, size_t *value)
{
    char *end = NULL;
    if (text == NULL || !isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    unsigned long long base = strtoull(text, &end, 10);
    if (errno != 0)
        return -1;
    if (*end == '\0' && base <= SIZE_MAX) {
        *value = (size_t)base;
        return 0;
    }
    if (base != 2 || end[0] != '^' || !isdigit((unsigned char)end[1]))
        return -1;
    unsigned long long exponent = strtoull(end + 1, &end, 10);
    if (*end != '\0' || exponent >= sizeof(size_t) * 8)
        return -1;
    *value = (size_t)1 << exponent;
    return 0;
}

static int parse_block(const char *text, size_t *block, char *err, size_t cap)
{
    size_t value = 0;
    if (cli_parse_count(text, &value) != 0 || value == 0 || (value & (value - 1)) != 0)
        return usage_error(err, cap, "-b takes a power of two >= 1, not \"%s\"", text);
    *block = value;
    return 0;
}

static int parse_format(const char *text, enum cli_format *format, char *err, size_t cap)
{
    if (strcmp(text, "table") == 0)
        *format = FORMAT_TABLE;
    else if (strcmp(text, "csv") == 0)
        *format = FORMAT_CSV;
    else if (strcmp(text, "json") == 0)
        *format = FORMAT_JSON;
    else
        return usage_error(err, cap, "--format takes table, csv or json, not \"%s\"", text);
    return 0;
}

/* bench takes lists where the other commands take one name: kept as text. */
static int apply_bench_option(unsigned flag, const char *value, struct cli_args *args, char *err,
                              size_t cap)
{
    switch (flag) {
    case OPT_SIZES: args->sizes = value; return 0;
    case OPT_TYPE: args->types = value; return 0;
    case OPT_OP: args->ops = value; return 0;
    case OPT_KERNEL: args->kernels = value; return 0;
    case OPT_PLOT: args->plot = value; return 0;
    case OPT_PEER:
        if (args->n_peers == (int)(sizeof args->peers / sizeof args->peers[0]))
            return usage_error(err, cap, "at most %zu --peer options",
                               sizeof args->peers / sizeof args->peers[0]);
        args->peers[args->n_peers++] = value;
        return 0;
    default: return 1; /* not a bench list: the common handling applies */
    }
}

/* Stores the value of one option. */
static int apply_option(unsigned flag, const char *value, struct cli_args *args, char *err,
                        size_t cap)
{
    if (args->command == CMD_BENCH) {
        int handled = apply_bench_option(flag, value, args, err, cap);
        if (handled <= 0)
            return handled;
    }
    switch (flag) {
    case OPT_DEVICE: args->device = value; return 0;
    case OPT_N:
        if (cli_parse_count(value, &args->n) != 0)
            return usage_error(err, cap, "-n takes a count (digits, or 2^K), not \"%s\"", value);
        return 0;
    case OPT_TYPE:
        if (clfold_type_from_name(value, &args->type) != CLFOLD_SUCCESS)
            return usage_error(err, cap, "unknown type \"%s\" (int8 .. uint64, half, float, double)", value);
        return 0;
    case OPT_OP:
        if (clfold_op_from_name(value, &args->op) != CLFOLD_SUCCESS)
            return usage_error(err, cap, "unknown operator \"%s\" (sum, prod, min, max, and, or, xor)", value);
        return 0;
    case OPT_KERNEL:
        if (clfold_kernel_from_name(value, &args->kernel) != CLFOLD_SUCCESS)
            return usage_error(err, cap, "unknown kernel \"%s\" (k1 .. k7, atomic, auto)", value);
        return 0;
    case OPT_BLOCK: return parse_block(value, &args->block, err, cap);
    case OPT_ACCURACY:
        if (clfold_accuracy_from_name(value, &args->accuracy) != CLFOLD_SUCCESS)
            return usage_error(err, cap, "--accuracy takes default, compensated or fp64, not \"%s\"", value);
        return 0;
    case OPT_FORMAT: return parse_format(value, &args->format, err, cap);
    default: args->verbose = true; return 0;
    }
}

static const struct option_spec *find_option(const char *word, size_t length)
{
    for (size_t i = 0; i < sizeof OPTIONS / sizeof OPTIONS[0]; i++) {
        const struct option_spec *spec = &OPTIONS[i];
        if ((spec->short_name && strlen(spec->short_name) == length &&
             strncmp(word, spec->short_name, length) == 0) ||
            (strlen(spec->long_name) == length && strncmp(word, spec->long_name, length) == 0))
            return spec;
    }
    return NULL;
}

/* Parses the option at argv[*i], consuming its value; advances *i. */
static int parse_option(int argc, char **argv, int *i, unsigned allowed, struct cli_args *args,
                        char *err, size_t cap)
{
    const char *word = argv[*i];
    const char *equals = strncmp(word, "--", 2) == 0 ? strchr(word, '=') : NULL;
    size_t length = equals != NULL ? (size_t)(equals - word) : strlen(word);
    const struct option_spec *spec = find_option(word, length);

    if (spec == NULL || !(spec->flag & allowed))
        return usage_error(err, cap, "unknown option \"%.*s\" for this command (see --help)",
                           (int)length, word);
    if (!spec->takes_value) {
        if (equals != NULL)
            return usage_error(err, cap, "%s takes no value", spec->long_name);
        return apply_option(spec->flag, NULL, args, err, cap);
    }
    const char *value = equals != NULL ? equals + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
    if (value == NULL)
        return usage_error(err, cap, "%.*s needs a value", (int)length, word);
    return apply_option(spec->flag, value, args, err, cap);
}

static void set_defaults(struct cli_args *args)
{
    memset(args, 0, sizeof *args);
    args->n = (size_t)1 << 22; /* Harris's table: 2^22 ints */
    args->type = CLFOLD_INT32;
    args->op = CLFOLD_SUM;
    args->kernel = CLFOLD_AUTO;
    args->format = FORMAT_TABLE;
}

int cli_parse(int argc, char **argv, struct cli_args *args, char *err, size_t cap)
{
    unsigned allowed = 0;
    set_defaults(args);
    err[0] = '\0';
    if (argc < 2)
        return usage_error(err, cap, "no command given (devices, ladder, reduce, bench; see --help)");
    for (size_t c = 0; c < sizeof COMMANDS / sizeof COMMANDS[0]; c++) {
        if (strcmp(argv[1], COMMANDS[c].name) == 0) {
            args->command = COMMANDS[c].command;
            allowed = COMMANDS[c].options;
        }
    }
    if (args->command == CMD_NONE) {
        args->help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
        args->version = strcmp(argv[1], "--version") == 0;
        if (args->help || args->version)
            return 0;
        return usage_error(err, cap, "unknown command \"%s\" (devices, ladder, reduce, bench)", argv[1]);
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            args->help = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            if (parse_option(argc, argv, &i, allowed, args, err, cap) != 0)
                return -1;
        } else if (args->command == CMD_REDUCE && args->file == NULL) {
            args->file = argv[i];
        } else {
            return usage_error(err, cap, "unexpected argument \"%s\"", argv[i]);
        }
    }
    if (args->command == CMD_REDUCE && args->file == NULL && !args->help)
        return usage_error(err, cap, "reduce needs a .npy FILE");
    if (args->command == CMD_DEVICES && args->format == FORMAT_CSV)
        return usage_error(err, cap, "devices --format takes table or json, not \"csv\"");
    return 0;
}
