"""clfold: portable OpenCL reductions for NumPy and PyOpenCL arrays.

    import numpy as np, clfold
    clfold.reduce(np.arange(10, dtype=np.int32))              # 45, as numpy.int64
    clfold.reduce(x, "max"); clfold.reduce(x, accuracy="exact")
    clfold.reduce(m, axis=1); clfold.reduce(m, "argmax", axis=0)   # along axes, as NumPy's
    clfold.scan(x)                                            # numpy.cumsum(x), on the device

See docs/python.md in clfold's source tree.
"""
from ._context import (ACCURACIES, KERNELS, OPS, PARAMS, REDUCE_OPS, SCAN_KERNELS, Context, Device,
                       Error, Partial, default_context, devices, reduce, reduce_partial,
                       reduce_segments, scan)
from ._lib import version as _library_version

__version__ = "0.1.0"
library_version = _library_version()

__all__ = ["Context", "Device", "Error", "Partial", "devices", "reduce", "reduce_partial",
           "reduce_segments", "scan", "default_context", "OPS", "REDUCE_OPS",
           "ACCURACIES", "KERNELS", "SCAN_KERNELS", "PARAMS", "library_version", "__version__"]
