/*
 * npy_tool: helper of the runner's tests.
 *   npy_tool make TYPE COUNT FILE [D0 D1 ...]   writes a .npy of COUNT random
 *                                              TYPE values (shape D0 x D1 ...
 *                                              when given, else (COUNT,))
 *   npy_tool expect FILE OP                    prints the host reference result
 *                                              of OP over FILE, formatted as
 *                                              `clfold reduce` prints it
 * test_cli.sh and test_cli_robust.sh take only the files: their expected
 * results come from NumPy (npy_reference.py), which shares no reader with
 * the runner. `expect` drives the .npy reader and the host reference under
 * valgrind in .ci/robustness.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "reference.h"

static const char *const DESCR[] = {
    [CLFOLD_INT8] = "|i1", [CLFOLD_UINT8] = "|u1", [CLFOLD_INT16] = "<i2", [CLFOLD_UINT16] = "<u2",
    [CLFOLD_INT32] = "<i4", [CLFOLD_UINT32] = "<u4", [CLFOLD_INT64] = "<i8", [CLFOLD_UINT64] = "<u8",
    [CLFOLD_HALF] = "<f2", [CLFOLD_FLOAT] = "<f4", [CLFOLD_DOUBLE] = "<f8",
};

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A random value of `type`: every bit for integers, [-1, 1) for floats. */
static void random_value(clfold_type type, uint64_t bits, unsigned char *out)
{
    float f = (float)((int64_t)(bits >> 40) - (1 << 23)) * 0x1p-23f;
    double d = (double)f;
    uint16_t h = (uint16_t)((bits & 0x8000) | 0x3800 | (bits & 0x3ff)); /* +-[0.5, 1) */
    const void *from = type == CLFOLD_FLOAT ? (const void *)&f : type == CLFOLD_DOUBLE ? (const void *)&d
                     : type == CLFOLD_HALF ? (const void *)&h : (const void *)&bits;
    memcpy(out, from, clfold_type_size(type));
}

static int make(int argc, char **argv)
{
    clfold_type type;
    char shape[256] = "", header[512];
    size_t count = strtoull(argv[3], NULL, 10), size;
    uint64_t state = 7;
    if (clfold_type_from_name(argv[2], &type) != CLFOLD_SUCCESS)
        return fprintf(stderr, "npy_tool: unknown type %s\n", argv[2]), 2;
    for (int i = 5; i < argc; i++)
        snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%s", argv[i], i + 1 < argc ? ", " : "");
    if (argc <= 5)
        snprintf(shape, sizeof shape, "%zu,", count);
    int len = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                       DESCR[type], shape);
    size_t total = 10 + (size_t)len + 1, pad = (64 - total % 64) % 64;
    FILE *file = fopen(argv[4], "wb");
    if (file == NULL)
        return perror(argv[4]), 2;
    fwrite("\x93NUMPY\x01\x00", 1, 8, file);
    unsigned short header_len = (unsigned short)((size_t)len + pad + 1);
    fputc(header_len & 0xff, file);
    fputc(header_len >> 8, file);
    fprintf(file, "%s%*s\n", header, (int)pad, "");
    size = clfold_type_size(type);
    for (size_t i = 0; i < count; i++) {
        unsigned char value[8];
        random_value(type, next_random(&state), value);
        fwrite(value, 1, size, file);
    }
    return fclose(file) == 0 ? 0 : 2;
}

static int expect(char **argv)
{
    struct npy_array array;
    reference_value result;
    clfold_type result_type;
    clfold_op op;
    char err[512], text[64];
    if (npy_read_file(argv[2], &array, err, sizeof err) != 0)
        return fprintf(stderr, "npy_tool: %s\n", err), 2;
    if (clfold_op_from_name(argv[3], &op) != CLFOLD_SUCCESS ||
        reference_reduce(array.data, array.count, array.type, op, &result, NULL) != CLFOLD_SUCCESS ||
        clfold_result_type(array.type, op, &result_type) != CLFOLD_SUCCESS) {
        npy_free(&array);
        return fprintf(stderr, "npy_tool: cannot reduce with %s\n", argv[3]), 2;
    }
    reference_format(text, sizeof text, &result, result_type);
    printf("%s\n", text);
    npy_free(&array);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "make") == 0)
        return make(argc, argv);
    if (argc == 4 && strcmp(argv[1], "expect") == 0)
        return expect(argv);
    fprintf(stderr, "usage: npy_tool make TYPE COUNT FILE [DIMS...] | npy_tool expect FILE OP\n");
    return 2;
}
