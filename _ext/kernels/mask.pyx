"""Random foreground pixels of a batch of masks (fn.segmentation.random_mask_pixel; the loops:
mask.h).

`pick_batch` finds, in every sample, the element (flat index) at fraction `u[i]` of its
foreground elements: a count, then a scan to the floor(u * count)-th one.  A sample without
foreground elements (or with `foreground[i]` false) gets the element at fraction u of all its
elements.  One work item per sample, all run without the GIL on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()


cdef extern from "mask.h" nogil:
    ctypedef int64_t (*dali_mask_scan_fn)(const void* data, int64_t n, bint by_value,
                                          double value, double threshold, int64_t k,
                                          int64_t* found) noexcept nogil
    dali_mask_scan_fn dali_mask_scan_for(int code)


CODES = {np.dtype(t): c for c, t in enumerate(
    (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
     np.float32, np.float64))}

cdef double _NS_PER_ELEMENT = 1.0    # the cost estimate (per element) the pool gets


cdef struct Job:
    const char* data
    int64_t n
    bint fg, by_value
    double value, threshold, u
    dali_mask_scan_fn scan
    int64_t index                    # the result: a flat index into the sample


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    cdef int64_t count = 0, k
    j.index = -1
    if j.fg:
        count = j.scan(j.data, j.n, j.by_value, j.value, j.threshold, -1, &j.index)
    if count > 0:
        k = min(<int64_t>(j.u * count), count - 1)
        j.scan(j.data, j.n, j.by_value, j.value, j.threshold, k, &j.index)
    else:
        j.index = min(<int64_t>(j.u * j.n), j.n - 1)


def pick_batch(ThreadPool pool, BatchStorage masks, foreground, by_value, value, threshold, u):
    """Flat indices (int64, one per sample) of the picked elements (see the module docstring);
    -1 for an empty sample.  `foreground` and `by_value` are per-sample flags, `value`,
    `threshold` and `u` (in [0, 1)) per-sample doubles."""
    cdef Py_ssize_t n = masks.num_samples, i
    code = CODES.get(masks.dtype)
    if code is None:
        raise TypeError(f"masks of type {masks.dtype} are not supported")
    if not masks.is_contiguous:
        raise ValueError("pick_batch needs contiguous storage")
    cdef const uint8_t[::1] fg = np.ascontiguousarray(foreground, np.uint8)
    cdef const uint8_t[::1] bv = np.ascontiguousarray(by_value, np.uint8)
    cdef const double[::1] val = np.ascontiguousarray(value, np.float64)
    cdef const double[::1] thr = np.ascontiguousarray(threshold, np.float64)
    cdef const double[::1] draws = np.ascontiguousarray(u, np.float64)
    if fg.shape[0] != n or bv.shape[0] != n or val.shape[0] != n or thr.shape[0] != n or \
            draws.shape[0] != n:
        raise ValueError(f"the per-sample arguments need {n} entries each")
    sizes = np.prod(masks.shapes, axis=1, dtype=np.int64).reshape(n)
    cdef const int64_t[::1] sz = sizes
    cdef const int64_t[::1] off = masks.offsets
    cdef dali_mask_scan_fn scan = dali_mask_scan_for(code)
    keep = []
    cdef Job* jobs = <Job*>job_array(n, sizeof(Job), keep)
    for i in range(n):
        jobs[i] = Job(masks.data + off[i], sz[i], fg[i], bv[i], val[i], thr[i], draws[i], scan,
                      -1)
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_ELEMENT)
    out = np.empty(n, np.int64)
    cdef int64_t[::1] o = out
    for i in range(n):
        o[i] = jobs[i].index
    return out
