"""DeviceBatch: the storage of a batch in device memory (what a TensorListGPU holds).

Samples are packed one after another in one `Buffer`, in order; the metadata is the one a
host `BatchStorage` has (`dtype`, `ndim`, `num_samples`, `shapes` as an (n, ndim) int64
array, `offsets` as the byte offset of each sample, `shape_of(i)`), so an operator's `infer`
reads GPU inputs as it reads CPU ones, plus `ptr`, the buffer's device address, which kernels
take with the offsets.
"""

from __future__ import annotations

import numpy as np

from dali._ext.tensor_storage import BatchStorage


class DeviceBatch:
    __slots__ = ("device", "buffer", "dtype", "ndim", "num_samples", "shapes", "offsets",
                 "nbytes")

    is_contiguous = True

    @classmethod
    def empty(cls, device, dtype, shapes, ndim=None):
        """An uninitialised batch of `shapes` (a list of tuples, or an (n, ndim) array)."""
        self = cls.__new__(cls)
        self.device = device
        self.dtype = np.dtype(dtype)
        arr = np.asarray([tuple(s) for s in shapes] if not isinstance(shapes, np.ndarray)
                         else shapes, dtype=np.int64)
        if arr.ndim == 1 and len(arr) == 0:
            arr = arr.reshape(0, 0 if ndim is None else ndim)
        if arr.ndim != 2:
            raise ValueError("the samples of a batch must have the same number of dimensions")
        if (arr < 0).any():
            raise ValueError(f"negative extent in the shapes of a batch: {arr.tolist()}")
        self.shapes = arr
        self.ndim = arr.shape[1] if len(arr) or ndim is None else ndim
        self.num_samples = len(arr)
        volumes = np.prod(arr, axis=1, dtype=np.int64) * self.dtype.itemsize
        ends = np.cumsum(volumes, dtype=np.int64)
        self.offsets = ends - volumes
        self.nbytes = int(ends[-1]) if len(ends) else 0
        self.buffer = device.alloc(self.nbytes)
        return self

    @classmethod
    def from_host(cls, device, storage, pinned=False):
        """A device copy of the host `BatchStorage` (an async upload on the device's
        stream); `pinned`: the storage was leased from `device.host_pool`, so it is copied
        from where it is, without staging (`Device.upload`)."""
        st = storage.contiguous()
        self = cls.__new__(cls)
        self.device = device
        self.dtype = st.dtype
        self.ndim = st.ndim
        self.num_samples = st.num_samples
        self.shapes = np.asarray(st.shapes, dtype=np.int64).reshape(st.num_samples, st.ndim)
        volumes = np.prod(self.shapes, axis=1, dtype=np.int64) * self.dtype.itemsize
        ends = np.cumsum(volumes, dtype=np.int64)
        self.offsets = ends - volumes
        self.nbytes = int(ends[-1]) if len(ends) else 0
        flat = st.flat()
        self.buffer = device.upload(flat if flat is not None else np.zeros(0, st.dtype),
                                    pinned)
        return self

    def viewed_as(self, dtype, shapes):
        """The same bytes as samples of `dtype` and `shapes` ((n, ndim) int64; each sample
        keeps its size in bytes): a view sharing the buffer, as `BatchStorage.viewed_as`."""
        view = DeviceBatch.__new__(DeviceBatch)
        view.device, view.buffer = self.device, self.buffer
        view.dtype = np.dtype(dtype)
        view.shapes = np.asarray(shapes, np.int64).reshape(self.num_samples, -1)
        sizes = np.prod(view.shapes, axis=1, dtype=np.int64) * view.dtype.itemsize
        if not np.array_equal(sizes, np.diff(np.append(self.offsets, self.nbytes))):
            raise ValueError("a view of a batch must keep the byte size of every sample")
        view.ndim = view.shapes.shape[1]
        view.num_samples, view.offsets, view.nbytes = self.num_samples, self.offsets, self.nbytes
        return view

    @property
    def ptr(self):
        return self.buffer.ptr

    @property
    def uniform_shape(self):
        """The samples' common shape (a tuple), or None when they differ or there are none."""
        if not self.num_samples or not (self.shapes == self.shapes[0]).all():
            return None
        return self.shape_of(0)

    def shape_of(self, i):
        return tuple(int(x) for x in self.shapes[i])

    def shape_list(self):
        return [tuple(int(x) for x in s) for s in self.shapes]

    def sample_ptr(self, i):
        return self.buffer.ptr + int(self.offsets[i])

    def sample_array(self, i):
        """Sample i as an array of the device's library (a CuPy array on a CUDA device)."""
        return self.device.array(self.buffer, int(self.offsets[i]), self.shape_of(i),
                                 self.dtype)

    def dense_array(self):
        """The batch as one (n, *shape) array of the device's library when the samples have
        one shape, else None."""
        if self.num_samples and not (self.shapes == self.shapes[0]).all():
            return None
        shape = (self.num_samples, *(self.shape_of(0) if self.num_samples
                                     else (0,) * self.ndim))
        return self.device.array(self.buffer, 0, shape, self.dtype)

    def to_host(self):
        """A host `BatchStorage` copy (waits for the stream)."""
        raw = self.device.download(self.ptr, self.nbytes)
        out = BatchStorage.allocate(self.dtype, self.shape_list(), ndim=self.ndim)
        flat = out.flat()
        if flat is not None and self.nbytes:
            flat.view(np.uint8)[:self.nbytes] = raw
        return out
