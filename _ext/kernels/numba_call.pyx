"""Runs a compiled per-sample function (the C entry point numba's `cfunc` makes of
`plugin.numba`'s run function) over a batch on the pipeline's pool, without the GIL.

The function has the C signature `void f(int64_t* ptrs, int64_t* shapes, int64_t nptrs,
int64_t nshapes)`: for one sample, the addresses of its output and input arrays (`nptrs` of
them) and their shapes, concatenated (`nshapes` extents).  `call_batch` builds those tables
from the batches (row i: sample i) and calls it once per sample, largest first, or once for
the whole batch with the tables flattened (`batch=True`).  The function must not raise: numba
reports an exception inside a `cfunc` on stderr and returns.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, run_largest_first

cnp.import_array()

ctypedef void (*sample_fn)(int64_t* ptrs, int64_t* shapes, int64_t nptrs,
                           int64_t nshapes) noexcept nogil

cdef double _NS_PER_BYTE = 1.0          # the cost estimate the pool gets (user code: unknown)


cdef struct call_ctx:
    sample_fn fn
    int64_t* ptrs
    int64_t* shapes
    int64_t nptrs
    int64_t nshapes


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    cdef call_ctx* c = <call_ctx*>ctx
    c.fn(c.ptrs + i * c.nptrs, c.shapes + i * c.nshapes if c.shapes != NULL else NULL,
         c.nptrs, c.nshapes)


def call_batch(ThreadPool pool, size_t address, list batches, bint batch=False):
    """Run the function at `address` on `batches` (contiguous `BatchStorage`s with the same
    number of samples: the outputs, then the inputs): per sample on `pool` (None: on the
    caller), or once for the batch."""
    if address == 0:
        raise ValueError("call_batch needs the address of a compiled function")
    cdef Py_ssize_t nargs = len(batches), n, i, k, d, col = 0
    cdef BatchStorage b
    if nargs == 0:
        raise ValueError("call_batch needs at least one batch")
    n = (<BatchStorage?>batches[0]).num_samples
    for b in batches:
        if not b.is_contiguous or b.num_samples != n:
            raise ValueError(f"call_batch needs contiguous batches of {n} samples")
    if n == 0:
        return
    cdef Py_ssize_t nshapes = 0, itemsize
    for b in batches:
        nshapes += b.ndim
    cdef int64_t[:, ::1] ptrs = np.empty((n, nargs), np.int64)
    cdef int64_t[:, ::1] shapes = np.empty((n, max(nshapes, 1)), np.int64)
    sizes_array = np.zeros(n, np.int64)
    cdef int64_t[::1] sizes = sizes_array
    cdef const int64_t[::1] off
    cdef const int64_t[:, :] shp
    cdef int64_t vol
    for k in range(nargs):
        b = batches[k]
        off = b.offsets
        shp = b.shapes
        itemsize = b.dtype.itemsize
        for i in range(n):
            ptrs[i, k] = <int64_t>(b.data + off[i])
            vol = itemsize
            for d in range(b.ndim):
                shapes[i, col + d] = shp[i, d]
                vol *= shp[i, d]
            sizes[i] += vol
        col += b.ndim
    cdef call_ctx ctx
    ctx.fn = <sample_fn>address
    ctx.ptrs = &ptrs[0, 0]
    ctx.shapes = &shapes[0, 0]
    ctx.nptrs = nargs
    ctx.nshapes = nshapes
    if batch:
        ctx.nptrs = n * nargs
        ctx.nshapes = n * nshapes
        run_largest_first(None, _run_job, &ctx, [1], 0.0)
    else:
        run_largest_first(pool, _run_job, &ctx, sizes_array, _NS_PER_BYTE)
