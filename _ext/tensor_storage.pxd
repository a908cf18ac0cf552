# Batch storage: the samples of one TensorList.
#
# Contiguous form (almost always): `base` owns one block holding every sample back to back,
# `offsets[i]` is sample i's byte offset in it and `data` its start address.  Per-sample form:
# `base` is None, the samples are independent arrays in `_samples` (operators that cannot know
# output shapes before running produce this; pipeline outputs are always made contiguous).
# Immutable after construction apart from the lazily filled caches (`_samples`, `_uniform`,
# `_dense`, `_nbytes`), which only ever go from "unknown" to a value that never changes.
cimport numpy as cnp
from libc.stdint cimport int64_t

from dali._ext.buffer_pool cimport BufferPool


cdef class BatchStorage:
    cdef readonly object base           # Buffer lease or ndarray owning the bytes; None: per sample
    cdef readonly object dtype          # numpy dtype of every sample
    cdef readonly Py_ssize_t num_samples
    cdef readonly int ndim
    cdef readonly object shapes         # int64 (num_samples, ndim), read-only, may be shared
    cdef readonly object offsets        # int64 ndarray (num_samples,) of byte offsets, or None
    cdef char* data                     # start of `base` when contiguous
    cdef list _samples                  # cached per-sample ndarrays (views into base if contiguous)
    cdef object _uniform                # the common sample shape (tuple), False, or None: unknown
    cdef object _dense                  # cached (num_samples, *shape) view of a uniform batch
    cdef Py_ssize_t _nbytes             # bytes of all samples; -1 until known

    cdef object _view(self, Py_ssize_t offset, int nd, cnp.npy_intp* dims)
    cdef list _make_views(self)
    cdef object _uniform_shape(self)
    cdef Py_ssize_t _set_shapes(self, shapes, Py_ssize_t ndim, Py_ssize_t itemsize) except -1


cdef BatchStorage allocate_batch(dtype, shapes, BufferPool pool, Py_ssize_t ndim,
                                 Py_ssize_t min_bytes)
