# cython: boundscheck=False, wraparound=False, cdivision=True
"""The kernel of fn.segmentation.select_masks: two nogil passes over the whole batch.

`select` (the operator's `infer`) finds, per sample, the last polygon of every selected mask id
and the ids repeated in `mask_ids`, and makes the output polygons (the id or its position, and
the vertex range renumbered back to back) and the output shapes; it reports the first kind of
error of the batch with the flat index of its first id, for the operator to raise.  A sample
whose polygons' mask ids span a short range (COCO's 0..n-1) looks them up in tables indexed by
id; any other sorts keys id * 2^32 + index (polygon row, or position in `mask_ids`) and
searches them, so the counts of ids and polygons of a sample are checked below 2^31 first.
`write` (the operator's `run_cpu`) copies the polygons and the selected vertex rows into the
output batch.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int32_t, int64_t
from libc.string cimport memcpy

from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport job_array

cnp.import_array()


cdef extern from "<algorithm>" namespace "std" nogil:
    void sort(int64_t* first, int64_t* last)
    int64_t* upper_bound(int64_t* first, int64_t* last, const int64_t& value)


cdef int64_t _LOW = 0xFFFFFFFF          # the index part of a key
cdef int64_t _SHIFT = 0x100000000       # 2^32: a key is id * _SHIFT + index

cdef enum:                              # the kinds of error of the ids, in `select`'s order
    _DUPLICATE, _MISSING, _OUT_OF_BOUNDS, _REVERSED

COLUMNS, DUPLICATE, MISSING, OUT_OF_BOUNDS, REVERSED = range(5)


cdef int64_t _first_repeat(const int32_t* ids, int64_t k, int64_t* keys) noexcept nogil:
    """The first position whose id appeared earlier in `ids`, else -1."""
    cdef int64_t j, first = -1
    for j in range(k):
        keys[j] = ids[j] * _SHIFT + j
    sort(keys, keys + k)
    for j in range(1, k):
        if keys[j] - (keys[j] & _LOW) == keys[j - 1] - (keys[j - 1] & _LOW):
            if first < 0 or (keys[j] & _LOW) < first:
                first = keys[j] & _LOW
    return first


cdef struct Sample:
    const int32_t* ids
    const int32_t* poly
    int64_t k, p, vertices      # ids, polygons and input vertices
    int32_t* rows               # the sample's output polygons (k, 3)
    int64_t* starts             # their first input vertices (k,)
    int64_t* errors             # the batch's first id with each kind of error so far, or -1
    int64_t base                # the flat index of the sample's first id
    bint reindex


cdef inline int64_t _table_size(int64_t p) noexcept nogil:
    """The largest range of mask ids (max - min + 1) of p polygons looked up in tables."""
    return 2 * p + 64


cdef int64_t _select_sample(Sample* smp, int64_t* scratch) noexcept nogil:
    """Fill the sample's output polygons and starts and note its errors; returns the number of
    its output vertices.  The polygons' mask ids in a range of at most `_table_size`: a table
    of the last polygon of every id in it (and one of the ids met, for the repeats); else the
    sorted keys.  `scratch` holds max(k, 2 * _table_size(p)) keys."""
    cdef const int32_t* ids = smp.ids
    cdef const int32_t* poly = smp.poly
    cdef int64_t k = smp.k, p = smp.p, lo_id = 0, hi_id = -1, outside = 0, repeat = -1
    cdef int64_t j, r, total = 0, lo, hi, at
    cdef int64_t* last = scratch
    cdef int64_t* seen
    cdef bint table = False
    if p:
        lo_id = hi_id = poly[0]
        for r in range(1, p):
            lo_id = min(lo_id, <int64_t>poly[3 * r])
            hi_id = max(hi_id, <int64_t>poly[3 * r])
        table = hi_id - lo_id < _table_size(p)
    if table:
        seen = scratch + (hi_id - lo_id + 1)
        for j in range(k):
            outside += ids[j] < lo_id or ids[j] > hi_id
        if smp.errors[_DUPLICATE] < 0 and outside > 1:
            repeat = _first_repeat(ids, k, scratch)
        elif smp.errors[_DUPLICATE] < 0:
            for r in range(hi_id - lo_id + 1):
                seen[r] = 0
            for j in range(k):
                if lo_id <= ids[j] <= hi_id:
                    if seen[ids[j] - lo_id] and repeat < 0:
                        repeat = j
                    seen[ids[j] - lo_id] = 1
        for r in range(hi_id - lo_id + 1):
            last[r] = -1
        for r in range(p):
            last[poly[3 * r] - lo_id] = r
    else:
        if smp.errors[_DUPLICATE] < 0 and k > 1:
            repeat = _first_repeat(ids, k, scratch)
        for r in range(p):
            scratch[r] = poly[3 * r] * _SHIFT + r
        sort(scratch, scratch + p)
    if repeat >= 0:
        smp.errors[_DUPLICATE] = smp.base + repeat
    for j in range(k):
        if table:
            r = last[ids[j] - lo_id] if lo_id <= ids[j] <= hi_id else -1
        else:
            at = upper_bound(scratch, scratch + p, ids[j] * _SHIFT + _LOW) - scratch - 1
            r = -1
            if at >= 0 and scratch[at] - (scratch[at] & _LOW) == ids[j] * _SHIFT:
                r = scratch[at] & _LOW
        if r < 0:
            if smp.errors[_MISSING] < 0:
                smp.errors[_MISSING] = smp.base + j
            continue
        lo, hi = poly[3 * r + 1], poly[3 * r + 2]
        if smp.errors[_OUT_OF_BOUNDS] < 0 and (lo < 0 or hi > smp.vertices):
            smp.errors[_OUT_OF_BOUNDS] = smp.base + j
        if smp.errors[_REVERSED] < 0 and hi < lo:
            smp.errors[_REVERSED] = smp.base + j
        smp.rows[3 * j] = <int32_t>j if smp.reindex else ids[j]
        smp.rows[3 * j + 1] = <int32_t>total
        smp.rows[3 * j + 2] = <int32_t>(total + hi - lo)
        smp.starts[j] = lo
        total += hi - lo
    return total


cdef _int32_storage(BatchStorage s, int ndim, str name):
    """The shapes of `s`, which must hold `ndim`-D int32 samples."""
    if s.dtype.num != cnp.NPY_INT32 or s.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D int32")
    return s.shapes


def select(BatchStorage mask_ids, BatchStorage polygons, BatchStorage vertices, bint reindex):
    """The output polygons and shapes of a batch, and what the copy of its vertices needs.

    Parameters
    ----------
    mask_ids : BatchStorage
        1-D int32 samples: the ids to select.
    polygons : BatchStorage
        (P, 3) int32 samples: mask id, start vertex, end vertex.
    vertices : BatchStorage
        (V, D) samples (only their shapes are read).
    reindex : bool
        Output ids are the positions in `mask_ids` instead of the ids.

    Returns
    -------
    error : int
        -1, or the first kind of error of the batch: COLUMNS (polygons without 3 columns),
        DUPLICATE (an id repeated in `mask_ids`), MISSING (an id without polygon),
        OUT_OF_BOUNDS (a vertex range outside the sample's vertices) or REVERSED (a range
        ending before it starts).
    index : int
        The sample (COLUMNS) or the flat index in `mask_ids` of the batch's first id with that
        error; -1 without error.
    rows : int32 (K, 3)
        The output polygons of all samples (K ids in all), back to back.
    starts : int64 (K,)
        The first input vertex of each output polygon.
    polygon_shapes, vertex_shapes : int64 (num_samples, 2)
        The shapes of the output samples.
    """
    cdef Py_ssize_t n = mask_ids.num_samples, s
    cdef const int64_t[:, :] id_shapes = _int32_storage(mask_ids, 1, "mask_ids")
    cdef const int64_t[:, :] poly_shapes = _int32_storage(polygons, 2, "polygons")
    if polygons.num_samples != n or vertices.num_samples != n or vertices.ndim != 2:
        raise ValueError("the inputs must have the same number of samples, vertices 2-D")
    cdef const int64_t[:, :] in_shapes = vertices.shapes
    cdef int64_t total_ids = 0, scratch = 0
    for s in range(n):
        if poly_shapes[s, 1] != 3:
            return COLUMNS, s, None, None, None, None
        if id_shapes[s, 0] >= _SHIFT // 2 or poly_shapes[s, 0] >= _SHIFT // 4:
            raise ValueError("too many ids or polygons in a sample")
        total_ids += id_shapes[s, 0]
        scratch = max(scratch, id_shapes[s, 0], 2 * _table_size(poly_shapes[s, 0]))
    cdef cnp.npy_intp dims[2]
    dims[0], dims[1] = total_ids, 3
    rows_arr = cnp.PyArray_ZEROS(2, dims, cnp.NPY_INT32, 0)
    starts_arr = cnp.PyArray_ZEROS(1, dims, cnp.NPY_INT64, 0)
    dims[0], dims[1] = n, 2
    out_poly = cnp.PyArray_EMPTY(2, dims, cnp.NPY_INT64, 0)
    out_vert = cnp.PyArray_EMPTY(2, dims, cnp.NPY_INT64, 0)
    cdef int32_t* rows = <int32_t*>cnp.PyArray_DATA(rows_arr)
    cdef int64_t* starts = <int64_t*>cnp.PyArray_DATA(starts_arr)
    cdef int64_t[:, ::1] poly_out = out_poly, vert_out = out_vert
    cdef int64_t errors[4]
    keep = []
    cdef const char** id_at = sample_data(mask_ids, keep)
    cdef const char** poly_at = sample_data(polygons, keep)
    cdef int64_t* keys = <int64_t*>job_array(scratch, sizeof(int64_t), keep)
    cdef Sample smp
    cdef int64_t base = 0, j
    with nogil:
        errors[0] = errors[1] = errors[2] = errors[3] = -1
        for s in range(n):
            smp.ids, smp.poly = <const int32_t*>id_at[s], <const int32_t*>poly_at[s]
            smp.k, smp.p, smp.vertices = id_shapes[s, 0], poly_shapes[s, 0], in_shapes[s, 0]
            smp.rows, smp.starts = rows + 3 * base, starts + base
            smp.errors, smp.base, smp.reindex = errors, base, reindex
            poly_out[s, 0], poly_out[s, 1] = smp.k, 3
            vert_out[s, 0], vert_out[s, 1] = _select_sample(&smp, keys), in_shapes[s, 1]
            base += smp.k
    for j in range(4):
        if errors[j] >= 0:
            return DUPLICATE + j, errors[j], rows_arr, starts_arr, out_poly, out_vert
    return -1, -1, rows_arr, starts_arr, out_poly, out_vert


def write(BatchStorage vertices, rows, starts, BatchStorage out_polygons,
          BatchStorage out_vertices):
    """Copy `select`'s polygons and the vertex rows they select into the outputs.

    Parameters
    ----------
    vertices : BatchStorage
        (V, D) samples of any type: the input vertices.
    rows, starts : arrays
        `select`'s output for this batch (no errors).
    out_polygons : BatchStorage
        Contiguous (K_i, 3) int32 samples, K_i the ids of sample i.
    out_vertices : BatchStorage
        Contiguous samples of `vertices`' type, (`select`'s counts[i], D_i).
    """
    cdef Py_ssize_t n = vertices.num_samples, s
    cdef const int32_t[:, ::1] out_rows = np.ascontiguousarray(rows, np.int32)
    cdef const int64_t[::1] first = np.ascontiguousarray(starts, np.int64)
    if out_polygons.num_samples != n or out_vertices.num_samples != n:
        raise ValueError("the batches must have the same number of samples")
    if not (out_polygons.is_contiguous and out_vertices.is_contiguous):
        raise ValueError("write writes into contiguous storage only")
    if out_polygons.dtype.num != cnp.NPY_INT32 or out_vertices.dtype != vertices.dtype or \
            vertices.ndim != 2 or out_vertices.ndim != 2 or out_polygons.ndim != 2 or \
            out_rows.shape[1] != 3 or first.shape[0] != out_rows.shape[0]:
        raise ValueError("the outputs do not match the input or the selection")
    cdef const int64_t[:, :] in_shapes = vertices.shapes
    cdef const int64_t[:, :] poly_shapes = out_polygons.shapes
    cdef const int64_t[:, :] vert_shapes = out_vertices.shapes
    cdef int64_t base = 0, j, lo, hi, row_bytes, itemsize = vertices.dtype.itemsize
    for s in range(n):
        if poly_shapes[s, 1] != 3 or vert_shapes[s, 1] != in_shapes[s, 1]:
            raise ValueError("the outputs do not match the input")
        base += poly_shapes[s, 0]
        if base > out_rows.shape[0]:
            raise ValueError("the selection does not match the output polygons")
        lo = 0
        for j in range(base - poly_shapes[s, 0], base):
            if first[j] < 0 or out_rows[j, 1] != lo or out_rows[j, 2] < lo or \
                    first[j] + out_rows[j, 2] - lo > in_shapes[s, 0]:
                raise ValueError("the selection does not match the batches")
            lo = out_rows[j, 2]
        if lo != vert_shapes[s, 0]:
            raise ValueError("the selection does not match the output vertices")
    if base != out_rows.shape[0]:
        raise ValueError("the selection does not match the output polygons")
    keep = []
    cdef const char** src = sample_data(vertices, keep)
    cdef const int64_t[:] poly_off = out_polygons.offsets
    cdef const int64_t[:] vert_off = out_vertices.offsets
    base = 0
    with nogil:
        for s in range(n):
            if poly_shapes[s, 0]:
                memcpy(out_polygons.data + poly_off[s], &out_rows[base, 0],
                       poly_shapes[s, 0] * 3 * sizeof(int32_t))
            row_bytes = in_shapes[s, 1] * itemsize
            for j in range(base, base + poly_shapes[s, 0]):
                lo, hi = out_rows[j, 1], out_rows[j, 2]
                memcpy(out_vertices.data + vert_off[s] + lo * row_bytes,
                       src[s] + first[j] * row_bytes, (hi - lo) * row_bytes)
            base += poly_shapes[s, 0]
