"""Batch storage for TensorListCPU: one contiguous block + per-sample offsets and shapes.

Kernels read `data + offsets[i]` with `shapes[i]`; Python gets zero-copy numpy views of samples.
The block is a lease from the buffer pool (or a user's ndarray wrapped without copying), and it
returns to the pool when the storage and every view of it are gone.
"""
cimport numpy as cnp
import numpy as np

from dali._ext.buffer_pool cimport Buffer, BufferPool, default_pool
from libc.string cimport memcpy

cnp.import_array()


def _as_shapes(shapes, Py_ssize_t ndim=-1):
    arr = np.array(shapes, dtype=np.int64)
    if arr.ndim == 1 and ndim <= 0 and len(arr) and not isinstance(shapes[0], (tuple, list)):
        arr = arr.reshape(-1, 1) if ndim == 1 else arr.reshape(len(arr), 0)
    if arr.ndim != 2:
        if arr.size == 0:
            arr = arr.reshape(0, max(ndim, 0))
        else:
            raise ValueError(f"sample shapes must be a list of tuples of equal length, got {shapes!r}")
    if (arr < 0).any():
        raise ValueError(f"negative extent in sample shapes {shapes!r}")
    arr.setflags(write=False)
    return arr


cdef class BatchStorage:
    """Samples of one batch; see the module docstring."""

    @staticmethod
    def allocate(dtype, shapes, BufferPool pool=None, Py_ssize_t ndim=-1):
        """Uninitialized contiguous storage for samples of the given shapes.

        `ndim` fixes the number of dimensions when `shapes` is empty.
        """
        cdef BatchStorage self = BatchStorage.__new__(BatchStorage)
        self.dtype = np.dtype(dtype)
        self.shapes = _as_shapes(shapes, ndim)
        self.num_samples = self.shapes.shape[0]
        self.ndim = self.shapes.shape[1]
        sizes = np.prod(self.shapes, axis=1, dtype=np.int64) * self.dtype.itemsize
        offsets = np.zeros(self.num_samples, dtype=np.int64)
        if self.num_samples > 1:
            np.cumsum(sizes[:self.num_samples - 1], out=offsets[1:])
        offsets.setflags(write=False)
        self.offsets = offsets
        total = int(sizes.sum()) if self.num_samples else 0
        cdef Buffer buf = (pool if pool is not None else default_pool()).lease(total)
        self.base = buf
        self.data = <char*>buf.ptr
        return self

    @staticmethod
    def from_arrays(arrays, BufferPool pool=None):
        """Copy a list of arrays (same dtype and ndim) into new contiguous storage."""
        arrays = [np.asarray(a) for a in arrays]
        dtype, ndim = _common_kind(arrays)
        cdef BatchStorage self = BatchStorage.allocate(
            dtype, [a.shape for a in arrays], pool, ndim)
        cdef Py_ssize_t i
        for i, a in enumerate(arrays):
            self.sample(i)[...] = a
        return self

    @staticmethod
    def from_samples(arrays):
        """Per-sample (non-contiguous) storage holding the given arrays without copying."""
        arrays = [np.asarray(a) for a in arrays]
        dtype, ndim = _common_kind(arrays)
        cdef BatchStorage self = BatchStorage.__new__(BatchStorage)
        self.dtype = dtype
        self.shapes = _as_shapes([a.shape for a in arrays], ndim)
        self.num_samples = len(arrays)
        self.ndim = ndim
        self._samples = arrays
        return self

    @staticmethod
    def from_dense(array):
        """Contiguous storage over a C-contiguous ndarray whose outer dimension is the batch."""
        arr = np.ascontiguousarray(array)
        if arr.ndim < 1:
            raise ValueError("a dense batch needs an outer (sample) dimension")
        cdef BatchStorage self = BatchStorage.__new__(BatchStorage)
        self.dtype = arr.dtype
        self.num_samples = arr.shape[0]
        self.ndim = arr.ndim - 1
        self.shapes = _as_shapes([arr.shape[1:]] * self.num_samples, self.ndim)
        offsets = np.arange(self.num_samples, dtype=np.int64) * (
            arr.itemsize * int(np.prod(arr.shape[1:], dtype=np.int64)))
        offsets.setflags(write=False)
        self.offsets = offsets
        self.base = arr
        self.data = <char*>cnp.PyArray_DATA(arr)
        return self

    @property
    def is_contiguous(self):
        return self.base is not None

    @property
    def data_ptr(self):
        """Address of the first byte (contiguous storage only, else 0)."""
        return <size_t>self.data if self.base is not None else 0

    @property
    def nbytes(self):
        return int(np.prod(self.shapes, axis=1, dtype=np.int64).sum()) * self.dtype.itemsize

    def is_uniform(self):
        """True when every sample has the same shape."""
        if self.num_samples <= 1:
            return True
        s = self.shapes
        return bool((s == s[0]).all())

    def shape_of(self, Py_ssize_t i):
        return tuple(int(x) for x in self.shapes[i])

    cdef list _make_views(self):
        cdef Py_ssize_t i
        cdef list out = []
        base = self.base
        dtype = self.dtype
        for i in range(self.num_samples):
            shape = tuple(self.shapes[i].tolist())
            count = 1
            for x in shape:
                count *= x
            out.append(np.frombuffer(base, dtype=dtype, count=count,
                                     offset=int(self.offsets[i])).reshape(shape))
        return out

    def samples(self):
        """List of per-sample ndarrays (views, not copies)."""
        if self._samples is None:
            self._samples = self._make_views()
        return self._samples

    def sample(self, Py_ssize_t i):
        if i < 0 or i >= self.num_samples:
            raise IndexError(f"sample index {i} out of range for a batch of {self.num_samples}")
        return self.samples()[i]

    def dense(self):
        """View of the whole batch as one ndarray (num_samples, *shape); needs uniform shapes."""
        if self.base is None or not self.is_uniform():
            return None
        shape = (self.num_samples,) + (tuple(self.shapes[0].tolist()) if self.num_samples else ())
        count = 1
        for x in shape:
            count *= x
        if self.num_samples == 0:
            return np.empty((0,) + (0,) * self.ndim, dtype=self.dtype)
        return np.frombuffer(self.base, dtype=self.dtype, count=count,
                             offset=int(self.offsets[0])).reshape(shape)

    def contiguous(self, BufferPool pool=None):
        """This storage if contiguous, else a contiguous copy."""
        if self.base is not None:
            return self
        return BatchStorage.from_arrays(self.samples(), pool)


def _common_kind(arrays):
    if not arrays:
        return np.dtype(np.uint8), 0
    dtype = arrays[0].dtype
    ndim = arrays[0].ndim
    for i, a in enumerate(arrays):
        if a.dtype != dtype:
            raise TypeError(
                f"all samples in a batch must have the same type: sample 0 is {dtype}, "
                f"sample {i} is {a.dtype}")
        if a.ndim != ndim:
            raise ValueError(
                f"all samples in a batch must have the same number of dimensions: sample 0 has "
                f"{ndim}, sample {i} has {a.ndim}")
    return dtype, ndim
