/*
 * args.c: the runner's command-line grammar, written once: OPTIONS names
 * the options, COMMANDS the commands, and USAGE which command takes which
 * option, with its synopsis and help text. The parser's rules and every
 * --help text (cli_usage) come from these tables; tests/test_cli.sh checks
 * that README's synopsis is what --help prints. Options take their value
 * as the next word or after '=' (--format=json), never an empty one; each
 * is given at most once (--peer as often as there are peers); "--" ends
 * them, and "-" is an operand (standard input).
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
       OPT_PEER = 1024, OPT_PLOT = 2048, OPT_OUTPUT = 4096, OPT_AXIS = 8192,
       OPT_SEGMENTS = 16384, OPT_SHAPE = 32768, OPT_BASELINE = 65536, OPT_EXCLUSIVE = 131072,
       OPT_SCAN = 262144, OPT_MPI = 524288 };

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
    {"-O", "--output", OPT_OUTPUT, true},     {NULL, "--axis", OPT_AXIS, true},
    {NULL, "--segments", OPT_SEGMENTS, true}, {NULL, "--shape", OPT_SHAPE, true},
    {NULL, "--baseline", OPT_BASELINE, true}, {NULL, "--exclusive", OPT_EXCLUSIVE, false},
    {NULL, "--scan", OPT_SCAN, false},       {NULL, "--mpi", OPT_MPI, false},
};

static const struct {
    const char *name;
    enum cli_command command;
    const char *summary;      /* one line for clfold --help */
    const char *description;  /* the paragraph of clfold COMMAND --help */
    const char *operands;     /* after the options in the synopsis; "" for none */
    const char *operand;      /* what the operand is, when there is one: it is required */
    bool many;                /* it takes one or more operands (args->runs), not one */
    unsigned formats;         /* the --format values it prints: bits 1 << FORMAT_* */
    unsigned required;        /* the options it needs (OPT_*), unbracketed in its synopsis */
} COMMANDS[] = {
    {"devices", CMD_DEVICES, "list every OpenCL platform and device",
     "Lists every platform and device with its P:D index, name, vendor, type,\n"
     "compute units, global and local memory, maximum work-group size, OpenCL C\n"
     "version, and what it does with double (yes/no) and half data (storage, or\n"
     "arithmetic too).\n",
     "", NULL, false, 1u << FORMAT_TABLE | 1u << FORMAT_JSON, 0},
    {"ladder", CMD_LADDER, "run Harris's reduction ladder K1..K7 and print his table",
     "Runs the host loop, the atomic baseline and Harris's kernels K1..K7 on N\n"
     "elements, checks each against the exact host result, and prints time (device\n"
     "time of all passes, best of several runs), bandwidth, step and cumulative\n"
     "speedup. Exit status 1 if any result is wrong. With --scan: the scan ladder\n"
     "(Kogge-Stone, Blelloch, padded Blelloch, auto), each scan's every output\n"
     "checked, and its time against a device-to-device copy of the same bytes.\n",
     "", NULL, false, 1u << FORMAT_TABLE | 1u << FORMAT_CSV | 1u << FORMAT_JSON, 0},
    {"reduce", CMD_REDUCE, "reduce a NumPy .npy file and print the result",
     "Reduces the .npy FILE (either byte order, C or Fortran order; its dtype gives\n"
     "the type) whole, along axes (--axis, as NumPy's axis=), or over segments\n"
     "(--segments), and prints the results one per line, in C order: integers in\n"
     "decimal, floats with enough digits to round-trip; or, with -O, writes them\n"
     "to a .npy file of the result's shape and type.\n",
     "FILE", "a .npy FILE", false, 1u << FORMAT_TABLE, 0},
    {"scan", CMD_SCAN, "scan a NumPy .npy file (cumsum, cumprod, ...) into another",
     "Scans the .npy FILE (either byte order, C or Fortran order; its dtype gives\n"
     "the type), flattened in C order as numpy.cumsum(a) flattens it, and writes\n"
     "the prefixes to OUT.npy: a 1-d array of the result type (integer sums and\n"
     "products in 64 bits, half in float), as numpy.cumsum, numpy.cumprod,\n"
     "numpy.minimum.accumulate, numpy.bitwise_and.accumulate, ... give. Prints\n"
     "nothing on stdout.\n",
     "FILE", "a .npy FILE", false, 1u << FORMAT_TABLE, OPT_OUTPUT},
    {"bench", CMD_BENCH, "sweep sizes, types and kernels; compare with peers; plot",
     "For every size, type, operator and kernel: device time of one reduction (best\n"
     "and median), end-to-end time of one call, GB/s of input, and the percentage of\n"
     "what a plain streaming-read kernel reads in the same run. Results are checked\n"
     "(exit status 1 if wrong). With several devices (-d all, or a comma list) each\n"
     "gets its table, then a summary puts them side by side (docs/bench-format.md).\n",
     "", NULL, false, 1u << FORMAT_TABLE | 1u << FORMAT_CSV | 1u << FORMAT_JSON, 0},
    {"compare", CMD_COMPARE, "merge saved bench runs (--format json) into one table",
     "Merges saved `clfold bench --format json` runs, from one machine or several:\n"
     "one row per type, operator, size and kernel, a column per device and peer,\n"
     "each with its GB/s, its percentage of its device's streaming read, and its\n"
     "GB/s over the baseline column's (above 1: faster). docs/bench-format.md.\n",
     "RUN.json...", "one or more RUN.json files", true,
     1u << FORMAT_TABLE | 1u << FORMAT_CSV | 1u << FORMAT_JSON, 0},
};

/* Which command takes which option, in --help's order, with its synopsis and help. */
static const struct {
    enum cli_command command;
    unsigned flag;
    const char *synopsis;
    const char *help;
} USAGE[] = {
    {CMD_DEVICES, OPT_FORMAT, "[--format table|json]", ""},
    {CMD_LADDER, OPT_DEVICE, "[-d SEL]", "  -d SEL      device (see clfold --help)\n"},
    {CMD_LADDER, OPT_N, "[-n N]", "  -n N        elements, digits or 2^K (default 2^22)\n"},
    {CMD_LADDER, OPT_TYPE, "[-t TYPE]",
     "  -t TYPE     int8 uint8 int16 uint16 int32 uint32 int64 uint64 half float double\n"
     "              (default int32; float with --scan)\n"},
    {CMD_LADDER, OPT_OP, "[-o OP]",
     "  -o OP       {OPS} (default sum; no argmin or argmax with --scan)\n"},
    {CMD_LADDER, OPT_BLOCK, "[-b BLOCK]",
     "  -b BLOCK    work-group size, a power of two (default 128, as in the seed;\n"
     "              with --scan clfold chooses)\n"},
    {CMD_LADDER, OPT_SCAN, "[--scan [--exclusive]]",
     "  --scan      the scan ladder instead (docs/scans.md); --exclusive for\n"
     "              exclusive scans (default inclusive)\n"},
    {CMD_LADDER, OPT_EXCLUSIVE, "", ""},
    {CMD_LADDER, OPT_ACCURACY, "[--accuracy A]",
     "  --accuracy A  float sums: default, compensated, fp64, exact (docs/accuracy.md)\n"},
    {CMD_LADDER, OPT_FORMAT, "[--format table|csv|json]",
     "  --format F  table, csv or json (default table)\n"},
    {CMD_LADDER, OPT_VERBOSE, "[-v]", "  -v          say how each kernel was built, on stderr\n"},
    {CMD_REDUCE, OPT_DEVICE, "[-d SEL]", "  -d SEL      device (see clfold --help)\n"},
    {CMD_REDUCE, OPT_OP, "[-o OP]",
     "  -o OP       {OPS} (default sum); argmin and argmax print the index (int64), "
     "as NumPy's: of the C-order ravel for a whole array, along the axis with --axis\n"},
    {CMD_REDUCE, OPT_KERNEL, "[-k KERNEL]", "  -k KERNEL   k1..k7, atomic or auto (default auto)\n"},
    {CMD_REDUCE, OPT_BLOCK, "[-b BLOCK]",
     "  -b BLOCK    work-group size, a power of two (default: clfold chooses)\n"},
    {CMD_REDUCE, OPT_ACCURACY, "[--accuracy A]",
     "  --accuracy A  float sums: default, compensated, fp64, exact (docs/accuracy.md)\n"},
    {CMD_REDUCE, OPT_AXIS, "[--axis A[,B...]]",
     "  --axis A[,B...]  reduce along these axes (negative ones count from the end);\n"
     "              the result has the other axes; argmin and argmax take one axis\n"},
    {CMD_REDUCE, OPT_SEGMENTS, "[--segments OFFSETS.npy]",
     "  --segments OFFSETS.npy  reduce each segment [OFFSETS[s], OFFSETS[s+1]) of the\n"
     "              flattened FILE; OFFSETS is 1-d int64 or uint64, non-decreasing;\n"
     "              an empty segment gives the operator's identity (argmin and\n"
     "              argmax: -1; their indices count from the segment's start)\n"},
    {CMD_REDUCE, OPT_OUTPUT, "[-O OUT.npy]",
     "  -O OUT.npy  write the result to OUT.npy, an array of the result type (0-d for\n"
     "              a whole-array reduction), instead of printing it\n"},
    {CMD_REDUCE, OPT_MPI, "[--mpi]",
     "  --mpi       under mpirun: each rank reads its own slice of FILE and reduces it\n"
     "              on its device (-d local-rank: the node's GPUs by node-local rank);\n"
     "              rank 0 prints the whole's result (docs/mpi.md)\n"},
    {CMD_REDUCE, OPT_VERBOSE, "[-v]", "  -v          say what ran, on stderr\n"},
    {CMD_SCAN, OPT_DEVICE, "[-d SEL]", "  -d SEL      device (see clfold --help)\n"},
    {CMD_SCAN, OPT_OP, "[-o OP]", "  -o OP       {SCAN_OPS} (default sum)\n"},
    {CMD_SCAN, OPT_EXCLUSIVE, "[--exclusive]",
     "  --exclusive  OUT[i] scans the elements before i; OUT[0] is the operator's\n"
     "              identity (default: inclusive, OUT[i] ends with element i)\n"},
    {CMD_SCAN, OPT_KERNEL, "[-k KERNEL]",
     "  -k KERNEL   kogge-stone, blelloch, blelloch-padded or auto (default auto)\n"},
    {CMD_SCAN, OPT_BLOCK, "[-b BLOCK]",
     "  -b BLOCK    work-group size, a power of two (default: clfold chooses)\n"},
    {CMD_SCAN, OPT_ACCURACY, "[--accuracy A]",
     "  --accuracy A  float sums: default, compensated or fp64 (docs/scans.md);\n"
     "              exact is refused\n"},
    {CMD_SCAN, OPT_OUTPUT, "-O OUT.npy", "  -O OUT.npy  where the result goes (required)\n"},
    {CMD_SCAN, OPT_VERBOSE, "[-v]", "  -v          say what ran, on stderr\n"},
    {CMD_BENCH, OPT_DEVICE, "[-d SEL[,SEL...]|all]",
     "  -d SEL[,SEL...]|all  these devices, or every one (see clfold --help)\n"},
    {CMD_BENCH, OPT_SIZES, "[--sizes LIST]",
     "  --sizes LIST  LOW:HIGH, every power of two between (default 2^10:2^28),\n"
     "                or a comma list of counts\n"},
    {CMD_BENCH, OPT_TYPE, "[-t TYPES]", "  -t TYPES      comma list (default float)\n"},
    {CMD_BENCH, OPT_OP, "[-o OPS]",
     "  -o OPS        comma list (default sum); peers time sum, argmin and argmax\n"
     "                (scans: sum, min and max)\n"},
    {CMD_BENCH, OPT_KERNEL, "[-k KERNELS]",
     "  -k KERNELS    comma list of auto, k1..k7, atomic (default auto); with --scan\n"
     "                auto, kogge-stone, blelloch, blelloch-padded\n"},
    {CMD_BENCH, OPT_ACCURACY, "[--accuracy A]",
     "  --accuracy A  float sums: default, compensated, fp64, exact (docs/accuracy.md)\n"},
    {CMD_BENCH, OPT_SHAPE, "[--shape RxC --axis A]",
     "  --shape RxC --axis A  reduce every row (A = 1) or column (A = 0) of an\n"
     "                R x C matrix instead of the whole array\n"},
    {CMD_BENCH, OPT_AXIS, "", ""},
    {CMD_BENCH, OPT_SEGMENTS, "[--segments power-law]",
     "  --segments power-law  reduce segments of lengths 1 to 2^20, log-uniform,\n"
     "                covering --sizes N (one size; default 2^26)\n"},
    {CMD_BENCH, OPT_SCAN, "[--scan [--exclusive]]",
     "  --scan        time inclusive scans (--exclusive: exclusive ones) instead of\n"
     "                reductions: GB/s of input and output, and the percentage of\n"
     "                a device-to-device copy of the same bytes (docs/scans.md)\n"},
    {CMD_BENCH, OPT_EXCLUSIVE, "", ""},
    {CMD_BENCH, OPT_PEER, "[--peer CMD]...",
     "  --peer CMD    also run CMD TYPE N... (see bench/peers/), which prints one JSON\n"
     "                object per size; its time and the ratio to clfold are shown.\n"
     "                Shapes add --shape RxC --axis A, or --segments OFFSETS.npy,\n"
     "                scans --scan inclusive|exclusive; argmin, argmax, and min\n"
     "                and max scans add --op OP last\n"},
    {CMD_BENCH, OPT_FORMAT, "[--format table|csv|json]",
     "  --format F    table, csv or json (default table)\n"},
    {CMD_BENCH, OPT_PLOT, "[--plot FILE.png]",
     "  --plot FILE   draw GB/s against size as a PNG with gnuplot\n"},
    {CMD_BENCH, OPT_VERBOSE, "[-v]", "  -v            say how each kernel was built, on stderr\n"},
    {CMD_COMPARE, OPT_FORMAT, "[--format table|csv|json]",
     "  --format F    table, csv or json (default table)\n"},
    {CMD_COMPARE, OPT_PLOT, "[--plot OUT.png]",
     "  --plot OUT    draw GB/s against size, a line per column, with gnuplot\n"},
    {CMD_COMPARE, OPT_BASELINE, "[--baseline NAME]",
     "  --baseline NAME  the column the ratios are to: its name or a part of it\n"
     "                that names one column (default: the first column)\n"},
};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* The options `command` takes: its rows of USAGE. */
static unsigned options_of(enum cli_command command)
{
    unsigned options = 0;
    for (size_t i = 0; i < COUNT(USAGE); i++)
        if (USAGE[i].command == command)
            options |= USAGE[i].flag;
    return options;
}

/*
 * Appends formatted text to buf[*used .. cap), as far as it fits, and adds
 * its whole length to *used: the length the text needs, even once cut.
 */
static void put(char *buf, size_t cap, size_t *used, const char *format, ...)
{
    va_list args;
    char *at = *used < cap ? buf + *used : NULL;
    va_start(args, format);
    int n = vsnprintf(at, at != NULL ? cap - *used : 0, format, args);
    va_end(args);
    *used += n > 0 ? (size_t)n : 0;
}

size_t cli_op_list(unsigned flags, const char *separator, char *buf, size_t cap)
{
    size_t used = 0;
    clfold_op_info info;
    if (cap > 0)
        buf[0] = '\0';
    for (int op = 0; clfold_op_describe((clfold_op)op, &info) == CLFOLD_SUCCESS; op++)
        if ((info.flags & flags) == flags)
            put(buf, cap, &used, "%s%s", used > 0 ? separator : "", info.name);
    return used;
}

/* One word of a synopsis, on a new line (indented under the command) once 80 columns would pass. */
static void put_word(char *buf, size_t cap, size_t *used, size_t *line_start, size_t indent,
                     const char *word)
{
    if (*used - *line_start + 1 + strlen(word) >= 80) {
        put(buf, cap, used, "\n");
        *line_start = *used;
        put(buf, cap, used, "%*s", (int)(indent - 1), "");
    }
    put(buf, cap, used, " %s", word);
}

/*
 * An option's help. Where it holds {OPS} (every operator) or {SCAN_OPS}
 * (those that scan), the names come from the library's operator table,
 * and the text from there on is wrapped at 80 columns under the first word.
 */
static void put_help(char *buf, size_t cap, size_t *used, const char *help)
{
    static const struct {
        const char *placeholder;
        unsigned flags;
    } LISTS[] = {{"{OPS}", 0}, {"{SCAN_OPS}", CLFOLD_OP_SCANS}};
    const char *at = strchr(help, '{');
    size_t l = 0;
    while (at != NULL && l < COUNT(LISTS) &&
           strncmp(at, LISTS[l].placeholder, strlen(LISTS[l].placeholder)) != 0)
        l++;
    if (at == NULL || l == COUNT(LISTS)) {
        put(buf, cap, used, "%s", help);
        return;
    }
    size_t line_start = *used, indent = (size_t)(at - help);
    put(buf, cap, used, "%.*s", (int)indent - 1, help);
    char words[1024];
    size_t n = cli_op_list(LISTS[l].flags, " ", words, sizeof words);
    snprintf(words + n, sizeof words - n, "%s", at + strlen(LISTS[l].placeholder));
    for (char *word = words; *word != '\0';) {
        size_t length = strcspn(word, " \n");
        char *next = word + length + strspn(word + length, " \n");
        word[length] = '\0';
        if (length > 0)
            put_word(buf, cap, used, &line_start, indent, word);
        word = next;
    }
    put(buf, cap, used, "\n");
}

static const char GENERAL_NOTES[] =
    "\n"
    "clfold COMMAND --help describes a command; clfold --version prints the version.\n"
    "Devices: -d P:D (as `clfold devices` numbers them) or a case-insensitive part of\n"
    "the device or platform name; default $CLFOLD_DEVICE, else the first GPU, else the\n"
    "first device.\n";

size_t cli_usage(enum cli_command command, char *buf, size_t cap)
{
    size_t used = 0;
    if (cap > 0)
        buf[0] = '\0';
    if (command == CMD_NONE) {
        put(buf, cap, &used, "usage: clfold COMMAND [OPTIONS]\n\nPortable OpenCL reductions.\n\n"
                             "commands:\n");
        for (size_t c = 0; c < COUNT(COMMANDS); c++)
            put(buf, cap, &used, "  %-9s %s\n", COMMANDS[c].name, COMMANDS[c].summary);
        put(buf, cap, &used, "%s", GENERAL_NOTES);
        return used;
    }
    size_t c = 0;
    while (c < COUNT(COMMANDS) && COMMANDS[c].command != command)
        c++;
    if (c == COUNT(COMMANDS))
        return used;
    /* The synopsis: the options, then the operands, wrapped under the command's name. */
    size_t line_start = used, indent = strlen("usage: clfold ") + strlen(COMMANDS[c].name) + 1;
    put(buf, cap, &used, "usage: clfold %s", COMMANDS[c].name);
    for (size_t i = 0; i < COUNT(USAGE); i++)
        if (USAGE[i].command == command && USAGE[i].synopsis[0] != '\0')
            put_word(buf, cap, &used, &line_start, indent, USAGE[i].synopsis);
    if (COMMANDS[c].operands[0] != '\0')
        put_word(buf, cap, &used, &line_start, indent, COMMANDS[c].operands);
    put(buf, cap, &used, "\n\n%s", COMMANDS[c].description);
    bool first = true;
    for (size_t i = 0; i < COUNT(USAGE); i++) {
        if (USAGE[i].command != command || USAGE[i].help[0] == '\0')
            continue;
        put(buf, cap, &used, "%s", first ? "\n" : "");
        put_help(buf, cap, &used, USAGE[i].help);
        first = false;
    }
    return used;
}

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

/* --format's values, indexed by enum cli_format. */
static const char *const FORMAT_NAMES[] = {"table", "csv", "json"};

static int parse_format(const char *text, enum cli_format *format, char *err, size_t cap)
{
    for (unsigned f = 0; f < COUNT(FORMAT_NAMES); f++) {
        if (strcmp(text, FORMAT_NAMES[f]) == 0) {
            *format = (enum cli_format)f;
            return 0;
        }
    }
    return usage_error(err, cap, "--format takes table, csv or json, not \"%s\"", text);
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
    case OPT_OUTPUT: args->output = value; return 0;
    case OPT_AXIS: args->axes = value; return 0;
    case OPT_SEGMENTS: args->segments = value; return 0;
    case OPT_SHAPE: args->shape = value; return 0;
    case OPT_PLOT: args->plot = value; return 0;
    case OPT_BASELINE: args->baseline = value; return 0;
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
        {
            char names[256];
            cli_op_list(0, ", ", names, sizeof names);
            return usage_error(err, cap, "unknown operator \"%s\" (%s)", value, names);
        }
        return 0;
    case OPT_KERNEL:
        if (args->command == CMD_SCAN) {
            if (clfold_scan_kernel_from_name(value, &args->scan_kernel) != CLFOLD_SUCCESS)
                return usage_error(err, cap, "unknown scan kernel \"%s\" (kogge-stone, blelloch, "
                                   "blelloch-padded, auto)", value);
            return 0;
        }
        if (clfold_kernel_from_name(value, &args->kernel) != CLFOLD_SUCCESS)
            return usage_error(err, cap, "unknown kernel \"%s\" (k1 .. k7, atomic, auto)", value);
        return 0;
    case OPT_BLOCK: return parse_block(value, &args->block, err, cap);
    case OPT_ACCURACY:
        if (clfold_accuracy_from_name(value, &args->accuracy) != CLFOLD_SUCCESS)
            return usage_error(err, cap, "--accuracy takes default, compensated, fp64 or exact, not \"%s\"", value);
        return 0;
    case OPT_FORMAT: return parse_format(value, &args->format, err, cap);
    case OPT_EXCLUSIVE: args->exclusive = true; return 0;
    case OPT_SCAN: args->scan = true; return 0;
    case OPT_MPI: args->mpi = true; return 0;
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

/* Parses the option at argv[*i], consuming its value; advances *i and adds its flag to *given. */
static int parse_option(int argc, char **argv, int *i, unsigned allowed, unsigned *given,
                        struct cli_args *args, char *err, size_t cap)
{
    const char *word = argv[*i];
    const char *equals = strncmp(word, "--", 2) == 0 ? strchr(word, '=') : NULL;
    size_t length = equals != NULL ? (size_t)(equals - word) : strlen(word);
    const struct option_spec *spec = find_option(word, length);

    if (spec == NULL || !(spec->flag & allowed))
        return usage_error(err, cap, "unknown option \"%.*s\" for this command (see --help)",
                           (int)length, word);
    if ((*given & spec->flag) && spec->flag != OPT_PEER)
        return usage_error(err, cap, "%s is given twice: give it once", spec->long_name);
    *given |= spec->flag;
    if (!spec->takes_value) {
        if (equals != NULL)
            return usage_error(err, cap, "%s takes no value", spec->long_name);
        return apply_option(spec->flag, NULL, args, err, cap);
    }
    const char *value = equals != NULL ? equals + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
    if (value == NULL)
        return usage_error(err, cap, "%.*s needs a value", (int)length, word);
    if (value[0] == '\0')
        return usage_error(err, cap, "%s needs a value, not an empty one", spec->long_name);
    return apply_option(spec->flag, value, args, err, cap);
}

static void set_defaults(struct cli_args *args)
{
    memset(args, 0, sizeof *args);
    args->n = (size_t)1 << 22; /* Harris's table: 2^22 ints */
    args->type = CLFOLD_INT32;
    args->op = CLFOLD_SUM;
    args->kernel = CLFOLD_AUTO;
    args->scan_kernel = CLFOLD_SCAN_AUTO;
    args->format = FORMAT_TABLE;
}

/* "table or json": the --format values of `formats`, as a sentence says them. */
static void formats_text(unsigned formats, char *buf, size_t cap)
{
    size_t used = 0, count = 0, total = 0;
    for (unsigned f = 0; f < COUNT(FORMAT_NAMES); f++)
        total += (formats >> f) & 1u;
    buf[0] = '\0';
    for (unsigned f = 0; f < COUNT(FORMAT_NAMES) && used < cap; f++) {
        if (!((formats >> f) & 1u))
            continue;
        const char *joint = count == 0 ? "" : count + 1 == total ? " or " : ", ";
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", joint, FORMAT_NAMES[f]);
        count++;
    }
}

int cli_parse(int argc, char **argv, struct cli_args *args, char *err, size_t cap)
{
    unsigned allowed = 0, given = 0;
    size_t command = 0;
    set_defaults(args);
    args->argc = argc;
    args->argv = argv;
    err[0] = '\0';
    if (argc < 2)
        return usage_error(err, cap, "no command given (devices, ladder, reduce, scan, bench, "
                           "compare; see --help)");
    for (size_t c = 0; c < COUNT(COMMANDS); c++) {
        if (strcmp(argv[1], COMMANDS[c].name) == 0) {
            args->command = COMMANDS[c].command;
            allowed = options_of(args->command);
            command = c;
        }
    }
    if (args->command == CMD_NONE) {
        args->help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
        args->version = strcmp(argv[1], "--version") == 0;
        if (args->help || args->version)
            return 0;
        return usage_error(err, cap, "unknown command \"%s\" (devices, ladder, reduce, scan, "
                           "bench, compare)", argv[1]);
    }
    bool options_ended = false;
    for (int i = 2; i < argc; i++) {
        bool option = !options_ended && argv[i][0] == '-' && argv[i][1] != '\0';
        if (option && strcmp(argv[i], "--") == 0) {
            options_ended = true;
        } else if (option && (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)) {
            args->help = true;
        } else if (option) {
            if (parse_option(argc, argv, &i, allowed, &given, args, err, cap) != 0)
                return -1;
        } else if (COMMANDS[command].many && args->n_runs < (int)COUNT(args->runs)) {
            args->runs[args->n_runs++] = argv[i];
        } else if (COMMANDS[command].many) {
            return usage_error(err, cap, "at most %zu %s operands", COUNT(args->runs),
                               COMMANDS[command].name);
        } else if (COMMANDS[command].operand != NULL && args->file == NULL) {
            args->file = argv[i];
        } else {
            return usage_error(err, cap, "unexpected argument \"%s\"", argv[i]);
        }
    }
    if (args->axes != NULL && args->segments != NULL)
        return usage_error(err, cap, "--axis and --segments exclude each other");
    if (args->mpi && (args->axes != NULL || args->segments != NULL))
        return usage_error(err, cap, "--mpi reduces whole arrays: not with %s",
                           args->axes != NULL ? "--axis" : "--segments");
    if (!args->mpi && args->device != NULL && strcmp(args->device, "local-rank") == 0)
        return usage_error(err, cap, "-d local-rank needs --mpi");
    if (args->exclusive && args->command != CMD_SCAN && !args->scan)
        return usage_error(err, cap, "--exclusive needs --scan");
    if (args->scan && args->command == CMD_LADDER && !(given & OPT_TYPE))
        args->type = CLFOLD_FLOAT; /* the scan ladder's default: float sums */
    if (COMMANDS[command].operand != NULL && args->file == NULL && args->n_runs == 0 && !args->help)
        return usage_error(err, cap, "%s needs %s", COMMANDS[command].name,
                           COMMANDS[command].operand);
    for (size_t i = 0; i < COUNT(USAGE) && !args->help; i++)
        if (USAGE[i].command == args->command && (USAGE[i].flag & COMMANDS[command].required) &&
            !(USAGE[i].flag & given))
            return usage_error(err, cap, "%s needs %s", COMMANDS[command].name, USAGE[i].synopsis);
    if (!((COMMANDS[command].formats >> args->format) & 1u)) {
        char formats[64];
        formats_text(COMMANDS[command].formats, formats, sizeof formats);
        return usage_error(err, cap, "%s --format takes %s, not \"%s\"", COMMANDS[command].name,
                           formats, FORMAT_NAMES[args->format]);
    }
    return 0;
}
