"""Contexts and reductions: clfold's C API as Python calls with NumPy's semantics."""
import collections
import ctypes
import threading
import weakref

import numpy as np

from . import _lib, _opencl

Device = collections.namedtuple("Device", "selector name platform type")
Device.__doc__ = """An OpenCL device: `selector` ("P:D") is what Context(device=...) takes."""

# NumPy's dtypes and clfold's names for them; bool, complex and object arrays have no clfold type.
_TYPE_NAMES = {np.dtype(t): name for t, name in (
    (np.int8, "int8"), (np.uint8, "uint8"), (np.int16, "int16"), (np.uint16, "uint16"),
    (np.int32, "int32"), (np.uint32, "uint32"), (np.int64, "int64"), (np.uint64, "uint64"),
    (np.float16, "half"), (np.float32, "float"), (np.float64, "double"))}
_DTYPES = {name: dtype for dtype, name in _TYPE_NAMES.items()}
_NO_IDENTITY = {"min": "minimum", "max": "maximum"}
_AxisError = getattr(getattr(np, "exceptions", np), "AxisError")


class Error(RuntimeError):
    """A failure that libclfold reported: `status` is its name (e.g. "CLFOLD_ERROR_UNSUPPORTED"),
    `code` its number, and the message is the library's own."""

    def __init__(self, code, message):
        self.code = code
        self.status = _lib.status_name(code)
        self.message = message
        super().__init__(f"{self.status}: {message}" if message else self.status)


def _check(code, context):
    if code != 0:
        raise Error(code, _lib.last_error(context))


def devices():
    """Every OpenCL device, numbered as clfold numbers them (a list of Device)."""
    return [Device(*entry[:4]) for entry in _opencl.list_devices()]


def _choice(kind, name, allowed):
    value = _lib.from_name(kind, name)
    if value is None:
        raise ValueError(f"unknown {kind} {name!r}: one of {', '.join(allowed)}")
    return value


OPS = ("sum", "prod", "min", "max", "and", "or", "xor")
ACCURACIES = ("default", "compensated", "fp64", "exact")
KERNELS = ("auto", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "atomic")
SCAN_KERNELS = ("auto", "kogge-stone", "blelloch", "blelloch-padded")


def _check_block(block):
    if block is not None and (not isinstance(block, (int, np.integer)) or isinstance(block, bool)
                              or block < 1 or block & (block - 1)):
        raise ValueError(f"block must be None or a power of two, not {block!r}")


def _check_cl_array(x, queue_ptr):
    """A pyopencl array the library can take as a buffer and an element offset, its writes done."""
    if not x.dtype.isnative:
        raise TypeError(f"a pyopencl array of {x.dtype.str}, not in native byte order: clfold "
                        "would read its bytes as native; convert it first")
    if not (x.flags.c_contiguous or x.flags.f_contiguous):
        raise ValueError("clfold takes contiguous pyopencl arrays only: pass x.copy() or "
                         "x.get() for a strided view")
    if x.offset % x.dtype.itemsize != 0:
        raise ValueError(f"a pyopencl array at byte offset {x.offset}, not a multiple of its "
                         f"{x.dtype.itemsize}-byte elements")
    if x.queue is None:
        x.finish()  # no queue of its own: at least its recorded events
    elif queue_ptr != x.queue.int_ptr:
        x.queue.finish()  # this context's queue does not wait for the array's own


def _is_pyopencl_array(x):
    module = type(x).__module__ or ""
    return module.startswith("pyopencl") and hasattr(x, "base_data") and hasattr(x, "queue")


def _check_axis(axis, ndim):
    """None, or every axis of the array in any order, reduce it all; other axes are not in libclfold yet."""
    if axis is None:
        return
    axes = axis if isinstance(axis, tuple) else (axis,)
    seen = set()
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"axis must be None, an int or a tuple of ints, not {type(a).__name__}")
        if not -ndim <= a < ndim:
            raise _AxisError(int(a), ndim)
        if int(a) % ndim in seen:
            raise ValueError("duplicate value in 'axis'")
        seen.add(int(a) % ndim)
    if len(seen) != ndim:
        raise NotImplementedError(
            "clfold reduces whole arrays only: reductions along some of the axes are not in "
            "libclfold yet (issue 13); pass axis=None")


def _clfold_type(dtype):
    name = _TYPE_NAMES.get(np.dtype(dtype).newbyteorder("="))
    if name is None:
        raise TypeError(f"clfold does not reduce {np.dtype(dtype)} arrays: it takes 8- to 64-bit "
                        "integers, float16, float32 and float64 (convert with x.astype(...))")
    return name


class Context:
    """A libclfold context on one OpenCL device: its queue, programs and buffers.

    Context(device=None): device is None (CLFOLD_DEVICE, else the first GPU, else the first
    device), a selector string ("0:1", or part of a device or platform name) or a Device.
    Context.from_queue(queue) works on a PyOpenCL CommandQueue instead. Use it as a context
    manager, or call close(); a context is also closed when collected.

    Calls on one context are serialised by a lock, so threads may share it; separate contexts
    run in parallel. ctypes releases the GIL during every call into the library, so other
    threads run while a reduction waits on the device.
    """

    def __init__(self, device=None):
        self._handle = None
        self._lock = threading.Lock()
        self._queue_ptr = None
        if isinstance(device, Device):
            device = device.selector
        if device is not None and not isinstance(device, str):
            raise TypeError(f"device must be None, a selector string or a Device, not {type(device).__name__}")
        handle = _lib.context_p()
        code = _lib.lib.clfold_create(ctypes.byref(handle), device.encode() if device else None)
        _check(code, None)
        self._handle = handle

    @classmethod
    def from_queue(cls, queue):
        """A context on a PyOpenCL CommandQueue, for its arrays (the library retains the queue)."""
        self = cls.__new__(cls)
        self._handle = None
        self._lock = threading.Lock()
        self._queue_ptr = queue.int_ptr
        handle = _lib.context_p()
        _check(_lib.lib.clfold_create_with_queue(ctypes.byref(handle), ctypes.c_void_p(queue.int_ptr)), None)
        self._handle = handle
        return self

    @property
    def device(self):
        """The Device this context reduces on."""
        with self._lock:
            if self._handle is None:
                raise ValueError("this clfold context is closed")
            mine = _lib.lib.clfold_device(self._handle)
        found = [Device(*entry[:4]) for entry in _opencl.list_devices() if entry[4] == mine]
        if not found:
            raise RuntimeError("the context's device is not among the OpenCL loader's devices")
        return found[0]

    def close(self):
        """Releases the context's OpenCL objects; closing twice is harmless."""
        with self._lock:
            if self._handle is not None:
                _lib.lib.clfold_destroy(self._handle)
                self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            _lib.lib.clfold_destroy(self._handle)
            self._handle = None

    def reduce(self, x, op="sum", *, axis=None, accuracy="default", kernel="auto", block=None):
        """As clfold.reduce(x, ...) on this context."""
        op_value = _choice("op", op, OPS)
        accuracy_value = _choice("accuracy", accuracy, ACCURACIES)
        kernel_value = _choice("kernel", kernel, KERNELS)
        _check_block(block)
        on_device = _is_pyopencl_array(x)
        if not on_device:
            x = np.asarray(x)
        type_name = _clfold_type(x.dtype)
        _check_axis(axis, x.ndim)
        if x.size == 0 and op in _NO_IDENTITY:
            raise ValueError(f"zero-size array to reduction operation {_NO_IDENTITY[op]} which has no identity")
        type_value = _lib.from_name("type", type_name)
        result_type = _lib.enum_t()
        code = _lib.lib.clfold_result_type(type_value, op_value, ctypes.byref(result_type))
        if code != 0:
            raise Error(code, f"{op} is not defined for {np.dtype(x.dtype).name} arrays")
        result = np.zeros((), dtype=_DTYPES[_lib.lib.clfold_type_name(result_type.value).decode()])
        if not on_device:
            x = np.ascontiguousarray(x, dtype=x.dtype.newbyteorder("="))  # a copy only where needed
        with self._lock:
            if self._handle is None:
                raise ValueError("this clfold context is closed")
            _check(_lib.lib.clfold_set_kernel(self._handle, kernel_value, block or 0), self._handle)
            _check(_lib.lib.clfold_set_accuracy(self._handle, accuracy_value), self._handle)
            if on_device:
                code = self._reduce_cl_array(x, type_value, op_value, result)
            else:
                code = _lib.lib.clfold_reduce_host(self._handle, x.ctypes.data, x.size, type_value,
                                                   op_value, result.ctypes.data)
            _check(code, self._handle)
        return result[()]

    def scan(self, x, op="sum", *, exclusive=False, accuracy="default", kernel="auto", block=None):
        """As clfold.scan(x, ...) on this context."""
        op_value = _choice("op", op, OPS)
        accuracy_value = _choice("accuracy", accuracy, ACCURACIES)
        kernel_value = _choice("scan_kernel", kernel, SCAN_KERNELS)
        _check_block(block)
        on_device = _is_pyopencl_array(x)
        if not on_device:
            x = np.asarray(x)
        type_value = _lib.from_name("type", _clfold_type(x.dtype))
        dtype = self._result_dtype(type_value, op_value, op, x.dtype)
        mode = 1 if exclusive else 0
        if on_device:
            _check_cl_array(x, self._queue_ptr)
            import pyopencl.array as cl_array
            out = cl_array.empty(x.queue, x.size, dtype)
        else:
            x = np.ascontiguousarray(x, dtype=x.dtype.newbyteorder("=")).reshape(-1)
            out = np.empty(x.size, dtype)
        with self._lock:
            if self._handle is None:
                raise ValueError("this clfold context is closed")
            _check(_lib.lib.clfold_set_scan_kernel(self._handle, kernel_value, block or 0), self._handle)
            _check(_lib.lib.clfold_set_accuracy(self._handle, accuracy_value), self._handle)
            if not on_device:
                code = _lib.lib.clfold_scan_host(self._handle, x.ctypes.data, x.size, type_value,
                                                 op_value, mode, out.ctypes.data)
            elif x.size == 0:
                code = 0
            else:
                code = _lib.lib.clfold_scan_buffer(
                    self._handle, ctypes.c_void_p(x.base_data.int_ptr), x.offset // x.dtype.itemsize,
                    x.size, type_value, op_value, mode, ctypes.c_void_p(out.base_data.int_ptr),
                    out.offset // out.dtype.itemsize)
            _check(code, self._handle)
        return out

    def reduce_partial(self, x, op="sum", *, accuracy="default", kernel="auto", block=None):
        """As clfold.reduce_partial(x, ...) on this context."""
        op_value = _choice("op", op, OPS + ("argmin", "argmax"))
        accuracy_value = _choice("accuracy", accuracy, ACCURACIES)
        kernel_value = _choice("kernel", kernel, KERNELS)
        _check_block(block)
        on_device = _is_pyopencl_array(x)
        if not on_device:
            x = np.ascontiguousarray(np.asarray(x))
            x = x.astype(x.dtype.newbyteorder("="), copy=False)
        type_value = _lib.from_name("type", _clfold_type(x.dtype))
        partial = Partial()
        with self._lock:
            if self._handle is None:
                raise ValueError("this clfold context is closed")
            _check(_lib.lib.clfold_set_kernel(self._handle, kernel_value, block or 0), self._handle)
            _check(_lib.lib.clfold_set_accuracy(self._handle, accuracy_value), self._handle)
            if on_device:
                _check_cl_array(x, self._queue_ptr)
            if on_device and x.size > 0:
                code = _lib.lib.clfold_reduce_partial(
                    self._handle, ctypes.c_void_p(x.base_data.int_ptr), x.offset // x.dtype.itemsize,
                    x.size, type_value, op_value, partial._buffer)
            else:
                data = None if on_device else x.ctypes.data
                code = _lib.lib.clfold_reduce_host_partial(self._handle, data, 0 if on_device else x.size,
                                                           type_value, op_value, partial._buffer)
            _check(code, self._handle)
        return partial

    @staticmethod
    def _result_dtype(type_value, op_value, op, dtype):
        result_type = _lib.enum_t()
        code = _lib.lib.clfold_result_type(type_value, op_value, ctypes.byref(result_type))
        if code != 0:
            raise Error(code, f"{op} is not defined for {np.dtype(dtype).name} arrays")
        return _DTYPES[_lib.lib.clfold_type_name(result_type.value).decode()]

    def _reduce_cl_array(self, x, type_value, op_value, result):
        _check_cl_array(x, self._queue_ptr)
        if x.size == 0:  # no buffer to hand over: the empty reduction's identity
            return _lib.lib.clfold_reduce_host(self._handle, result.ctypes.data, 0, type_value,
                                               op_value, result.ctypes.data)
        return _lib.lib.clfold_reduce_buffer(self._handle, ctypes.c_void_p(x.base_data.int_ptr),
                                             x.offset // x.dtype.itemsize, x.size, type_value,
                                             op_value, result.ctypes.data)


_default = None
_queue_contexts = {}
_module_lock = threading.Lock()


def default_context():
    """The module's own Context on the default device, created on first use."""
    global _default
    with _module_lock:
        if _default is None:
            _default = Context()
        return _default


def _queue_context(queue):
    """The Context kept for a PyOpenCL queue while the queue lives, so that its programs are
    built once; it is closed when the queue is collected."""
    with _module_lock:
        key = queue.int_ptr
        context = _queue_contexts.get(key)
        if context is None:
            context = _queue_contexts[key] = Context.from_queue(queue)
            weakref.finalize(queue, _forget_queue, key)
        return context


def _forget_queue(key):
    with _module_lock:
        context = _queue_contexts.pop(key, None)
    if context is not None:
        context.close()


def reduce(x, op="sum", *, axis=None, accuracy="default", kernel="auto", block=None, context=None):
    """Reduces every element of `x` with `op` and returns a NumPy scalar.

    x: a NumPy array, anything NumPy can view (the buffer protocol, lists), or a
    pyopencl.array.Array, which is reduced on its own queue with no copy to the host (with a
    context= on another queue, after its own queue has finished).
    Non-contiguous or byte-swapped host arrays are copied first.
    op: "sum", "prod", "min", "max", "and", "or" or "xor".
    axis: None (or every axis), as NumPy's; other axes are not in libclfold yet.
    accuracy: float sums' "default", "compensated", "fp64" or "exact" (correctly rounded).
    kernel, block: "auto", or Harris's "k1".."k7" or "atomic", and its work-group size.
    context: a Context; by default the module's own (default_context()), or for a PyOpenCL
    array one kept for its queue.

    The result has clfold's result type: integer sums and products in 64 bits (int64 or
    uint64), every float16 result as float32, other min/max/and/or/xor results in the element
    type. An empty array
    gives the operator's identity, but min and max of one raise ValueError, as in NumPy.
    Raises clfold.Error for what the library refuses (e.g. "and" of floats), ValueError or
    TypeError for bad arguments.
    """
    if context is None and _is_pyopencl_array(x):
        if x.queue is None:
            raise ValueError("a pyopencl array without a queue: give it one (x.with_queue(q)) "
                             "or pass context=clfold.Context.from_queue(q)")
        context = _queue_context(x.queue)
    elif context is None:
        context = default_context()
    return context.reduce(x, op, axis=axis, accuracy=accuracy, kernel=kernel, block=block)


def scan(x, op="sum", *, exclusive=False, accuracy="default", kernel="auto", block=None,
         context=None):
    """The running reduction of `x` by `op`: numpy.cumsum(x) for "sum", numpy.cumprod for
    "prod", numpy.minimum.accumulate, maximum, bitwise_and, _or and _xor's for the others, on
    the flattened array (C order), as those do without an axis. A 1-d array of clfold's result
    type: integer sums and products in 64 bits, float16 in float32.

    exclusive: out[i] covers the elements before i, and out[0] is the operator's identity.
    x: a NumPy array (or anything NumPy can view), or a pyopencl.array.Array, scanned into a
    new pyopencl array on its queue with no copy to the host.
    accuracy: float sums' "default", "compensated" or "fp64" ("exact" is refused).
    kernel, block: "auto", or the scan ladder's "kogge-stone", "blelloch", "blelloch-padded",
    and its work-group size. context: as for reduce().
    Raises clfold.Error for what the library refuses, ValueError or TypeError for bad arguments.
    """
    if context is None and _is_pyopencl_array(x):
        if x.queue is None:
            raise ValueError("a pyopencl array without a queue: give it one (x.with_queue(q)) "
                             "or pass context=clfold.Context.from_queue(q)")
        context = _queue_context(x.queue)
    elif context is None:
        context = default_context()
    return context.scan(x, op, exclusive=exclusive, accuracy=accuracy, kernel=kernel, block=block)


class Partial:
    """A reduction of one part of an array, to merge with the other parts' (docs/partials.md).

    Partial(data) rebuilds one from the bytes(partial) of another, made anywhere (another
    process, machine or device). p.merge(q) folds q into p; p.rebase(first) moves an argmin's
    or argmax's index to count from the whole array (first: where the part starts in it);
    p.result() is the whole's result as a NumPy scalar.
    """

    def __init__(self, data=None):
        self._buffer = ctypes.create_string_buffer(_lib.PARTIAL_BYTES)
        if data is not None:
            data = bytes(data)
            if len(data) != _lib.PARTIAL_BYTES:
                raise ValueError(f"a clfold partial is {_lib.PARTIAL_BYTES} bytes, not {len(data)}")
            ctypes.memmove(self._buffer, data, len(data))

    def __bytes__(self):
        return self._buffer.raw

    def merge(self, other):
        """Folds `other` into this partial and returns this one."""
        if not isinstance(other, Partial):
            raise TypeError(f"merge takes a clfold.Partial, not {type(other).__name__}")
        _check(_lib.lib.clfold_partial_merge(self._buffer, other._buffer), None)
        return self

    def rebase(self, first):
        """An argmin's or argmax's partial of a part that starts at element `first` of the whole."""
        _check(_lib.lib.clfold_partial_rebase(self._buffer, int(first)), None)
        return self

    def result(self):
        """The result the partial stands for, in clfold's result type."""
        raw = self._buffer.raw
        result_type = _lib.enum_t()
        _check(_lib.lib.clfold_result_type(raw[6], raw[7], ctypes.byref(result_type)), None)
        value = np.zeros((), dtype=_DTYPES[_lib.lib.clfold_type_name(result_type.value).decode()])
        _check(_lib.lib.clfold_partial_finish(self._buffer, value.ctypes.data), None)
        return value[()]


def reduce_partial(x, op="sum", *, accuracy="default", kernel="auto", block=None, context=None):
    """The reduction of `x` (one part of a larger array) as a clfold.Partial, to merge with the
    other parts' and finish: clfold.reduce_partial(a).merge(clfold.reduce_partial(b)).result().
    An empty part is the operator's identity (for argmin and argmax, no element yet). Arguments
    as reduce()'s; every element of `x` is reduced.
    """
    if context is None and _is_pyopencl_array(x):
        if x.queue is None:
            raise ValueError("a pyopencl array without a queue: give it one (x.with_queue(q)) "
                             "or pass context=clfold.Context.from_queue(q)")
        context = _queue_context(x.queue)
    elif context is None:
        context = default_context()
    return context.reduce_partial(x, op, accuracy=accuracy, kernel=kernel, block=block)
