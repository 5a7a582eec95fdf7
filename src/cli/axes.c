/*
 * axes.c: NumPy's axis arguments, and folding an N-d reduction into a
 * matrix reduction (axes.h).
 */
#include "axes.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Writes the reason into err; returns -1. The reason quotes the user's
 * words, which may hold any byte (strtoll skips a newline before a
 * number): control characters become '?', so that it stays one line.
 */
static int axes_error(char *err, size_t cap, const char *format, ...)
{
    if (err != NULL && cap > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(err, cap, format, args);
        va_end(args);
        for (char *c = err; *c != '\0'; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
    }
    return -1;
}

int axes_parse(const char *text, size_t ndim, bool *reduced, char *err, size_t err_cap)
{
    for (size_t d = 0; d < ndim; d++)
        reduced[d] = false;
    const char *p = text;
    for (;;) {
        char *end = NULL;
        errno = 0;
        long long axis = strtoll(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0') || errno != 0)
            return axes_error(err, err_cap, "--axis takes integers separated by commas, not "
                              "\"%s\"", text);
        long long d = (long long)ndim;
        if (axis < -d || axis >= d)
            return axes_error(err, err_cap, "axis %lld is out of bounds for an array of "
                              "dimension %zu", axis, ndim);
        size_t index = (size_t)(axis < 0 ? axis + d : axis);
        if (reduced[index])
            return axes_error(err, err_cap, "axis %zu is repeated in --axis %s", index, text);
        reduced[index] = true;
        if (*end == '\0')
            return 0;
        p = end + 1;
    }
}

void axes_plan_make(const size_t *shape, size_t ndim, const bool *reduced,
                    struct axes_plan *plan)
{
    size_t first = ndim, last = 0, count = 0;
    memset(plan, 0, sizeof *plan);
    for (size_t d = 0; d < ndim; d++) {
        if (reduced[d]) {
            first = first < d ? first : d;
            last = d;
            count++;
        } else {
            plan->out_shape[plan->out_ndim++] = shape[d];
        }
    }
    plan->whole = count == ndim;
    size_t before = 1, within = 1, after = 1;
    for (size_t d = 0; d < ndim; d++) {
        if (d < first)
            before *= shape[d];
        else if (d <= last)
            within *= shape[d];
        else
            after *= shape[d];
    }
    bool neighbours = count == 0 || last - first + 1 == count;
    if (neighbours && (after == 1 || before == 1)) {
        /* Axis 1 of (before x within), or axis 0 of (within x after). */
        plan->axis = after == 1 ? 1 : 0;
        plan->rows = after == 1 ? before : within;
        plan->cols = after == 1 ? within : after;
        return;
    }
    /* Kept axes first, then the reduced ones: each row of (kept x reduced) is reduced. */
    size_t k = 0, kept = 1, folded = 1;
    for (size_t d = 0; d < ndim; d++)
        if (!reduced[d]) {
            plan->order[k++] = d;
            kept *= shape[d];
        }
    for (size_t d = 0; d < ndim; d++)
        if (reduced[d]) {
            plan->order[k++] = d;
            folded *= shape[d];
        }
    plan->permute = true;
    plan->axis = 1;
    plan->rows = kept;
    plan->cols = folded;
}

int axes_permute(struct npy_array *array, const size_t *source, const size_t *order)
{
    size_t ndim = array->ndim, size = clfold_type_size(array->type);
    size_t stride[NPY_MAX_DIMS], index[NPY_MAX_DIMS] = {0};
    for (size_t d = ndim, step = 1; d-- > 0;) {
        stride[d] = step; /* the source's C-order stride of axis d, in elements */
        step *= source[d];
    }
    if (array->count > 0) {
        unsigned char *to = malloc(array->count * size);
        const unsigned char *from = array->data;
        if (to == NULL)
            return -1;
        /* Walks the result in C order, an odometer over its axes, the source's element beside. */
        size_t at = 0;
        for (size_t i = 0; i < array->count; i++) {
            memcpy(to + i * size, from + at * size, size);
            for (size_t k = ndim; k-- > 0;) {
                size_t axis = order[k];
                if (++index[k] < source[axis]) {
                    at += stride[axis];
                    break;
                }
                at -= (source[axis] - 1) * stride[axis];
                index[k] = 0;
            }
        }
        free(array->data);
        array->data = to;
    }
    for (size_t k = 0; k < ndim; k++)
        array->shape[k] = source[order[k]];
    return 0;
}

int axes_to_c_order(struct npy_array *array)
{
    if (array->fortran_order && array->ndim >= 2) {
        /* Fortran data are the C-order array of the reversed shape; reversing its axes gives ours. */
        size_t reversed[NPY_MAX_DIMS], order[NPY_MAX_DIMS];
        for (size_t d = 0; d < array->ndim; d++) {
            reversed[d] = array->shape[array->ndim - 1 - d];
            order[d] = array->ndim - 1 - d;
        }
        if (axes_permute(array, reversed, order) != 0)
            return -1;
    }
    array->fortran_order = false;
    return 0;
}
