# Batch storage: the samples of one TensorList.
#
# Contiguous form (almost always): `base` owns one block holding every sample back to back,
# `offsets[i]` is sample i's byte offset in it and `data` its start address.  Per-sample form:
# `base` is None, the samples are independent arrays in `_samples` (operators that cannot know
# output shapes before running produce this; pipeline outputs are always made contiguous).
# Immutable after construction apart from the lazily filled `_samples` view cache.
from libc.stdint cimport int64_t


cdef class BatchStorage:
    cdef readonly object base           # Buffer lease or ndarray owning the bytes; None if per-sample
    cdef readonly object dtype          # numpy dtype of every sample
    cdef readonly Py_ssize_t num_samples
    cdef readonly int ndim
    cdef readonly object shapes         # int64 ndarray (num_samples, ndim), read-only
    cdef readonly object offsets        # int64 ndarray (num_samples,) of byte offsets, or None
    cdef char* data                     # start of `base` when contiguous
    cdef list _samples                  # cached per-sample ndarrays (views into base when contiguous)

    cdef list _make_views(self)
