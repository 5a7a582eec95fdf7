/*
 * npy.h: a reader for NumPy .npy files (format versions 1.0, 2.0 and 3.0)
 * holding one array of a type that clfold reduces.
 *
 * Accepted dtypes: i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8 in either byte order
 * ('<' or '>', swapped into the host's on reading; '=' is the host's; any
 * byte-order character for the one-byte types), in C or Fortran order (the
 * elements are kept as they lie: a whole-array reduction takes them in any
 * order), and exactly as long as the header says. Everything else is refused with a
 * reason in words.
 */
#ifndef CLFOLD_CLI_NPY_H
#define CLFOLD_CLI_NPY_H

#include <stdbool.h>
#include <stddef.h>

#include "clfold.h"

/* NumPy's own limit on dimensions (NPY_MAXDIMS of NumPy 2). */
#define NPY_MAX_DIMS 64

struct npy_array {
    clfold_type type; /* element type from the dtype */
    size_t count;     /* product of the shape; 1 for shape () */
    void *data;       /* malloc'ed, count * clfold_type_size(type) bytes, in the host's byte
                         order; NULL when count == 0 */
    size_t ndim;      /* the shape: ndim dimensions (0 for a 0-d array) */
    size_t shape[NPY_MAX_DIMS];
    bool fortran_order; /* the data lie with the first index fastest */
};

/*
 * Reads `path` ("-": standard input). On failure returns -1 and writes a one-line, human-readable
 * reason that starts with "<path>: " and has no trailing newline into
 * err[0..err_cap) (truncated to fit; err may be NULL when err_cap is 0), and
 * leaves *out empty (count 0, data NULL); on success returns 0.
 * Never prints, never exits.
 */
int npy_read_file(const char *path, struct npy_array *out, char *err, size_t err_cap);

/* Same, from a memory buffer (used by a fuzzer too); `name` starts messages. */
int npy_read_memory(const void *bytes, size_t size, const char *name, struct npy_array *out,
                    char *err, size_t err_cap);

/*
 * Writes `value`, one element of `type` in the host's byte order, to `path`
 * as a .npy file (version 1.0) of shape (), as NumPy's np.save writes a
 * scalar array. On failure returns -1 with a one-line reason in err, as
 * npy_read_file does; on success 0.
 */
int npy_write_scalar(const char *path, clfold_type type, const void *value, char *err,
                     size_t err_cap);

/*
 * Writes `data`, the elements of an array of `type` and the `ndim`
 * dimensions of `shape` in C order and the host's byte order, to `path` as
 * a .npy file (version 1.0, or 2.0 where the header needs it), as np.save
 * writes one: whole or not at all, an old file at `path` left as it was on
 * failure ("-": standard output; whole_file.h). Errors as npy_write_scalar's.
 */
int npy_write(const char *path, clfold_type type, size_t ndim, const size_t *shape,
              const void *data, char *err, size_t err_cap);

/* One part of a file's elements, as they lie, and the whole it belongs to. */
struct npy_part {
    struct npy_array whole; /* the file's type, shape and order; no data */
    size_t first;           /* the part's first element, counted in the order they lie */
    size_t count;           /* its elements */
    void *data;             /* malloc'ed, in the host's byte order; NULL when count == 0 */
};

/*
 * Reads part `part` of `parts` (0 <= part < parts) of a regular file's
 * elements, and nothing else of its data: a slice at an offset, as an MPI
 * rank reads its own. The parts are as even as can be, the first ones one
 * element longer. The file must be exactly as long as its header says.
 * Errors as npy_read_file's.
 */
int npy_read_part(const char *path, size_t part, size_t parts, struct npy_part *out, char *err,
                  size_t err_cap);

/* Frees a part's data; accepts NULL. */
void npy_part_free(struct npy_part *part);

/* Frees the data and empties *array; accepts NULL and an already empty array. */
void npy_free(struct npy_array *array);

#endif /* CLFOLD_CLI_NPY_H */
