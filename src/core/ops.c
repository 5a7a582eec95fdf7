/*
 * ops.c: the operators, one row each: the names users spell, NumPy's name,
 * the public flags, the OpenCL C defines of the operator and of the map
 * applied to each element (cl/core/defs.cl holds the matching blocks), how
 * two values fold, the identity and the result type. Every
 * other list of operators (the runner's options and help, Python's, the
 * partials' checks, MPI's merge) is built from this table.
 */
#include "ops.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "types.h"

/* What an empty fold gives: in the accumulator's type (identity_value). */
enum op_identity {
    IDENTITY_ZERO,
    IDENTITY_ONE,
    IDENTITY_ALL_ONES,
    IDENTITY_HIGHEST, /* the type's greatest value; +inf for floats */
    IDENTITY_LOWEST,  /* the type's least value; -inf for floats */
    IDENTITY_NONE     /* an index of no element: the callers refuse */
};

/* The result's type: the element's, its 64-bit widening (sums and products, as NumPy), or an index. */
enum op_result { RESULT_ELEMENT, RESULT_WIDE, RESULT_INDEX };

struct op_row {
    clfold_op_info info;
    const char *define;
    const char *map; /* the OpenCL C define of the map applied to each element; NULL: none */
    enum op_fold fold;
    enum op_identity identity;
    enum op_result result;
};

#define SCANS CLFOLD_OP_SCANS
#define BITWISE (CLFOLD_OP_SCANS | CLFOLD_OP_INTEGERS_ONLY)
#define ARG (CLFOLD_OP_INDEX | CLFOLD_OP_NO_IDENTITY)

static const struct op_row OPS[] = {
    [CLFOLD_SUM] = {{"sum", "add", SCANS | CLFOLD_OP_ROUNDS}, "OP_SUM", NULL, FOLD_ADD, IDENTITY_ZERO,
                    RESULT_WIDE},
    [CLFOLD_PROD] = {{"prod", "multiply", SCANS | CLFOLD_OP_ROUNDS}, "OP_PROD", NULL, FOLD_MULTIPLY,
                     IDENTITY_ONE, RESULT_WIDE},
    [CLFOLD_MIN] = {{"min", "minimum", SCANS | CLFOLD_OP_NO_IDENTITY}, "OP_MIN", NULL, FOLD_LEAST,
                    IDENTITY_HIGHEST, RESULT_ELEMENT},
    [CLFOLD_MAX] = {{"max", "maximum", SCANS | CLFOLD_OP_NO_IDENTITY}, "OP_MAX", NULL, FOLD_GREATEST,
                    IDENTITY_LOWEST, RESULT_ELEMENT},
    [CLFOLD_AND] = {{"and", "bitwise_and", BITWISE}, "OP_AND", NULL, FOLD_AND, IDENTITY_ALL_ONES,
                    RESULT_ELEMENT},
    [CLFOLD_OR] = {{"or", "bitwise_or", BITWISE}, "OP_OR", NULL, FOLD_OR, IDENTITY_ZERO, RESULT_ELEMENT},
    [CLFOLD_XOR] = {{"xor", "bitwise_xor", BITWISE}, "OP_XOR", NULL, FOLD_XOR, IDENTITY_ZERO,
                    RESULT_ELEMENT},
    [CLFOLD_ARGMIN] = {{"argmin", "argmin", ARG}, "OP_ARGMIN", NULL, FOLD_ARG, IDENTITY_NONE,
                       RESULT_INDEX},
    [CLFOLD_ARGMAX] = {{"argmax", "argmax", ARG}, "OP_ARGMAX", NULL, FOLD_ARG, IDENTITY_NONE,
                       RESULT_INDEX},
    [CLFOLD_SUMSQ] = {{"sumsq", NULL, CLFOLD_OP_ROUNDS}, "OP_SUM", "MAP_SQUARE", FOLD_ADD,
                      IDENTITY_ZERO, RESULT_WIDE},
};

#define N_OPS (sizeof OPS / sizeof OPS[0])

/* A row for every value of clfold_op, and no gap (a gap's name would be NULL). */
_Static_assert(N_OPS == (size_t)CLFOLD_SUMSQ + 1, "a row for every clfold_op");

bool op_is_valid(clfold_op op) { return (unsigned)op < N_OPS; }

bool op_is_bitwise(clfold_op op)
{
    return op_is_valid(op) && (OPS[op].info.flags & CLFOLD_OP_INTEGERS_ONLY);
}

bool op_is_arg(clfold_op op) { return op_is_valid(op) && OPS[op].result == RESULT_INDEX; }

enum op_fold op_fold(clfold_op op) { return OPS[op].fold; }

const char *op_define(clfold_op op) { return op_is_valid(op) ? OPS[op].define : NULL; }

const char *op_map_define(clfold_op op) { return op_is_valid(op) ? OPS[op].map : NULL; }

bool op_scans(clfold_op op) { return op_is_valid(op) && (OPS[op].info.flags & CLFOLD_OP_SCANS); }

clfold_status accumulator_type(clfold_type type, clfold_op op, clfold_type *acc)
{
    const struct type_info *info = type_info(type);
    if (info == NULL)
        return CLFOLD_ERROR_INVALID_TYPE;
    if (!op_is_valid(op))
        return CLFOLD_ERROR_INVALID_OP;
    if (info->float_bits != 0 && op_is_bitwise(op))
        return CLFOLD_ERROR_OP_NOT_FOR_TYPE;
    if (OPS[op].result == RESULT_INDEX)
        *acc = CLFOLD_INT64;
    else if (OPS[op].result == RESULT_WIDE || type == CLFOLD_HALF)
        *acc = info->wide; /* half folds in float for every operator */
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

static void identity_float(const struct type_info *info, enum op_identity identity, void *out)
{
    double value = identity == IDENTITY_ONE       ? 1.0
                   : identity == IDENTITY_HIGHEST ? INFINITY
                   : identity == IDENTITY_LOWEST  ? -INFINITY
                                                  : 0.0;
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
    enum op_identity identity = OPS[op].identity;
    unsigned width = (unsigned)info->size * 8;
    uint64_t all_ones = width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
    uint64_t sign_bit = UINT64_C(1) << (width - 1);
    uint64_t bits = 0;

    if (info->float_bits != 0) {
        identity_float(info, identity, out);
        return;
    }
    switch (identity) {
    case IDENTITY_ONE: bits = 1; break;
    case IDENTITY_ALL_ONES: bits = all_ones; break;
    case IDENTITY_HIGHEST: bits = info->is_signed ? all_ones >> 1 : all_ones; break;
    case IDENTITY_LOWEST: bits = info->is_signed ? sign_bit : 0; break;
    default: bits = 0; break; /* zero; an index of nothing is refused before it is read */
    }
    store_integer(bits, info->size, out);
}

clfold_status clfold_result_type(clfold_type type, clfold_op op, clfold_type *result_type)
{
    if (result_type == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    return accumulator_type(type, op, result_type);
}

clfold_status clfold_op_describe(clfold_op op, clfold_op_info *info)
{
    if (info == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (!op_is_valid(op))
        return CLFOLD_ERROR_INVALID_OP;
    *info = OPS[op].info;
    return CLFOLD_SUCCESS;
}

const char *clfold_op_name(clfold_op op) { return op_is_valid(op) ? OPS[op].info.name : NULL; }

clfold_status clfold_op_from_name(const char *name, clfold_op *op)
{
    int index = name_index(name, OPS, N_OPS, sizeof OPS[0], offsetof(struct op_row, info.name));
    if (op == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (index < 0)
        return CLFOLD_ERROR_INVALID_OP;
    *op = (clfold_op)index;
    return CLFOLD_SUCCESS;
}
