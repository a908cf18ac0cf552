"""The pixel-wise masks of fn.readers.coco, DALI's construction (the algorithm: coco_masks.h).

`masks_batch(pool, out, labels, polygons, vertices, rles)` paints every sample's h x w int32
mask (`out`, shapes (h, w, 1)) from its objects' labels, polygons (object, first vertex, end
vertex) and vertices, and the run-length encodings of its RLE-annotated objects.  One work
item per sample, all run without the GIL on the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint32_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()


cdef extern from "coco_masks.h" namespace "dali_coco" nogil:
    cdef struct Sample:
        int64_t h, w, n_objects
        const int32_t* labels
        int64_t n_polygons
        const int32_t* polygons
        const float* vertices
        int64_t n_rles
        const int32_t* rle_objects
        const int64_t* rle_dims
        const int64_t* rle_starts
        const uint32_t* rle_counts
        int32_t* out
        int error

cdef extern from "coco_masks.h" nogil:
    int dali_coco_paint(Sample* s)


cdef double _NS_PER_PIXEL = 2.0      # the cost estimate (per pixel) the pool gets


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef Sample* s = (<Sample*>ctx) + i
    s.error = dali_coco_paint(s)


def masks_batch(ThreadPool pool, BatchStorage out, labels, polygons, vertices, rles):
    """Paint the masks of a batch.

    Parameters
    ----------
    out : BatchStorage
        Contiguous int32 samples of shape (h, w, 1).
    labels : (int32 array, int64 array (n + 1,))
        Every object's label, the objects of sample i at [starts[i], starts[i + 1]).
    polygons : (int32 array (P, 3), int64 array (n + 1,))
        Rows (object index within the sample, first vertex, end vertex within the sample).
    vertices : (float32 array (V, 2), int64 array (n + 1,))
    rles : (int32 array (R,), int64 array (R, 2), int64 array (R + 1,), uint32 array,
            int64 array (n + 1,))
        The object of each RLE, its (h, w), where its counts are in the counts array, the
        counts, and the RLEs of sample i at [starts[i], starts[i + 1]).
    """
    cdef Py_ssize_t n = out.num_samples, i
    if not out.is_contiguous or out.dtype != np.int32 or out.ndim != 3:
        raise ValueError("masks_batch needs contiguous int32 (h, w, 1) samples")
    shapes = np.ascontiguousarray(out.shapes, np.int64).reshape(n, 3)
    if n and (shapes[:, 2] != 1).any():
        raise ValueError("masks_batch needs (h, w, 1) samples")
    cdef const int32_t[::1] lab = np.ascontiguousarray(labels[0], np.int32)
    cdef const int64_t[::1] lab_at = np.ascontiguousarray(labels[1], np.int64)
    cdef const int32_t[:, ::1] poly = np.ascontiguousarray(polygons[0], np.int32).reshape(-1, 3)
    cdef const int64_t[::1] poly_at = np.ascontiguousarray(polygons[1], np.int64)
    cdef const float[:, ::1] vert = np.ascontiguousarray(vertices[0], np.float32).reshape(-1, 2)
    cdef const int64_t[::1] vert_at = np.ascontiguousarray(vertices[1], np.int64)
    cdef const int32_t[::1] rle_obj = np.ascontiguousarray(rles[0], np.int32)
    cdef const int64_t[:, ::1] rle_dims = np.ascontiguousarray(rles[1], np.int64).reshape(-1, 2)
    cdef const int64_t[::1] rle_starts = np.ascontiguousarray(rles[2], np.int64)
    cdef const uint32_t[::1] counts = np.ascontiguousarray(rles[3], np.uint32)
    cdef const int64_t[::1] rle_at = np.ascontiguousarray(rles[4], np.int64)
    for name, starts, rows in (("labels", lab_at, lab.shape[0]),
                               ("polygons", poly_at, poly.shape[0]),
                               ("vertices", vert_at, vert.shape[0]),
                               ("rles", rle_at, rle_obj.shape[0])):
        s = np.asarray(starts)
        if s.shape[0] != n + 1 or s[0] != 0 or s[n] != rows or (np.diff(s) < 0).any():
            raise ValueError(f"{name}: bad sample offsets")
    if rle_dims.shape[0] != rle_obj.shape[0] or rle_starts.shape[0] != rle_obj.shape[0] + 1:
        raise ValueError("rles: one (h, w) and one counts range per RLE")
    s = np.asarray(rle_starts)
    if s.shape[0] and (s[0] != 0 or s[s.shape[0] - 1] != counts.shape[0]
                       or (np.diff(s) < 0).any()):
        raise ValueError("rles: bad counts offsets")
    for i in range(n):                   # objects, vertices in range for each sample
        n_obj = lab_at[i + 1] - lab_at[i]
        p = np.asarray(poly[poly_at[i]:poly_at[i + 1]])
        if p.size and ((p[:, 0] < 0).any() or (p[:, 0] >= n_obj).any() or (p[:, 1] < 0).any()
                       or (p[:, 1] > p[:, 2]).any()
                       or (p[:, 2] > vert_at[i + 1] - vert_at[i]).any()):
            raise ValueError(f"sample {i}: polygon rows out of range")
        r = np.asarray(rle_obj[rle_at[i]:rle_at[i + 1]])
        if r.size and ((r < 0).any() or (r >= n_obj).any()):
            raise ValueError(f"sample {i}: RLE objects out of range")
    if n == 0:
        return
    keep = []
    cdef Sample* jobs = <Sample*>job_array(n, sizeof(Sample), keep)
    cdef const int64_t[::1] off = out.offsets
    cdef const int64_t[:, ::1] sh = shapes
    for i in range(n):
        jobs[i].h = sh[i, 0]
        jobs[i].w = sh[i, 1]
        jobs[i].n_objects = lab_at[i + 1] - lab_at[i]
        jobs[i].labels = &lab[lab_at[i]] if jobs[i].n_objects else NULL
        jobs[i].n_polygons = poly_at[i + 1] - poly_at[i]
        jobs[i].polygons = &poly[poly_at[i], 0] if jobs[i].n_polygons else NULL
        jobs[i].vertices = &vert[vert_at[i], 0] if vert_at[i + 1] > vert_at[i] else NULL
        jobs[i].n_rles = rle_at[i + 1] - rle_at[i]
        jobs[i].rle_objects = &rle_obj[rle_at[i]] if jobs[i].n_rles else NULL
        jobs[i].rle_dims = &rle_dims[rle_at[i], 0] if jobs[i].n_rles else NULL
        jobs[i].rle_starts = &rle_starts[rle_at[i]] if jobs[i].n_rles else NULL
        jobs[i].rle_counts = &counts[0] if counts.shape[0] else NULL
        jobs[i].out = <int32_t*>(out.data + off[i])
    run_largest_first(pool, _run_job, jobs, shapes[:, 0] * shapes[:, 1], _NS_PER_PIXEL)
    for i in range(n):
        if jobs[i].error == 1:
            raise ValueError(f"sample {i}: negative labels cannot be painted")
        if jobs[i].error == 3:
            raise ValueError(f"sample {i}: polygon coordinates out of range (|x|, |y| must "
                             f"stay below 2e8 and an outline below {2 ** 27 // 5} pixels)")
        if jobs[i].error:
            raise MemoryError("masks_batch: out of memory")
