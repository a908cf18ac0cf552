"""fn.debayer's bilinear demosaicing over a batch (the rule, OpenCV's: debayer.h).

`bilinear_batch` turns (h, w) Bayer mosaics (uint8 or uint16; samples, or frames of samples,
of a contiguous batch) into the (h, w, 3) RGB images of another batch of that type, given the
byte offsets and sizes of the images and the (y, x) parity of their red sensor positions.
One work item per image, all run without the GIL on the pool, largest first.  uint8 rows take
SSE4.1 and AVX2 paths where the build and CPU have them (same values; `simd(False)` switches
them off for tests).
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()


cdef extern from "debayer.h" nogil:
    void dali_debayer_bilinear[T](const T* src, T* dst, int64_t h, int64_t w, int red_y,
                                  int red_x)
    bint dali_debayer_simd(bint on)


cdef double _NS_PER_PIXEL = 2.0      # the cost estimate (per pixel) the pool gets


cdef struct Job:
    const void* src
    void* dst
    int64_t h, w
    int red_y, red_x
    bint wide                        # uint16


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>ctx) + i
    if j.wide:
        dali_debayer_bilinear[uint16_t](<const uint16_t*>j.src, <uint16_t*>j.dst, j.h, j.w,
                                        j.red_y, j.red_x)
    else:
        dali_debayer_bilinear[uint8_t](<const uint8_t*>j.src, <uint8_t*>j.dst, j.h, j.w,
                                       j.red_y, j.red_x)


def simd(bint on):
    """Whether uint8 rows take the SSE4.1 (and AVX2) paths (on by default); returns whether the
    build has them.  For tests: every path gives the same values."""
    return dali_debayer_simd(on)


def bilinear_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, src_offsets,
                   dst_offsets, sizes, red):
    """Demosaic the images of `src` into the RGB images of `dst` (see the module docstring).

    Image i is sizes[i] = (h, w) elements at byte src_offsets[i] of the contiguous batch `src`
    (uint8 or uint16), its (h, w, 3) output at byte dst_offsets[i] of `dst` (same type);
    red[i] is the (y, x) parity of its red sensor positions.
    """
    if not (src.is_contiguous and dst.is_contiguous):
        raise ValueError("bilinear_batch needs contiguous batches")
    cdef int kind = src.dtype.num           # (type numbers: dtype comparisons cost ~0.5 us)
    if kind != dst.dtype.num or kind not in (cnp.NPY_UINT8, cnp.NPY_UINT16):
        raise TypeError("uint8 or uint16 batches of one type needed")
    cdef const int64_t[::1] so = np.ascontiguousarray(src_offsets, np.int64)
    cdef const int64_t[::1] do = np.ascontiguousarray(dst_offsets, np.int64)
    cdef const int64_t[:, ::1] hw = np.ascontiguousarray(sizes, np.int64).reshape(-1, 2)
    cdef const int32_t[:, ::1] r = np.ascontiguousarray(red, np.int32).reshape(-1, 2)
    cdef Py_ssize_t n = so.shape[0], i
    if do.shape[0] != n or hw.shape[0] != n or r.shape[0] != n:
        raise ValueError("offsets, sizes and red must have one entry per image")
    cdef bint wide = kind == cnp.NPY_UINT16
    cdef int64_t item = 2 if wide else 1, src_bytes = src.nbytes, dst_bytes = dst.nbytes
    cdef int64_t first_src = src.offsets[0] if src.num_samples else 0
    cdef int64_t first_dst = dst.offsets[0] if dst.num_samples else 0
    for i in range(n):
        if hw[i, 0] < 0 or hw[i, 1] < 0 or r[i, 0] not in (0, 1) or r[i, 1] not in (0, 1):
            raise ValueError(f"image {i}: bad size or red position")
        if so[i] < first_src or so[i] + hw[i, 0] * hw[i, 1] * item > first_src + src_bytes or \
                do[i] < first_dst or do[i] + 3 * hw[i, 0] * hw[i, 1] * item > \
                first_dst + dst_bytes:
            raise ValueError(f"image {i} lies outside its batch")
    keep = []
    cdef Job* jobs = <Job*>job_array(n, sizeof(Job), keep)
    work = np.empty(n, np.int64)
    cdef int64_t[::1] wk = work
    for i in range(n):
        jobs[i] = Job(src.data + so[i], dst.data + do[i], hw[i, 0], hw[i, 1], r[i, 0], r[i, 1],
                      wide)
        wk[i] = hw[i, 0] * hw[i, 1]
    run_largest_first(pool, _run_job, jobs, work, _NS_PER_PIXEL)
