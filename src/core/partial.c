/*
 * partial.c: partial results as bytes (clfold_partial), and merging and
 * finishing them on the host with the kernels' own rules (accumulator.c).
 *
 * Layout, version 1, little-endian as every supported device and host is:
 *   bytes 0..3    "CLFP"
 *   bytes 4..5    the layout version
 *   byte  6       the element type (clfold_type)
 *   byte  7       the operator (clfold_op)
 *   byte  8       the result type
 *   byte  9       the accumulator's scalar type (double for fp64 sums of floats)
 *   byte  10      the accumulator: bit 0 a compensated pair, bit 1 an exact
 *                 state, bit 2 a scaled product, bit 3 an arg pair
 *   byte  11      0
 *   bytes 12..15  the accumulator value's size in bytes
 *   bytes 16..    the accumulator value, as the kernels write it; then zeros
 */
#include "partial.h"

#include <stdint.h>
#include <string.h>

#include "internal.h"

#define HEADER_BYTES PARTIAL_VALUE_AT
#define VALUE_AT PARTIAL_VALUE_AT

enum { COMPENSATED = 1, EXACT = 2, SCALED = 4, ARG = 8 };

static const unsigned char MAGIC[4] = {'C', 'L', 'F', 'P'};

void partial_pack(const struct accumulator *acc, clfold_type type, clfold_op op,
                  const void *value, clfold_partial *partial)
{
    unsigned char *b = partial->bytes;
    uint32_t size = (uint32_t)accumulator_size(acc);
    memset(b, 0, CLFOLD_PARTIAL_BYTES);
    memcpy(b, MAGIC, 4);
    b[4] = CLFOLD_PARTIAL_VERSION & 0xff;
    b[5] = CLFOLD_PARTIAL_VERSION >> 8;
    b[6] = (unsigned char)type;
    b[7] = (unsigned char)op;
    b[8] = (unsigned char)acc->result;
    b[9] = (unsigned char)acc->scalar;
    b[10] = (unsigned char)((acc->compensated ? COMPENSATED : 0) | (acc->exact ? EXACT : 0) |
                            (acc->scaled ? SCALED : 0) | (acc->arg ? ARG : 0));
    for (int i = 0; i < 4; i++)
        b[12 + i] = (unsigned char)(size >> (8 * i));
    memcpy(b + VALUE_AT, value, size);
}

/* What a partial holds, checked: its accumulator, type and operator. */
struct unpacked {
    struct accumulator acc;
    clfold_type type;
    clfold_op op;
};

/*
 * Reads and checks a partial's header: the magic and version, known types
 * and operator, the accumulator that clfold would choose for them (one of
 * the accuracies' choices), and its size.
 */
static bool unpack(const clfold_partial *partial, struct unpacked *out)
{
    const unsigned char *b = partial->bytes;
    clfold_type result;
    uint32_t size = 0;
    if (memcmp(b, MAGIC, 4) != 0 || (b[4] | b[5] << 8) != CLFOLD_PARTIAL_VERSION || b[11] != 0)
        return false;
    out->type = (clfold_type)b[6];
    out->op = (clfold_op)b[7];
    if (accumulator_type(out->type, out->op, &result) != CLFOLD_SUCCESS || b[8] != result ||
        type_info((clfold_type)b[9]) == NULL || (b[10] & ~(COMPENSATED | EXACT | SCALED | ARG)))
        return false;
    out->acc = (struct accumulator){.result = result, .scalar = (clfold_type)b[9],
                                    .compensated = b[10] & COMPENSATED, .exact = b[10] & EXACT,
                                    .scaled = b[10] & SCALED, .arg = b[10] & ARG};
    bool is_float = type_info(result)->float_bits != 0;
    bool arg = op_is_arg(out->op);
    bool float_sum = is_float && op_fold(out->op) == FOLD_ADD;
    /* Only the accumulators clfold makes: anything else would be read wrongly. */
    bool fits = out->acc.arg == arg && (!out->acc.exact || float_sum) &&
                (!out->acc.compensated || float_sum) &&
                (!out->acc.scaled || (is_float && op_fold(out->op) == FOLD_MULTIPLY)) &&
                (out->acc.scalar == result || (float_sum && out->acc.scalar == CLFOLD_DOUBLE)) &&
                (out->acc.exact + out->acc.compensated + out->acc.scaled + out->acc.arg) <= 1;
    if (!fits)
        return false;
    if (out->acc.exact)
        out->acc.exact_format = exact_format_of(result);
    for (int i = 0; i < 4; i++)
        size |= (uint32_t)b[12 + i] << (8 * i);
    return size == accumulator_size(&out->acc) && VALUE_AT + size <= CLFOLD_PARTIAL_BYTES;
}

static bool same_kind(const unsigned char *a, const unsigned char *b)
{
    return memcmp(a, b, HEADER_BYTES) == 0;
}

clfold_status clfold_partial_merge(clfold_partial *into, const clfold_partial *part)
{
    struct unpacked mine, theirs;
    if (into == NULL || part == NULL || !unpack(into, &mine) || !unpack(part, &theirs) ||
        !same_kind(into->bytes, part->bytes))
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    /* The value is copied out and back: `into` and `part` may be one partial. */
    unsigned char total[ACCUMULATOR_MAX_BYTES], other[ACCUMULATOR_MAX_BYTES];
    size_t size = accumulator_size(&mine.acc);
    memcpy(total, into->bytes + VALUE_AT, size);
    memcpy(other, part->bytes + VALUE_AT, size);
    accumulator_fold(&mine.acc, mine.op, total, other);
    memcpy(into->bytes + VALUE_AT, total, size);
    return CLFOLD_SUCCESS;
}

clfold_status clfold_partial_finish(const clfold_partial *partial, void *result)
{
    struct unpacked p;
    uint64_t index;
    if (partial == NULL || result == NULL || !unpack(partial, &p))
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (p.acc.arg) {
        memcpy(&index, partial->bytes + VALUE_AT + sizeof index, sizeof index);
        if (index == UINT64_MAX) /* no element: an empty array has no index */
            return CLFOLD_ERROR_INVALID_ARGUMENT;
    }
    accumulator_finish(&p.acc, partial->bytes + VALUE_AT, result);
    return CLFOLD_SUCCESS;
}

clfold_status clfold_partial_rebase(clfold_partial *partial, uint64_t first)
{
    struct unpacked p;
    if (partial == NULL || !unpack(partial, &p) || !p.acc.arg)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    accumulator_move_index(&p.acc, partial->bytes + VALUE_AT, first);
    return CLFOLD_SUCCESS;
}
