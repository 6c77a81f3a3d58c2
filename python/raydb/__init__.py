"""raydb: database operators on GPU ray tracing (Vulkan), over numpy arrays.

    >>> import numpy as np, raydb
    >>> ctx = raydb.Context()
    >>> index = raydb.RxIndex(ctx, np.arange(1000, dtype=np.uint32))
    >>> index.lookup(np.array([5, 5000], dtype=np.uint32))["count"]
    array([1, 0], dtype=uint32)

Lookups return structured arrays of LOOKUP_DTYPE (first_row, count, sum); joins return
JOIN_PAIR_DTYPE (build_row, probe_row); scans return a Bitmap; the SSB engine and SqlEngine (when
built with RAYDB_SQL) return a dict of numpy columns. Failures raise raydb.Error subclasses (InvalidArgument, Unsupported, OutOfMemory,
DeviceLost, ...). The GIL is released while the GPU works. Scale-out over dask.distributed lives in
raydb.dask.
"""

from ._raydb import *  # noqa: F401,F403
from ._raydb import ssb  # noqa: F401
from ._raydb import (  # noqa: F401
    Error,
    InvalidArgument,
    Unsupported,
    OutOfMemory,
    DeviceLost,
    LimitExceeded,
    OutputTooSmall,
    IoError,
    VulkanError,
    CudaError,
    InternalError,
)

__all__ = [
    "Context", "RxIndex", "CgrxIndex", "SortedIndex", "HashIndex", "RtScanTable", "DpBisTable",
    "Predicate", "Bitmap", "RxJoin", "CgrxJoin", "join", "join_aggregate", "baseline_join", "ssb",
    "LOOKUP_DTYPE", "JOIN_PAIR_DTYPE", "MISS_ROW", "Error", "InvalidArgument", "Unsupported",
    "OutOfMemory", "DeviceLost", "LimitExceeded", "OutputTooSmall", "IoError", "VulkanError",
    "CudaError", "InternalError",
]
if "SqlEngine" in globals():
    __all__.append("SqlEngine")
