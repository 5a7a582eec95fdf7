/*
 * axes.h: NumPy's axis arguments for `clfold reduce --axis`, and how an N-d
 * array's reduction along them becomes one of the library's matrix
 * reductions (clfold_reduce_axis). Pure functions: no device, no printing.
 */
#ifndef CLFOLD_CLI_AXES_H
#define CLFOLD_CLI_AXES_H

#include <stdbool.h>
#include <stddef.h>

#include "npy.h"

/*
 * Parses "A[,B...]" (decimal integers, negative ones counting from the
 * end, as NumPy's axis= does) for an array of `ndim` dimensions into
 * reduced[0 .. ndim). -1 with a one-line reason in err for an empty item,
 * an axis out of range, or one named twice.
 */
int axes_parse(const char *text, size_t ndim, bool *reduced, char *err, size_t err_cap);

/*
 * The plan for reducing a C-order array of `shape` along the `reduced`
 * axes. The result has the kept axes, in order. Where the reduced axes
 * are neighbours, the array already is a matrix: rows of the axes before
 * them times the axes after them (axis 0 of (reduced x after) when nothing
 * comes before, axis 1 of (before x reduced) when nothing comes after).
 * Otherwise the data are permuted first, kept axes first, and each row of
 * (kept x reduced) is reduced.
 */
struct axes_plan {
    bool whole;                     /* every axis reduced: a whole-array reduction */
    bool permute;                   /* permute the data by `order` first */
    size_t order[NPY_MAX_DIMS];     /* the source axis each axis of the permuted data is */
    size_t rows, cols;              /* the matrix the (permuted) data are */
    int axis;                       /* and the axis of it that is reduced */
    size_t out_ndim;                /* the result's shape: the kept axes */
    size_t out_shape[NPY_MAX_DIMS];
};

void axes_plan_make(const size_t *shape, size_t ndim, const bool *reduced,
                    struct axes_plan *plan);

/*
 * Permutes the elements of `array`, which lie as the C-order array of
 * `source` (array->ndim dimensions), so that its axis k is the source's axis
 * order[k], in C order; array->shape becomes the permuted shape. -1 if out
 * of memory (the array is then unchanged).
 */
int axes_permute(struct npy_array *array, const size_t *source, const size_t *order);

/* Makes a Fortran-order array C-order: its data permuted, fortran_order cleared; -1 if out of memory. */
int axes_to_c_order(struct npy_array *array);

#endif /* CLFOLD_CLI_AXES_H */
