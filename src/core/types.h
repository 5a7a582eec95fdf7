/*
 * types.h: the element-type table, the one place that says how each type
 * is spelled in OpenCL C, its size and what its sums widen to. The
 * operators' table is ops.h's.
 */
#ifndef CLFOLD_TYPES_H
#define CLFOLD_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "clfold.h"

struct type_info {
    const char *name;        /* as the runner spells it: "int32" */
    const char *cl_name;     /* OpenCL C: "int" */
    const char *cl_unsigned; /* unsigned twin for wrapping arithmetic; NULL for floats */
    const char *cl_lowest;   /* OpenCL C expression of the least value */
    const char *cl_highest;  /* and of the greatest */
    size_t size;             /* bytes per element */
    unsigned float_bits;     /* 0 for integers */
    bool is_signed;
    clfold_type wide;        /* what sums and products accumulate in */
};

/* NULL for a value that is not a clfold_type. */
const struct type_info *type_info(clfold_type type);

/*
 * The index of the row of `table` (count rows of `stride` bytes) whose name,
 * the string at byte `offset` of each row, is `name`, compared
 * case-insensitively; -1 where none is, or name is NULL. A row whose name is
 * NULL matches nothing. The one lookup behind every *_from_name: types,
 * kernels and accuracies (types.c), operators (ops.c), parameters
 * (settings.c).
 */
int name_index(const char *name, const void *table, size_t count, size_t stride, size_t offset);

#endif /* CLFOLD_TYPES_H */
