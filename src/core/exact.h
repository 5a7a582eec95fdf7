/*
 * exact.h: the host's side of an exact sum's state (cl/core/exact.cl says
 * what the state is): its layout for a result type, merging two states,
 * and rounding one, for the values of a large host array's chunks.
 */
#ifndef CLFOLD_EXACT_H
#define CLFOLD_EXACT_H

#include <stddef.h>

#include "clfold.h"

/* The most words a state has: a double sum's (exact_format_of). */
#define EXACT_MAX_WORDS 34

/* The state for sums whose result is `result` (float or double). */
struct exact_format {
    unsigned words; /* 64-bit words of the two's-complement sum */
    int lsb;        /* their unit is 2^lsb */
};

struct exact_format exact_format_of(clfold_type result);

/* Bytes of a state: its words and its flags word. */
size_t exact_state_bytes(struct exact_format format);

/* total += part, as the kernels' exact_merge. */
void exact_state_merge(struct exact_format format, void *total, const void *part);

/* The correctly rounded result of a state, as the kernels' exact_round_bits. */
void exact_state_round(struct exact_format format, clfold_type result, const void *state,
                       void *out);

#endif /* CLFOLD_EXACT_H */
