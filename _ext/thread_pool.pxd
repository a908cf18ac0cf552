# Persistent nogil worker threads shared by the CPU operators of a pipeline.
from libc.stdint cimport int64_t


cdef extern from "thread_pool_impl.h" namespace "dali_ext" nogil:
    ctypedef void (*item_fn)(void* ctx, int64_t item) noexcept nogil

    cdef cppclass CppThreadPool "dali_ext::ThreadPool":
        CppThreadPool(int num_threads) except +
        int num_threads()
        void run(item_fn fn, void* ctx, const int64_t* order, int64_t n)


cdef class ThreadPool:
    cdef CppThreadPool* pool
    cdef readonly int num_threads
    cdef readonly double inline_cost     # jobs cheaper than this (in ns) run on the caller

    cdef void run(self, item_fn fn, void* ctx, const int64_t* order, int64_t n,
                  double cost_ns) noexcept nogil


cdef run_largest_first(ThreadPool pool, item_fn fn, void* ctx, sizes, double ns_per_element)
cdef void* job_array(Py_ssize_t n, size_t size, list keep) except NULL
cdef int stop_if_exiting() except -1
