"""The batches of `_conditional.split` and `_conditional.merge`, built without per-sample
Python.

A side that takes every sample is the input's storage itself and an empty side one shared empty
storage.  Otherwise the samples are gathered (split) or scattered (merge): copied into one
contiguous block when the sources are contiguous and the samples selected hold at most
COPY_BYTES (small batches: the operators after them then take their dense, whole-batch
paths), else handed on as views of the sources' samples (large images are not copied).
Sample ids travel as int64 arrays, source info as lists (or None when no sample has any).
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t
from libc.string cimport memcpy

from dali._ext.tensor_storage cimport BatchStorage, allocate_batch

cnp.import_array()

cdef Py_ssize_t COPY_BYTES = 1 << 18
cdef dict _empty = {}


cdef BatchStorage _empty_of(dtype, int ndim):
    """The storage of zero samples of `dtype` and `ndim` dimensions (immutable: shared)."""
    key = (dtype, ndim)
    st = _empty.get(key)
    if st is None:
        st = _empty[key] = allocate_batch(dtype, [], None, ndim, 0)
    return <BatchStorage>st


cdef inline Py_ssize_t _sample_bytes(BatchStorage st, const int64_t* offsets,
                                     Py_ssize_t i) noexcept:
    if i + 1 < st.num_samples:
        return offsets[i + 1] - offsets[i]
    return st._nbytes - (offsets[i] - offsets[0])


cdef BatchStorage _copied(BatchStorage dst, list sources, list positions):
    """Fill contiguous `dst`: sample positions[k][j] of dst is sample j of sources[k]
    (contiguous storages)."""
    cdef BatchStorage src
    cdef cnp.ndarray pos, src_off_arr, dst_off_arr = np.ascontiguousarray(dst.offsets)
    cdef const int64_t* dst_off = <const int64_t*>cnp.PyArray_DATA(dst_off_arr)
    cdef const int64_t* src_off
    cdef const int64_t* p
    cdef Py_ssize_t k, j
    for k in range(len(sources)):
        src = <BatchStorage>sources[k]
        pos = <cnp.ndarray>positions[k]
        src_off_arr = np.ascontiguousarray(src.offsets)
        src_off = <const int64_t*>cnp.PyArray_DATA(src_off_arr)
        p = <const int64_t*>cnp.PyArray_DATA(pos)
        for j in range(cnp.PyArray_SIZE(pos)):
            memcpy(dst.data + dst_off[p[j]], src.data + src_off[j],
                   _sample_bytes(dst, dst_off, p[j]))
    return dst


cdef int64_t _volume(tuple shape):
    cdef int64_t v = 1
    for x in shape:
        v *= <int64_t>x
    return v


cdef BatchStorage _copy_samples(BatchStorage src, BatchStorage out, const int64_t* ix):
    """Fill contiguous `out`: its sample j is sample ix[j] of contiguous `src`."""
    cdef cnp.ndarray src_off_arr = np.ascontiguousarray(src.offsets)
    cdef cnp.ndarray out_off_arr = np.ascontiguousarray(out.offsets)
    cdef const int64_t* src_off = <const int64_t*>cnp.PyArray_DATA(src_off_arr)
    cdef const int64_t* out_off = <const int64_t*>cnp.PyArray_DATA(out_off_arr)
    cdef Py_ssize_t j
    for j in range(out.num_samples):
        memcpy(out.data + out_off[j], src.data + src_off[ix[j]], _sample_bytes(out, out_off, j))
    return out


cdef BatchStorage _gather(BatchStorage src, cnp.ndarray idx):
    """The samples `idx` (int64, increasing) of `src`, in that order."""
    cdef Py_ssize_t m = cnp.PyArray_SIZE(idx), j, d, nd = src.ndim
    cdef const int64_t* ix = <const int64_t*>cnp.PyArray_DATA(idx)
    cdef list samples, picked
    cdef cnp.ndarray src_shapes, shapes
    cdef const int64_t* sp
    cdef int64_t* dp
    cdef int64_t vol, total = 0
    if m == 0:
        return _empty_of(src.dtype, src.ndim)
    if m == src.num_samples:
        return src
    uniform = src._uniform_shape()
    if uniform is not False and src.base is not None and \
            m * _volume(uniform) * src.dtype.itemsize <= COPY_BYTES:
        return _copy_samples(src, allocate_batch(src.dtype, [uniform] * m, None, nd, 0), ix)
    src_shapes = np.ascontiguousarray(src.shapes)
    shapes = np.empty((m, nd), np.int64)
    sp = <const int64_t*>cnp.PyArray_DATA(src_shapes)
    dp = <int64_t*>cnp.PyArray_DATA(shapes)
    for j in range(m):
        vol = 1
        for d in range(nd):
            dp[j * nd + d] = sp[ix[j] * nd + d]
            vol *= dp[j * nd + d]
        total += vol
    if src.base is not None and total * src.dtype.itemsize <= COPY_BYTES:
        return _copy_samples(src, allocate_batch(src.dtype, shapes, None, nd, 0), ix)
    samples = src.samples()
    picked = [None] * m
    for j in range(m):
        picked[j] = samples[ix[j]]
    return _per_sample(src.dtype, src.ndim, shapes, picked)


cdef BatchStorage _per_sample(dtype, int ndim, shapes, list samples):
    cdef BatchStorage out = BatchStorage.__new__(BatchStorage)
    shapes.setflags(write=False)
    out.dtype = dtype
    out.ndim = ndim
    out.shapes = shapes
    out.num_samples = len(samples)
    out._samples = samples
    return out


cdef object _pick_info(object info, cnp.ndarray idx):
    cdef Py_ssize_t m = cnp.PyArray_SIZE(idx), j
    cdef const int64_t* ix = <const int64_t*>cnp.PyArray_DATA(idx)
    cdef list src, out
    if info is None:
        return None
    src = <list>info if type(info) is list else list(info)
    out = [None] * m
    for j in range(m):
        out[j] = src[ix[j]]
    return out


def split(BatchStorage src, mask, ids, info):
    """((true storage, ids, info), (false storage, ids, info)) of `src` split by the bool
    array `mask` (one value per sample); `ids` the input's sample ids, `info` its source
    info (a list or None)."""
    cdef cnp.ndarray m = np.ascontiguousarray(mask, dtype=np.bool_)
    cdef cnp.ndarray ti, fi
    cdef const cnp.npy_bool* mp
    cdef int64_t* tp
    cdef int64_t* fp
    cdef Py_ssize_t n = src.num_samples, i, nt = 0, nf = 0
    if m.ndim != 1 or cnp.PyArray_SIZE(m) != n:
        raise ValueError(f"the mask has shape {mask.shape}, not ({n},)")
    mp = <const cnp.npy_bool*>cnp.PyArray_DATA(m)
    for i in range(n):
        nt += mp[i] != 0
    ti = np.empty(nt, np.int64)
    fi = np.empty(n - nt, np.int64)
    tp = <int64_t*>cnp.PyArray_DATA(ti)
    fp = <int64_t*>cnp.PyArray_DATA(fi)
    nt = 0
    for i in range(n):
        if mp[i]:
            tp[nt] = i
            nt += 1
        else:
            fp[nf] = i
            nf += 1
    ids = np.asarray(ids, dtype=np.int64)
    return tuple([(src, ids, info) if len(idx) == n else
                  (_gather(src, idx), ids[idx], _pick_info(info, idx)) for idx in (ti, fi)])


def merge(BatchStorage t, BatchStorage f, mask, t_ids, f_ids, t_info, f_info):
    """(storage, ids, info): sample i from `t` where `mask[i]`, else from `f`, each taken in
    order; `mask` must select len(t) and len(f) samples (checked by the caller)."""
    cdef Py_ssize_t n = len(mask), j
    cdef BatchStorage out
    cdef list info, samples, part
    cdef cnp.ndarray pos
    cdef const int64_t* p
    if t.num_samples == 0 and f.num_samples == n:
        return f, np.asarray(f_ids, dtype=np.int64), f_info
    if f.num_samples == 0 and t.num_samples == n:
        return t, np.asarray(t_ids, dtype=np.int64), t_info
    mask = np.asarray(mask, dtype=bool)
    ti = np.flatnonzero(mask).astype(np.int64, copy=False)
    fi = np.flatnonzero(~mask).astype(np.int64, copy=False)
    ids = np.empty(n, np.int64)
    ids[ti] = t_ids
    ids[fi] = f_ids
    info = None
    if t_info is not None or f_info is not None:
        info = [""] * n
        for src_info, pos in ((t_info, ti), (f_info, fi)):
            if src_info is not None:
                p = <const int64_t*>cnp.PyArray_DATA(pos)
                part = <list>src_info if type(src_info) is list else list(src_info)
                for j in range(cnp.PyArray_SIZE(pos)):
                    info[p[j]] = part[j]
    uniform = t._uniform_shape()
    if uniform is not False and uniform == f._uniform_shape():
        shapes = [uniform] * n
    else:
        shapes = np.empty((n, t.ndim), np.int64)
        shapes[ti] = t.shapes
        shapes[fi] = f.shapes
    if t.base is not None and f.base is not None and \
            t.nbytes + f.nbytes <= COPY_BYTES:
        out = allocate_batch(t.dtype, shapes, None, t.ndim, 0)
        return _copied(out, [t, f], [ti, fi]), ids, info
    if type(shapes) is list:
        shapes = np.array(shapes, np.int64).reshape(n, t.ndim)
    samples = [None] * n
    for src, pos in ((t, ti), (f, fi)):
        part = (<BatchStorage>src).samples()
        p = <const int64_t*>cnp.PyArray_DATA(pos)
        for j in range(cnp.PyArray_SIZE(pos)):
            samples[p[j]] = part[j]
    return _per_sample(t.dtype, t.ndim, shapes, samples), ids, info
