"""Batch storage for TensorListCPU: one contiguous block + per-sample offsets and shapes.

Kernels read `data + offsets[i]` with `shapes[i]`; Python gets zero-copy numpy views of samples.
The block is a lease from the buffer pool (or a user's ndarray wrapped without copying), and it
returns to the pool when the storage and every view of it are gone.

`allocate` is on the executor's hot path (once per operator output per iteration), so it avoids
NumPy calls where it can: a batch of one repeated shape (what most operators infer) takes its
read-only `shapes` and `offsets` arrays from a small cache, and other shape lists are converted
in one C loop that also finds the offsets, the total size and whether the batch is uniform.
"""
cimport numpy as cnp
import numpy as np

from cpython.ref cimport Py_INCREF
from libc.string cimport memcpy

from dali._ext.buffer_pool cimport Buffer, BufferPool, default_pool

cnp.import_array()

cdef extern from "checked_size.h" nogil:
    bint mul_overflows "dali_mul_overflows"(int64_t a, int64_t b, int64_t* out)
    bint add_overflows "dali_add_overflows"(int64_t a, int64_t b, int64_t* out)

cdef extern from "numpy/arrayobject.h":
    # Steals the reference to `descr`; `obj` may be NULL.
    object PyArray_NewFromDescr(type subtype, cnp.dtype descr, int nd, cnp.npy_intp* dims,
                                cnp.npy_intp* strides, void* data, int flags, object obj)

# (shape, num_samples) -> read-only shapes array; (shape, num_samples, itemsize) -> read-only
# offsets array.  Shared by every storage of that form; bounded so odd shapes cannot pile up.
cdef dict _shape_cache = {}
cdef dict _offset_cache = {}
cdef Py_ssize_t _CACHE_LIMIT = 1024


def _as_shapes(shapes, Py_ssize_t ndim=-1):
    arr = np.array(shapes, dtype=np.int64)
    if arr.ndim == 1 and ndim <= 0 and len(arr) and not isinstance(shapes[0], (tuple, list)):
        arr = arr.reshape(-1, 1) if ndim == 1 else arr.reshape(len(arr), 0)
    if arr.ndim != 2:
        if arr.size == 0:
            arr = arr.reshape(0, max(ndim, 0))
        else:
            raise ValueError(
                f"sample shapes must be a list of tuples of equal length, got {shapes!r}")
    if (arr < 0).any():
        raise ValueError(f"negative extent in sample shapes {shapes!r}")
    arr.setflags(write=False)
    return arr


cdef inline object _frozen(object arr):
    arr.setflags(write=False)
    return arr


cdef bint _repeated_tuple(list shapes):
    """Whether `shapes` is one tuple repeated (the same object or equal ones)."""
    cdef object first = shapes[0]
    cdef Py_ssize_t i
    if type(first) is not tuple:
        return False
    for i in range(1, len(shapes)):
        s = shapes[i]
        if s is not first and (type(s) is not tuple or s != first):
            return False
    return True


cdef Py_ssize_t _volume(tuple shape, Py_ssize_t itemsize=1) except -1:
    """Bytes of one sample of `shape` (elements when `itemsize` is 1)."""
    cdef int64_t v = itemsize, x
    for e in shape:
        x = e
        if x < 0:
            raise ValueError(f"negative extent in sample shape {shape!r}")
        if mul_overflows(v, x, &v):
            raise _too_large(0, shape, itemsize)
    return v


cdef object _too_large(Py_ssize_t i, shape, Py_ssize_t itemsize, bint batch=False):
    """The OverflowError of a sample (or of the batch, at sample i) whose size in bytes does
    not fit in 64 bits."""
    what = "the batch, up to this sample," if batch else "it"
    return OverflowError(f"sample {i} of shape {tuple(shape)} with {itemsize}-byte elements: "
                         f"{what} would take more than 2**63 - 1 bytes")


cdef int64_t _offsets(const int64_t* sp, Py_ssize_t n, Py_ssize_t d, Py_ssize_t itemsize,
                      int64_t* op) except -1:
    """Byte offsets of n samples of shapes sp (n x d, checked not negative) into op; returns
    the total size, or raises OverflowError naming the first sample that does not fit."""
    cdef Py_ssize_t i, j
    cdef int64_t vol, total = 0
    for i in range(n):
        vol = itemsize
        for j in range(d):
            if mul_overflows(vol, sp[i * d + j], &vol):
                raise _too_large(i, [sp[i * d + k] for k in range(d)], itemsize)
        op[i] = total
        if add_overflows(total, vol, &total):
            raise _too_large(i, [sp[i * d + k] for k in range(d)], itemsize, True)
    return total


cdef object _cached_shapes(tuple shape, Py_ssize_t n):
    key = (shape, n)
    arr = _shape_cache.get(key)
    if arr is None:
        if len(_shape_cache) >= _CACHE_LIMIT:
            _shape_cache.clear()
        arr = np.empty((n, len(shape)), dtype=np.int64)
        arr[...] = shape
        _shape_cache[key] = arr = _frozen(arr)
    return arr


cdef object _cached_offsets(tuple shape, Py_ssize_t n, Py_ssize_t sample_bytes):
    key = (shape, n, sample_bytes)
    arr = _offset_cache.get(key)
    if arr is None:
        if len(_offset_cache) >= _CACHE_LIMIT:
            _offset_cache.clear()
        arr = _frozen(np.arange(n, dtype=np.int64) * sample_bytes)
        _offset_cache[key] = arr
    return arr


cdef object _repeated_shape(object shapes):
    """The one shape (a tuple) every sample of `shapes` has, when that is seen without NumPy
    calls: a list repeating one tuple, or a C-contiguous (n, ndim) int64 array of equal rows;
    else None."""
    cdef const int64_t[:, ::1] rows
    cdef Py_ssize_t i, j
    if type(shapes) is list:
        if len(<list>shapes) and _repeated_tuple(<list>shapes):
            return (<list>shapes)[0]
        return None
    if (type(shapes) is not np.ndarray or shapes.dtype != np.int64 or shapes.ndim != 2
            or not len(shapes) or not shapes.flags.c_contiguous):
        return None
    rows = shapes
    for i in range(1, rows.shape[0]):
        for j in range(rows.shape[1]):
            if rows[i, j] != rows[0, j]:
                return None
    return tuple(shapes[0].tolist())


cdef BatchStorage allocate_batch(dtype, shapes, BufferPool pool, Py_ssize_t ndim,
                                 Py_ssize_t min_bytes):
    """`BatchStorage.allocate` for compiled callers (the executor)."""
    cdef BatchStorage self = BatchStorage.__new__(BatchStorage)
    cdef Py_ssize_t n, itemsize, sample_bytes
    cdef int64_t total
    self.dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
    itemsize = self.dtype.itemsize
    shape = _repeated_shape(shapes)
    if shape is not None:
        n = len(shapes)
        sample_bytes = _volume(shape, itemsize)
        if mul_overflows(sample_bytes, n, &total):     # first sample past 2**63 - 1 bytes:
            raise _too_large(0x7FFFFFFFFFFFFFFF // sample_bytes, shape, itemsize, True)
        self.shapes = _cached_shapes(shape, n)
        self.offsets = _cached_offsets(shape, n, sample_bytes)
        self.num_samples = n
        self.ndim = len(shape)
        self._uniform = shape
    else:
        total = self._set_shapes(shapes, ndim, itemsize)
    self._nbytes = total
    cdef Buffer buf = (pool if pool is not None else default_pool()).lease(
        total if total >= min_bytes else min_bytes)
    buf.nbytes = total
    self.base = buf
    self.data = <char*>buf.ptr
    return self


cdef class BatchStorage:
    """Samples of one batch; see the module docstring."""

    def __cinit__(self):
        self._nbytes = -1

    @staticmethod
    def allocate(dtype, shapes, BufferPool pool=None, Py_ssize_t ndim=-1,
                 Py_ssize_t min_bytes=0):
        """Uninitialized contiguous storage for samples of the given shapes.

        `ndim` fixes the number of dimensions when `shapes` is empty.  The block leased holds
        at least `min_bytes` (a size hint: batches that vary in size below it reuse one block).
        """
        return allocate_batch(dtype, shapes, pool, ndim, min_bytes)

    cdef Py_ssize_t _set_shapes(self, shapes, Py_ssize_t ndim, Py_ssize_t itemsize) except -1:
        """Shapes, offsets and uniformity from a general shape list; returns the total bytes."""
        cdef Py_ssize_t n, d, i, j, x, total
        cdef int64_t* sp
        cdef bint uniform = True
        if type(shapes) is list and len(<list>shapes) and \
                type((<list>shapes)[0]) in (tuple, list):
            n = len(<list>shapes)
            d = len((<list>shapes)[0])
            arr = np.empty((n, d), dtype=np.int64)
            offsets = np.empty(n, dtype=np.int64)
            sp = <int64_t*>cnp.PyArray_DATA(arr)
            for i in range(n):
                s = (<list>shapes)[i]
                if type(s) not in (tuple, list) or len(s) != d:
                    raise ValueError("sample shapes must be a list of tuples of equal length, "
                                     f"got {shapes!r}")
                for j in range(d):
                    x = s[j]
                    if x < 0:
                        raise ValueError(f"negative extent in sample shapes {shapes!r}")
                    sp[i * d + j] = x
                    if uniform and i and x != sp[j]:
                        uniform = False
            self.shapes = _frozen(arr)
        elif (type(shapes) is np.ndarray and shapes.dtype == np.int64 and shapes.ndim == 2
              and shapes.flags.c_contiguous):       # an (n, ndim) array: checked in one loop
            arr = shapes.copy()
            n, d = arr.shape[0], arr.shape[1]
            offsets = np.empty(n, dtype=np.int64)
            sp = <int64_t*>cnp.PyArray_DATA(arr)
            for i in range(n * d):
                if sp[i] < 0:
                    raise ValueError(f"negative extent in sample shapes {shapes!r}")
                if uniform and i >= d and sp[i] != sp[i % d]:
                    uniform = False
            self.shapes = _frozen(arr)
        else:
            arr = np.ascontiguousarray(_as_shapes(shapes, ndim))
            n, d = arr.shape[0], arr.shape[1]
            offsets = np.empty(n, dtype=np.int64)
            sp = <int64_t*>cnp.PyArray_DATA(arr)
            self.shapes = arr
            uniform = n <= 1 or bool((arr == arr[0]).all())
        total = _offsets(sp, n, d, itemsize, <int64_t*>cnp.PyArray_DATA(offsets))
        self.offsets = _frozen(offsets)
        self.num_samples = n
        self.ndim = d
        self._uniform = (tuple(self.shapes[0].tolist()) if n else False) if uniform else False
        return total

    @staticmethod
    def from_arrays(arrays, BufferPool pool=None):
        """Copy a list of arrays (same dtype and ndim) into new contiguous storage."""
        arrays = [np.asarray(a) for a in arrays]
        dtype, ndim = _common_kind(arrays)
        cdef BatchStorage self = BatchStorage.allocate(
            dtype, [a.shape for a in arrays], pool, ndim)
        cdef Py_ssize_t i, n = len(arrays)
        cdef cnp.ndarray a_i
        cdef const int64_t* offsets = <const int64_t*>cnp.PyArray_DATA(self.offsets) \
            if n else NULL
        cdef bint plain = not dtype.hasobject
        for i in range(n):
            a_i = arrays[i]
            if plain and cnp.PyArray_IS_C_CONTIGUOUS(a_i):     # the bytes, without the GIL
                with nogil:
                    memcpy(self.data + offsets[i], cnp.PyArray_DATA(a_i),
                           <size_t>cnp.PyArray_NBYTES(a_i))
            else:
                self.sample(i)[...] = a_i
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
        cdef tuple shape = arr.shape[1:]
        self.dtype = arr.dtype
        self.num_samples = arr.shape[0]
        self.ndim = arr.ndim - 1
        self.shapes = _cached_shapes(shape, self.num_samples)
        self.offsets = _cached_offsets(shape, self.num_samples, _volume(shape, arr.itemsize))
        self._uniform = shape
        self._nbytes = arr.nbytes
        self.base = arr
        self.data = <char*>cnp.PyArray_DATA(arr)
        return self

    def viewed_as(self, dtype, shapes):
        """The same bytes seen as samples of `dtype` and `shapes` (an int64 array of shape
        (num_samples, ndim)), without copying: every sample must keep its size in bytes, so
        the samples stay back to back at the same offsets.  Contiguous storage only."""
        cdef BatchStorage out = BatchStorage.__new__(BatchStorage)
        cdef Py_ssize_t n = self.num_samples, d, i, j
        cdef int64_t vol
        cdef Py_ssize_t old_d = self.ndim, old_vol, itemsize, old_itemsize
        cdef const int64_t* sp
        cdef const int64_t* old
        cdef bint uniform = True
        if self.base is None:
            raise ValueError("viewed_as needs contiguous storage")
        dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        arr = np.ascontiguousarray(shapes, dtype=np.int64)
        if arr.ndim != 2 or arr.shape[0] != n:
            raise ValueError(f"shapes must be an array of {n} rows, got shape {arr.shape}")
        d = arr.shape[1]
        if d > 32:
            raise ValueError(f"samples of {d} dimensions are not supported (32 at most)")
        olds = np.ascontiguousarray(self.shapes)
        sp = <const int64_t*>cnp.PyArray_DATA(arr)
        old = <const int64_t*>cnp.PyArray_DATA(olds)
        itemsize, old_itemsize = dtype.itemsize, self.dtype.itemsize
        for i in range(n):
            vol, old_vol = itemsize, old_itemsize
            for j in range(d):
                if sp[i * d + j] < 0:
                    raise ValueError(f"negative extent in sample shape {arr[i].tolist()}")
                if mul_overflows(vol, sp[i * d + j], &vol):
                    raise _too_large(i, arr[i].tolist(), itemsize)
                if uniform and i and sp[i * d + j] != sp[j]:
                    uniform = False
            for j in range(old_d):
                old_vol *= old[i * old_d + j]
            if vol != old_vol:
                raise ValueError(f"sample {i} of {old_vol} bytes cannot be viewed with shape "
                                 f"{tuple(arr[i].tolist())} of {dtype}")
        out.base = self.base
        out.data = self.data
        out.dtype = dtype
        out.num_samples = n
        out.ndim = <int>d
        if arr.flags.writeable:     # never freeze the caller's array
            arr = _frozen(arr.copy() if arr is shapes else arr)
        out.shapes = arr
        out.offsets = self.offsets
        out._nbytes = self._nbytes
        out._uniform = (tuple(arr[0].tolist()) if n else False) if uniform else False
        return out

    @property
    def is_contiguous(self):
        return self.base is not None

    @property
    def data_ptr(self):
        """Address of the first byte (contiguous storage only, else 0)."""
        return <size_t>self.data if self.base is not None else 0

    @property
    def nbytes(self):
        """Bytes of all samples."""
        if self._nbytes < 0:
            self._nbytes = int(np.prod(self.shapes, axis=1, dtype=np.int64).sum()) * \
                self.dtype.itemsize
        return self._nbytes

    @property
    def capacity(self):
        """Bytes held for the samples: the pool block's size class for a leased block."""
        if isinstance(self.base, Buffer):
            return (<Buffer>self.base).capacity
        return self.nbytes

    cdef object _uniform_shape(self):
        if self._uniform is None:
            if self.num_samples == 0:
                self._uniform = False
            elif self.num_samples == 1 or bool((self.shapes == self.shapes[0]).all()):
                self._uniform = tuple(self.shapes[0].tolist())
            else:
                self._uniform = False
        return self._uniform

    @property
    def uniform_shape(self):
        """The shape every sample has, or None when the batch is empty or shapes differ."""
        u = self._uniform_shape()
        return u if u is not False else None

    def is_uniform(self):
        """True when every sample has the same shape."""
        return self.num_samples <= 1 or self._uniform_shape() is not False

    def shape_of(self, Py_ssize_t i):
        return tuple(int(x) for x in self.shapes[i])

    cdef object _view(self, Py_ssize_t offset, int nd, cnp.npy_intp* dims):
        """An ndarray over `nd` dims at byte `offset` of the block, keeping the block alive."""
        cdef cnp.dtype descr = <cnp.dtype>self.dtype
        cdef int flags = cnp.NPY_ARRAY_CARRAY
        if isinstance(self.base, np.ndarray) and not (<cnp.ndarray>self.base).flags.writeable:
            flags = cnp.NPY_ARRAY_CARRAY_RO
        Py_INCREF(descr)   # PyArray_NewFromDescr steals it
        arr = PyArray_NewFromDescr(np.ndarray, descr, nd, dims, NULL,
                                   self.data + offset, flags, <object>NULL)
        cnp.set_array_base(arr, self.base)
        return arr

    cdef list _make_views(self):
        cdef Py_ssize_t i, j, nd = self.ndim
        cdef cnp.npy_intp dims[32]
        cdef list out = []
        cdef const int64_t* sp
        cdef const int64_t* op
        if nd > 32:
            raise ValueError(f"samples of {nd} dimensions are not supported (32 at most)")
        shapes = np.ascontiguousarray(self.shapes)
        offsets = np.ascontiguousarray(self.offsets)
        sp = <const int64_t*>cnp.PyArray_DATA(shapes)
        op = <const int64_t*>cnp.PyArray_DATA(offsets)
        for i in range(self.num_samples):
            for j in range(nd):
                dims[j] = sp[i * nd + j]
            out.append(self._view(op[i], <int>nd, dims))
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
        """View of the whole batch as one ndarray (num_samples, *shape); needs uniform shapes
        and contiguous storage (else None)."""
        cdef cnp.npy_intp dims[33]
        cdef Py_ssize_t j
        if self.base is None:
            return None
        if self._dense is None:
            if self.num_samples == 0:
                return np.empty((0,) + (0,) * self.ndim, dtype=self.dtype)
            shape = self._uniform_shape()
            if shape is False:
                return None
            dims[0] = self.num_samples
            for j in range(self.ndim):
                dims[j + 1] = shape[j]
            self._dense = self._view(self.offsets[0], 1 + self.ndim, dims)
        return self._dense.view()

    def flat(self):
        """1-D view of every element of a contiguous batch, samples back to back (else None)."""
        if self.base is None:
            return None
        count = self.nbytes // self.dtype.itemsize
        offset = int(self.offsets[0]) if self.num_samples else 0
        return np.frombuffer(self.base, dtype=self.dtype, count=count, offset=offset)

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
