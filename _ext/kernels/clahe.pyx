"""fn.clahe over a batch: contrast limited adaptive histogram equalisation of uint8 channels
(the algorithm, OpenCV's: clahe.h).

`clahe_batch` equalises every channel (each on its own), or only the first, of every (h, w, c)
image of a list, into the images of another list (which may be the same arrays).  One work item
per image channel, all run without the GIL on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t

from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()


cdef extern from "clahe.h" nogil:
    int dali_clahe_channel(const uint8_t* src, int64_t src_row, int64_t src_px, uint8_t* dst,
                           int64_t dst_row, int64_t dst_px, int64_t h, int64_t w, int tiles_x,
                           int tiles_y, float clip_limit)


cdef double _NS_PER_PIXEL = 6.0      # the cost estimate (per pixel) the pool gets


cdef struct Job:
    const uint8_t* src
    uint8_t* dst
    int64_t src_row, src_px, dst_row, dst_px, h, w
    int rc


cdef struct Params:
    Job* jobs
    int tiles_x, tiles_y
    float clip_limit


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Params* p = <Params*>ctx
    cdef Job* j = p.jobs + i
    j.rc = dali_clahe_channel(j.src, j.src_row, j.src_px, j.dst, j.dst_row, j.dst_px, j.h, j.w,
                              p.tiles_x, p.tiles_y, p.clip_limit)


def clahe_batch(ThreadPool pool, list images, list outs, bint all_channels, int tiles_x,
                int tiles_y, float clip_limit):
    """outs[i][..., c] = CLAHE of images[i][..., c] for every channel c (only c = 0 unless
    `all_channels`) of every image i.

    images and outs are (h, w, c) uint8 arrays of the same shapes whose pixels are each `c`
    bytes apart (rows may be further apart); an output may be its image.  `clip_limit` <= 0
    turns clipping off.
    """
    cdef Py_ssize_t n = len(images), i, k = 0, count = 0
    cdef int c
    if len(outs) != n:
        raise ValueError("images and outs must have the same length")
    if tiles_x < 1 or tiles_y < 1:
        raise ValueError("tiles_x and tiles_y must be positive")
    for i in range(n):
        count += images[i].shape[2] if all_channels else 1
    keep = []
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    sizes = np.empty(count, np.int64)
    cdef int64_t[::1] sz = sizes
    cdef const uint8_t[:, :, :] src
    cdef uint8_t[:, :, :] dst
    for i in range(n):
        src = images[i]
        dst = outs[i]
        if src.shape[0] != dst.shape[0] or src.shape[1] != dst.shape[1] or \
                src.shape[2] != dst.shape[2] or src.shape[2] == 0:
            raise ValueError(f"image {i}: images and outputs of the same shape needed")
        if src.strides[2] != 1 or dst.strides[2] != 1 or src.strides[1] != src.shape[2] or \
                dst.strides[1] != dst.shape[2]:
            raise ValueError(f"image {i}: the pixels must be contiguous")
        if src.shape[0] == 0 or src.shape[1] == 0:
            continue
        for c in range(src.shape[2] if all_channels else 1):
            jobs[k] = Job(&src[0, 0, c], &dst[0, 0, c], src.strides[0], src.shape[2],
                          dst.strides[0], dst.shape[2], src.shape[0], src.shape[1], 0)
            sz[k] = src.shape[0] * src.shape[1]
            k += 1
    cdef Params params = Params(jobs, tiles_x, tiles_y, clip_limit)
    run_largest_first(pool, _run_job, &params, sizes[:k], _NS_PER_PIXEL)
    for i in range(k):
        if jobs[i].rc != 0:
            raise MemoryError("clahe: out of memory")
