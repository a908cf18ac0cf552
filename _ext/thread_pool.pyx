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

Ctrl-C: both entry points stop handing out items when SIGINT arrives (interrupt.h counts the
signals; the pool checks the count between items) and, once the items already started have
finished, let Python act on the signal: on the main thread `PyErr_CheckSignals()` runs the
Python handler, so the default one raises KeyboardInterrupt within one item of Ctrl-C.  A
handler that does not raise (a program that stops at the end of an epoch, say) lets the job
resume where it stopped, so the items all run exactly once either way.  Jobs on other threads
(the asynchronous executor's) resume too: Python delivers the KeyboardInterrupt to the main
thread, which is not waiting for them, and a program that catches it and goes on gets its
prefetched batches whole.  They are abandoned (RuntimeError) once the interpreter exits:
its shutdown counts as a stop (`_stop_jobs_at_exit`, run before the executor threads are
joined), so an uncaught Ctrl-C does not wait for the queued iterations.
"""
import concurrent.futures.thread  # no-cython-lint (see _stop_jobs_at_exit)
import threading

import numpy as np

from cpython.exc cimport PyErr_CheckSignals
from cpython.ref cimport PyObject
from libc.stdint cimport int64_t, uint64_t


cdef struct PyJob:
    PyObject* callable
    PyObject* results


cdef extern from "<atomic>" namespace "std" nogil:
    cdef cppclass atomic_u64 "std::atomic<uint64_t>":
        uint64_t load()


cdef extern from "interrupt.h" namespace "dali_ext" nogil:
    atomic_u64 stop_count
    int install_sigint_counter()
    void count_stop()


cdef extern from "thread_pool_impl.h" namespace "dali_ext" nogil:
    int64_t run_items(CppThreadPool* pool, item_fn fn, void* ctx, const int64_t* order,
                      int64_t n, const atomic_u64* counter, uint64_t since)


cdef extern from "thread_pool_call.h":
    void dali_call_item(PyObject* callable, PyObject* results, Py_ssize_t item) noexcept


cdef void _call_python(void* ctx, int64_t item) noexcept nogil:
    cdef PyJob* job = <PyJob*>ctx
    with gil:
        dali_call_item(job.callable, job.results, <Py_ssize_t>item)


cdef CppThreadPool* _pool_for(ThreadPool pool, int64_t n, double cost_ns):
    """The pool to run a job of `n` items costing `cost_ns` on, or NULL for the caller alone
    (see `ThreadPool.run`)."""
    if pool is None or cost_ns < pool.inline_cost or n < 2 or pool.num_threads == 1:
        return NULL
    return pool.pool


cdef int _run_interruptible(CppThreadPool* pool, item_fn fn, void* ctx, const int64_t* order,
                            int64_t n) except -1:
    """fn(ctx, order[k]) for every k < n on `pool`, or on the caller when it is NULL, stopping
    for SIGINT between items (module docstring)."""
    cdef int64_t done = 0, ran
    cdef uint64_t since
    cdef bint main = threading.current_thread() is threading.main_thread()
    if install_sigint_counter() < 0:
        raise OSError("dali: cannot install the thread pool's SIGINT handler")
    while done < n:
        stop_if_exiting()
        since = stop_count.load()
        PyErr_CheckSignals()      # a signal counted before `since` is Python's to act on now
        with nogil:
            ran = run_items(pool, fn, ctx, order + done, n - done, &stop_count, since)
        done += ran
        if done < n and main:
            PyErr_CheckSignals()
    return 0


cdef bint _exiting = False


cdef int stop_if_exiting() except -1:
    """Raises in a thread other than the main one once the interpreter is exiting: background
    iterations stop between operators and between items instead of running (and allocating
    their outputs) to the end."""
    if _exiting and threading.current_thread() is not threading.main_thread():
        raise RuntimeError("dali: the interpreter is exiting; background work is abandoned")
    return 0


def _stop_jobs_at_exit():
    global _exiting
    _exiting = True
    count_stop()


# Runs once the main thread has stopped, before threads are joined; registered after importing
# concurrent.futures.thread because these hooks run last-registered first, and its hook waits for
# the executor threads (whose remaining jobs this one stops).
threading._register_atexit(_stop_jobs_at_exit)


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
        install_sigint_counter()
        self.num_threads = num_threads
        self.inline_cost = inline_cost

    def __dealloc__(self):
        if self.pool != NULL:
            with nogil:
                del self.pool
            self.pool = NULL

    cdef void run(self, item_fn fn, void* ctx, const int64_t* order, int64_t n,
                  double cost_ns) noexcept nogil:
        """Every item, ignoring interrupts; the module's entry points stop for them."""
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
        cdef const int64_t[::1] order_view = (np.arange(n, dtype=np.int64) if order is None
                                              else order)
        if order_view.shape[0] != n:
            raise ValueError("order must list every item once")
        if n == 0:
            return []
        job.callable = <PyObject*>fn
        job.results = <PyObject*>results
        _run_interruptible(_pool_for(self, n, cost_ns), _call_python, &job, &order_view[0], n)
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
    cdef Py_ssize_t n = len(sizes)
    cdef int64_t first = 0
    if n == 0:
        return
    if n == 1:                        # the caller runs it: no order or cost to work out
        _run_interruptible(NULL, fn, ctx, &first, 1)
        return
    cdef const int64_t[::1] s = np.ascontiguousarray(sizes, dtype=np.int64)
    cdef int64_t total = s[0]
    cdef bint equal = True
    cdef Py_ssize_t i
    for i in range(1, n):
        total += s[i]
        equal = equal and s[i] == s[0]
    # items of one size (a batch of one shape) keep their order: no sort
    cdef const int64_t[::1] order = np.arange(n, dtype=np.int64) if equal else \
        np.argsort(np.negative(s), kind="stable").astype(np.int64)
    _run_interruptible(_pool_for(pool, n, <double>total * ns_per_element), fn, ctx, &order[0], n)


cdef void* job_array(Py_ssize_t n, size_t size, list keep) except NULL:
    """Zeroed memory for `n` job structs of `size` bytes each, alive as long as `keep`."""
    cdef bytearray buf = bytearray(max(n, 1) * size)
    keep.append(buf)
    return <void*><char*>buf
