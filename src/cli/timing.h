/*
 * timing.h: the clock and the sorting the runner's measuring commands share.
 */
#ifndef CLFOLD_CLI_TIMING_H
#define CLFOLD_CLI_TIMING_H

#include <time.h>

/* Seconds on the monotonic clock. */
static inline double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* qsort's comparison of doubles, ascending. */
static inline int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif /* CLFOLD_CLI_TIMING_H */
