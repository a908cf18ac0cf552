"""The thread pool CPU operators run their per-sample (or per-tile) work on.

`run(fn, ctx, order, n, cost_ns)` calls the nogil function `fn(ctx, item)` for every item, on
the pool's threads and the caller's.  Waking another core and getting the answer back costs
tens of microseconds on small VMs, so a job whose estimated cost is below `inline_cost` runs on
the caller alone.  Callers order items largest first so the long ones start early.

`map(callable, n)` does the same for a Python callable (each call takes the GIL; it pays off
for callables that release it, like `cv2.imdecode`), re-raising the first exception.
`job_array` and `run_largest_first(pool, fn, ctx, sizes, ns_per_element)` are what the
kernels' batch functions share: memory for their job structs, and the items ordered by size,
the cost estimated from it, run on a pool or the caller.
"""
import numpy as np

from cpython.ref cimport PyObject
from libc.stdint cimport int64_t


cdef struct PyJob:
    PyObject* callable
    PyObject* results


cdef extern from "thread_pool_call.h":
    void dali_call_item(PyObject* callable, PyObject* results, Py_ssize_t item) noexcept


cdef void _call_python(void* ctx, int64_t item) noexcept nogil:
    cdef PyJob* job = <PyJob*>ctx
    with gil:
        dali_call_item(job.callable, job.results, <Py_ssize_t>item)


cdef class ThreadPool:
    """`num_threads` threads in all: the caller plus `num_threads - 1` workers.

    Parameters
    ----------
    num_threads : int
    inline_cost : float
        Estimated job cost in nanoseconds below which a job runs on the caller only.
    """

    def __cinit__(self, int num_threads, double inline_cost=60000.0):
        if num_threads < 1:
            raise ValueError(f"num_threads must be at least 1, got {num_threads}")
        self.pool = new CppThreadPool(num_threads)
        self.num_threads = num_threads
        self.inline_cost = inline_cost

    def __dealloc__(self):
        if self.pool != NULL:
            with nogil:
                del self.pool
            self.pool = NULL

    cdef void run(self, item_fn fn, void* ctx, const int64_t* order, int64_t n,
                  double cost_ns) noexcept nogil:
        cdef int64_t i
        if cost_ns < self.inline_cost or n < 2 or self.num_threads == 1:
            for i in range(n):
                fn(ctx, order[i] if order != NULL else i)
        else:
            self.pool.run(fn, ctx, order, n)

    def map(self, fn, Py_ssize_t n, order=None, double cost_ns=1e9):
        """[fn(i) for i in range(n)], computed on the pool; `order` lists items largest first."""
        cdef list results = [None] * n
        cdef PyJob job
        cdef const int64_t[::1] order_view
        cdef const int64_t* order_ptr = NULL
        if order is not None:
            order_view = order
            if order_view.shape[0] != n:
                raise ValueError("order must list every item once")
            order_ptr = &order_view[0] if n else NULL
        job.callable = <PyObject*>fn
        job.results = <PyObject*>results
        with nogil:
            self.run(_call_python, &job, order_ptr, n, cost_ns)
        out = []
        for entry in results:
            if entry is None:
                raise MemoryError("dali: a thread pool job could not store its result")
            ok, value = entry
            if not ok:
                raise value
            out.append(value)
        return out


cdef run_largest_first(ThreadPool pool, item_fn fn, void* ctx, sizes, double ns_per_element):
    """fn(ctx, i) for every item i, largest `sizes` first, without the GIL: on `pool`, or on
    the caller when it is None (or when the items' cost, `ns_per_element` per unit of size, is
    too small to wake a thread; see `run`)."""
    cdef Py_ssize_t n = len(sizes), k
    if n == 0:
        return
    sizes = np.asarray(sizes, dtype=np.int64)
    cdef const int64_t[::1] order = np.argsort(-sizes, kind="stable").astype(np.int64)
    cdef double cost = float(sizes.sum()) * ns_per_element
    with nogil:
        if pool is None:
            for k in range(n):
                fn(ctx, order[k])
        else:
            pool.run(fn, ctx, &order[0], n, cost)


cdef void* job_array(Py_ssize_t n, size_t size, list keep) except NULL:
    """Zeroed memory for `n` job structs of `size` bytes each, alive as long as `keep`."""
    cdef bytearray buf = bytearray(max(n, 1) * size)
    keep.append(buf)
    return <void*><char*>buf
