/*
 * merge.h: the side-by-side table of benchmark results (merge.c): rows keyed
 * by (shape, type, operator, size, kernel), a column per device and peer,
 * each cell its time, GB/s and that device's streaming read. `clfold bench`
 * fills it from several devices of one run (its summary), `clfold compare`
 * from saved runs; both print it and draw it the same way.
 */
#ifndef CLFOLD_CLI_BENCH_MERGE_H
#define CLFOLD_CLI_BENCH_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "args.h"

#define MERGE_MAX_COLUMNS 64

struct merge_column {
    char name[192];        /* unique: the device's name, "PEER on DEVICE" for a peer; " #2" on a repeat */
    char device[128];      /* the device's name */
    char source[64];       /* "clfold" or the peer's name */
    char origin[256];      /* the file it came from, or "" */
    int run;               /* which run (file) it came from: rows that two runs share are compared */
};

/* One row of a device, as the bench's JSON has it. */
struct merge_row {
    const char *source;    /* "clfold" or the peer's name */
    const char *shape;     /* "whole", or the shape's description */
    const char *type, *op, *kernel; /* kernel: NULL for a peer's row */
    double n;
    double best_ms;
    double gbps;
    double read_gbps;      /* clfold rows: the device's streaming read on the same bytes; else 0 */
};

struct merge_key {
    char shape[96], type[16], op[16], kernel[32];
    double n;
    size_t order;          /* first appearance of its (shape, type, op, kernel) */
};

struct merge_cell {
    bool present;
    double best_ms, gbps, read_gbps; /* read_gbps <= 0: not measured */
};

/* A hash set of keys (open addressing, linear probing): each slot a key's index + 1, 0 empty. */
struct merge_index {
    size_t *slots;
    size_t capacity;           /* a power of two, or 0: not built */
    size_t count;
};

struct merge_table {
    struct merge_column columns[MERGE_MAX_COLUMNS];
    size_t n_columns;
    struct merge_key *keys;
    struct merge_cell *cells;  /* n_keys rows of `stride` cells */
    size_t stride;             /* cells a row: room for the columns, up to MERGE_MAX_COLUMNS */
    size_t n_keys, cap_keys;
    int n_runs;
    struct merge_index by_key;   /* every key, by (shape, type, op, kernel, n) */
    struct merge_index by_group; /* a key of each (shape, type, op, kernel), which holds its order */
};

/*
 * Adds one device's rows from run `run` (a file, or 0 for the bench's own):
 * a column for clfold on it, and with `peers` one per peer, whose rows are
 * put beside every kernel of the same shape, type, operator and size, with
 * that device's read. 0, or -1 with the reason in err (too many columns, no
 * memory).
 */
int merge_add_device(struct merge_table *table, int run, const char *device, const char *origin,
                     const struct merge_row *rows, size_t n_rows, bool peers, char *err, size_t cap);

/* Sorts the rows: each (shape, type, operator, kernel) as it first appeared, sizes ascending. */
void merge_sort(struct merge_table *table);

/* How many rows hold cells of two runs or more. */
size_t merge_shared_rows(const struct merge_table *table);

/*
 * The column that --baseline NAME names: its exact name, else the one
 * device column whose name holds NAME (any case), else the one peer column
 * that does; NULL: the first. -1 with the reason in err where none or
 * several do.
 */
int merge_baseline(const struct merge_table *table, const char *name, char *err, size_t cap);

void merge_print(const struct merge_table *table, size_t baseline, enum cli_format format);

/* Draws GB/s against size, a line per column (and type, operator, kernel); 0, or -1 (said). */
int merge_plot(const struct merge_table *table, const char *path, const char *title);

void merge_release(struct merge_table *table);

#endif /* CLFOLD_CLI_BENCH_MERGE_H */
