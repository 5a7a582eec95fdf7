"""Contexts and reductions: clfold's C API as Python calls with NumPy's semantics."""
import collections
import contextlib
import ctypes
import math
import threading
import weakref
from typing import TYPE_CHECKING, Any, Iterator, List, Optional, SupportsIndex, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _axes, _lib, _opencl

if TYPE_CHECKING:
    from pyopencl import CommandQueue as ClQueue
    from pyopencl.array import Array as ClArray
else:  # PyOpenCL is optional: its types are named for type checkers only
    ClQueue = ClArray = Any

Device = collections.namedtuple("Device", "selector name platform type")
Device.__doc__ = """An OpenCL device: `selector` ("P:D") is what Context(device=...) takes."""

# The annotations' names for what the calls take and give.
Array = Union[npt.ArrayLike, ClArray]            # a host array, or a pyopencl array on the device
Axis = Union[None, SupportsIndex, Tuple[SupportsIndex, ...]]
DeviceChoice = Union[None, str, Device]          # as Context(device) takes it
Result = Union[np.generic, np.ndarray]           # a NumPy scalar, or an array along some axes

# NumPy's dtypes and clfold's names for them; bool, complex and object arrays have no clfold type.
_TYPE_NAMES = {np.dtype(t): name for t, name in (
    (np.int8, "int8"), (np.uint8, "uint8"), (np.int16, "int16"), (np.uint16, "uint16"),
    (np.int32, "int32"), (np.uint32, "uint32"), (np.int64, "int64"), (np.uint64, "uint64"),
    (np.float16, "half"), (np.float32, "float"), (np.float64, "double"))}
_DTYPES = {name: dtype for dtype, name in _TYPE_NAMES.items()}
# The operators, from the library's table: NumPy's names of those it refuses over no
# elements, and those that give an index.
_NO_IDENTITY = {name: numpy_name for name, numpy_name, flags in _lib.operators()
                if flags & _lib.OP_NO_IDENTITY and not flags & _lib.OP_INDEX}
_ARG_OPS = tuple(name for name, _, flags in _lib.operators() if flags & _lib.OP_INDEX)


class Error(RuntimeError):
    """A failure that libclfold reported: `status` is its name (e.g. "CLFOLD_ERROR_UNSUPPORTED"),
    `code` its number, and the message is the library's own."""

    def __init__(self, code: int, message: str) -> None:
        self.code = code
        self.status = _lib.status_name(code)
        self.message = message
        super().__init__(f"{self.status}: {message}" if message else self.status)


def _check(code, context):
    if code != 0:
        raise Error(code, _lib.last_error(context))


def _check_partial(code, why):
    """A partial's call: the library keeps no message for those (they take no context), so
    `why` says what the call refuses, beside bytes that are no partial."""
    if code != 0:
        raise Error(code, f"{why} (or the bytes are not a clfold partial)")


def devices() -> List[Device]:
    """Every OpenCL device, numbered as clfold numbers them (a list of Device)."""
    return [Device(*entry[:4]) for entry in _opencl.list_devices()]


def _choice(kind, name, allowed):
    value = _lib.from_name(kind, name)
    if value is None:
        raise ValueError(f"unknown {kind} {name!r}: one of {', '.join(allowed)}")
    return value


# The operators that scan and those that reduce, from the library's table.
OPS = tuple(name for name, _, flags in _lib.operators() if flags & _lib.OP_SCANS)
REDUCE_OPS = tuple(name for name, _, _ in _lib.operators())
ACCURACIES = ("default", "compensated", "fp64", "exact")
KERNELS = ("auto", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "atomic")
SCAN_KERNELS = ("auto", "kogge-stone", "blelloch", "blelloch-padded")
_PARAMS = _lib.param_infos()
PARAMS = tuple(_PARAMS)  # the tuning parameters' names, as Context.set_param takes them


def _param(name):
    """A parameter's number and clfold_param_info, by its name (ValueError if it has none)."""
    if not isinstance(name, str) or name.lower() not in _PARAMS:
        raise ValueError(f"unknown parameter {name!r}: one of {', '.join(PARAMS)}")
    return _PARAMS[name.lower()]


def _words(info):
    return info.words.decode().split("|") if info.words else []


def _param_value(name, info, value):
    """`value` as the library takes it: "auto" or None, one of the parameter's words, or an int."""
    if value is None or (isinstance(value, str) and value == "auto"):
        return _lib.PARAM_AUTO
    if isinstance(value, str):
        words = _words(info)
        if value not in words:
            allowed = ", ".join(words + ["auto"]) if words else "an integer or 'auto'"
            raise ValueError(f"{name} takes {allowed}, not {value!r}")
        return info.min + words.index(value)
    return _lib.integer(value, name, ctypes.c_int64, least=-(1 << 63))


def _block(block):
    """The work-group size to hand the library: 0 (its choice) for None, else a power of two."""
    if block is None:
        return 0
    block = _lib.integer(block, "block", ctypes.c_size_t, least=1)
    if block & (block - 1):
        raise ValueError(f"block must be None or a power of two, not {block}")
    return block


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


def _host_array(x, name="x"):
    """`x` as a NumPy array, refusing masked arrays: numpy.asarray drops their mask, and the
    masked elements would be reduced with the others."""
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(f"{name} is a numpy.ma.MaskedArray, and clfold takes no masks: pass "
                        f"{name}.compressed() (the unmasked elements, flattened) or "
                        f"{name}.filled(v) (v: a value that leaves the result alone, e.g. 0 for "
                        "a sum)")
    return np.asarray(x)


def _refuse_empty(op, length):
    """NumPy's refusals of a reduction over `length` elements a result: min, max, argmin and
    argmax of none, even where there are no results to give (numpy.min of shape (0, 0) along
    either axis raises)."""
    if length == 0 and op in _NO_IDENTITY:
        raise ValueError(f"zero-size array to reduction operation {_NO_IDENTITY[op]} which has no identity")
    if length == 0 and op in _ARG_OPS:
        raise ValueError(f"attempt to get {op} of an empty sequence")


def _matrices(x, axes, on_device):
    """How the library reads `x` along `axes`: (x, [(Matrix, axis, first result)], the results'
    shape, flipped), one matrix reduction in all but one case (_axes.plan).

    A Fortran-order array is read as its transpose (flipped: the results come back
    transposed). On the host, a 2-d view whose rows lie apart is read in place with that row
    pitch; other layouts, and axes that need the elements permuted, are copied to C order. A
    pyopencl array is never copied: a block of axes between others is reduced one matrix per
    index before it, and axes that are not one block are refused."""
    flipped = x.ndim > 1 and not x.flags.c_contiguous and x.flags.f_contiguous
    if not on_device:
        if not x.dtype.isnative:
            x = x.astype(x.dtype.newbyteorder("="))  # keeps the layout
        if not (x.flags.c_contiguous or flipped or _pitched(x, axes)):
            x = np.ascontiguousarray(x)
    base = x.offset // x.dtype.itemsize if on_device else 0
    reduced = tuple(sorted(x.ndim - 1 - a for a in axes)) if flipped else axes
    if flipped and not on_device:
        x = x.T  # C order
    shape = x.shape[::-1] if flipped and on_device else x.shape
    out_shape = tuple(n for d, n in enumerate(shape) if d not in reduced)
    if not on_device and not x.flags.c_contiguous:  # _pitched: axis 1 along rows, 0 down columns
        pitch = x.strides[0] // x.dtype.itemsize
        return x, [(_lib.Matrix(0, x.shape[0], x.shape[1], pitch), reduced[0], 0)], out_shape, False
    plan = _axes.plan(shape, reduced)
    if plan.order is None:
        return x, [(_lib.Matrix(base, plan.rows, plan.cols, plan.cols), plan.axis, 0)], out_shape, flipped
    if not on_device:
        x = np.ascontiguousarray(np.transpose(x, plan.order))
        return x, [(_lib.Matrix(0, plan.rows, plan.cols, plan.cols), 1, 0)], out_shape, flipped
    block = _axes.middle_block(shape, reduced)
    if block is None:
        raise ValueError(f"axes {axes} of a pyopencl array of shape {x.shape} are not "
                         "neighbours, so its elements would need permuting: reduce x.get(), or "
                         "a copy with the reduced axes together")
    before, length, after = block
    return x, [(_lib.Matrix(base + b * length * after, length, after, after), 0, b * after)
               for b in range(before)], out_shape, flipped


def _pitched(x, axes):
    """A 2-d host view of whole elements whose rows lie apart, reduced along one axis: the
    library reads it in place with a row pitch."""
    item = x.dtype.itemsize
    return (x.ndim == 2 and len(axes) == 1 and min(x.shape) > 1 and x.strides[1] == item
            and x.strides[0] % item == 0 and x.strides[0] >= x.shape[1] * item)


def _check_offsets(offsets, count):
    """A segmented reduction's offsets as contiguous uint64, once NumPy-side checks pass: a 1-d
    integer array of at least one value, none negative, none decreasing, none past `count`."""
    bounds = _host_array(offsets, "offsets")
    wanted = (f"offsets must be a 1-d integer array of at least one value, non-decreasing, each "
              f"from 0 to the {count} elements (one more value than there are segments)")
    if bounds.ndim == 1 and bounds.size == 0:
        raise ValueError(f"{wanted}, not an empty array")
    if bounds.dtype.kind not in "iu" or bounds.ndim != 1:
        raise TypeError(f"{wanted}, not a {bounds.ndim}-d {bounds.dtype} array")
    if bounds.dtype.kind == "i" and (bounds < 0).any():
        first = int(np.flatnonzero(bounds < 0)[0])
        raise ValueError(f"offsets[{first}] = {bounds[first]} is negative")
    bounds = np.ascontiguousarray(bounds, dtype=np.uint64)
    past = bounds > count
    down = np.concatenate(([False], bounds[1:] < bounds[:-1]))
    if (past | down).any():
        first = int(np.flatnonzero(past | down)[0])
        if past[first]:
            raise ValueError(f"offsets[{first}] = {bounds[first]} lies past the {count} elements")
        raise ValueError(f"offsets[{first}] = {bounds[first]} is less than offsets[{first - 1}] = "
                         f"{bounds[first - 1]}: offsets must not decrease")
    return bounds


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

    def __init__(self, device: DeviceChoice = None) -> None:
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
    def from_queue(cls, queue: ClQueue) -> "Context":
        """A context on a PyOpenCL CommandQueue, for its arrays (the library retains the queue)."""
        self = cls.__new__(cls)
        self._handle = None
        self._lock = threading.Lock()
        self._queue_ptr = queue.int_ptr
        handle = _lib.context_p()
        _check(_lib.lib.clfold_create_with_queue(ctypes.byref(handle), ctypes.c_void_p(queue.int_ptr)), None)
        self._handle = handle
        return self

    @contextlib.contextmanager
    def _open(self) -> Iterator[None]:
        """The context's lock held, while the context is open (else ValueError)."""
        with self._lock:
            if self._handle is None:
                raise ValueError("this clfold context is closed")
            yield

    @property
    def device(self) -> Device:
        """The Device this context reduces on."""
        with self._open():
            mine = _lib.lib.clfold_device(self._handle)
        found = [Device(*entry[:4]) for entry in _opencl.list_devices() if entry[4] == mine]
        if not found:
            raise RuntimeError("the context's device is not among the OpenCL loader's devices")
        return found[0]

    def __repr__(self) -> str:
        if self._handle is None:
            return "<clfold.Context closed>"
        try:
            device = self.device
            where = f"device={device.selector!r} name={device.name!r}"
        except (ValueError, RuntimeError):  # closed meanwhile, or unknown to the loader
            where = "device=unknown"
        queue = f" queue={self._queue_ptr:#x}" if self._queue_ptr else ""
        return f"<clfold.Context {where}{queue}>"

    def close(self) -> None:
        """Releases the context's OpenCL objects; closing twice is harmless."""
        with self._lock:
            if self._handle is not None:
                _lib.lib.clfold_destroy(self._handle)
                self._handle = None

    def set_param(self, name: str, value: Union[None, str, SupportsIndex]) -> None:
        """Sets a tuning parameter (clfold.PARAMS; docs/environment.md) for this context's later
        calls: an integer, "auto" or None (clfold chooses), or auto_shape's "cpu" or "gpu". A
        value the parameter does not take raises clfold.Error (CLFOLD_ERROR_INVALID_ARGUMENT)
        with the library's message, which says the parameter's values."""
        param, info = _param(name)
        number = _param_value(name, info, value)
        with self._open():
            _check(_lib.lib.clfold_set_param(self._handle, param, number), self._handle)

    def get_param(self, name: str) -> Union[int, str]:
        """A tuning parameter's value: an integer, "auto", or auto_shape's word."""
        param, info = _param(name)
        value = ctypes.c_int64()
        with self._open():
            _check(_lib.lib.clfold_get_param(self._handle, param, ctypes.byref(value)), self._handle)
        if value.value == _lib.PARAM_AUTO and info.takes_auto:
            return "auto"
        words = _words(info)
        return words[value.value - info.min] if words else value.value

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            _lib.lib.clfold_destroy(self._handle)
            self._handle = None

    def reduce(self, x: Array, op: str = "sum", *, axis: Axis = None, accuracy: str = "default",
               kernel: str = "auto", block: Optional[SupportsIndex] = None) -> Result:
        """As clfold.reduce(x, ...) on this context."""
        op_value = _choice("op", op, REDUCE_OPS)
        accuracy_value = _choice("accuracy", accuracy, ACCURACIES)
        kernel_value = _choice("kernel", kernel, KERNELS)
        block = _block(block)
        on_device = _is_pyopencl_array(x)
        if not on_device:
            x = _host_array(x)
        type_value = _lib.from_name("type", _clfold_type(x.dtype))
        axes = _axes.normalize(axis, x.ndim, op in _ARG_OPS)
        dtype = self._result_dtype(type_value, op_value, op, x.dtype)
        if axes is not None and len(axes) < x.ndim:  # else every element, as axis=None
            if kernel != "auto" or block:
                raise ValueError("kernel and block choose whole-array kernels: reductions along "
                                 "some axes run the device's own shape (docs/shapes.md)")
            return self._reduce_axes(x, axes, op, op_value, type_value, accuracy_value, dtype)
        _refuse_empty(op, x.size)
        result = np.zeros((), dtype=dtype)
        if not on_device:
            if op not in _ARG_OPS and x.flags.f_contiguous:
                x = x.T  # the same elements in C order: only an index depends on the order
            x = np.ascontiguousarray(x, dtype=x.dtype.newbyteorder("="))  # a copy only where needed
        elif op in _ARG_OPS and not x.flags.c_contiguous:
            raise ValueError(f"the {op} of a Fortran-order pyopencl array: its index counts in C "
                             "order, which is not the buffer's; pass x.get()")
        with self._open():
            _check(_lib.lib.clfold_set_kernel(self._handle, kernel_value, block), self._handle)
            _check(_lib.lib.clfold_set_accuracy(self._handle, accuracy_value), self._handle)
            if on_device:
                code = self._reduce_cl_array(x, type_value, op_value, result)
            else:
                code = _lib.lib.clfold_reduce_host(self._handle, x.ctypes.data, x.size, type_value,
                                                   op_value, result.ctypes.data)
            _check(code, self._handle)
        return result[()]

    def _reduce_axes(self, x, axes, op, op_value, type_value, accuracy_value, dtype):
        """Along `axes` (some of x's, or one for argmin and argmax): matrix reductions
        (_matrices), their results in the kept axes' shape; a 0-d result as a NumPy scalar."""
        _refuse_empty(op, math.prod(x.shape[a] for a in axes))
        on_device = _is_pyopencl_array(x)
        if on_device:
            _check_cl_array(x, self._queue_ptr)
        x, matrices, out_shape, flipped = _matrices(x, axes, on_device)
        results = np.empty(math.prod(out_shape), dtype)
        size = results.itemsize
        with self._open():
            _check(_lib.lib.clfold_set_accuracy(self._handle, accuracy_value), self._handle)
            for matrix, axis, first in matrices:
                out = results.ctypes.data + first * size
                if on_device:
                    code = _lib.lib.clfold_reduce_axis(
                        self._handle, ctypes.c_void_p(x.base_data.int_ptr), ctypes.byref(matrix),
                        axis, type_value, op_value, out)
                else:
                    code = _lib.lib.clfold_reduce_axis_host(
                        self._handle, x.ctypes.data, ctypes.byref(matrix), axis, type_value,
                        op_value, out)
                _check(code, self._handle)
        results = results.reshape(out_shape)
        if flipped:
            results = results.T
        return results[()] if results.ndim == 0 else results

    def reduce_segments(self, x: Array, offsets: Array, op: str = "sum", *,
                        accuracy: str = "default") -> np.ndarray:
        """As clfold.reduce_segments(x, offsets, ...) on this context."""
        op_value = _choice("op", op, REDUCE_OPS)
        accuracy_value = _choice("accuracy", accuracy, ACCURACIES)
        on_device = _is_pyopencl_array(x)
        if on_device:
            _check_cl_array(x, self._queue_ptr)
            if x.ndim > 1 and not x.flags.c_contiguous:
                raise ValueError("segments of a Fortran-order pyopencl array: they count its "
                                 "elements in C order, which is not the buffer's; pass x.get()")
        else:
            x = _host_array(x)
            x = np.ascontiguousarray(x, dtype=x.dtype.newbyteorder("=")).reshape(-1)
        type_value = _lib.from_name("type", _clfold_type(x.dtype))
        dtype = self._result_dtype(type_value, op_value, op, x.dtype)
        if _is_pyopencl_array(offsets):
            return self._segments_on_device(x, offsets, op_value, type_value, accuracy_value, dtype)
        bounds = _check_offsets(offsets, x.size)
        if on_device:  # checked here, then beside the elements on their queue
            import pyopencl.array as cl_array
            return self._segments_on_device(x, cl_array.to_device(x.queue, bounds), op_value,
                                            type_value, accuracy_value, dtype)
        results = np.empty(bounds.size - 1, dtype)
        with self._open():
            _check(_lib.lib.clfold_set_accuracy(self._handle, accuracy_value), self._handle)
            _check(_lib.lib.clfold_reduce_segments_host(
                self._handle, x.ctypes.data, x.size, bounds.ctypes.data, results.size, type_value,
                op_value, results.ctypes.data), self._handle)
        return results

    def _segments_on_device(self, x, offsets, op_value, type_value, accuracy_value, dtype):
        """Offsets in a pyopencl array: the library checks them, so bad ones raise
        clfold.Error."""
        if not _is_pyopencl_array(x):
            raise TypeError("offsets in a pyopencl array go with x in one: pass offsets.get() "
                            "for a host array")
        if offsets.dtype not in (np.dtype(np.int64), np.dtype(np.uint64)) or offsets.ndim != 1:
            raise TypeError(f"offsets on the device are a 1-d int64 or uint64 pyopencl array, "
                            f"not {offsets.ndim}-d {offsets.dtype}")
        if offsets.size == 0 or offsets.offset != 0 or not offsets.flags.c_contiguous:
            raise ValueError("offsets on the device hold at least one value, contiguous from "
                             "their buffer's start (pass offsets.copy() for a view)")
        _check_cl_array(offsets, self._queue_ptr)
        results = np.empty(offsets.size - 1, dtype)
        with self._open():
            _check(_lib.lib.clfold_set_accuracy(self._handle, accuracy_value), self._handle)
            code = _lib.lib.clfold_reduce_segments(
                self._handle, ctypes.c_void_p(x.base_data.int_ptr), x.offset // x.dtype.itemsize,
                x.size, ctypes.c_void_p(offsets.base_data.int_ptr), results.size, type_value,
                op_value, results.ctypes.data)
            _check(code, self._handle)
        return results

    def scan(self, x: Array, op: str = "sum", *, exclusive: bool = False,
             accuracy: str = "default", kernel: str = "auto",
             block: Optional[SupportsIndex] = None) -> Union[np.ndarray, ClArray]:
        """As clfold.scan(x, ...) on this context."""
        op_value = _choice("op", op, OPS)
        accuracy_value = _choice("accuracy", accuracy, ACCURACIES)
        kernel_value = _choice("scan_kernel", kernel, SCAN_KERNELS)
        block = _block(block)
        on_device = _is_pyopencl_array(x)
        if not on_device:
            x = _host_array(x)
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
        with self._open():
            _check(_lib.lib.clfold_set_scan_kernel(self._handle, kernel_value, block), self._handle)
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

    def reduce_partial(self, x: Array, op: str = "sum", *, accuracy: str = "default",
                       kernel: str = "auto", block: Optional[SupportsIndex] = None) -> "Partial":
        """As clfold.reduce_partial(x, ...) on this context."""
        op_value = _choice("op", op, REDUCE_OPS)
        accuracy_value = _choice("accuracy", accuracy, ACCURACIES)
        kernel_value = _choice("kernel", kernel, KERNELS)
        block = _block(block)
        on_device = _is_pyopencl_array(x)
        if not on_device:
            x = np.ascontiguousarray(_host_array(x))
            x = x.astype(x.dtype.newbyteorder("="), copy=False)
        type_value = _lib.from_name("type", _clfold_type(x.dtype))
        partial = Partial()
        with self._open():
            _check(_lib.lib.clfold_set_kernel(self._handle, kernel_value, block), self._handle)
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
_device_contexts = {}
_module_lock = threading.Lock()


def default_context() -> Context:
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


def _device_context(device):
    """The module's Context on `device`, a selector string or a Device as Context(device) takes
    them, created on first use and kept, as default_context() is, so that its programs are
    built once."""
    if isinstance(device, Device):
        device = device.selector
    if not isinstance(device, str):
        raise TypeError("context must be None, a clfold.Context, a device selector string "
                        f"(\"0:1\", part of a device's name) or a clfold.Device, not "
                        f"{type(device).__name__}")
    with _module_lock:
        context = _device_contexts.get(device)
        if context is None:
            context = _device_contexts[device] = Context(device)
        return context


def _context_for(x, context):
    """The context a call on `x` runs on: `context` if it is one, the module's own on a device
    if it names one, else the one kept for a pyopencl array's queue, else the module's own."""
    if isinstance(context, Context):
        return context
    if context is not None:
        return _device_context(context)
    if _is_pyopencl_array(x):
        if x.queue is None:
            raise ValueError("a pyopencl array without a queue: give it one (x.with_queue(q)) "
                             "or pass context=clfold.Context.from_queue(q)")
        return _queue_context(x.queue)
    return default_context()


def reduce(x: Array, op: str = "sum", *, axis: Axis = None, accuracy: str = "default",
           kernel: str = "auto", block: Optional[SupportsIndex] = None,
           context: Union[Context, DeviceChoice] = None) -> Result:
    """Reduces every element of `x` with `op` and returns a NumPy scalar.

    x: a NumPy array, anything NumPy can view (the buffer protocol, lists), or a
    pyopencl.array.Array, which is reduced on its own queue with no copy to the host (with a
    context= on another queue, after its own queue has finished).
    Host arrays in C or Fortran order, and 2-d views whose rows lie apart, are read in place;
    other layouts, byte-swapped arrays, and axes that must be permuted are copied first.
    op: one of clfold.REDUCE_OPS (the library's operators, by name); "argmin" and "argmax" give
    the index of the first least or greatest element, a NaN counting as both, as numpy.argmin's.
    axis: None for every element, or an int or a tuple of ints, negative ones counting from the
    end, as numpy.sum's; argmin and argmax take one int, as numpy.argmin's, and give the index
    along it.
    accuracy: float sums' "default", "compensated", "fp64" or "exact" (correctly rounded).
    kernel, block: "auto", or Harris's "k1".."k7" or "atomic", and its work-group size; for
    whole-array reductions only (along some axes the device's own shape runs).
    context: a Context, or a device as Context(device) takes it (a selector string or a
    Device: the module keeps one Context per such device, made on first use); by default the
    module's own (default_context()), or for a PyOpenCL array one kept for its queue.

    The result has clfold's result type: integer sums and products in 64 bits (int64 or
    uint64), every float16 result as float32, argmin and argmax as int64, other results in the
    element type. Along some axes it is a NumPy array of the kept axes' shape, else a NumPy
    scalar. An empty array gives the operator's identity, but min, max, argmin and argmax of
    none raise ValueError, as in NumPy. A pyopencl array's reduced axes must be one matrix's
    rows or columns (they are neighbours, or their axes of length 1 are): other axes would
    need its elements permuted, which the call refuses rather than copying.
    Raises clfold.Error for what the library refuses (e.g. "and" of floats), ValueError,
    TypeError or OverflowError for bad arguments (a masked array is refused with TypeError).
    """
    context = _context_for(x, context)
    return context.reduce(x, op, axis=axis, accuracy=accuracy, kernel=kernel, block=block)


def reduce_segments(x: Array, offsets: Array, op: str = "sum", *, accuracy: str = "default",
                    context: Union[Context, DeviceChoice] = None) -> np.ndarray:
    """Reduces each segment of the flattened `x` (C order): segment s is elements
    offsets[s] .. offsets[s + 1] - 1, CSR style, as CUB's segmented reduce takes them.
    Returns a 1-d NumPy array of len(offsets) - 1 results of reduce()'s result type.

    x: as for reduce(); a pyopencl array is reduced on the device.
    offsets: a 1-d integer array of at least one value, non-decreasing, none negative or past
    x.size (ValueError naming the first that is); for a pyopencl x, also a 1-d int64 or uint64
    pyopencl array, which the library checks (clfold.Error).
    op: as for reduce(); argmin and argmax give the index from the segment's start.
    An empty segment gives the operator's identity, -1 for argmin and argmax.
    accuracy, context: as for reduce().
    """
    context = _context_for(x, context)
    return context.reduce_segments(x, offsets, op, accuracy=accuracy)


def scan(x: Array, op: str = "sum", *, exclusive: bool = False, accuracy: str = "default",
         kernel: str = "auto", block: Optional[SupportsIndex] = None,
         context: Union[Context, DeviceChoice] = None) -> Union[np.ndarray, ClArray]:
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
    Raises clfold.Error for what the library refuses, ValueError, TypeError or OverflowError for
    bad arguments.
    """
    context = _context_for(x, context)
    return context.scan(x, op, exclusive=exclusive, accuracy=accuracy, kernel=kernel, block=block)


class Partial:
    """A reduction of one part of an array, to merge with the other parts' (docs/partials.md).

    Partial(data) rebuilds one from the bytes(partial) of another, made anywhere (another
    process, machine or device). p.merge(q) folds q into p; p.rebase(first) moves an argmin's
    or argmax's index to count from the whole array (first: where the part starts in it);
    p.result() is the whole's result as a NumPy scalar.
    """

    def __init__(self, data: Union[None, bytes, bytearray, memoryview] = None) -> None:
        self._buffer = ctypes.create_string_buffer(_lib.PARTIAL_BYTES)
        if isinstance(data, (int, np.integer)):
            raise TypeError("Partial takes the bytes of a partial, not an integer")
        if data is not None:
            data = bytes(data)
            if len(data) != _lib.PARTIAL_BYTES:
                raise ValueError(f"a clfold partial is {_lib.PARTIAL_BYTES} bytes, not {len(data)}")
            ctypes.memmove(self._buffer, data, len(data))

    def __bytes__(self) -> bytes:
        return self._buffer.raw

    def merge(self, other: "Partial") -> "Partial":
        """Folds `other` into this partial and returns this one."""
        if not isinstance(other, Partial):
            raise TypeError(f"merge takes a clfold.Partial, not {type(other).__name__}")
        _check_partial(_lib.lib.clfold_partial_merge(self._buffer, other._buffer),
                       "partials merge only with partials of the same type, operator and accuracy")
        return self

    def rebase(self, first: SupportsIndex) -> "Partial":
        """An argmin's or argmax's partial of a part that starts at element `first` of the whole.
        `first` is an element index, so it fits the int64 that the result's index is."""
        first = _lib.integer(first, "first", ctypes.c_int64)
        _check_partial(_lib.lib.clfold_partial_rebase(self._buffer, first),
                       "only an argmin's or argmax's partial has an index to rebase")
        return self

    def __repr__(self) -> str:
        copy = ctypes.create_string_buffer(self._buffer.raw, _lib.PARTIAL_BYTES)
        if _lib.lib.clfold_partial_merge(copy, copy) != 0:  # succeeds for any partial
            return "<clfold.Partial (bytes that are not a clfold partial)>"
        raw = self._buffer.raw  # the header's bytes, laid out in src/core/partial.c
        dtype = _DTYPES[_lib.lib.clfold_type_name(raw[6]).decode()].name
        shown = [dtype, _lib.lib.clfold_op_name(raw[7]).decode()]
        accuracy = ("exact" if raw[10] & 2 else "compensated" if raw[10] & 1 else
                    "fp64" if raw[9] != raw[8] else None)  # the sum's scalar is not its result's
        if accuracy:
            shown.append(f"accuracy={accuracy!r}")
        try:
            shown.append(f"result={self.result()}")
        except Error:
            shown.append("no element")  # an argmin's or argmax's of an empty part
        return f"<clfold.Partial {' '.join(shown)}>"

    def result(self) -> np.generic:
        """The result the partial stands for, in clfold's result type."""
        raw = self._buffer.raw
        result_type = _lib.enum_t()
        _check_partial(_lib.lib.clfold_result_type(raw[6], raw[7], ctypes.byref(result_type)),
                       "the type and operator do not go together")
        value = np.zeros((), dtype=_DTYPES[_lib.lib.clfold_type_name(result_type.value).decode()])
        _check_partial(_lib.lib.clfold_partial_finish(self._buffer, value.ctypes.data),
                       "an argmin or argmax of no element has no index")
        return value[()]


def reduce_partial(x: Array, op: str = "sum", *, accuracy: str = "default", kernel: str = "auto",
                   block: Optional[SupportsIndex] = None,
                   context: Union[Context, DeviceChoice] = None) -> Partial:
    """The reduction of `x` (one part of a larger array) as a clfold.Partial, to merge with the
    other parts' and finish: clfold.reduce_partial(a).merge(clfold.reduce_partial(b)).result().
    An empty part is the operator's identity (for argmin and argmax, no element yet). Arguments
    as reduce()'s; every element of `x` is reduced.
    """
    context = _context_for(x, context)
    return context.reduce_partial(x, op, accuracy=accuracy, kernel=kernel, block=block)
