"""Histogram kernels over a batch: `equalize_batch`, the per-channel histogram equalisation of
fn.equalize (the loops, OpenCV's equalizeHist rule: histogram.h).

Every sample is `planes[i]` planes of `pixels[i]` pixels with `channels[i]` interleaved uint8
channels (HWC: one plane of H*W pixels and C channels; CHW: C planes of one channel; F...:
one plane per frame or per frame and channel).  One work item per sample (a histogram needs
the whole plane), all run without the GIL on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()


cdef extern from "histogram.h" nogil:
    void dali_equalize_planes(const uint8_t* src, uint8_t* dst, int64_t planes, int64_t pixels,
                              int64_t channels, int64_t* hist, uint8_t* lut)


cdef double _NS_PER_ELEMENT = 1.5    # the cost estimate (per element) the pool gets


cdef struct Job:
    const uint8_t* src
    uint8_t* dst
    int64_t planes, pixels, channels
    int64_t* hist                    # 256 * channels counts of scratch space
    uint8_t* lut                     # 256 * channels entries of scratch space


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    dali_equalize_planes(j.src, j.dst, j.planes, j.pixels, j.channels, j.hist, j.lut)


def equalize_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, planes, pixels,
                   channels):
    """Equalise every sample of the uint8 batch `src` into `dst` (contiguous, same shapes):
    sample i is planes[i] x pixels[i] x channels[i] elements (see the module docstring)."""
    cdef Py_ssize_t n = src.num_samples, i
    if src.dtype != np.uint8 or dst.dtype != np.uint8:
        raise TypeError("equalize_batch takes uint8 batches")
    if dst.base is None or dst.num_samples != n or not np.array_equal(src.shapes, dst.shapes):
        raise ValueError("dst must be contiguous storage with the shapes of src")
    cdef const int64_t[::1] p = np.ascontiguousarray(planes, np.int64)
    cdef const int64_t[::1] q = np.ascontiguousarray(pixels, np.int64)
    cdef const int64_t[::1] c = np.ascontiguousarray(channels, np.int64)
    if p.shape[0] != n or q.shape[0] != n or c.shape[0] != n:
        raise ValueError(f"planes, pixels and channels need {n} entries each")
    sizes = np.asarray(p) * np.asarray(q) * np.asarray(c)
    if not np.array_equal(sizes, np.prod(src.shapes, axis=1, dtype=np.int64)):
        raise ValueError("planes * pixels * channels must be each sample's size")
    if n == 0:
        return
    keep = []
    samples = None if src.base is not None else [np.ascontiguousarray(x) for x in src.samples()]
    cdef const int64_t[::1] soff = None if samples is not None else \
        np.ascontiguousarray(src.offsets)
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets)
    cdef Job* jobs = <Job*>job_array(n, sizeof(Job), keep)
    cdef int64_t[::1] scratch_at = np.concatenate([[0], np.cumsum(c)]) * 256
    cdef int64_t* hist = <int64_t*>job_array(scratch_at[n], sizeof(int64_t), keep)
    cdef uint8_t* lut = <uint8_t*>job_array(scratch_at[n], 1, keep)
    for i in range(n):
        if samples is None:
            jobs[i].src = <const uint8_t*>(src.data + soff[i])
        else:
            jobs[i].src = <const uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>samples[i])
        jobs[i].dst = <uint8_t*>(dst.data + doff[i])
        jobs[i].planes = p[i]
        jobs[i].pixels = q[i]
        jobs[i].channels = c[i]
        jobs[i].hist = hist + scratch_at[i]
        jobs[i].lut = lut + scratch_at[i]
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_ELEMENT)
