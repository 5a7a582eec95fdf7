/*
 * split_bench.c: one host array reduced by two devices of one host at once
 * (clfold_reduce_host_multi), against the first device alone and the second
 * alone, in one run: wall time of the call, best and median of the rounds,
 * and whether the results have the same bits (they must, for exact sums).
 *
 *   split_bench [FIRST [SECOND [N [ROUNDS]]]]
 *       (default "nvidia", "portable" (POCL), 2^28 floats, 7 rounds)
 *
 * Prints one table; exits 1 if a call fails or an exact sum's bits differ.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clfold.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum way { FIRST, SECOND, BOTH, WAYS };

/* One call of `way`; its status. */
static clfold_status reduce(enum way way, clfold_context **both, const float *data, size_t n,
                            float *sum)
{
    if (way == BOTH)
        return clfold_reduce_host_multi(both, 2, data, n, CLFOLD_FLOAT, CLFOLD_SUM, sum);
    return clfold_reduce_host(both[way], data, n, CLFOLD_FLOAT, CLFOLD_SUM, sum);
}

int main(int argc, char **argv)
{
    const char *names[2] = {argc > 1 ? argv[1] : "nvidia", argc > 2 ? argv[2] : "portable"};
    size_t n = argc > 3 ? (size_t)strtoull(argv[3], NULL, 0) : (size_t)1 << 28;
    int rounds = argc > 4 ? atoi(argv[4]) : 7;
    clfold_context *both[2] = {NULL, NULL};
    float *data = malloc(n * sizeof *data + 1);
    double times[WAYS][64];
    float sums[WAYS] = {0};
    int rc = 0;
    if (rounds < 1 || rounds > 64 || data == NULL) {
        fprintf(stderr, "split_bench: 1 to 64 rounds, and memory for %zu floats\n", n);
        return 1;
    }
    for (int i = 0; i < 2; i++) {
        if (clfold_create(&both[i], names[i]) != CLFOLD_SUCCESS ||
            clfold_set_accuracy(both[i], CLFOLD_ACCURACY_EXACT) != CLFOLD_SUCCESS) {
            fprintf(stderr, "split_bench: %s: %s\n", names[i], clfold_last_error(both[i]));
            return 1;
        }
    }
    for (size_t i = 0; i < n; i++) /* written: every page real */
        data[i] = (float)((i * 2654435761u) % 1000003u) * 1e-6f - 0.5f;
    static const char *const way_names[WAYS] = {"first alone", "second alone", "both (split)"};
    for (int way = 0; way < WAYS && rc == 0; way++) {
        if (reduce((enum way)way, both, data, n, &sums[way]) != CLFOLD_SUCCESS) /* warm-up, probes */
            rc = 1;
        for (int r = 0; r < rounds && rc == 0; r++) {
            double start = now();
            if (reduce((enum way)way, both, data, n, &sums[way]) != CLFOLD_SUCCESS)
                rc = 1;
            times[way][r] = now() - start;
        }
        if (rc != 0)
            fprintf(stderr, "split_bench: %s: %s / %s\n", way_names[way],
                    clfold_last_error(both[0]), clfold_last_error(both[1]));
        qsort(times[way], (size_t)rounds, sizeof times[way][0], compare);
    }
    char device[2][128] = {"", ""};
    for (int i = 0; i < 2; i++)
        clGetDeviceInfo(clfold_device(both[i]), CL_DEVICE_NAME, sizeof device[i] - 1, device[i], NULL);
    printf("# %zu floats in host memory (%.0f MiB), exact sums, wall time of one call, %d rounds\n"
           "# first: %s (%s); second: %s (%s)\n%-14s %10s %10s %12s %s\n", n, (double)n * 4 / 1048576.0,
           rounds, names[0], device[0], names[1], device[1], "", "best ms", "median ms",
           "vs first", "sum");
    for (int way = 0; way < WAYS && rc == 0; way++) {
        uint32_t bits;
        memcpy(&bits, &sums[way], 4);
        printf("%-14s %10.3f %10.3f %11.3fx %.9g (%08x)\n", way_names[way], times[way][0] * 1e3,
               times[way][rounds / 2] * 1e3, times[way][0] / times[FIRST][0], sums[way], bits);
    }
    if (rc == 0 && (memcmp(&sums[FIRST], &sums[SECOND], 4) != 0 ||
                    memcmp(&sums[FIRST], &sums[BOTH], 4) != 0)) {
        printf("MISMATCH: exact sums differ in their bits\n");
        rc = 1;
    } else if (rc == 0) {
        printf("the same bits every way\n");
    }
    clfold_destroy(both[0]);
    clfold_destroy(both[1]);
    free(data);
    return rc;
}
