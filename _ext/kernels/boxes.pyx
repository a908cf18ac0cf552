# cython: boundscheck=False, wraparound=False, cdivision=True
"""Bounding-box kernels: the crop window search of fn.random_bbox_crop and the SSD encoding of
fn.box_encoder (boxes.h states both).

`crop_search` finds one window per sample in one nogil call on the pool, one work item per
sample, largest (most boxes) first.  Each sample draws from its own Philox stream (key, sample
id, stream), so the windows do not depend on the number of threads.  `encode_batch` matches
every sample's boxes to the anchors, one work item per sample.  `rotate_boxes` moves the boxes
of fn.bbox_rotate and `crop_boxes` clamps the boxes of the crops to their windows (a few flops a
box: one nogil loop on the caller each).
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()
dali_philox_detect()

cdef double _NS_PER_BOX = 60.0     # the cost estimate the pool gets, per box and attempt


cdef double _NS_PER_PAIR = 3.0     # box_encoder: per (box, anchor) pair


cdef int _check_counts(const int64_t[::1] counts, Py_ssize_t boxes) except -1:
    """The box counts of the samples must be >= 0 and add up to `boxes` (a typed loop: NumPy's
    sum and min cost ~2 us each)."""
    cdef Py_ssize_t i
    cdef int64_t total = 0
    for i in range(counts.shape[0]):
        if counts[i] < 0:
            break
        total += counts[i]
    else:
        if total == boxes:
            return 0
    raise ValueError(f"the box counts must add up to the {boxes} boxes")


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    dali_box_search((<dali_box_job*>ctx) + i)


cdef void _run_encode(void* ctx, int64_t i) noexcept nogil:
    dali_encode_run((<dali_encode_job*>ctx) + i)


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
    _check_counts(cnt, lo_v.shape[0])
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
    for i in range(n):
        for d in range(ndim):
            if ins[i, d] <= 0 or crs[i, d] <= 0:
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


def first_outside(lo, hi):
    """The index of the first box (corners `lo`, `hi`: (boxes, ndim) float32) with a corner
    below 0 or above 1 or an end before its start, or -1 (a typed loop instead of NumPy's
    five passes)."""
    cdef const float[:, ::1] lo_v = np.ascontiguousarray(lo, np.float32)
    cdef const float[:, ::1] hi_v = np.ascontiguousarray(hi, np.float32)
    cdef Py_ssize_t b, d
    if hi_v.shape[0] != lo_v.shape[0] or hi_v.shape[1] != lo_v.shape[1]:
        raise ValueError("lo and hi must have the same shape")
    for b in range(lo_v.shape[0]):
        for d in range(lo_v.shape[1]):
            if lo_v[b, d] < 0 or hi_v[b, d] > 1 or lo_v[b, d] > hi_v[b, d]:
                return b
    return -1


def crop_boxes(lo, hi, counts, crop_lo, crop_hi, nocrop, prune=None):
    """The boxes of a batch against per-sample windows (boxes.h `dali_box_crop`; a few flops a
    box: one nogil loop on the caller).

    Parameters
    ----------
    lo, hi : (boxes, ndim) float32 arrays
        The start and end corners of every box, sample after sample.
    counts : (n,) int64 array
        Boxes per sample.
    crop_lo, crop_hi : (n, ndim) float32 arrays
        Each sample's relative window.
    nocrop : (n,) bool array
        Samples whose boxes all survive.
    prune : float or None
        Survival by the fraction of the area inside (and some of it); None: by the centre.

    Returns
    -------
    (new_lo, new_hi, keep, kept): the corners clamped to their window and relative to it
    ((boxes, ndim) float32), which boxes survive ((boxes,) bool) and how many per sample
    ((n,) int64).
    """
    cdef const float[:, ::1] lo_v = np.ascontiguousarray(lo, np.float32)
    cdef const float[:, ::1] hi_v = np.ascontiguousarray(hi, np.float32)
    cdef const int64_t[::1] cnt = np.ascontiguousarray(counts, np.int64)
    cdef Py_ssize_t m = lo_v.shape[0], n = cnt.shape[0]
    cdef int nd = lo_v.shape[1]
    cdef const float[:, ::1] clo = np.ascontiguousarray(crop_lo, np.float32).reshape(n, nd)
    cdef const float[:, ::1] chi = np.ascontiguousarray(crop_hi, np.float32).reshape(n, nd)
    cdef const uint8_t[::1] nc = np.ascontiguousarray(nocrop, np.uint8)
    if hi_v.shape[0] != m or hi_v.shape[1] != nd or nc.shape[0] != n:
        raise ValueError("lo and hi must be alike and nocrop must have one entry per sample")
    _check_counts(cnt, m)
    new_lo = np.empty((m, nd), np.float32)
    new_hi = np.empty((m, nd), np.float32)
    keep = np.empty(m, bool)
    kept = np.empty(n, np.int64)
    cdef float[:, ::1] nl = new_lo
    cdef float[:, ::1] nh = new_hi
    cdef uint8_t[::1] k_v = keep.view(np.uint8)
    cdef int64_t[::1] kc = kept
    cdef bint given = prune is not None
    cdef float p = prune if given else 0      # float32, as NumPy compares it with the boxes
    if m and n:
        with nogil:
            dali_box_crop(&lo_v[0, 0], &hi_v[0, 0], nd, &cnt[0], n, &clo[0, 0], &chi[0, 0],
                          &nc[0], given, p, &nl[0, 0], &nh[0, 0], &k_v[0], &kc[0])
    else:
        kept[...] = 0
    return new_lo, new_hi, keep, kept


def encode_batch(ThreadPool pool, BatchStorage boxes, BatchStorage labels, anchors, centers,
                 float criteria, bint offset, float scale, means, stds, BatchStorage out_boxes,
                 BatchStorage out_labels):
    """SSD encoding of every sample (boxes.h).

    Parameters
    ----------
    pool : ThreadPool or None
    boxes, labels : BatchStorage
        Contiguous float32 boxes, (N, 4) per sample, and int32 labels, N or more per sample
        (the first value of each of N equal rows is a box's label).
    anchors, centers : (M, 4) float32 arrays
        The anchors as ltrb and as (cx, cy, w, h) (scaled by `scale` with `offset`).
    criteria, offset, scale, means, stds : the matching threshold and the encoding.
    out_boxes, out_labels : BatchStorage
        Contiguous float32 (M, 4) and int32 (M,) outputs, one per sample.
    """
    cdef const float[:, ::1] anc = np.ascontiguousarray(anchors, np.float32).reshape(-1, 4)
    cdef const float[:, ::1] cen = np.ascontiguousarray(centers, np.float32).reshape(-1, 4)
    cdef Py_ssize_t m = anc.shape[0], n = boxes.num_samples, i, k
    if cen.shape[0] != m:
        raise ValueError("anchors and centers must have the same number of rows")
    for st in (boxes, labels, out_boxes, out_labels):
        if not st.is_contiguous or st.num_samples != n:
            raise ValueError(f"every batch must be contiguous with {n} samples")
    if boxes.dtype != np.float32 or out_boxes.dtype != np.float32 or \
            labels.dtype != np.int32 or out_labels.dtype != np.int32:
        raise ValueError("boxes must be float32 and labels int32")
    bshapes = np.asarray(boxes.shapes).reshape(n, -1)
    counts = bshapes[:, 0] if boxes.ndim else np.zeros(n, np.int64)
    if boxes.ndim != 2 or (n and (bshapes[:, 1] != 4).any()):
        raise ValueError("boxes must be (N, 4) per sample")
    lsizes = np.prod(np.asarray(labels.shapes).reshape(n, -1), axis=1)
    if (lsizes < counts).any():
        raise ValueError("every box needs a label")
    strides = np.where(counts > 0, lsizes // np.maximum(counts, 1), 1)
    osizes = np.prod(np.asarray(out_boxes.shapes).reshape(n, -1), axis=1)
    lout = np.prod(np.asarray(out_labels.shapes).reshape(n, -1), axis=1)
    if (osizes != 4 * m).any() or (lout != m).any():
        raise ValueError(f"the outputs must hold {m} boxes and labels per sample")
    mean = np.asarray(means, np.float32)
    std = np.asarray(stds, np.float32)
    if mean.shape != (4,) or std.shape != (4,):
        raise ValueError("means and stds must have 4 values")
    total = int(np.sum(counts))
    scratch = np.empty(7 * total + 1, np.float32)
    forced = np.empty(total + 1, np.int64)
    cdef float[::1] sc = scratch
    cdef int64_t[::1] fo = forced
    cdef dali_encode_params params
    params.anchors = &anc[0, 0] if m else NULL
    params.centers = &cen[0, 0] if m else NULL
    params.num_anchors = m
    params.criteria = criteria
    params.offset = offset
    params.scale = scale
    for k in range(4):
        params.means[k] = mean[k]
        params.stds[k] = std[k]
    keep = []
    cdef dali_encode_job* jobs = <dali_encode_job*>job_array(max(n, 1), sizeof(dali_encode_job),
                                                             keep)
    cdef const int64_t[::1] boff = boxes.offsets
    cdef const int64_t[::1] loff = labels.offsets
    cdef const int64_t[::1] obo = out_boxes.offsets
    cdef const int64_t[::1] olo = out_labels.offsets
    cdef const int64_t[::1] cnt = np.ascontiguousarray(counts, np.int64)
    cdef const int64_t[::1] stride = np.ascontiguousarray(strides, np.int64)
    work = (counts + 1) * m
    cdef int64_t first = 0
    for i in range(n):
        jobs[i].p = &params
        jobs[i].boxes = <const float*>(boxes.data + boff[i])
        jobs[i].labels = <const int32_t*>(labels.data + loff[i])
        jobs[i].label_stride = stride[i]
        jobs[i].count = cnt[i]
        jobs[i].out_boxes = <float*>(out_boxes.data + obo[i])
        jobs[i].out_labels = <int32_t*>(out_labels.data + olo[i])
        jobs[i].scratch = &sc[7 * first]
        jobs[i].forced = &fo[first]
        first += cnt[i]
    if n:
        run_largest_first(pool, _run_encode, jobs, work, _NS_PER_PAIR)


_ROT_MODES = {"expand": DALI_ROT_EXPAND, "halfway": DALI_ROT_HALFWAY, "fixed": DALI_ROT_FIXED}


def rotate_boxes(src, counts, cos, sin, in_hw, out_hw, swap, bint xywh, bint normalized,
                 str mode, double threshold):
    """The boxes of fn.bbox_rotate (boxes.h).

    Parameters
    ----------
    src : (boxes, 4) float32 array
        The boxes of all samples, sample after sample.
    counts : (n,) int64 array
        Boxes per sample.
    cos, sin : (n,) float64 arrays
        The cosine and sine of each sample's angle.
    in_hw, out_hw : (n, 2) float64 arrays
        Image and canvas sizes in pixels.
    swap : (n,) bool array
        Odd numbers of quarter turns ("fixed" and "halfway" swap the box's sides).

    Returns
    -------
    (dst, keep): (boxes, 4) float32 moved boxes, (boxes,) bool.
    """
    cdef const float[:, ::1] s_v = np.ascontiguousarray(src, np.float32).reshape(-1, 4)
    cdef const int64_t[::1] cnt = np.ascontiguousarray(counts, np.int64)
    cdef Py_ssize_t n = cnt.shape[0], i
    cdef const double[::1] c_v = np.ascontiguousarray(cos, np.float64)
    cdef const double[::1] sn_v = np.ascontiguousarray(sin, np.float64)
    cdef const double[:, ::1] ih = np.ascontiguousarray(in_hw, np.float64).reshape(-1, 2)
    cdef const double[:, ::1] oh = np.ascontiguousarray(out_hw, np.float64).reshape(-1, 2)
    cdef const uint8_t[::1] sw = np.ascontiguousarray(swap, np.uint8)
    if not (c_v.shape[0] == sn_v.shape[0] == ih.shape[0] == oh.shape[0] == sw.shape[0] == n):
        raise ValueError("the per-sample arrays must have one entry per sample")
    _check_counts(cnt, s_v.shape[0])
    if mode not in _ROT_MODES:
        raise ValueError(f"unknown mode {mode!r}")
    cdef int m = _ROT_MODES[mode]
    dst = np.empty((s_v.shape[0], 4), np.float32)
    keep = np.empty(s_v.shape[0], bool)
    cdef float[:, ::1] d_v = dst
    cdef uint8_t[::1] k_v = keep.view(np.uint8)
    cdef dali_rot_job job
    cdef int64_t first = 0
    with nogil:
        for i in range(n):
            if cnt[i] == 0:
                continue
            job.src = &s_v[first, 0]
            job.dst = &d_v[first, 0]
            job.keep = &k_v[first]
            job.count = cnt[i]
            job.c = c_v[i]
            job.s = sn_v[i]
            job.h = ih[i, 0]
            job.w = ih[i, 1]
            job.out_h = oh[i, 0]
            job.out_w = oh[i, 1]
            job.swap = sw[i]
            dali_rot_run(&job, xywh, normalized, m, threshold)
            first += cnt[i]
    return dst, keep
