/*
 * clock.c: the library's one clock, for what needs wall time: the
 * several-device split's bandwidth probe (reduce/multi.c) and the watch
 * for a value in host memory (reduce/landing.c).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <time.h>

#include "internal.h"

double monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
