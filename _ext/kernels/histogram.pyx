"""Histogram kernels over a batch: `equalize_batch`, the per-channel histogram equalisation of
fn.equalize (the loops, OpenCV's equalizeHist rule: histogram.h).

Every sample is `planes[i]` planes of `pixels[i]` pixels with `channels[i]` interleaved uint8
channels (HWC: one plane of H*W pixels and C channels; CHW: C planes of one channel; F...:
one plane per frame or per frame and channel).  One work item per sample (a histogram needs
the whole plane), or per run of consecutive samples of fewer than `_GROUP_ELEMENTS` elements
in all (one scratch histogram for the run), all without the GIL on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t

from dali._ext.kernels.batch_shapes cimport volume
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()


cdef extern from "histogram.h" nogil:
    void dali_equalize_planes(const uint8_t* src, uint8_t* dst, int64_t planes, int64_t pixels,
                              int64_t channels, int64_t* hist, uint8_t* lut)


cdef double _NS_PER_ELEMENT = 1.5    # the cost estimate (per element) the pool gets
cdef int64_t _GROUP_ELEMENTS = 1 << 15   # consecutive samples below this share a work item


cdef struct Job:
    const uint8_t* src
    uint8_t* dst
    int64_t planes, pixels, channels


cdef struct Group:
    Job* jobs                        # `count` consecutive samples
    int64_t count
    int64_t* hist                    # 256 * (their most channels) zeroed counts of scratch space
    uint8_t* lut                     # as many entries of scratch space


cdef void _run_group(void* ctx, int64_t g) noexcept nogil:
    cdef Group* grp = (<Group*>ctx) + g
    cdef Job* j
    cdef int64_t k
    for k in range(grp.count):
        j = grp.jobs + k
        dali_equalize_planes(j.src, j.dst, j.planes, j.pixels, j.channels, grp.hist, grp.lut)


def equalize_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, planes, pixels,
                   channels):
    """Equalise every sample of the uint8 batch `src` into `dst` (contiguous, same shapes):
    sample i is planes[i] x pixels[i] x channels[i] elements (see the module docstring)."""
    cdef Py_ssize_t n = src.num_samples, i, d, ng = 0
    if src.dtype != np.uint8 or dst.dtype != np.uint8:
        raise TypeError("equalize_batch takes uint8 batches")
    if dst.base is None or dst.num_samples != n or dst.ndim != src.ndim:
        raise ValueError("dst must be contiguous storage with the shapes of src")
    cdef const int64_t[:, ::1] ss = src.shapes
    cdef const int64_t[:, ::1] ds = dst.shapes
    for i in range(n):
        for d in range(ss.shape[1]):
            if ss[i, d] != ds[i, d]:
                raise ValueError("dst must be contiguous storage with the shapes of src")
    cdef const int64_t[::1] p = np.ascontiguousarray(planes, np.int64)
    cdef const int64_t[::1] q = np.ascontiguousarray(pixels, np.int64)
    cdef const int64_t[::1] c = np.ascontiguousarray(channels, np.int64)
    if p.shape[0] != n or q.shape[0] != n or c.shape[0] != n:
        raise ValueError(f"planes, pixels and channels need {n} entries each")
    for i in range(n):
        if p[i] * q[i] * c[i] != volume(ss, i):
            raise ValueError("planes * pixels * channels must be each sample's size")
    if n == 0:
        return
    keep = []
    samples = None if src.base is not None else [np.ascontiguousarray(x) for x in src.samples()]
    cdef const int64_t[::1] soff = None if samples is not None else \
        np.ascontiguousarray(src.offsets)
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets)
    cdef Job* jobs = <Job*>job_array(n, sizeof(Job), keep)
    cdef Group* groups = <Group*>job_array(n, sizeof(Group), keep)
    cdef int64_t[::1] sizes = np.zeros(n, np.int64)
    cdef int64_t[::1] scratch_at = np.zeros(n + 1, np.int64)
    for i in range(n):
        if samples is None:
            jobs[i].src = <const uint8_t*>(src.data + soff[i])
        else:
            jobs[i].src = <const uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>samples[i])
        jobs[i].dst = <uint8_t*>(dst.data + doff[i])
        jobs[i].planes = p[i]
        jobs[i].pixels = q[i]
        jobs[i].channels = c[i]
        if ng == 0 or sizes[ng - 1] + p[i] * q[i] * c[i] > _GROUP_ELEMENTS:
            groups[ng].jobs = jobs + i
            ng += 1
        groups[ng - 1].count += 1
        sizes[ng - 1] += p[i] * q[i] * c[i]
        scratch_at[ng] = max(scratch_at[ng], 256 * c[i])
    for i in range(ng):
        scratch_at[i + 1] += scratch_at[i]
    cdef int64_t* hist = <int64_t*>job_array(scratch_at[ng], sizeof(int64_t), keep)
    cdef uint8_t* lut = <uint8_t*>job_array(scratch_at[ng], 1, keep)
    for i in range(ng):
        groups[i].hist = hist + scratch_at[i]
        groups[i].lut = lut + scratch_at[i]
    run_largest_first(pool, _run_group, groups, np.asarray(sizes[:ng]), _NS_PER_ELEMENT)
