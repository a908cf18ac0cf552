"""Connected components of a batch of label maps (fn.segmentation.random_object_bbox; the
algorithm: components.h).

`label_batch(pool, masks, background)` finds the blobs of every sample (elements of one label
other than the sample's background value, connected along the axes) and returns them as one
table: a count per sample, then a row per blob (label, volume, box start..., box end...), the
blobs of each sample in the order of their first element.  One work item per sample, all run
without the GIL on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t
from libc.string cimport memcpy

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()


cdef extern from "components.h" nogil:
    enum: DALI_CC_MAX_DIMS
    cppclass dali_cc_result:
        pass
    int dali_cc_label(int code, const void* data, int ndim, const int64_t* shape,
                      int64_t background, dali_cc_result* out)
    dali_cc_result* dali_cc_new()
    void dali_cc_delete(dali_cc_result* r)
    int64_t dali_cc_size(const dali_cc_result* r)
    const int64_t* dali_cc_data(const dali_cc_result* r)


CODES = {np.dtype(t): c for c, t in enumerate(
    (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32))}

cdef double _NS_PER_ELEMENT = 6.0    # the cost estimate (per element) the pool gets


cdef struct Job:
    const char* data
    const int64_t* shape
    int64_t background
    dali_cc_result* result
    int rc


cdef struct Params:
    Job* jobs
    int code, ndim


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Params* p = <Params*>ctx
    cdef Job* j = p.jobs + i
    j.rc = dali_cc_label(p.code, j.data, p.ndim, j.shape, j.background, j.result)


def label_batch(ThreadPool pool, BatchStorage masks, background):
    """(counts, rows): the number of blobs of every sample (int64, (n,)) and their rows (int64,
    (total, 2 + 2 * ndim): label, volume, box start, box end), sample by sample."""
    cdef Py_ssize_t n = masks.num_samples, i
    cdef int ndim = masks.ndim
    code = CODES.get(masks.dtype)
    if code is None:
        raise TypeError(f"label maps of type {masks.dtype} are not supported")
    if not masks.is_contiguous:
        raise ValueError("label_batch needs contiguous storage")
    if ndim > DALI_CC_MAX_DIMS:
        raise ValueError(f"at most {DALI_CC_MAX_DIMS} dimensions, got {ndim}")
    cdef const int64_t[::1] bg = np.ascontiguousarray(background, np.int64)
    if bg.shape[0] != n:
        raise ValueError(f"background needs {n} entries")
    shapes = np.ascontiguousarray(masks.shapes, np.int64).reshape(n, ndim)
    cdef const int64_t[:, ::1] sh = shapes
    cdef const int64_t[::1] off = masks.offsets
    keep = []
    cdef Job* jobs = <Job*>job_array(n, sizeof(Job), keep)
    cdef Params params = Params(jobs, code, ndim)
    cdef int64_t width = 2 + 2 * ndim, total = 0, k = 0
    counts = np.zeros(n, np.int64)
    cdef int64_t[::1] c = counts
    try:
        for i in range(n):
            jobs[i].result = dali_cc_new()
            if jobs[i].result == NULL:
                raise MemoryError("label_batch: out of memory")
            jobs[i].data = masks.data + off[i]
            jobs[i].shape = &sh[i, 0] if ndim else NULL
            jobs[i].background = bg[i]
        run_largest_first(pool, _run_job, &params, np.prod(shapes, axis=1, dtype=np.int64),
                          _NS_PER_ELEMENT)
        for i in range(n):
            if jobs[i].rc != 0:
                raise MemoryError("label_batch: out of memory")
            c[i] = dali_cc_size(jobs[i].result) // width
            total += c[i]
        rows = np.empty((total, width), np.int64)
        for i in range(n):
            if c[i]:
                memcpy(<char*>cnp.PyArray_DATA(rows) + k * width * sizeof(int64_t),
                       dali_cc_data(jobs[i].result), c[i] * width * sizeof(int64_t))
                k += c[i]
        return counts, rows
    finally:
        for i in range(n):
            if jobs[i].result != NULL:
                dali_cc_delete(jobs[i].result)
