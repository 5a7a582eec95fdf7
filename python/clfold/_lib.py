"""The C library through ctypes: loading it, its functions' signatures, and its names.

The module loads the libclfold that was installed beside it (pip install puts
it in this folder), never one found elsewhere on the system. ctypes releases
the GIL during every call into it, so other Python threads run while a
reduction waits on the device.
"""
import ctypes
import operator
import os
import sys

import numpy as np

_NAME = {"linux": "libclfold.so", "darwin": "libclfold.dylib", "win32": "clfold.dll"}.get(
    sys.platform, "libclfold.so")
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), _NAME)

if not os.path.exists(PATH):
    raise ImportError(f"clfold: {PATH} is missing: install the module with `pip install .` "
                      "from clfold's source tree, which builds the library into it")
lib = ctypes.CDLL(PATH)

status_t = ctypes.c_int
context_p = ctypes.c_void_p
enum_t = ctypes.c_int


def _declare(name, restype, *argtypes):
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = list(argtypes)


_declare("clfold_version_string", ctypes.c_char_p)
_declare("clfold_create", status_t, ctypes.POINTER(context_p), ctypes.c_char_p)
_declare("clfold_create_with_queue", status_t, ctypes.POINTER(context_p), ctypes.c_void_p)
_declare("clfold_destroy", None, context_p)
_declare("clfold_device", ctypes.c_void_p, context_p)
_declare("clfold_set_kernel", status_t, context_p, enum_t, ctypes.c_size_t)
_declare("clfold_set_accuracy", status_t, context_p, enum_t)
_declare("clfold_reduce_host", status_t, context_p, ctypes.c_void_p, ctypes.c_size_t, enum_t,
         enum_t, ctypes.c_void_p)
_declare("clfold_reduce_buffer", status_t, context_p, ctypes.c_void_p, ctypes.c_size_t,
         ctypes.c_size_t, enum_t, enum_t, ctypes.c_void_p)


class Matrix(ctypes.Structure):
    """clfold_matrix: element (r, c) at element offset + r * row_pitch + c."""
    _fields_ = [("offset", ctypes.c_size_t), ("rows", ctypes.c_size_t),
                ("cols", ctypes.c_size_t), ("row_pitch", ctypes.c_size_t)]


_declare("clfold_reduce_axis", status_t, context_p, ctypes.c_void_p, ctypes.POINTER(Matrix),
         ctypes.c_int, enum_t, enum_t, ctypes.c_void_p)
_declare("clfold_reduce_axis_host", status_t, context_p, ctypes.c_void_p, ctypes.POINTER(Matrix),
         ctypes.c_int, enum_t, enum_t, ctypes.c_void_p)
_declare("clfold_reduce_segments", status_t, context_p, ctypes.c_void_p, ctypes.c_size_t,
         ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, enum_t, enum_t, ctypes.c_void_p)
_declare("clfold_reduce_segments_host", status_t, context_p, ctypes.c_void_p, ctypes.c_size_t,
         ctypes.c_void_p, ctypes.c_size_t, enum_t, enum_t, ctypes.c_void_p)
_declare("clfold_set_scan_kernel", status_t, context_p, enum_t, ctypes.c_size_t)
_declare("clfold_scan_host", status_t, context_p, ctypes.c_void_p, ctypes.c_size_t, enum_t, enum_t,
         enum_t, ctypes.c_void_p)
_declare("clfold_scan_buffer", status_t, context_p, ctypes.c_void_p, ctypes.c_size_t,
         ctypes.c_size_t, enum_t, enum_t, enum_t, ctypes.c_void_p, ctypes.c_size_t)
PARTIAL_BYTES = 320  # CLFOLD_PARTIAL_BYTES
_declare("clfold_reduce_host_partial", status_t, context_p, ctypes.c_void_p, ctypes.c_size_t,
         enum_t, enum_t, ctypes.c_void_p)
_declare("clfold_reduce_partial", status_t, context_p, ctypes.c_void_p, ctypes.c_size_t,
         ctypes.c_size_t, enum_t, enum_t, ctypes.c_void_p)
_declare("clfold_partial_merge", status_t, ctypes.c_void_p, ctypes.c_void_p)
_declare("clfold_partial_finish", status_t, ctypes.c_void_p, ctypes.c_void_p)
_declare("clfold_partial_rebase", status_t, ctypes.c_void_p, ctypes.c_uint64)
_declare("clfold_result_type", status_t, enum_t, enum_t, ctypes.POINTER(enum_t))
_declare("clfold_type_name", ctypes.c_char_p, enum_t)
_declare("clfold_op_name", ctypes.c_char_p, enum_t)


class OpInfo(ctypes.Structure):
    """clfold_op_info: what the library's operator table says of one operator."""
    _fields_ = [("name", ctypes.c_char_p), ("numpy_name", ctypes.c_char_p), ("flags", ctypes.c_uint)]


_declare("clfold_op_describe", status_t, enum_t, ctypes.POINTER(OpInfo))
# clfold.h's CLFOLD_OP_* flags.
OP_INTEGERS_ONLY, OP_INDEX, OP_NO_IDENTITY, OP_SCANS, OP_ROUNDS = 0x1, 0x2, 0x4, 0x8, 0x10


def operators():
    """Every operator as (name, NumPy's name or None, flags), in the library's order, from its table."""
    found, info = [], OpInfo()
    while lib.clfold_op_describe(len(found), ctypes.byref(info)) == 0:
        numpy_name = info.numpy_name.decode() if info.numpy_name else None
        found.append((info.name.decode(), numpy_name, info.flags))
    return found
_declare("clfold_status_string", ctypes.c_char_p, status_t)
_declare("clfold_last_error", ctypes.c_char_p, context_p)
for _kind in ("type", "op", "kernel", "scan_kernel", "accuracy", "param"):
    _declare(f"clfold_{_kind}_from_name", status_t, ctypes.c_char_p, ctypes.POINTER(enum_t))


class ParamInfo(ctypes.Structure):
    """clfold_param_info: a parameter's names, values and default (clfold_describe_param)."""
    _fields_ = [("name", ctypes.c_char_p), ("env", ctypes.c_char_p), ("env_field", ctypes.c_uint),
                ("min", ctypes.c_int64), ("max", ctypes.c_int64), ("powers_of_two", ctypes.c_int),
                ("takes_auto", ctypes.c_int), ("words", ctypes.c_char_p),
                ("default_value", ctypes.c_int64), ("doc", ctypes.c_char_p)]


PARAM_AUTO = -1  # CLFOLD_PARAM_AUTO
_declare("clfold_set_param", status_t, context_p, enum_t, ctypes.c_int64)
_declare("clfold_get_param", status_t, context_p, enum_t, ctypes.POINTER(ctypes.c_int64))
_declare("clfold_param_count", ctypes.c_int)
_declare("clfold_describe_param", status_t, enum_t, ctypes.POINTER(ParamInfo))


def param_infos():
    """Every parameter's clfold_param_info, by name, in the library's order."""
    infos = {}
    for param in range(lib.clfold_param_count()):
        info = ParamInfo()
        if lib.clfold_describe_param(param, ctypes.byref(info)) == 0:
            infos[info.name.decode()] = (param, info)
    return infos


def from_name(kind, name):
    """The library's enum value for `name` ("int32", "sum", "k3", "exact"), or None if it has none."""
    value = enum_t()
    parse = getattr(lib, f"clfold_{kind}_from_name")
    if not isinstance(name, str) or parse(name.encode(), ctypes.byref(value)) != 0:
        return None
    return value.value


def integer(value, name, ctype, least=0):
    """`value` as the Python int that an argument of `ctype` receives, checked as NumPy checks
    its integer arguments, since ctypes wraps an integer outside its C type without a word:
    TypeError for anything but an integer (operator.index: NumPy's integer scalars pass, bools
    do not), ValueError below `least` (negative where the argument cannot be), OverflowError
    outside the C type."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, not a bool")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None
    if number < least:
        raise ValueError(f"{name} must be at least {least}, not {number}")
    bits = 8 * ctypes.sizeof(ctype)
    signed = ctype(-1).value < 0
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not low <= number <= high:
        kind = "a signed" if signed else "an unsigned"
        raise OverflowError(f"{name} = {number} does not fit in {kind} {bits}-bit integer "
                            f"({low} to {high})")
    return number


def status_name(status):
    return lib.clfold_status_string(status).decode()


def last_error(context):
    """The library's message for the last failure on `context` (None: this thread's last create)."""
    return (lib.clfold_last_error(context) or b"").decode(errors="replace")


def version():
    return lib.clfold_version_string().decode()
