"""The Python module against NumPy's semantics, on the default device (POCL in CI).

Run from an environment where `pip install .` put clfold: `python -m pytest python/tests`.
"""
import faulthandler
import inspect
import math
import os
import threading
import typing
from fractions import Fraction

import numpy as np
import pytest

import clfold

INTEGERS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
SIZES = [0, 1, 2, 3, 255, 256, 257, 1000003]


def data(dtype, n, seed=7):
    rng = np.random.default_rng(seed + n)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    return (rng.standard_normal(n) * 100).astype(dtype)


def result_dtype(dtype, op):
    if op in ("sum", "prod", "sumsq"):
        if np.issubdtype(dtype, np.signedinteger):
            return np.dtype(np.int64)
        if np.issubdtype(dtype, np.unsignedinteger):
            return np.dtype(np.uint64)
        return np.dtype(np.float64 if dtype == np.float64 else np.float32)
    return np.dtype(dtype)


def numpy_reduce(x, op):
    """NumPy's answer in clfold's result type (integer sums and products wrap in 64 bits)."""
    wide = result_dtype(x.dtype, op)
    if op == "sum":
        return np.sum(x, dtype=wide if wide.kind in "iu" else np.float64)
    if op == "sumsq":
        return numpy_sumsq(x, None)
    if op == "prod":
        return np.prod(x, dtype=wide if wide.kind in "iu" else np.float64)
    return {"min": np.min, "max": np.max, "and": np.bitwise_and.reduce,
            "or": np.bitwise_or.reduce, "xor": np.bitwise_xor.reduce}[op](x)


def numpy_sumsq(x, axis):
    """numpy.sum(numpy.square(x)) with each square in clfold's result type: integers widened
    first (their squares wrap modulo 2^64 there), floats squared in float64 for the bound."""
    wide = result_dtype(x.dtype, "sumsq")
    square = x.astype(wide if wide.kind in "iu" else np.float64)
    return np.sum(square * square, axis=axis)


@pytest.fixture(scope="module", autouse=True)
def first_context():
    # POCL 3.1 builds its device list on a process's first OpenCL call, and first calls from
    # several threads at once crash it (docs/design.md): make it here, before any test's threads.
    return clfold.default_context()


@pytest.mark.parametrize("dtype", INTEGERS)
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "and", "or", "xor", "sumsq"])
@pytest.mark.parametrize("n", SIZES)
def test_integers_are_numpys(dtype, op, n):
    x = data(dtype, n)
    if n == 0 and op in ("min", "max"):
        with pytest.raises(ValueError, match="zero-size array"):
            clfold.reduce(x, op)
        return
    got = clfold.reduce(x, op)
    assert isinstance(got, np.generic) and got.dtype == result_dtype(dtype, op)
    assert got == numpy_reduce(x, op)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_float_sums_within_the_bound(dtype, n):
    x = data(dtype, n)
    got = clfold.reduce(x)
    assert got.dtype == result_dtype(dtype, "sum")
    exact = math.fsum(x.astype(np.float64))
    # docs/accuracy.md: the default's error is at most (L + 4) u A, L the tree's levels.
    u = np.finfo(got.dtype).eps / 2
    bound = (math.log2(max(n, 2)) + 4) * u * float(np.sum(np.abs(x.astype(np.float64))))
    assert abs(float(got) - exact) <= bound


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("accuracy", ["default", "compensated", "fp64"])
def test_float_sums_of_squares_within_the_bound(dtype, n, accuracy):
    x = data(dtype, n)
    got = clfold.reduce(x, "sumsq", accuracy=accuracy)
    assert got.dtype == result_dtype(dtype, "sumsq")
    exact = float(sum(Fraction(float(v)) ** 2 for v in x.astype(np.float64)))
    # docs/accuracy.md: a sum's bound over the squares, and u of each square for its rounding.
    u = np.finfo(got.dtype).eps / 2
    bound = (math.log2(max(n, 2)) + 5) * u * exact
    assert abs(float(got) - exact) <= bound


def test_sums_of_squares_refusals():
    x = data(np.float32, 10)
    with pytest.raises(clfold.Error, match="exact accuracy does not take sumsq"):
        clfold.reduce(x, "sumsq", accuracy="exact")
    with pytest.raises(clfold.Error, match="sumsq has no scan"):
        clfold.scan(x, "sumsq")
    assert "sumsq" in clfold.REDUCE_OPS and "sumsq" not in clfold.OPS


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 2, 257, 5001])
def test_float_products_within_the_bound(dtype, n):
    x = (1 + 0.01 * np.random.default_rng(n).standard_normal(n)).astype(dtype)
    got = clfold.reduce(x, "prod")
    want = float(np.prod(x.astype(np.float64)))
    # docs/accuracy.md: (n + 1) u |P|, plus half the smallest subnormal.
    assert abs(float(got) - want) <= (n + 1) * np.finfo(got.dtype).eps / 2 * abs(want) + 1e-45


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["min", "max"])
def test_min_max_and_nan(dtype, op):
    x = data(dtype, 1001)
    assert clfold.reduce(x, op) == numpy_reduce(x, op)
    x[500] = np.nan
    assert np.isnan(clfold.reduce(x, op)) and np.isnan(numpy_reduce(x, op))


def correctly_rounded(total, dtype):
    """The value of type `dtype` nearest the Fraction `total`, ties to even."""
    guess = dtype(float(total))
    candidates = [np.nextafter(guess, dtype(-np.inf)), guess, np.nextafter(guess, dtype(np.inf))]
    finite = [c for c in candidates if np.isfinite(c)]
    best = min(finite, key=lambda c: (abs(Fraction(float(c)) - total),
                                      int(np.array(c).view(np.uint32 if dtype == np.float32 else np.uint64)) & 1))
    return best


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kernel", ["auto", "k1", "k7"])
def test_exact_sums_are_correctly_rounded(dtype, kernel):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(100003) * np.exp2(rng.integers(-60, 60, 100003))).astype(dtype)
    x[10], x[20] = dtype(3e30 if dtype == np.float32 else 3e300), -dtype(3e30 if dtype == np.float32 else 3e300)
    want = correctly_rounded(sum(Fraction(float(v)) for v in x), dtype)
    got = clfold.reduce(x, accuracy="exact", kernel=kernel)
    assert got.tobytes() == np.array(want, dtype=dtype).tobytes()
    if dtype == np.float64:
        assert got == math.fsum(x)


def test_result_types_and_layouts():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    assert clfold.reduce(x) == 276
    assert clfold.reduce(x, axis=(0, 1, 2)) == 276 and clfold.reduce(x, axis=(2, -3, 1)) == 276
    assert clfold.reduce(np.asfortranarray(x)) == 276
    assert clfold.reduce(x[:, ::2, 1:]) == np.sum(x[:, ::2, 1:])
    assert clfold.reduce(x.astype(">i4")) == 276          # byte-swapped: converted, as NumPy reads it
    assert clfold.reduce([1.5, 2.5]) == 4.0                # anything np.asarray takes
    assert clfold.reduce(memoryview(np.arange(5, dtype=np.int16))) == 10
    assert clfold.reduce(np.array(7, dtype=np.uint8), "max") == 7
    assert clfold.reduce(np.arange(4, dtype=np.float16)).dtype == np.float32
    assert clfold.reduce(np.array([], dtype=np.int32), "and") == -1
    assert clfold.reduce(np.array([], dtype=np.float64), "prod") == 1.0


def test_kernels_and_accuracies():
    x = data(np.float32, 5000)
    want = math.fsum(x.astype(np.float64))
    u, total = 2.0 ** -24, float(np.sum(np.abs(x.astype(np.float64))))
    for kernel in clfold.KERNELS:
        for block in (None, 64):
            got = clfold.reduce(x, kernel=kernel, block=block)
            assert abs(float(got) - want) <= (math.log2(5000) + 4) * u * total, kernel
    # docs/accuracy.md's compensated bound, 2u|S| + ((L + 2)^2 + n/8192) u^2 A, on the tree kernels
    for kernel in ("auto", "k3", "k7"):
        got = clfold.reduce(x, kernel=kernel, accuracy="compensated")
        assert abs(float(got) - want) <= 2 * u * abs(want) + (15 ** 2 + 1) * u * u * total
    assert clfold.reduce(x, accuracy="fp64") == np.float32(want)


def test_bad_arguments():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(ValueError, match="unknown op 'mean'"):
        clfold.reduce(x, "mean")
    with pytest.raises(ValueError, match="unknown accuracy"):
        clfold.reduce(x, accuracy="best")
    with pytest.raises(ValueError, match="unknown kernel"):
        clfold.reduce(x, kernel="k8")
    with pytest.raises(ValueError, match="power of two"):
        clfold.reduce(x, kernel="k3", block=48)
    with pytest.raises(TypeError, match="bool"):
        clfold.reduce(np.ones(3, dtype=bool))
    with pytest.raises(TypeError, match="complex"):
        clfold.reduce(np.ones(3, dtype=np.complex64))
    with pytest.raises(ValueError, match="whole-array kernels"):
        clfold.reduce(x.reshape(2, 5), axis=1, kernel="k3")
    with pytest.raises(ValueError, match="whole-array kernels"):
        clfold.reduce(x.reshape(2, 5), "argmax", axis=0, block=64)
    with pytest.raises(np.AxisError if hasattr(np, "AxisError") else np.exceptions.AxisError):
        clfold.reduce(x, axis=1)
    with pytest.raises(ValueError, match="duplicate"):
        clfold.reduce(x.reshape(2, 5), axis=(0, -2))
    with pytest.raises(TypeError, match="axis"):
        clfold.reduce(x, axis=0.5)


def test_masked_arrays_are_refused():
    # np.asarray drops a mask: reducing the data would count the masked elements too.
    x = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    calls = (lambda: clfold.reduce(x), lambda: clfold.reduce(x, axis=0),
             lambda: clfold.reduce_segments(x, [0, 3]), lambda: clfold.scan(x),
             lambda: clfold.reduce_partial(x), lambda: clfold.default_context().reduce(x),
             lambda: clfold.reduce_segments(np.arange(3.0), np.ma.masked_array([0, 3], mask=[0, 1]))
             )
    for call in calls:
        with pytest.raises(TypeError, match=r"MaskedArray.*compressed\(\).*filled\("):
            call()


def test_integer_arguments_are_checked_before_ctypes():
    # ctypes wraps integers into its C types without a word: 2**64 would become block 0 (the default).
    x = np.arange(10, dtype=np.float32)
    calls = (lambda b: clfold.reduce(x, kernel="k3", block=b), lambda b: clfold.scan(x, block=b),
             lambda b: clfold.reduce_partial(x, kernel="k3", block=b))
    for call in calls:
        for block, error in ((2**64, OverflowError), (2**65, OverflowError), (-4, ValueError),
                             (4.0, TypeError), (True, TypeError), ("4", TypeError)):
            with pytest.raises(error, match="block"):
                call(block)
        call(np.int64(64))                                    # NumPy integers are integers
    assert clfold.reduce(x, kernel="k3", block=np.uint16(64)) == 45
    argmax = clfold.reduce_partial(np.arange(10), "argmax")
    for first, error in ((-5, ValueError), (2**64 + 7, OverflowError), (2**63, OverflowError),
                         (5.0, TypeError), (None, TypeError)):
        with pytest.raises(error, match="first"):
            argmax.rebase(first)
    assert argmax.result() == 9                               # the refusals left it alone
    assert argmax.rebase(np.uint64(7)).result() == 16
    with pytest.raises(TypeError, match="bytes"):
        clfold.Partial(320)                                   # bytes(320) would be 320 zeros


def test_messages_say_what_is_expected():
    x = np.arange(10, dtype=np.float64)
    wanted = r"offsets must be a 1-d integer array of at least one value, non-decreasing"
    for bad in ([], np.zeros(0, np.int64)):
        with pytest.raises(ValueError, match=wanted):
            clfold.reduce_segments(x, bad)
    for bad in ([0.0, 1.0], [[0, 3]], "0,3"):
        with pytest.raises(TypeError, match=wanted):
            clfold.reduce_segments(x, bad)
    device = clfold.devices()[0]
    for context in (device.selector, device):                # as Context(device) takes them
        assert clfold.reduce(x, context=context) == 45
        assert np.array_equal(clfold.scan(x, context=context), np.cumsum(x))
        assert np.array_equal(clfold.reduce_segments(x, [0, 4, 10], context=context), [6, 39])
        assert clfold.reduce_partial(x, "max", context=context).result() == 9
    with pytest.raises(TypeError, match="context must be None, a clfold.Context, a device"):
        clfold.reduce(x, context=0)
    with pytest.raises(clfold.Error, match="no OpenCL device matches"):
        clfold.reduce(x, context="no such device")
    # A partial's refusal says what a partial needs, not the message of an earlier failure.
    empty_argmax = clfold.reduce_partial(np.zeros(0, np.int8), "argmax")
    for call, message in ((lambda: clfold.Partial(bytes(320)).result(), "not a clfold partial"),
                          (lambda: empty_argmax.result(), "no element"),
                          (lambda: clfold.reduce_partial(x).rebase(3), "argmin's or argmax's"),
                          (lambda: clfold.reduce_partial(x).merge(clfold.reduce_partial(x, "max")),
                           "same type, operator and accuracy")):
        with pytest.raises(clfold.Error, match=message):
            call()


def test_reprs_show_device_and_state():
    device = clfold.devices()[0]
    with clfold.Context(device) as ctx:
        assert repr(ctx) == f"<clfold.Context device={device.selector!r} name={device.name!r}>"
    assert repr(ctx) == "<clfold.Context closed>"
    x = np.arange(10, dtype=np.float32)
    for partial, shown in (
            (clfold.reduce_partial(x), "float32 sum result=45.0"),
            (clfold.reduce_partial(x, accuracy="exact"), "float32 sum accuracy='exact' result=45.0"),
            (clfold.reduce_partial(x, accuracy="compensated"),
             "float32 sum accuracy='compensated' result=45.0"),
            (clfold.reduce_partial(x, accuracy="fp64"), "float32 sum accuracy='fp64' result=45.0"),
            (clfold.reduce_partial(np.arange(10, dtype=np.int8), "argmax").rebase(5),
             "int8 argmax result=14"),
            (clfold.reduce_partial(np.zeros(0, np.uint16), "argmin"), "uint16 argmin no element"),
            (clfold.Partial(), "(bytes that are not a clfold partial)")):
        assert repr(partial) == f"<clfold.Partial {shown}>"


def test_library_errors_carry_status_and_message():
    with pytest.raises(clfold.Error) as caught:
        clfold.reduce(np.ones(4, np.float32), "and")
    assert caught.value.status == "CLFOLD_ERROR_OP_NOT_FOR_TYPE" and caught.value.message
    with pytest.raises(clfold.Error) as caught:
        clfold.reduce(np.ones(4, np.float32), "prod", accuracy="exact")
    assert caught.value.status == "CLFOLD_ERROR_UNSUPPORTED" and "exact" in str(caught.value)
    with pytest.raises(clfold.Error) as caught:
        clfold.reduce(np.ones(4, np.float32), kernel="k3", block=1 << 20)
    assert caught.value.status == "CLFOLD_ERROR_INVALID_BLOCK_SIZE"
    with pytest.raises(clfold.Error) as caught:
        clfold.Context(device="no such device")
    assert caught.value.status == "CLFOLD_ERROR_DEVICE_NOT_FOUND" and "no such device" in str(caught.value)
    assert isinstance(caught.value, RuntimeError)


def test_parameters_set_get_and_refuse():
    assert {"auto_shape", "gpu_block", "scan_prefetch", "local_mem_bytes"} <= set(clfold.PARAMS)
    x = np.arange(100003, dtype=np.int32)
    with clfold.Context() as ctx:
        assert ctx.get_param("gpu_block") == "auto" and ctx.get_param("gpu_one_launch") == 1
        for shape in ("cpu", "gpu", "auto"):
            ctx.set_param("auto_shape", shape)
            ctx.set_param("gpu_block", 64)
            ctx.set_param("cpu_lanes", 4)
            assert ctx.get_param("auto_shape") == shape and ctx.get_param("GPU_BLOCK") == 64
            assert ctx.reduce(x) == x.sum(dtype=np.int64)
        ctx.set_param("gpu_block", None)
        assert ctx.get_param("gpu_block") == "auto"
        with pytest.raises(clfold.Error) as caught:
            ctx.set_param("gpu_block", 96)
        assert caught.value.status == "CLFOLD_ERROR_INVALID_ARGUMENT"
        assert "gpu_block=96 is not a power of two from 1 to 1048576, or auto" in str(caught.value)
        assert ctx.get_param("gpu_block") == "auto"
        with pytest.raises(clfold.Error, match="gpu_one_launch=-1 is not 0 or 1"):
            ctx.set_param("gpu_one_launch", "auto")
        with pytest.raises(ValueError, match="unknown parameter 'gpu_blocks': one of auto_shape"):
            ctx.set_param("gpu_blocks", 1)
        with pytest.raises(ValueError, match="auto_shape takes cpu, gpu, auto, not 'fpga'"):
            ctx.set_param("auto_shape", "fpga")
        with pytest.raises(TypeError):
            ctx.set_param("gpu_block", 1.5)
        with pytest.raises(OverflowError):
            ctx.set_param("max_chunk_bytes", 1 << 63)
        assert ctx.reduce(x) == x.sum(dtype=np.int64)


def test_devices_and_contexts():
    found = clfold.devices()
    assert found and all(d.selector.count(":") == 1 and d.name for d in found)
    with clfold.Context(device=found[0]) as ctx:
        assert ctx.device == found[0]
        assert ctx.reduce(np.arange(100, dtype=np.int64)) == 4950
        assert clfold.reduce(np.arange(100, dtype=np.int64), context=ctx) == 4950
    with pytest.raises(ValueError, match="closed"):
        ctx.reduce(np.arange(3))
    ctx.close()  # twice: harmless
    assert clfold.__version__ == clfold.library_version


def test_a_context_shared_by_threads_is_serialised():
    ctx = clfold.Context()
    arrays = [data(np.int32, 10007, seed=s) for s in range(4)]
    wrong = []

    def work(x):
        try:
            for op in ("sum", "max", "xor") * 5:
                if ctx.reduce(x, op) != numpy_reduce(x, op):
                    wrong.append(op)
        except Exception as error:  # a thread's exception would otherwise pass unseen
            wrong.append(repr(error))

    threads = [threading.Thread(target=work, args=(x,)) for x in arrays]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ctx.close()
    assert not wrong


def numpy_along(x, op, axis):
    """NumPy's reduction along `axis`, in clfold's result type (floats summed exactly enough in
    float64 for the bound checks)."""
    if op in ("argmin", "argmax"):
        return getattr(np, op)(x, axis=axis)
    wide = result_dtype(x.dtype, op)
    if op == "sum":
        return np.sum(x, axis=axis, dtype=wide if wide.kind in "iu" else np.float64)
    if op == "sumsq":
        return numpy_sumsq(x, axis)
    if op == "prod":
        return np.prod(x, axis=axis, dtype=wide if wide.kind in "iu" else np.float64)
    ufunc = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
             "xor": np.bitwise_xor}[op]
    return ufunc.reduce(x, axis=axis if axis is not None else tuple(range(x.ndim)))


def assert_along(x, op, axis, **options):
    """clfold.reduce(x, op, axis=axis) has NumPy's shape and type, and its values: integers,
    min, max and indices to the bit, float sums within the default bound."""
    got = clfold.reduce(x, op, axis=axis, **options)
    want = numpy_along(x, op, axis)
    assert np.shape(got) == np.shape(want), (x.shape, axis)
    assert got.dtype == (np.dtype(np.int64) if op.startswith("arg") else result_dtype(x.dtype, op))
    if x.dtype.kind != "f" or op not in ("sum", "prod", "sumsq"):
        assert np.array_equal(got, want, equal_nan=x.dtype.kind == "f"), (x.shape, axis)
        return
    length = x.size // max(np.size(want), 1)
    if op == "sumsq":  # the squares' sum's bound, and u of each square for its rounding
        magnitude, levels = want, 5
    else:
        magnitude, levels = np.sum(np.abs(x.astype(np.float64)), axis=axis), 4
    u = np.finfo(got.dtype).eps / 2
    bound = (math.log2(max(length, 2)) + levels) * u * magnitude
    assert np.all(np.abs(np.asarray(got, np.float64) - want) <= bound), (x.shape, axis)


AXIS_CASES = [((301, 7), 0), ((301, 7), 1), ((3, 2001), 0), ((3, 2001), -1), ((1, 1000), 0),
              ((1000, 1), 1), ((5, 6, 7), 0), ((5, 6, 7), 1), ((5, 6, 7), 2), ((5, 6, 7), (0, 2)),
              ((5, 6, 7), (0, 1)), ((5, 6, 7), (1, 2)), ((4, 1, 3, 1, 5), (0, 2)),
              ((2, 3, 4, 5), (1, 3)), ((5, 6, 7), ()), ((0, 5), 1), ((0, 5), 0), ((4, 0), 0)]


@pytest.mark.parametrize("dtype,op", [(np.int8, "sum"), (np.uint16, "max"), (np.int32, "xor"),
                                      (np.int64, "prod"), (np.float32, "sum"), (np.float64, "min"),
                                      (np.float16, "sum"), (np.int16, "sumsq"),
                                      (np.float32, "sumsq")])
@pytest.mark.parametrize("shape,axis", AXIS_CASES)
def test_axes_are_numpys(dtype, op, shape, axis):
    x = data(dtype, math.prod(shape)).reshape(shape)
    length = math.prod(shape[a] for a in (axis if isinstance(axis, tuple) else (axis,)))
    if length == 0 and op in ("min", "max"):
        with pytest.raises(ValueError, match="zero-size array"):
            clfold.reduce(x, op, axis=axis)
        return
    assert_along(x, op, axis)
    assert_along(np.asfortranarray(x), op, axis)          # read in place, as its transpose


def test_axes_of_every_layout():
    x = data(np.int32, 50 * 64).reshape(50, 64)
    for view in (x[:, 3:40], x[::2, :], x[::-1], x[:, ::3], x.astype(">i4"),
                 np.asfortranarray(x)[:, 1:9]):
        for axis in (0, 1, (0, 1), None):
            assert_along(view, "sum", axis)
    for axis in (0, 1):
        assert_along(x[:, 3:40], "argmax", axis)            # a pitched view, read in place
    f = data(np.float32, 20 * 30 * 4).reshape(20, 30, 4)
    assert_along(f, "sum", (0, 2), accuracy="fp64")
    exact = clfold.reduce(f, axis=1, accuracy="exact")
    want = [[math.fsum(f[i, :, k].astype(np.float64)) for k in range(4)] for i in range(20)]
    assert np.array_equal(exact, np.array(want, dtype=np.float32))


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.float16, np.float32, np.float64])
def test_argmin_argmax_are_numpys(dtype):
    x = data(dtype, 4 * 5 * 6, seed=3).reshape(4, 5, 6)
    x[1, 2, :] = x[1, 2, 0]                     # ties: the first wins
    if np.dtype(dtype).kind == "f":
        x[2, 1, 3] = np.nan                     # NaN: the first NaN wins, as the extreme
        x[2, 3, 3] = np.nan
        x[0, 0, :2] = (-0.0, 0.0)               # -0 and +0 are equal
    for op in ("argmin", "argmax"):
        for axis in (None, 0, 1, 2, -1):
            assert_along(x, op, axis)
            assert_along(np.asfortranarray(x), op, axis)
        assert clfold.reduce(np.array([3, 1, 1], dtype), op) == getattr(np, op)(np.array([3, 1, 1], dtype))
    with pytest.raises(ValueError, match="empty sequence"):
        clfold.reduce(np.zeros(0, dtype), "argmin")
    with pytest.raises(ValueError, match="empty sequence"):
        clfold.reduce(np.zeros((0, 5), dtype), "argmax", axis=0)
    with pytest.raises(ValueError, match="empty sequence"):
        clfold.reduce(np.zeros((0, 0), dtype), "argmax", axis=1)
    assert clfold.reduce(np.zeros((0, 5), dtype), "argmax", axis=1).shape == (0,)
    with pytest.raises(TypeError, match="one axis"):
        clfold.reduce(x, "argmin", axis=(0, 1))


@pytest.mark.parametrize("shape", [(7,), (4, 6), (3, 4, 5), (2, 3, 2, 5)])
def test_negative_axes_down_to_minus_ndim(shape):
    """Every axis from -1 down to -ndim is the axis ndim places on, for reductions (alone, and
    -ndim with -1) and for argmin and argmax; -ndim - 1 is out of bounds, as NumPy says."""
    ndim = len(shape)
    x = data(np.int16, math.prod(shape), seed=11).reshape(shape) % 5   # ties along every axis
    f = data(np.float64, math.prod(shape), seed=13).reshape(shape)
    f.flat[1::4] = -0.0
    f.flat[3::11] = np.nan
    for axis in range(-ndim, 0):
        for op in ("sum", "argmin", "argmax"):
            assert_along(x, op, axis)
        for op in ("max", "argmin", "argmax"):
            assert_along(f, op, axis)
    if ndim > 1:
        assert_along(f, "min", (-ndim, -1))
    for op in ("sum", "argmax"):
        with pytest.raises(np.AxisError if hasattr(np, "AxisError") else np.exceptions.AxisError):
            clfold.reduce(x, op, axis=-ndim - 1)


def test_segments():
    x = data(np.int32, 1000)
    bounds = [0, 0, 1, 1, 5, 900, 900, 1000]
    got = clfold.reduce_segments(x, bounds)
    want = [np.sum(x[a:b], dtype=np.int64) for a, b in zip(bounds, bounds[1:])]
    assert got.dtype == np.int64 and np.array_equal(got, want)
    for op in ("argmin", "argmax"):
        got = clfold.reduce_segments(x, np.array(bounds, np.uint64), op)
        want = [getattr(np, op)(x[a:b]) if b > a else -1 for a, b in zip(bounds, bounds[1:])]
        assert np.array_equal(got, want)
    f = data(np.float64, 5000).reshape(50, 100)                # the C-order ravel of a matrix
    bounds = np.cumsum([0, 1, 2, 0, 4997])
    got = clfold.reduce_segments(np.asfortranarray(f), bounds, accuracy="exact")
    flat = f.reshape(-1)
    assert np.array_equal(got, [math.fsum(flat[a:b]) for a, b in zip(bounds, bounds[1:])])
    assert clfold.reduce_segments(x, [7]).shape == (0,)
    assert np.array_equal(clfold.reduce_segments(np.zeros(0, np.uint8), [0, 0], "max"), [0])
    for bad, message in (([0, 5, 3], r"offsets\[2\] = 3 is less than offsets\[1\] = 5"),
                         ([0, 1001], r"offsets\[1\] = 1001 lies past the 1000 elements"),
                         ([0, -1, 3], r"offsets\[1\] = -1 is negative"), ([], "at least one")):
        with pytest.raises(ValueError, match=message):
            clfold.reduce_segments(x, np.array(bad, dtype=np.int64))
    for bad in ([0.0, 1.0], [[0, 1]], [True, False]):
        with pytest.raises(TypeError, match="offsets"):
            clfold.reduce_segments(x, np.array(bad))
    with pytest.raises(clfold.Error, match="OP_NOT_FOR_TYPE"):
        clfold.reduce_segments(x.astype(np.float32), [0, 3], "and")


@pytest.fixture(scope="module")
def queue():
    """A queue of the user's own, on PyOpenCL's first device (skips where PyOpenCL is absent)."""
    global cl, cl_array
    cl = pytest.importorskip("pyopencl")
    cl_array = pytest.importorskip("pyopencl.array")
    platform = next(p for p in cl.get_platforms() if p.get_devices())
    context = cl.Context([platform.get_devices()[0]])
    return cl.CommandQueue(context)


def test_pyopencl_arrays_reduce_on_their_queue(queue):
    x = data(np.float64, 100001)
    a = cl_array.to_device(queue, x)
    assert clfold.reduce(a, accuracy="exact") == math.fsum(x)
    assert clfold.reduce(a[17:], "max") == x[17:].max()           # a view at an offset
    assert clfold.reduce(a[:0]) == 0.0
    i = cl_array.to_device(queue, np.arange(1000, dtype=np.int16))
    assert clfold.reduce(i) == 499500
    with clfold.Context.from_queue(queue) as ctx:                  # a context made on the user's queue
        assert ctx.reduce(i, "min") == 0
    with pytest.raises(ValueError, match="contiguous"):
        clfold.reduce(a[::2])
    with pytest.raises(ValueError, match="without a queue"):
        clfold.reduce(a.with_queue(None))
    with clfold.Context.from_queue(queue) as ctx:             # a queue-less array, a context given
        assert ctx.reduce(a.with_queue(None), "min") == x.min()
    with pytest.raises(TypeError, match="byte order"):
        clfold.reduce(cl_array.to_device(queue, np.arange(4, dtype=">i4")))
    # A context on the default device's own queue waits for the array's queue first.
    other = cl.CommandQueue(queue.context)
    with clfold.Context.from_queue(other) as ctx:
        assert ctx.reduce(cl_array.to_device(queue, x, async_=True), accuracy="exact") == math.fsum(x)


def test_a_queue_s_context_goes_with_the_queue(queue):
    import gc
    from clfold import _context
    before = len(_context._queue_contexts)
    for _ in range(3):
        mine = cl.CommandQueue(queue.context)
        assert clfold.reduce(cl_array.to_device(mine, np.ones(10, np.int32))) == 10
        del mine
        gc.collect()
    assert len(_context._queue_contexts) == before


def test_the_gil_is_released_during_a_reduction(queue):
    """The reduction waits on the queue for a user event that only another Python thread sets:
    with the GIL held during the call, that thread could never run, and the watchdog ends the test."""
    gate = cl.UserEvent(queue.context)
    cl.enqueue_marker(queue, wait_for=[gate])
    a = cl_array.to_device(queue, np.arange(1000, dtype=np.int32), async_=True)
    opened = threading.Event()

    def open_gate():
        opened.set()
        gate.set_status(cl.command_execution_status.COMPLETE)

    opener = threading.Timer(0.2, open_gate)
    faulthandler.dump_traceback_later(120, exit=True)
    try:
        opener.start()
        assert clfold.reduce(a) == 499500
        assert opened.is_set()  # the reduction did wait for the gate, and the other thread ran
    finally:
        faulthandler.cancel_dump_traceback_later()
        opener.join()


SCAN_UFUNCS = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
               "or": np.bitwise_or, "xor": np.bitwise_xor}


def numpy_scan(x, op):
    """NumPy's running reduction of the flattened x in clfold's result type (sums and products
    of integers wrap in 64 bits; floats in float64, to measure the float results from)."""
    x = x.reshape(-1)
    wide = result_dtype(x.dtype, op)
    if op in ("sum", "prod"):
        run = np.cumsum if op == "sum" else np.cumprod
        return run(x, dtype=wide if wide.kind in "iu" else np.float64)
    return SCAN_UFUNCS[op].accumulate(x) if x.size else x.copy()


@pytest.mark.parametrize("dtype", INTEGERS)
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "and", "or", "xor"])
@pytest.mark.parametrize("n", [0, 1, 257, 100003])
def test_integer_scans_are_numpys(dtype, op, n):
    x = data(dtype, n)
    got = clfold.scan(x, op)
    want = numpy_scan(x, op)
    assert got.dtype == result_dtype(np.dtype(dtype), op) and got.shape == (n,)
    assert np.array_equal(got, want)
    excl = clfold.scan(x, op, exclusive=True)
    if n:
        identity = {"sum": 0, "prod": 1, "min": np.iinfo(dtype).max, "max": np.iinfo(dtype).min,
                    "and": np.array(-1).astype(dtype), "or": 0, "xor": 0}[op]
        assert excl[0] == np.array(identity).astype(got.dtype) and np.array_equal(excl[1:], want[:-1])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("accuracy", ["default", "compensated", "fp64"])
@pytest.mark.parametrize("kernel", ["auto", "kogge-stone", "blelloch-padded"])
def test_float_scans_within_the_bound(dtype, accuracy, kernel):
    x = data(dtype, 70007).reshape(7, 10001)                       # flattened in C order
    got = clfold.scan(x, accuracy=accuracy, kernel=kernel).astype(np.float64)
    exact = np.cumsum(x.reshape(-1).astype(np.float64))             # exact enough at this scale
    magnitude = np.cumsum(np.abs(x.reshape(-1).astype(np.float64)))
    u = 2.0 ** -53 if dtype == np.float64 else 2.0 ** -24
    bound = (5 * math.ceil(math.log2(x.size)) + 4) * u * magnitude + 1e-12 * magnitude
    assert np.all(np.abs(got - exact) <= bound)


def test_scan_min_max_nan_and_layouts():
    x = np.array([3.0, -0.0, 0.0, np.nan, -1.0], np.float32)
    assert np.array_equal(clfold.scan(x, "min"), [3.0, -0.0, -0.0, np.nan, np.nan], equal_nan=True)
    assert np.signbit(clfold.scan(x, "min")[2])                     # -0 below +0
    f = np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert np.array_equal(clfold.scan(f), np.cumsum(f))              # C order, as NumPy's
    assert np.array_equal(clfold.scan(np.arange(5, dtype=">i2")), np.cumsum(np.arange(5)))
    assert clfold.scan(np.float16([1, 2])).dtype == np.float32


def test_scan_refusals():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(clfold.Error) as refused:
        clfold.scan(x, "argmax")
    assert refused.value.status == "CLFOLD_ERROR_UNSUPPORTED"
    with pytest.raises(clfold.Error, match="UNSUPPORTED"):
        clfold.scan(x, accuracy="exact")
    with pytest.raises(clfold.Error, match="OP_NOT_FOR_TYPE"):
        clfold.scan(x, "xor")
    with pytest.raises(ValueError, match="unknown scan_kernel"):
        clfold.scan(x, kernel="k7")
    with pytest.raises(ValueError, match="power of two"):
        clfold.scan(x, block=3)
    with pytest.raises(TypeError, match="does not reduce"):
        clfold.scan(np.zeros(3, bool))


def test_pyopencl_arrays_scan_on_their_queue(queue):
    x = data(np.int32, 100001)
    a = cl_array.to_device(queue, x)
    got = clfold.scan(a)
    assert isinstance(got, cl_array.Array) and got.dtype == np.int64
    assert np.array_equal(got.get(), np.cumsum(x, dtype=np.int64))
    assert np.array_equal(clfold.scan(a[17:], "max", exclusive=True).get()[1:],
                          np.maximum.accumulate(x[17:])[:-1])         # a view at an offset
    assert clfold.scan(a[:0]).size == 0
    with pytest.raises(ValueError, match="contiguous"):
        clfold.scan(a[::2])


def test_pyopencl_arrays_along_axes_and_segments(queue):
    x = data(np.int32, 6 * 70 * 5).reshape(6, 70, 5)
    a = cl_array.to_device(queue, x)
    for op, axis in (("sum", 0), ("sum", (1, 2)), ("max", 2), ("argmax", 1), ("argmin", None),
                     ("xor", (0, 1))):
        got = clfold.reduce(a, op, axis=axis)
        assert isinstance(got, (np.ndarray, np.generic))
        assert np.array_equal(got, numpy_along(x, op, axis)), (op, axis)
    f = cl_array.to_device(queue, np.asfortranarray(x))            # its transpose, on the device
    assert not f.flags.c_contiguous
    assert np.array_equal(clfold.reduce(f, axis=0), np.sum(x, axis=0, dtype=np.int64))
    assert np.array_equal(clfold.reduce(f, "argmin", axis=2), np.argmin(x, axis=2))
    with pytest.raises(ValueError, match="C order"):
        clfold.reduce(f, "argmin")
    with pytest.raises(ValueError, match="permuting"):
        clfold.reduce(a, axis=(0, 2))
    rows = a.reshape(6 * 70, 5)[7:]                                 # a view at an offset
    assert np.array_equal(clfold.reduce(rows, axis=1), np.sum(x.reshape(-1, 5)[7:], axis=1))

    flat = x.reshape(-1)
    bounds = np.array([0, 3, 3, 2000, 2100], np.int64)
    want = [np.sum(flat[p:q], dtype=np.int64) for p, q in zip(bounds, bounds[1:])]
    assert np.array_equal(clfold.reduce_segments(a, bounds), want)
    on_device = cl_array.to_device(queue, bounds.astype(np.uint64))
    assert np.array_equal(clfold.reduce_segments(a, on_device), want)
    assert np.array_equal(clfold.reduce_segments(a, on_device, "argmax"),
                          [np.argmax(flat[p:q]) if q > p else -1 for p, q in zip(bounds, bounds[1:])])
    with pytest.raises(clfold.Error, match="offsets\\[2\\]"):          # checked by the library
        clfold.reduce_segments(a, cl_array.to_device(queue, np.array([0, 5, 4], np.int64)))
    with pytest.raises(TypeError, match="int64 or uint64"):
        clfold.reduce_segments(a, cl_array.to_device(queue, np.array([0, 5], np.int32)))
    with pytest.raises(TypeError, match="go with x"):
        clfold.reduce_segments(x, on_device)
    with pytest.raises(ValueError, match="C order"):
        clfold.reduce_segments(f, bounds)


@pytest.mark.parametrize("dtype", [np.int16, np.uint32, np.float32, np.float64])
@pytest.mark.parametrize("op", ["sum", "max", "argmin", "argmax"])
def test_partials_merge_into_the_whole(dtype, op):
    x = data(dtype, 30011)
    cuts = [0, 0, 7, 12000, 12000, 30011]                           # empty parts among them
    accuracy = "exact" if op == "sum" and np.issubdtype(dtype, np.floating) else "default"
    parts = [clfold.reduce_partial(x[a:b], op, accuracy=accuracy) for a, b in zip(cuts, cuts[1:])]
    if op.startswith("arg"):
        parts = [p.rebase(a) for p, a in zip(parts, cuts)]
    parts = [clfold.Partial(bytes(p)) for p in parts]                # plain bytes travel
    total = parts[3].merge(parts[0]).merge(parts[4].merge(parts[1])).merge(parts[2])
    whole = clfold.reduce(x, op, accuracy=accuracy) if not op.startswith("arg") else \
        getattr(np, op)(x)
    got = total.result()
    assert got == whole and (op.startswith("arg") or got.dtype == np.asarray(whole).dtype)


def test_partial_refusals():
    s = clfold.reduce_partial(np.arange(4, dtype=np.float32))
    m = clfold.reduce_partial(np.arange(4, dtype=np.float32), "max")
    with pytest.raises(clfold.Error, match="INVALID_ARGUMENT"):
        s.merge(m)
    with pytest.raises(clfold.Error, match="INVALID_ARGUMENT"):
        s.rebase(3)
    with pytest.raises(clfold.Error, match="INVALID_ARGUMENT"):
        clfold.reduce_partial(np.zeros(0, np.int8), "argmax").result()
    with pytest.raises(ValueError, match="320 bytes"):
        clfold.Partial(b"abc")
    with pytest.raises(TypeError):
        s.merge(bytes(m))


def test_partials_of_pyopencl_arrays(queue):
    x = data(np.float64, 50001)
    a = cl_array.to_device(queue, x)
    total = clfold.reduce_partial(a[:20000], accuracy="exact")
    total.merge(clfold.reduce_partial(x[20000:], accuracy="exact"))  # one part on the host
    total.merge(clfold.reduce_partial(a[:0], accuracy="exact"))
    assert total.result() == math.fsum(x)


def test_the_package_is_typed():
    # py.typed (PEP 561) tells type checkers to read the annotations of the installed package.
    assert os.path.isfile(os.path.join(os.path.dirname(clfold.__file__), "py.typed"))
    public = [getattr(clfold, name) for name in clfold.__all__ if callable(getattr(clfold, name))]
    methods = [getattr(cls, name) for cls in (clfold.Context, clfold.Partial, clfold.Error)
               for name in vars(cls) if inspect.isroutine(getattr(cls, name))
               and (not name.startswith("_") or name in ("__init__", "__bytes__"))]
    methods += [clfold.Context.device.fget]
    for function in public + methods:
        if inspect.isclass(function):
            continue  # checked through its methods
        hints = typing.get_type_hints(function)
        names = set(inspect.signature(function).parameters) - {"self", "cls"}
        assert names <= set(hints) and "return" in hints, function.__qualname__
