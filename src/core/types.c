/*
 * types.c: element types (their names, OpenCL C spelling, sizes and
 * widening), the names of kernels and accuracies, and name_index, the
 * lookup by name that every table of names uses. Adding a type is adding a
 * row here; operators have their own table (ops.c).
 */
#include "types.h"

#include <stddef.h>
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

const char *clfold_kernel_name(clfold_kernel kernel)
{
    return (unsigned)kernel < N_KERNELS ? KERNEL_NAMES[kernel] : NULL;
}

const char *clfold_scan_kernel_name(clfold_scan_kernel kernel)
{
    return (unsigned)kernel < N_SCAN_KERNELS ? SCAN_KERNEL_NAMES[kernel] : NULL;
}

int name_index(const char *name, const void *table, size_t count, size_t stride, size_t offset)
{
    for (size_t i = 0; name != NULL && i < count; i++) {
        const char *row_name = *(const char *const *)((const char *)table + i * stride + offset);
        if (row_name != NULL && strcasecmp(name, row_name) == 0)
            return (int)i;
    }
    return -1;
}

/* name_index over an array of names. */
#define NAMES_INDEX(name, names, count) name_index((name), (names), (count), sizeof(names)[0], 0)

clfold_status clfold_type_from_name(const char *name, clfold_type *type)
{
    int index = name_index(name, TYPES, N_TYPES, sizeof TYPES[0], offsetof(struct type_info, name));
    if (type == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (index < 0)
        return CLFOLD_ERROR_INVALID_TYPE;
    *type = (clfold_type)index;
    return CLFOLD_SUCCESS;
}

clfold_status clfold_kernel_from_name(const char *name, clfold_kernel *kernel)
{
    int index = NAMES_INDEX(name, KERNEL_NAMES, N_KERNELS);
    if (kernel == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (index < 0)
        return CLFOLD_ERROR_INVALID_KERNEL;
    *kernel = (clfold_kernel)index;
    return CLFOLD_SUCCESS;
}

clfold_status clfold_scan_kernel_from_name(const char *name, clfold_scan_kernel *kernel)
{
    int index = NAMES_INDEX(name, SCAN_KERNEL_NAMES, N_SCAN_KERNELS);
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
    int index = NAMES_INDEX(name, ACCURACY_NAMES, N_ACCURACIES);
    if (accuracy == NULL || index < 0)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    *accuracy = (clfold_accuracy)index;
    return CLFOLD_SUCCESS;
}
