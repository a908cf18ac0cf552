"""Writes a batch of uint8 HWC images (1 or 3 channels) as ASCII PNM files (P2 / P3, DALI's
DumpImage format; ppm.h), one work item per image on the pool, without the GIL."""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef extern from "ppm.h" namespace "dali_ppm" nogil:
    int write_pnm(const char* path, const uint8_t* data, int64_t h, int64_t w, int64_t c)

cdef double _NS_PER_BYTE = 4.0          # the cost estimate the pool gets


cdef struct ppm_job:
    const char* path
    const uint8_t* data
    int64_t h, w, c
    int error


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef ppm_job* j = (<ppm_job*>ctx) + i
    j.error = write_pnm(j.path, j.data, j.h, j.w, j.c)


def write_batch(ThreadPool pool, BatchStorage images, list paths):
    """Write sample i of `images` (contiguous uint8, HWC, C = 1 or 3) to `paths[i]` (bytes).
    Returns one errno per sample (0: written)."""
    cdef Py_ssize_t n = images.num_samples, i
    if not images.is_contiguous or images.dtype != np.uint8 or images.ndim != 3:
        raise ValueError("write_batch needs a contiguous batch of uint8 HWC images")
    if len(paths) != n:
        raise ValueError(f"write_batch needs {n} paths, got {len(paths)}")
    shapes = np.ascontiguousarray(images.shapes, dtype=np.int64).reshape(n, 3)
    if n and not np.isin(shapes[:, 2], (1, 3)).all():
        raise ValueError("write_batch writes 1- and 3-channel images only")
    errors = np.zeros(n, np.int32)
    if n == 0:
        return errors
    cdef const int64_t[:, ::1] shp = shapes
    cdef const int64_t[::1] off = images.offsets
    keep = list(paths)
    cdef ppm_job* jobs = <ppm_job*>job_array(n, sizeof(ppm_job), keep)
    cdef bytes path
    for i in range(n):
        path = keep[i]
        jobs[i].path = path
        jobs[i].data = <const uint8_t*>(images.data + off[i])
        jobs[i].h, jobs[i].w, jobs[i].c = shp[i, 0], shp[i, 1], shp[i, 2]
    run_largest_first(pool, _run_job, jobs, np.prod(shapes, axis=1), _NS_PER_BYTE)
    cdef int[::1] err = errors
    for i in range(n):
        err[i] = jobs[i].error
    return errors
