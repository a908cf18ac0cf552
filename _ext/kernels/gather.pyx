# cython: boundscheck=False, wraparound=False, cdivision=True
"""Gathers frames (slices along the outermost axis, or whole samples) of a batch into the
samples of another: the kernel of fn.sequence_rearrange, fn.element_extract and
fn.permute_batch.

Destination sample i is `count_i` frames, frame j a copy of frame `frames[start[i] + j]` of
source sample `sources[i]`, where a frame of source sample s is `frame_bytes[s]` bytes.  Each
destination sample is one work item (a run of memcpy calls, or of streaming copies when the
output is larger than the caches: gather.h); all items run in one nogil call on the pool,
largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t
from libc.string cimport memcpy

from dali._ext.kernels.batch_shapes cimport sample_bytes
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cdef extern from "gather.h" nogil:
    void dali_gather_stream(char* dst, const char* src, int64_t n)
    void dali_gather_fence()

cnp.import_array()

cdef double _NS_PER_BYTE = 0.1          # the cost estimate the pool gets
# Outputs larger than this are written with streaming stores (gather.h): with their source they
# no longer fit the last-level cache of a typical server CPU (32 MiB).
cdef int64_t _STREAM_BYTES = 16 << 20


cdef struct Job:
    const char* src         # the source sample
    char* dst
    const int64_t* frames
    int64_t count
    int64_t frame_bytes
    bint stream             # with streaming stores (gather.h)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    cdef int64_t k
    if j.stream:
        for k in range(j.count):
            dali_gather_stream(j.dst + k * j.frame_bytes, j.src + j.frames[k] * j.frame_bytes,
                               j.frame_bytes)
        dali_gather_fence()
        return
    for k in range(j.count):
        memcpy(j.dst + k * j.frame_bytes, j.src + j.frames[k] * j.frame_bytes, j.frame_bytes)


cdef int64_t[::1] _bytes(BatchStorage b):
    """The size in bytes of every sample."""
    cdef int64_t[::1] out = np.empty(b.num_samples, np.int64)
    sample_bytes(np.ascontiguousarray(b.shapes, np.int64), b.dtype.itemsize, out)
    return out


def gather_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, sources, frame_bytes,
                 frames, start):
    """Fill every destination sample with frames of a source sample.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src, dst : BatchStorage
        Contiguous, with the same element size.
    sources : int64 array (dst.num_samples,)
        The source sample of each destination sample.
    frame_bytes : int64 array (src.num_samples,)
        The frame size of each source sample; it divides the sample's size.  Frames of 0 bytes
        (of an empty sample) are not checked against the number of frames.
    frames : int64 array
        The frame indices of all destination samples, one after the other.
    start : int64 array (dst.num_samples + 1,)
        Where each destination sample's frame indices begin in `frames` (and where the last
        ends); destination sample i holds (start[i + 1] - start[i]) frames.
    """
    cdef Py_ssize_t n = dst.num_samples, m = src.num_samples, i
    if not (src.is_contiguous and dst.is_contiguous):
        raise ValueError("gather_batch needs contiguous storage")
    if src.dtype.itemsize != dst.dtype.itemsize:
        raise ValueError("source and destination must have the same element size")
    cdef const int64_t[::1] srcs = np.ascontiguousarray(sources, np.int64)
    cdef const int64_t[::1] fbytes = np.ascontiguousarray(frame_bytes, np.int64)
    cdef const int64_t[::1] fr = np.ascontiguousarray(frames, np.int64)
    cdef const int64_t[::1] st = np.ascontiguousarray(start, np.int64)
    if srcs.shape[0] != n or fbytes.shape[0] != m or st.shape[0] != n + 1:
        raise ValueError(f"sources must have {n} entries, frame_bytes {m} and start {n + 1}")
    if n and (st[0] != 0 or st[n] != fr.shape[0]):
        raise ValueError("start must rise from 0 to the number of frames")
    for i in range(n):
        if st[i + 1] < st[i]:
            raise ValueError("start must rise from 0 to the number of frames")
    cdef int64_t[::1] sbytes = _bytes(src)
    cdef int64_t[::1] dbytes = _bytes(dst)
    cdef int64_t s, f, k, length, total = 0
    for i in range(m):
        if (sbytes[i] % fbytes[i] if fbytes[i] else sbytes[i]) != 0:
            raise ValueError(f"source sample {i}: frames of {fbytes[i]} bytes do not divide "
                             f"its {sbytes[i]} bytes")
    for i in range(n):
        s = srcs[i]
        if not 0 <= s < m:
            raise ValueError(f"sample {i}: source sample {s} out of range [0, {m})")
        length = sbytes[s] // fbytes[s] if fbytes[s] else 0
        for k in range(st[i], st[i + 1]):
            f = fr[k]
            if fbytes[s] and not 0 <= f < length:
                raise ValueError(f"sample {i}: frame {f} out of range [0, {length})")
        if dbytes[i] != (st[i + 1] - st[i]) * fbytes[s]:
            raise ValueError(f"sample {i}: {dbytes[i]} bytes, not {st[i + 1] - st[i]} frames "
                             f"of {fbytes[s]}")
        total += dbytes[i]
    if n == 0:
        return
    keep = []
    cdef const int64_t[::1] soff = np.ascontiguousarray(src.offsets, np.int64)
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets, np.int64)
    cdef Job* jobs = <Job*>job_array(n, sizeof(Job), keep)
    sizes = np.asarray(dbytes)
    cdef bint stream = total > _STREAM_BYTES
    with nogil:
        for i in range(n):
            s = srcs[i]
            jobs[i].src = src.data + soff[s]
            jobs[i].dst = dst.data + doff[i]
            jobs[i].frames = &fr[st[i]] if st[i] < fr.shape[0] else NULL
            jobs[i].count = st[i + 1] - st[i]
            jobs[i].frame_bytes = fbytes[s]
            jobs[i].stream = stream
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_BYTE)
