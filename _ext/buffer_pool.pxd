# Host buffer pool: size-class free lists and refcounted leases.
#
# A Buffer is a lease on one block of a BufferPool.  The block goes back to its size class's
# free list when the Buffer object is deallocated, i.e. when the last Python reference to it
# (including numpy views, which keep it alive through the buffer protocol) goes away.
from libcpp.vector cimport vector


cdef extern from "<mutex>" namespace "std" nogil:
    cdef cppclass mutex:
        void lock()
        void unlock()


cdef class BufferPool:
    # `lock` guards every field below it; it is a C++ mutex so that nogil code may lease.
    cdef mutex lock
    cdef vector[vector[void*]] free_lists   # per size class, blocks ready for reuse
    cdef readonly Py_ssize_t bytes_in_use      # capacity of blocks currently leased
    cdef readonly Py_ssize_t bytes_cached      # capacity of blocks on the free lists
    cdef readonly Py_ssize_t max_cached        # above this, returned blocks are freed
    cdef readonly Py_ssize_t allocations       # blocks obtained from the system so far
    cdef readonly Py_ssize_t leases            # leases handed out so far
    cdef vector[vector[void*]] retired      # pinned pool: per size class, blocks to unpin
    cdef readonly bint pinned                  # made with pin/unpin (see BufferPool)
    cdef object pin, unpin

    cdef void* acquire(self, Py_ssize_t nbytes, Py_ssize_t* capacity) except NULL nogil
    cdef void release(self, void* ptr, Py_ssize_t capacity) noexcept nogil
    cdef int _pin(self, void* ptr, Py_ssize_t capacity) except -1
    cdef void _unpin_at_exit(self, void* ptr) noexcept
    cdef int _free_all(self, vector[vector[void*]]& blocks) except -1
    cdef int _drain_retired(self) except -1
    cpdef Buffer lease(self, Py_ssize_t nbytes)


cdef class Buffer:
    cdef void* ptr
    cdef readonly Py_ssize_t nbytes      # bytes requested
    cdef readonly Py_ssize_t capacity    # bytes of the size class actually held
    cdef BufferPool pool
    cdef Py_ssize_t shape[1]
    cdef Py_ssize_t strides[1]
    cdef int exports

cpdef BufferPool default_pool()
