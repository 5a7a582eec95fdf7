"""NumPy's axis= arguments, and how a reduction along them becomes one of libclfold's matrix
reductions (clfold_reduce_axis): the runner's src/cli/axes.c, for arrays of any layout."""
import collections
import math
import operator

import numpy as np

AxisError = getattr(getattr(np, "exceptions", np), "AxisError")


def _one_axis(a, ndim):
    """One axis as an int from 0 to ndim - 1: any integer (operator.index) but a bool."""
    try:
        if isinstance(a, (bool, np.bool_)):
            raise TypeError
        a = operator.index(a)
    except TypeError:
        raise TypeError("axis must be None, an int or a tuple of ints, not "
                        f"{type(a).__name__}") from None
    if not -ndim <= a < ndim:
        raise AxisError(a, ndim)
    return a % ndim


def normalize(axis, ndim, arg_op):
    """The reduced axes as a sorted tuple (negative ones counted from the end), or None for
    every element, as numpy.sum's axis= and, for argmin and argmax (arg_op), numpy.argmin's,
    which takes one int or None."""
    if axis is None:
        return None
    if arg_op:
        if isinstance(axis, tuple):
            raise TypeError("argmin and argmax take one axis (an int) or None, as numpy.argmin "
                            "does, not a tuple")
        return (_one_axis(axis, ndim),)
    axes = axis if isinstance(axis, tuple) else (axis,)
    seen = [_one_axis(a, ndim) for a in axes]
    if len(set(seen)) != len(seen):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(seen))


Plan = collections.namedtuple("Plan", "order rows cols axis out_shape")
Plan.__doc__ = """A C-order array's reduction as one matrix reduction: permute its axes by
`order` first (None: it already is the matrix), then reduce the rows x cols matrix along `axis`
(1: each row, 0: each column); the results take `out_shape`, the kept axes in order."""


def _block(shape, reduced):
    """(before, length, after) where the reduced axes, leaving out axes of length 1 (which lie
    anywhere in memory), are neighbours: the elements before them, in them and after them; else
    None."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    marks = [d in reduced for d in dims]
    first = marks.index(True) if True in marks else len(marks)
    last = len(marks) - marks[::-1].index(True) if True in marks else first
    if not all(marks[first:last]):
        return None
    return (math.prod(shape[d] for d in dims[:first]), math.prod(shape[d] for d in dims[first:last]),
            math.prod(shape[d] for d in dims[last:]))


def middle_block(shape, reduced):
    """(before, length, after) where the reduced axes are neighbours between others, so that
    each of `before` matrices of length x after reduces down its columns; else None."""
    block = _block(shape, reduced)
    return block if block is not None and block[0] > 1 and block[2] > 1 else None


def plan(shape, reduced):
    """The Plan for reducing a C-order array of `shape` along the `reduced` axes (a tuple).

    Where the reduced axes are neighbours, the array already is a matrix: axis 1 of (axes
    before x reduced axes) when nothing comes after them, axis 0 of (reduced x after) when
    nothing comes before. Axes of length 1 lie anywhere in memory, so they do not count.
    Otherwise the kept axes go first and each row of (kept x reduced) is reduced."""
    kept = [d for d in range(len(shape)) if d not in reduced]
    out_shape = tuple(shape[d] for d in kept)
    block = _block(shape, reduced)
    if block is not None and block[2] == 1:
        return Plan(None, block[0], block[1], 1, out_shape)
    if block is not None and block[0] == 1:
        return Plan(None, block[1], block[2], 0, out_shape)
    return Plan(tuple(kept) + tuple(reduced), math.prod(out_shape),
                math.prod(shape[d] for d in reduced), 1, out_shape)
