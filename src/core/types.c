/*
 * types.c: element types and operators: their names, their OpenCL C
 * spelling, accumulators and identities. Adding a type is adding a row here.
 */
#include "types.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

static const struct type_info TYPES[] = {
    [CLFOLD_INT8] = {"int8", "char", "uchar", "CHAR_MIN", "CHAR_MAX", 1, 0, true, CLFOLD_INT64},
    [CLFOLD_UINT8] = {"uint8", "uchar", "uchar", "0", "UCHAR_MAX", 1, 0, false, CLFOLD_UINT64},
    [CLFOLD_INT16] = {"int16", "short", "ushort", "SHRT_MIN", "SHRT_MAX", 2, 0, true, CLFOLD_INT64},
    [CLFOLD_UINT16] = {"uint16", "ushort", "ushort", "0", "USHRT_MAX", 2, 0, false, CLFOLD_UINT64},
    [CLFOLD_INT32] = {"int32", "int", "uint", "INT_MIN", "INT_MAX", 4, 0, true, CLFOLD_INT64},
    [CLFOLD_UINT32] = {"uint32", "uint", "uint", "0", "UINT_MAX", 4, 0, false, CLFOLD_UINT64},
    [CLFOLD_INT64] = {"int64", "long", "ulong", "LONG_MIN", "LONG_MAX", 8, 0, true, CLFOLD_INT64},
    [CLFOLD_UINT64] = {"uint64", "ulong", "ulong", "0", "ULONG_MAX", 8, 0, false, CLFOLD_UINT64},
    [CLFOLD_HALF] = {"half", "half", NULL, "(-INFINITY)", "INFINITY", 2, 16, true, CLFOLD_FLOAT},
    [CLFOLD_FLOAT] = {"float", "float", NULL, "(-INFINITY)", "INFINITY", 4, 32, true, CLFOLD_FLOAT},
    [CLFOLD_DOUBLE] = {"double", "double", NULL, "(-INFINITY)", "INFINITY", 8, 64, true, CLFOLD_DOUBLE},
};

#define N_TYPES (sizeof TYPES / sizeof TYPES[0])

static const char *const OP_NAMES[] = {"sum", "prod", "min", "max", "and",
                                       "or",  "xor",  "argmin", "argmax"};
static const char *const OP_DEFINES[] = {"OP_SUM", "OP_PROD", "OP_MIN",    "OP_MAX",   "OP_AND",
                                         "OP_OR",  "OP_XOR",  "OP_ARGMIN", "OP_ARGMAX"};

#define N_OPS (sizeof OP_NAMES / sizeof OP_NAMES[0])

static const char *const KERNEL_NAMES[] = {"auto", "k1", "k2", "k3", "k4",
                                           "k5", "k6", "k7", "atomic"};

#define N_KERNELS (sizeof KERNEL_NAMES / sizeof KERNEL_NAMES[0])

static const char *const SCAN_KERNEL_NAMES[] = {"auto", "kogge-stone", "blelloch",
                                                "blelloch-padded"};

#define N_SCAN_KERNELS (sizeof SCAN_KERNEL_NAMES / sizeof SCAN_KERNEL_NAMES[0])

static const char *const ACCURACY_NAMES[] = {"default", "compensated", "fp64", "exact"};

#define N_ACCURACIES (sizeof ACCURACY_NAMES / sizeof ACCURACY_NAMES[0])

const struct type_info *type_info(clfold_type type)
{
    if ((unsigned)type >= N_TYPES)
        return NULL;
    return &TYPES[type];
}

bool op_is_valid(clfold_op op) { return (unsigned)op < N_OPS; }

bool op_is_bitwise(clfold_op op) { return op == CLFOLD_AND || op == CLFOLD_OR || op == CLFOLD_XOR; }

bool op_is_arg(clfold_op op) { return op == CLFOLD_ARGMIN || op == CLFOLD_ARGMAX; }

const char *op_define(clfold_op op) { return op_is_valid(op) ? OP_DEFINES[op] : NULL; }

clfold_status accumulator_type(clfold_type type, clfold_op op, clfold_type *acc)
{
    const struct type_info *info = type_info(type);
    if (info == NULL)
        return CLFOLD_ERROR_INVALID_TYPE;
    if (!op_is_valid(op))
        return CLFOLD_ERROR_INVALID_OP;
    if (info->float_bits != 0 && op_is_bitwise(op))
        return CLFOLD_ERROR_OP_NOT_FOR_TYPE;
    if (op_is_arg(op))
        *acc = CLFOLD_INT64; /* an index */
    else if (op == CLFOLD_SUM || op == CLFOLD_PROD || type == CLFOLD_HALF)
        *acc = info->wide;
    else
        *acc = type;
    return CLFOLD_SUCCESS;
}

/* Stores the integer `bits` (two's complement, already truncated) in `size` bytes. */
static void store_integer(uint64_t bits, size_t size, void *out)
{
    uint8_t b8 = (uint8_t)bits;
    uint16_t b16 = (uint16_t)bits;
    uint32_t b32 = (uint32_t)bits;
    switch (size) {
    case 1: memcpy(out, &b8, 1); break;
    case 2: memcpy(out, &b16, 2); break;
    case 4: memcpy(out, &b32, 4); break;
    default: memcpy(out, &bits, 8); break;
    }
}

static void identity_float(const struct type_info *info, clfold_op op, void *out)
{
    double value = op == CLFOLD_PROD ? 1.0 : op == CLFOLD_MIN ? INFINITY : op == CLFOLD_MAX ? -INFINITY : 0.0;
    if (info->float_bits == 64) {
        memcpy(out, &value, sizeof value);
    } else {
        float narrow = (float)value;
        memcpy(out, &narrow, sizeof narrow);
    }
}

void identity_value(clfold_type acc, clfold_op op, void *out)
{
    const struct type_info *info = type_info(acc);
    unsigned width = (unsigned)info->size * 8;
    uint64_t all_ones = width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
    uint64_t sign_bit = UINT64_C(1) << (width - 1);
    uint64_t bits = 0;

    if (info->float_bits != 0) {
        identity_float(info, op, out);
        return;
    }
    switch (op) {
    case CLFOLD_PROD: bits = 1; break;
    case CLFOLD_AND: bits = all_ones; break;
    case CLFOLD_MIN: bits = info->is_signed ? all_ones >> 1 : all_ones; break;
    case CLFOLD_MAX: bits = info->is_signed ? sign_bit : 0; break;
    default: bits = 0; break; /* sum, or, xor */
    }
    store_integer(bits, info->size, out);
}

clfold_status clfold_result_type(clfold_type type, clfold_op op, clfold_type *result_type)
{
    if (result_type == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    return accumulator_type(type, op, result_type);
}

size_t clfold_type_size(clfold_type type)
{
    const struct type_info *info = type_info(type);
    return info ? info->size : 0;
}

const char *clfold_type_name(clfold_type type)
{
    const struct type_info *info = type_info(type);
    return info ? info->name : NULL;
}

const char *clfold_op_name(clfold_op op) { return op_is_valid(op) ? OP_NAMES[op] : NULL; }

const char *clfold_kernel_name(clfold_kernel kernel)
{
    return (unsigned)kernel < N_KERNELS ? KERNEL_NAMES[kernel] : NULL;
}

const char *clfold_scan_kernel_name(clfold_scan_kernel kernel)
{
    return (unsigned)kernel < N_SCAN_KERNELS ? SCAN_KERNEL_NAMES[kernel] : NULL;
}

/* Index of `name` in `names`, case-insensitively; -1 if absent. */
static int find_name(const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; name != NULL && i < count; i++)
        if (names[i] != NULL && strcasecmp(name, names[i]) == 0)
            return (int)i;
    return -1;
}

clfold_status clfold_type_from_name(const char *name, clfold_type *type)
{
    if (type == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; name != NULL && i < N_TYPES; i++) {
        if (strcasecmp(name, TYPES[i].name) == 0) {
            *type = (clfold_type)i;
            return CLFOLD_SUCCESS;
        }
    }
    return CLFOLD_ERROR_INVALID_TYPE;
}

clfold_status clfold_op_from_name(const char *name, clfold_op *op)
{
    int index = find_name(name, OP_NAMES, N_OPS);
    if (op == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (index < 0)
        return CLFOLD_ERROR_INVALID_OP;
    *op = (clfold_op)index;
    return CLFOLD_SUCCESS;
}

clfold_status clfold_kernel_from_name(const char *name, clfold_kernel *kernel)
{
    int index = find_name(name, KERNEL_NAMES, N_KERNELS);
    if (kernel == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (index < 0)
        return CLFOLD_ERROR_INVALID_KERNEL;
    *kernel = (clfold_kernel)index;
    return CLFOLD_SUCCESS;
}

clfold_status clfold_scan_kernel_from_name(const char *name, clfold_scan_kernel *kernel)
{
    int index = find_name(name, SCAN_KERNEL_NAMES, N_SCAN_KERNELS);
    if (kernel == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (index < 0)
        return CLFOLD_ERROR_INVALID_KERNEL;
    *kernel = (clfold_scan_kernel)index;
    return CLFOLD_SUCCESS;
}

const char *clfold_accuracy_name(clfold_accuracy accuracy)
{
    return (unsigned)accuracy < N_ACCURACIES ? ACCURACY_NAMES[accuracy] : NULL;
}

clfold_status clfold_accuracy_from_name(const char *name, clfold_accuracy *accuracy)
{
    int index = find_name(name, ACCURACY_NAMES, N_ACCURACIES);
    if (accuracy == NULL || index < 0)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    *accuracy = (clfold_accuracy)index;
    return CLFOLD_SUCCESS;
}
