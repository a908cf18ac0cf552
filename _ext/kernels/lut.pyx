"""fn.lookup_table over a whole batch: out = table[in] elementwise (the loops: lut.h).

`lut_batch(pool, src, dst, table, default)` maps every element of the integer batch `src`
through `table` (already converted to `dst`'s type) into `dst`.  For 8- and 16-bit inputs
`table` must cover the input type's whole range, from its minimum (`full_table` builds that
from a table of keys 0..n-1); for wider inputs keys outside [0, len(table)) get `default`.
A batch whose samples lie back to back in both storages is one flat range, any other one
range per sample; ranges are cut into pieces of at most `PIECE` elements that run without the
GIL on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()


cdef extern from "lut.h" nogil:
    ctypedef void (*dali_lut_loop)(const void* src, void* dst, int64_t n, const void* table,
                                   int64_t lo, int64_t size, const void* dflt) noexcept nogil
    dali_lut_loop dali_lut_fn(int in_code, int out_size)


cdef double _NS_PER_ELEMENT = 0.5    # the cost estimate (per element) the pool gets

cdef enum:
    PIECE = 1 << 16                  # elements per work item at most

INPUT_CODES = {np.dtype(t): c for c, t in enumerate(
    (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64))}


cdef struct Job:
    const char* src
    char* dst
    int64_t n
    const void* table
    int64_t lo
    int64_t size
    const void* dflt
    dali_lut_loop fn


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    j.fn(j.src, j.dst, j.n, j.table, j.lo, j.size, j.dflt)


def full_table(table, default, in_dtype):
    """The table `lut_batch` needs for inputs of `in_dtype`: for 8- and 16-bit types one entry
    per value of the type (from its minimum; keys outside `table` get `default`), else
    `table` itself (C-contiguous)."""
    in_dtype = np.dtype(in_dtype)
    table = np.ascontiguousarray(table)
    if in_dtype.itemsize > 2:
        return table
    info = np.iinfo(in_dtype)
    out = np.full(int(info.max) - int(info.min) + 1, default, dtype=table.dtype)
    n = min(len(table), int(info.max) + 1)
    out[-int(info.min):-int(info.min) + n] = table[:n]
    return out


def lut_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, cnp.ndarray table,
              cnp.ndarray default):
    """dst[i] = table[src[i]] for every sample i (see the module docstring).

    `dst` is contiguous storage with `src`'s element counts per sample; `table` and the
    one-element `default` have `dst`'s type; `src` is contiguous or per-sample.
    """
    cdef Py_ssize_t n = src.num_samples, i, k = 0, count = 0
    code = INPUT_CODES.get(src.dtype)
    if code is None:
        raise TypeError(f"lookup tables map integer inputs, not {src.dtype}")
    if table.dtype != dst.dtype or default.dtype != dst.dtype or default.size != 1:
        raise ValueError("table and default must have the output's type")
    if not table.flags.c_contiguous or not default.flags.c_contiguous:
        raise ValueError("table and default must be C-contiguous")
    cdef int64_t span = 1 << (8 * src.dtype.itemsize) if src.dtype.itemsize <= 2 else 0
    if span and table.size != span:
        raise ValueError(f"a table for {src.dtype} inputs has {span} entries (full_table)")
    cdef dali_lut_loop fn = dali_lut_fn(code, dst.dtype.itemsize)
    if fn == NULL:
        raise TypeError(f"no lookup loop for {src.dtype} -> {dst.dtype}")
    if dst.base is None or dst.num_samples != n:
        raise ValueError("dst must be contiguous storage with the samples of src")
    cdef int64_t lo = int(np.iinfo(src.dtype).min) if span else 0
    keep = []
    vols = np.prod(src.shapes, axis=1, dtype=np.int64)
    if not np.array_equal(vols, np.prod(dst.shapes, axis=1, dtype=np.int64)):
        raise ValueError("source and destination samples differ in element counts")
    cdef const int64_t[::1] v = vols
    cdef int64_t total = int(vols.sum()), m, s
    if total == 0:
        return
    samples = None
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets)
    cdef const int64_t[::1] soff = None
    cdef Py_ssize_t ssize = src.dtype.itemsize, dsize = dst.dtype.itemsize
    if src.base is None:
        samples = [np.ascontiguousarray(x) for x in src.samples()]
    else:
        soff = np.ascontiguousarray(src.offsets)
    cdef bint flat = soff is not None and _back_to_back(soff, v, ssize) and \
        _back_to_back(doff, v, dsize)
    cdef Py_ssize_t ranges = 1 if flat else n
    for i in range(ranges):
        count += ((total if flat else v[i]) + PIECE - 1) // PIECE
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    sizes = np.empty(count, dtype=np.int64)
    cdef int64_t[::1] sz = sizes
    cdef const char* sp
    cdef const void* tp = cnp.PyArray_DATA(table)
    cdef const void* dp = cnp.PyArray_DATA(default)
    for i in range(ranges):
        if samples is None:
            sp = src.data + soff[i]
        else:
            sp = <const char*>cnp.PyArray_DATA(<cnp.ndarray>samples[i])
        m = total if flat else v[i]
        s = 0
        while s < m:
            jobs[k] = Job(sp + s * ssize, dst.data + doff[i] + s * dsize,
                          min(<int64_t>PIECE, m - s), tp, lo, table.size, dp, fn)
            sz[k] = jobs[k].n
            s += PIECE
            k += 1
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_ELEMENT)


cdef bint _back_to_back(const int64_t[::1] off, const int64_t[::1] vols,
                        Py_ssize_t itemsize) noexcept:
    cdef Py_ssize_t i
    for i in range(1, off.shape[0]):
        if off[i] != off[i - 1] + vols[i - 1] * itemsize:
            return False
    return True
