/*
 * main.c: the `clfold` runner: parses the command line and hands over to
 * one command. Exit status: 0 success, 1 a failed check, 2 bad usage or
 * bad input, always with one line on stderr saying what was wrong.
 */
#include <stdarg.h>
#include <stdio.h>

#include "commands.h"

static const char USAGE[] =
    "usage: clfold COMMAND [OPTIONS]\n"
    "\n"
    "Portable OpenCL reductions.\n"
    "\n"
    "commands:\n"
    "  devices   list every OpenCL platform and device\n"
    "  ladder    run Harris's reduction ladder K1..K7 and print his table\n"
    "  reduce    reduce a NumPy .npy file and print the result\n"
    "  bench     sweep sizes, types and kernels; compare with peers; plot\n"
    "\n"
    "clfold COMMAND --help describes a command; clfold --version prints the version.\n"
    "Devices: -d P:D (as `clfold devices` numbers them) or a case-insensitive part of\n"
    "the device or platform name; default $CLFOLD_DEVICE, else the first GPU, else the\n"
    "first device.\n";

static const char USAGE_DEVICES[] =
    "usage: clfold devices [--format table|json]\n"
    "\n"
    "Lists every platform and device with its P:D index, name, vendor, type,\n"
    "compute units, global and local memory, maximum work-group size, OpenCL C\n"
    "version and fp64/fp16 support.\n";

static const char USAGE_LADDER[] =
    "usage: clfold ladder [-d SEL] [-n N] [-t TYPE] [-o OP] [-b BLOCK]\n"
    "                     [--accuracy A] [--format table|csv|json] [-v]\n"
    "\n"
    "Runs the host loop, the atomic baseline and Harris's kernels K1..K7 on N\n"
    "elements, checks each against the exact host result, and prints time (device\n"
    "time of all passes, best of several runs), bandwidth, step and cumulative\n"
    "speedup. Exit status 1 if any result is wrong.\n"
    "\n"
    "  -d SEL      device (see clfold --help)\n"
    "  -n N        elements, digits or 2^K (default 2^22)\n"
    "  -t TYPE     int8 uint8 int16 uint16 int32 uint32 int64 uint64 half float double\n"
    "              (default int32)\n"
    "  -o OP       sum prod min max and or xor (default sum)\n"
    "  -b BLOCK    work-group size, a power of two (default 128, as in the seed)\n"
    "  --accuracy A  float sums: default, compensated or fp64 (see README)\n"
    "  --format F  table, csv or json (default table)\n"
    "  -v          say how each kernel was built, on stderr\n";

static const char USAGE_REDUCE[] =
    "usage: clfold reduce [-d SEL] [-o OP] [-k KERNEL] [-b BLOCK] [--accuracy A] [-v] FILE\n"
    "\n"
    "Reduces the .npy FILE (little-endian, any shape read as flat; its dtype gives\n"
    "the type) and prints the result alone: integers in decimal, floats with enough\n"
    "digits to round-trip.\n"
    "\n"
    "  -d SEL      device (see clfold --help)\n"
    "  -o OP       sum prod min max and or xor (default sum)\n"
    "  -k KERNEL   k1..k7, atomic or auto (default auto)\n"
    "  -b BLOCK    work-group size, a power of two (default: clfold chooses)\n"
    "  --accuracy A  float sums: default, compensated or fp64 (see README)\n"
    "  -v          say what ran, on stderr\n";

static const char USAGE_BENCH[] =
    "usage: clfold bench [-d SEL] [--sizes LIST] [-t TYPES] [-o OPS] [-k KERNELS]\n"
    "                    [--accuracy A] [--peer CMD]... [--format table|csv|json]\n"
    "                    [--plot FILE.png] [-v]\n"
    "\n"
    "For every size, type, operator and kernel: device time of one reduction (best\n"
    "and median), end-to-end time of one call, GB/s of input, and the percentage of\n"
    "what a plain streaming-read kernel reads in the same run. Results are checked\n"
    "(exit status 1 if wrong).\n"
    "\n"
    "  --sizes LIST  LOW:HIGH, every power of two between (default 2^10:2^28),\n"
    "                or a comma list of counts\n"
    "  -t TYPES      comma list (default float)\n"
    "  -o OPS        comma list (default sum)\n"
    "  -k KERNELS    comma list of auto, k1..k7, atomic (default auto)\n"
    "  --peer CMD    also run CMD TYPE N... (see bench/peers/), which prints one JSON\n"
    "                object per size; its time and the ratio to clfold are shown\n"
    "  --plot FILE   draw GB/s against size as a PNG with gnuplot\n";

void cli_error(const char *format, ...)
{
    va_list args;
    fputs("clfold: ", stderr);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
}

int report_failure(const clfold_context *ctx, clfold_status status, const char *doing)
{
    const char *detail = clfold_last_error(ctx);
    if (detail[0] != '\0')
        cli_error("%s: %s", doing, detail);
    else
        cli_error("%s: %s", doing, clfold_status_string(status));
    switch (status) {
    case CLFOLD_ERROR_INVALID_ARGUMENT: case CLFOLD_ERROR_INVALID_TYPE:
    case CLFOLD_ERROR_INVALID_OP: case CLFOLD_ERROR_INVALID_KERNEL:
    case CLFOLD_ERROR_OP_NOT_FOR_TYPE: case CLFOLD_ERROR_INVALID_BLOCK_SIZE:
    case CLFOLD_ERROR_DEVICE_NOT_FOUND: case CLFOLD_ERROR_NO_FP64:
    case CLFOLD_ERROR_TOO_LARGE: case CLFOLD_ERROR_OUT_OF_BOUNDS:
        return EXIT_BAD_INPUT;
    default:
        return EXIT_CHECK_FAILED;
    }
}

int open_context(const struct cli_args *args, clfold_context **ctx)
{
    clfold_status status = clfold_create(ctx, args->device);
    if (status == CLFOLD_SUCCESS)
        return EXIT_OK;
    if (status != CLFOLD_ERROR_DEVICE_NOT_FOUND)
        return report_failure(NULL, status, "creating the OpenCL context");
    /* The library's words (which selector, from -d or CLFOLD_DEVICE), on one line. */
    char said[256];
    const char *message = clfold_last_error(NULL);
    size_t n = 0;
    for (; message[n] != '\0' && n + 1 < sizeof said; n++)
        said[n] = (unsigned char)message[n] < 0x20 || message[n] == 0x7f ? '?' : message[n];
    said[n] = '\0';
    const char *selector = args->device != NULL ? args->device : getenv("CLFOLD_DEVICE");
    if (selector != NULL && selector[0] != '\0')
        cli_error("%s%s (see clfold devices)", said,
                  args->device == NULL ? ", the selector in CLFOLD_DEVICE" : "");
    else
        cli_error("%s (is an OpenCL driver such as POCL installed, and can it start? POCL needs a "
                  "writable cache: $POCL_CACHE_DIR or ~/.cache/pocl)", said);
    return EXIT_BAD_INPUT;
}

int main(int argc, char **argv)
{
    struct cli_args args;
    char err[512];
    static const char *const HELP[] = {
        [CMD_NONE] = USAGE, [CMD_DEVICES] = USAGE_DEVICES,
        [CMD_LADDER] = USAGE_LADDER, [CMD_REDUCE] = USAGE_REDUCE, [CMD_BENCH] = USAGE_BENCH,
    };

    if (cli_parse(argc, argv, &args, err, sizeof err) != 0) {
        cli_error("%s", err);
        return EXIT_BAD_INPUT;
    }
    if (args.version) {
        printf("clfold %s\n", clfold_version_string());
        return EXIT_OK;
    }
    if (args.help) {
        fputs(HELP[args.command], stdout);
        return EXIT_OK;
    }
    switch (args.command) {
    case CMD_DEVICES: return command_devices(&args);
    case CMD_LADDER: return command_ladder(&args);
    case CMD_BENCH: return command_bench(&args);
    default: return command_reduce(&args);
    }
}
