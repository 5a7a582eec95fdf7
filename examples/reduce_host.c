/*
 * reduce_host.c: the smallest complete clfold program. It sums and takes the
 * maximum of 1M int32 values in host memory on the default device
 * ($CLFOLD_DEVICE, else the first GPU, else the first device), checks both
 * against a plain loop, and exits 1 on any mismatch or error.
 *
 * It calls clfold only, so it builds with either of
 *   cc reduce_host.c $(pkg-config --cflags --libs clfold)
 *   cmake: find_package(clfold) + target_link_libraries(reduce_host PRIVATE clfold::clfold)
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clfold.h>

#define COUNT (1u << 20)

/* Reports a failed call on stderr; returns 1, the exit status. */
static int report(const clfold_context *ctx, const char *what, clfold_status status)
{
    fprintf(stderr, "reduce_host: %s: %s %s\n", what, clfold_status_string(status),
            clfold_last_error(ctx));
    return 1;
}

int main(void)
{
    int rc = 1;
    clfold_context *ctx = NULL;
    clfold_status status;
    int32_t *data = malloc(COUNT * sizeof *data);
    int64_t sum = 0, expected_sum = 0;
    int32_t max = 0, expected_max = INT32_MIN;
    uint32_t state = 12345;

    if (data == NULL) {
        fprintf(stderr, "reduce_host: out of memory\n");
        goto cleanup;
    }
    /* Values in [-2^30, 2^30), the same on every run; and the host's answers. */
    for (uint32_t i = 0; i < COUNT; i++) {
        state = state * 1664525u + 1013904223u;
        data[i] = (int32_t)(state >> 1) - (int32_t)(1 << 30);
        expected_sum += data[i];
        if (data[i] > expected_max)
            expected_max = data[i];
    }

    /* NULL: the default device. On failure ctx stays NULL, the status says why. */
    status = clfold_create(&ctx, NULL);
    if (status != CLFOLD_SUCCESS) {
        rc = report(ctx, "clfold_create", status);
        goto cleanup;
    }
    /* A sum of int32 returns int64; a max returns int32 (clfold_result_type). */
    status = clfold_reduce_host(ctx, data, COUNT, CLFOLD_INT32, CLFOLD_SUM, &sum);
    if (status != CLFOLD_SUCCESS) {
        rc = report(ctx, "sum", status);
        goto cleanup;
    }
    status = clfold_reduce_host(ctx, data, COUNT, CLFOLD_INT32, CLFOLD_MAX, &max);
    if (status != CLFOLD_SUCCESS) {
        rc = report(ctx, "max", status);
        goto cleanup;
    }

    printf("clfold %s: %u int32 values\n", clfold_version_string(), COUNT);
    printf("sum = %" PRId64 " (host loop: %" PRId64 ")\n", sum, expected_sum);
    printf("max = %" PRId32 " (host loop: %" PRId32 ")\n", max, expected_max);
    if (sum != expected_sum || max != expected_max) {
        fprintf(stderr, "reduce_host: MISMATCH between clfold and the host loop\n");
        goto cleanup;
    }
    printf("OK\n");
    rc = 0;
cleanup:
    clfold_destroy(ctx);
    free(data);
    return rc;
}
