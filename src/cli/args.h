/*
 * args.h: the runner's command line, parsed into one struct by a pure
 * function (no printing, no exit), so that it can be tested and fuzzed.
 */
#ifndef CLFOLD_CLI_ARGS_H
#define CLFOLD_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "clfold.h"

enum cli_command { CMD_NONE, CMD_DEVICES, CMD_LADDER, CMD_REDUCE, CMD_SCAN, CMD_BENCH, CMD_COMPARE };
enum cli_format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON };

struct cli_args {
    enum cli_command command;
    bool help;
    bool version;
    bool verbose;
    const char *device;      /* -d; NULL = default */
    size_t n;                /* -n */
    clfold_type type;        /* -t */
    clfold_op op;            /* -o */
    clfold_kernel kernel;    /* -k */
    clfold_scan_kernel scan_kernel; /* scan's -k */
    bool exclusive;          /* --exclusive: scan's, and ladder's and bench's with --scan */
    bool scan;               /* ladder's and bench's --scan: scans instead of reductions */
    bool mpi;                /* reduce's --mpi: one slice of the file per MPI rank */
    size_t block;            /* -b; 0 = let clfold choose */
    clfold_accuracy accuracy; /* --accuracy */
    enum cli_format format;  /* --format */
    const char *file;        /* reduce's and scan's operand */
    const char *output;      /* -O OUT.npy; reduce's NULL: print the result */
    const char *axes;        /* reduce's --axis A[,B...], checked by the command; NULL: whole */
    const char *segments;    /* reduce's --segments OFFSETS.npy; bench's --segments power-law */
    const char *shape;       /* bench's --shape ROWSxCOLS */
    /* bench: comma-separated lists, checked by the command */
    const char *sizes;       /* --sizes, e.g. "2^10:2^28" or "1000,2^20" */
    const char *types;       /* -t */
    const char *ops;         /* -o */
    const char *kernels;     /* -k */
    const char *peers[8];    /* --peer CMD, repeatable */
    int n_peers;
    const char *plot;        /* bench's and compare's --plot FILE.png */
    const char *baseline;    /* compare's --baseline NAME */
    const char *runs[64];    /* compare's RUN.json operands */
    int n_runs;
    int argc;                /* the command line as given, for the bench's JSON */
    char **argv;
};

/*
 * Parses argv[1..argc). Returns 0, or -1 with a one-line reason in err
 * (usage errors: unknown command or option, malformed number, ...).
 */
int cli_parse(int argc, char **argv, struct cli_args *args, char *err, size_t err_cap);

/*
 * The --help text of `command` (CMD_NONE: the runner's), written into buf
 * (cut to fit, always terminated when cap > 0); returns the length the whole
 * text needs, so that a caller can tell a cut one (result >= cap).
 */
size_t cli_usage(enum cli_command command, char *buf, size_t cap);

/*
 * The names of the operators whose flags (CLFOLD_OP_*) include all of
 * `flags`, from the library's table, joined by `separator` into buf (cut
 * to cap bytes). Returns the length the whole list takes.
 */
size_t cli_op_list(unsigned flags, const char *separator, char *buf, size_t cap);

/* A count: decimal digits, or 2^K. -1 on anything else. */
int cli_parse_count(const char *text, size_t *value);

#endif /* CLFOLD_CLI_ARGS_H */
