/*
 * scan_check.h: the host reference, the check and the copy that a scan is
 * held to (scan_check.c), shared by `clfold bench --scan`
 * (measure_scan.c) and `clfold ladder --scan` (src/cli/ladder.c).
 */
#ifndef CLFOLD_CLI_BENCH_SCAN_CHECK_H
#define CLFOLD_CLI_BENCH_SCAN_CHECK_H

#include "clfold.h"

/*
 * The host reference of a scan of data[0..n): every output, and for float
 * results the exact prefixes and (sums) the sums of |x| that their bounds
 * are measured from: 4 + 32 bytes an element for float sums, which is what
 * the check costs in host memory.
 */
struct scan_reference {
    clfold_type type, result;
    clfold_op op;
    size_t n;
    void *out;
    long double *exact;       /* NULL for integer results */
    long double *sum_abs;     /* NULL but for float sums */
};

/* 0, or -1 (out of host memory, said on stderr). */
int scan_reference_make(struct scan_reference *ref, const void *data, size_t n, clfold_type type,
                        clfold_op op, clfold_scan_mode mode);
void scan_reference_release(struct scan_reference *ref);

/*
 * Fills the first `bytes` of `out` with all-ones bytes (NaN, -1): a scan
 * that leaves outputs unwritten then fails the check. CL_SUCCESS or why not.
 */
cl_int scan_poison(clfold_context *ctx, cl_mem out, size_t bytes);

/*
 * Reads the reference's n outputs back from `out` and checks each: integers,
 * min and max to the bit, float sums and products within
 * reference_scan_tolerance() of their exact prefix at `accuracy`. Returns
 * how many are wrong, the first of them described in `why` (a line); -1 if
 * they could not be read (said in `why`).
 */
long scan_check(clfold_context *ctx, cl_mem out, const struct scan_reference *ref,
                clfold_accuracy accuracy, char *why, size_t cap);

/* The best of several copies of `bytes` from `src` to `dst` (roofline_copy_ms): its time, or < 0. */
double scan_copy_ms(clfold_context *ctx, cl_mem src, cl_mem dst, size_t bytes);

#endif /* CLFOLD_CLI_BENCH_SCAN_CHECK_H */
