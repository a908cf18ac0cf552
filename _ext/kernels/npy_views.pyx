"""The arrays stored in the bytes of .npy files (decoders.numpy), as views of those bytes, in
one loop over the batch.

`npy_views(samples, parse, fallback)` checks each sample's prefix (magic, version 1, header
length inside the sample), parses its header text with `parse(text) -> (dtype, shape,
fortran)` (called once per run of equal headers: data sets of one shape share theirs), checks
that the data after the header has exactly the size the header gives and makes the view (the
stored shape: reversed for Fortran order).  A sample the loop does not take (a failed check,
a non-contiguous sample, more than 32 dimensions, an error of `parse`) goes to
`fallback(i, sample) -> (view, fortran)`, which raises the sample's error or returns what the
loop would have: errors stay where the Python decoder words them.
"""
cimport numpy as cnp
import numpy as np

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int64_t, uint8_t
from libc.string cimport memcmp

cnp.import_array()

cdef extern from "numpy/arrayobject.h":
    # Steals the reference to `descr`; `obj` may be NULL.
    object PyArray_NewFromDescr(type subtype, cnp.dtype descr, int nd, cnp.npy_intp* dims,
                                cnp.npy_intp* strides, void* data, int flags, object obj)

cdef enum:
    MAX_DIMS = 32
    PREFIX = 10         # magic (6), version (2), header length (2): format version 1

cdef const char* MAGIC = b"\x93NUMPY"


cdef class _Header:
    """One parsed header: its text, type, stored dims and the data's size in bytes."""
    cdef bytes text
    cdef cnp.dtype dtype
    cdef int nd
    cdef cnp.npy_intp dims[MAX_DIMS]
    cdef int64_t nbytes         # -1: too large for any sample
    cdef bint fortran


cdef _Header _parsed(bytes text, parse):
    """The `_Header` of `text`, or None where the loop cannot take it (too many dims)."""
    dtype, shape, fortran = parse(text)
    if len(shape) > MAX_DIMS:
        return None
    cdef _Header h = _Header.__new__(_Header)
    cdef int j
    h.text, h.dtype, h.fortran, h.nd = text, dtype, fortran, len(shape)
    stored = shape[::-1] if fortran else shape
    for j in range(h.nd):
        h.dims[j] = stored[j]
    need = dtype.itemsize
    for x in shape:
        need *= x
    h.nbytes = need if need < (<int64_t>1 << 62) else -1
    return h


def npy_views(list samples, parse, fallback):
    """([view per sample], [fortran per sample], same type, same ndim, fortran multi-dim):
    see the module docstring; the flags say whether every view has the first one's dtype and
    ndim, and whether any is a Fortran-order array of more than one dimension."""
    cdef Py_ssize_t i, n = len(samples)
    cdef list views = [None] * n, fortrans = [False] * n
    cdef cnp.ndarray a
    cdef const uint8_t* p
    cdef Py_ssize_t size, hlen
    cdef _Header h = None
    cdef int flags
    cdef bint same_type = True, same_ndim = True, fortran_nd = False
    first_dtype, first_nd = None, -1
    for i in range(n):
        s = samples[i]
        view = None
        if type(s) is np.ndarray and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>s):
            a = <cnp.ndarray>s
            p = <const uint8_t*>cnp.PyArray_DATA(a)
            size = cnp.PyArray_NBYTES(a)
            if size >= PREFIX and memcmp(p, MAGIC, 6) == 0 and p[6] == 1:
                hlen = p[8] | (p[9] << 8)
                if PREFIX + hlen <= size:
                    if h is None or len(h.text) != hlen or memcmp(<const char*>h.text,
                                                                  p + PREFIX, hlen) != 0:
                        try:
                            h = _parsed(PyBytes_FromStringAndSize(<const char*>p + PREFIX,
                                                                  hlen), parse)
                        except ValueError:
                            h = None
                    if h is not None and h.nbytes == size - PREFIX - hlen:
                        flags = cnp.NPY_ARRAY_CARRAY if cnp.PyArray_ISWRITEABLE(a) \
                            else cnp.NPY_ARRAY_CARRAY_RO
                        Py_INCREF(h.dtype)      # PyArray_NewFromDescr steals it
                        view = PyArray_NewFromDescr(np.ndarray, h.dtype, h.nd, h.dims, NULL,
                                                    <void*>(p + PREFIX + hlen), flags,
                                                    <object>NULL)
                        cnp.set_array_base(view, a)
                        fortrans[i] = h.fortran
        if view is None:
            view, fortrans[i] = fallback(i, s)
        views[i] = view
        dtype, nd = (<cnp.ndarray>view).dtype, (<cnp.ndarray>view).ndim
        if i == 0:
            first_dtype, first_nd = dtype, nd
        else:
            same_type = same_type and dtype == first_dtype
            same_ndim = same_ndim and nd == first_nd
        fortran_nd = fortran_nd or (fortrans[i] and nd > 1)
    return views, fortrans, same_type, same_ndim, fortran_nd
