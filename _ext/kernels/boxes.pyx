# cython: boundscheck=False, wraparound=False, cdivision=True
"""Bounding-box kernels: the crop window search of fn.random_bbox_crop.

`crop_search` finds one window per sample (boxes.h states the rules and the order of the
draws) in one nogil call on the pool, one work item per sample, largest (most boxes) first.
Each sample draws from its own Philox stream (key, sample id, stream), so the windows do not
depend on the number of threads.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint32_t, uint64_t

from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()
dali_philox_detect()

cdef double _NS_PER_BOX = 60.0     # the cost estimate the pool gets, per box and attempt


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    dali_box_search((<dali_box_job*>ctx) + i)


def crop_search(ThreadPool pool, lo, hi, counts, sample_ids, uint64_t key, uint32_t stream,
                thresholds, bint no_crop, int num_attempts, int64_t limit, bint keep_best,
                bint iou, bint all_boxes, double prune, double smin, double smax, aspect,
                in_size=None, crop_size=None):
    """Crop windows of a batch of samples.

    Parameters
    ----------
    pool : ThreadPool or None
    lo, hi : (boxes, ndim) float32 arrays
        The start and end corners of every box of the batch, sample after sample.
    counts, sample_ids : (n,) int64 arrays
        Boxes of each sample, and the samples' ids (their Philox counters).
    key, stream : the Philox key and stream.
    thresholds : sequence of float
        The overlap thresholds; with `no_crop`, "no crop" is one more outcome.
    num_attempts, limit : windows tried per outcome, and in all.
    keep_best : bool
        Track the best window, taken when `limit` windows were tried without success.
    iou, all_boxes, prune : the overlap measure, whether every box must reach the threshold,
        and the pruning rule (< 0: centre inside).
    smin, smax, aspect : the size range and the (3, 2) aspect ratio ranges (x/y, x/z, y/z).
    in_size, crop_size : (n, ndim) float64 arrays or None
        Image sizes in pixels (aspect ratios in pixels; needed with `crop_size`), and the fixed
        window sizes.

    Returns
    -------
    (crop_lo, crop_hi, anchor, status, best): (n, ndim) float32 relative corners, (n, ndim)
    float64 anchors in pixels (fixed sizes), (n,) int32 status (0 found, 1 no crop, 2 best
    taken, 3 no window within `limit`) and (n,) float64 best overlaps.
    """
    cdef const float[:, ::1] lo_v = np.ascontiguousarray(lo, np.float32)
    cdef const float[:, ::1] hi_v = np.ascontiguousarray(hi, np.float32)
    cdef int ndim = lo_v.shape[1]
    if hi_v.shape[0] != lo_v.shape[0] or hi_v.shape[1] != ndim or not 2 <= ndim <= 3:
        raise ValueError(f"lo and hi must be (boxes, 2 or 3) arrays, got {np.shape(lo)} and "
                         f"{np.shape(hi)}")
    cdef const int64_t[::1] cnt = np.ascontiguousarray(counts, np.int64)
    cdef const int64_t[::1] sid = np.ascontiguousarray(sample_ids, np.int64)
    cdef Py_ssize_t n = cnt.shape[0], i, d
    if sid.shape[0] != n:
        raise ValueError("counts and sample_ids must have one entry per sample")
    if np.sum(counts) != lo_v.shape[0] or (n and min(counts) < 0):
        raise ValueError(f"the box counts must add up to the {lo_v.shape[0]} boxes")
    thr = np.ascontiguousarray(thresholds, np.float64)
    cdef const double[::1] thr_v = thr
    if thr_v.shape[0] == 0 and not no_crop:
        raise ValueError("no thresholds to choose from")
    if num_attempts <= 0:
        raise ValueError("num_attempts must be positive")
    cdef const double[:, ::1] asp = np.ascontiguousarray(aspect, np.float64).reshape(3, 2)
    sizes = np.ones((n, ndim)) if in_size is None else in_size
    cdef const double[:, ::1] ins = np.ascontiguousarray(sizes, np.float64).reshape(n, ndim)
    cdef bint fixed = crop_size is not None
    cdef const double[:, ::1] crs = np.ascontiguousarray(
        sizes if crop_size is None else crop_size, np.float64).reshape(n, ndim)
    if fixed and in_size is None:
        raise ValueError("a fixed crop size needs the image sizes")
    if (np.asarray(ins) <= 0).any() or (np.asarray(crs) <= 0).any():
        raise ValueError("image and crop sizes must be positive")

    cdef dali_box_params params
    params.lo = &lo_v[0, 0] if lo_v.shape[0] else NULL
    params.hi = &hi_v[0, 0] if hi_v.shape[0] else NULL
    params.ndim = ndim
    params.key = key
    params.stream = stream
    params.thresholds = &thr_v[0] if thr_v.shape[0] else NULL
    params.n_thresholds = <int>thr_v.shape[0]
    params.no_crop = no_crop
    params.num_attempts = num_attempts
    params.limit = limit
    params.keep_best = keep_best
    params.iou = iou
    params.all_boxes = all_boxes
    params.prune = prune
    params.smin = smin
    params.smax = smax
    for d in range(6):
        params.aspect[d] = asp[d // 2, d % 2]
    params.fixed = fixed

    keep = []
    cdef dali_box_job* jobs = <dali_box_job*>job_array(max(n, 1), sizeof(dali_box_job), keep)
    work = np.empty(n, np.int64)
    cdef int64_t[::1] w = work
    cdef int64_t first = 0
    with nogil:
        for i in range(n):
            jobs[i].p = &params
            jobs[i].sample_id = sid[i]
            jobs[i].first = first
            jobs[i].count = cnt[i]
            first += cnt[i]
            for d in range(ndim):
                jobs[i].in_size[d] = ins[i, d]
                jobs[i].crop_size[d] = crs[i, d]
            w[i] = (cnt[i] + 1) * num_attempts
    if n:
        run_largest_first(pool, _run_job, jobs, work, _NS_PER_BOX)

    crop_lo = np.empty((n, ndim), np.float32)
    crop_hi = np.empty((n, ndim), np.float32)
    anchor = np.empty((n, ndim), np.float64)
    status = np.empty(n, np.int32)
    best = np.empty(n, np.float64)
    cdef float[:, ::1] clo = crop_lo
    cdef float[:, ::1] chi = crop_hi
    cdef double[:, ::1] anc = anchor
    cdef int[::1] st = status
    cdef double[::1] bst = best
    for i in range(n):
        for d in range(ndim):
            clo[i, d] = jobs[i].crop_lo[d]
            chi[i, d] = jobs[i].crop_hi[d]
            anc[i, d] = jobs[i].anchor[d]
        st[i] = jobs[i].status
        bst[i] = jobs[i].best
    return crop_lo, crop_hi, anchor, status, best
