/*
 * test_big.c: an array of more than 2^32 elements reduces exactly:
 * 2^32 + 1000 uint8 values, summed and maxed (and, by the auto path,
 * min-ed and xor-ed), with the minimum and the maximum past element 2^32.
 * Where the device takes the whole array in one buffer (a GPU), K1 and K4
 * run too: K1's global ids and K4's group offsets pass 2^32 there. Where it
 * does not (POCL: 1 GiB), clfold_reduce_host works in chunks of at most the
 * largest buffer, which the auto path checks; K1 and K4 would then never
 * index past 2^32 and only cost minutes, so they are left out. Needs about 4.3 GB of host memory; exits 77
 * (skipped) when it cannot have it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/*
 * A pattern of byte values 1..254, cheap to make, whose extremes lie past
 * element 2^32: the one 0 (the minimum) and the one 255 (the maximum) are
 * planted there, so that min and max, and the sum and xor that every
 * element changes, show whether the elements past 2^32 were read.
 */
static uint8_t pattern(size_t i) { return (uint8_t)(1 + ((i * 2654435761u) >> 13) % 254); }

int main(void)
{
    const size_t n = ((size_t)1 << 32) + 1000;
    const size_t min_at = ((size_t)1 << 32) + 3, max_at = n - 1;
    const clfold_kernel kernels[] = {CLFOLD_AUTO, CLFOLD_K1, CLFOLD_K4};
    uint8_t *data = malloc(n);
    if (data == NULL) {
        printf("test_big: no memory for %zu bytes: skipped\n", n);
        return TEST_SKIP;
    }
    uint64_t sum = 0;
    uint8_t xor = 0;
    for (size_t i = 0; i < n; i++)
        data[i] = pattern(i);
    data[min_at] = 0;
    data[max_at] = 255;
    for (size_t i = 0; i < n; i++) {
        sum += data[i];
        xor ^= data[i];
    }

    clfold_context *ctx = test_context();
    cl_ulong max_alloc = 0;
    size_t n_kernels = 1;
    if (ctx != NULL &&
        clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
                        &max_alloc, NULL) == CL_SUCCESS && max_alloc >= n)
        n_kernels = sizeof kernels / sizeof kernels[0];
    printf("test_big: %zu elements, largest device buffer %llu bytes: %s\n", n,
           (unsigned long long)max_alloc, n_kernels > 1 ? "one buffer, K1 and K4 too" : "chunked");
    for (size_t k = 0; ctx != NULL && k < n_kernels; k++) {
        const char *name = clfold_kernel_name(kernels[k]);
        uint64_t got_sum = 0;
        uint8_t got_min = 0xaa, got_max = 0, got_xor = 0;
        EXPECT_STATUS(ctx, clfold_set_kernel(ctx, kernels[k], 0), CLFOLD_SUCCESS);
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, n, CLFOLD_UINT8, CLFOLD_SUM, &got_sum), CLFOLD_SUCCESS);
        EXPECT(got_sum == sum, "%s: sum %llu, want %llu", name, (unsigned long long)got_sum,
               (unsigned long long)sum);
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, n, CLFOLD_UINT8, CLFOLD_MAX, &got_max), CLFOLD_SUCCESS);
        EXPECT(got_max == 255, "%s: max %u, want 255 (element %zu)", name, got_max, max_at);
        if (kernels[k] == CLFOLD_AUTO) {
            EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, n, CLFOLD_UINT8, CLFOLD_MIN, &got_min), CLFOLD_SUCCESS);
            EXPECT(got_min == 0, "%s: min %u, want 0 (element %zu)", name, got_min, min_at);
            EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, n, CLFOLD_UINT8, CLFOLD_XOR, &got_xor), CLFOLD_SUCCESS);
            EXPECT(got_xor == xor, "%s: xor %u, want %u", name, got_xor, xor);
        }
    }
    clfold_destroy(ctx);
    free(data);
    return ctx == NULL ? 1 : test_finish("test_big");
}
