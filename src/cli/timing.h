/*
 * timing.h: the clock and the sorting the runner's measuring commands share.
 */
#ifndef CLFOLD_CLI_TIMING_H
#define CLFOLD_CLI_TIMING_H

#include <time.h>

/*
 * Device times below this are a device's timestamps not advancing (Mesa's
 * rusticl: 1 ns for every command), not a command: no launch takes under a
 * microsecond (the H100's shortest, 3.7 us). The bench then takes wall times.
 */
#define NO_DEVICE_TIME_MS 1e-3

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
