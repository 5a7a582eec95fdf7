"""The OpenCL devices, numbered as clfold numbers them ("P:D"), from the ICD loader through ctypes."""
import ctypes
import ctypes.util

CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_DEVICE_NOT_FOUND = -1
CL_PLATFORM_NOT_FOUND_KHR = -1001
CL_PLATFORM_NAME = 0x0902
CL_DEVICE_TYPE = 0x1000
CL_DEVICE_NAME = 0x102B
TYPES = ((1 << 2, "gpu"), (1 << 1, "cpu"), (1 << 3, "accelerator"), (1 << 4, "custom"))


def _loader():
    """The ICD loader that libclfold was linked with: already in this process, found by its soname."""
    cl = ctypes.CDLL(ctypes.util.find_library("OpenCL") or "libOpenCL.so.1")
    handle, uint, size, out = ctypes.c_void_p, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p
    cl.clGetPlatformIDs.argtypes = [uint, out, ctypes.POINTER(uint)]
    cl.clGetDeviceIDs.argtypes = [handle, ctypes.c_uint64, uint, out, ctypes.POINTER(uint)]
    cl.clGetPlatformInfo.argtypes = [handle, uint, size, out, ctypes.POINTER(size)]
    cl.clGetDeviceInfo.argtypes = [handle, uint, size, out, ctypes.POINTER(size)]
    for function in (cl.clGetPlatformIDs, cl.clGetDeviceIDs, cl.clGetPlatformInfo, cl.clGetDeviceInfo):
        function.restype = ctypes.c_int
    return cl


def _text(get, handle, param):
    size = ctypes.c_size_t()
    if get(handle, param, 0, None, ctypes.byref(size)) != 0:
        return ""
    buffer = ctypes.create_string_buffer(size.value)
    if get(handle, param, size, buffer, None) != 0:
        return ""
    return buffer.value.decode(errors="replace").strip()


def device_type(cl, device):
    value = ctypes.c_uint64()
    if cl.clGetDeviceInfo(ctypes.c_void_p(device), CL_DEVICE_TYPE, 8, ctypes.byref(value), None) != 0:
        return "unknown"
    return next((name for bit, name in TYPES if value.value & bit), "default")


def list_devices():
    """(selector, device name, platform name, type, cl_device_id) of every device, in clfold's order."""
    cl = _loader()
    count = ctypes.c_uint()
    err = cl.clGetPlatformIDs(0, None, ctypes.byref(count))
    if err == CL_PLATFORM_NOT_FOUND_KHR or count.value == 0:
        return []
    if err != 0:
        raise OSError(f"clGetPlatformIDs failed with {err}")
    platforms = (ctypes.c_void_p * count.value)()
    cl.clGetPlatformIDs(count, platforms, None)
    found = []
    for p, platform in enumerate(platforms):
        platform_name = _text(cl.clGetPlatformInfo, ctypes.c_void_p(platform), CL_PLATFORM_NAME)
        n = ctypes.c_uint()
        if cl.clGetDeviceIDs(ctypes.c_void_p(platform), ctypes.c_uint64(CL_DEVICE_TYPE_ALL), 0, None,
                             ctypes.byref(n)) != 0:
            continue  # no devices, or a broken platform: clfold skips it too
        devices = (ctypes.c_void_p * n.value)()
        cl.clGetDeviceIDs(ctypes.c_void_p(platform), ctypes.c_uint64(CL_DEVICE_TYPE_ALL), n, devices, None)
        for d, device in enumerate(devices):
            name = _text(cl.clGetDeviceInfo, ctypes.c_void_p(device), CL_DEVICE_NAME)
            found.append((f"{p}:{d}", name, platform_name, device_type(cl, device), device))
    return found
