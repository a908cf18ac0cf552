"""Host buffer pool.

Blocks are grouped in size classes: four classes per power of two (x1, x1.25, x1.5, x1.75).  A
lease takes the smallest cached block of its class or of the next `REUSE_CLASSES` ones (at most
twice its size), so batches whose sizes wander - random crops, variable images - keep reusing
the same few blocks: after the first iterations of a pipeline, leasing is a free-list pop under
a mutex and no system allocation happens.  When nothing cached fits, a large block is allocated
one class above the request (headroom for the next, slightly larger batch) and one cached block
of the two classes just below is freed: the stream's sizes moved up, and the smaller block
would otherwise be kept for nothing.  That keeps the number of blocks at what the pipeline has
in flight, and resident memory flat once the largest batches have been seen.

Blocks are 64-byte aligned, which every SIMD kernel and DLPack consumer is happy with; large
ones are mapped from the system directly (mmap, populated at once), so a freed one goes back at
once instead of staying in the C heap, and resident memory does not creep up as larger batches
touch more of a block.  Freed blocks are cached up to `max_cached` bytes; beyond that they go
back to the system, so a burst of odd sizes cannot pin memory forever.

A pool made with `pin` and `unpin` holds page-locked memory (a CUDA device's host staging,
dali._gpu.runtime): each of its blocks is mapped on pages of its own, `pin(address, nbytes)`
is called once when the block comes from the system and `unpin(address)` before it goes back.
Both are Python calls, made with the GIL by the leasing thread: a block that `release` (which
runs without the GIL, from any thread) or an eviction gives up is retired, and the next lease
(or `trim()`) unpins and frees it.  A pinned pool that is destroyed unpins its blocks before it
frees them too (an `unpin` that fails there, as when the CUDA context is already gone at exit,
is passed over: the process is ending, and its registrations go with it).  A block freed
still page-locked would poison its address range: CUDA keeps the registration, and the next
block mapped there could not be pinned ("part or all of the requested memory range is already
mapped").
"""
cimport cython
from cpython.buffer cimport PyBUF_FORMAT, PyBUF_ND, PyBUF_STRIDES
from libc.stdlib cimport free
from libc.string cimport memset
from libcpp.vector cimport vector

cdef extern from "Python.h":
    # Declared without error checks: `_unpin_at_exit` clears a failure itself.
    ctypedef struct PyObject
    PyObject* PyLong_FromSize_t(size_t v)
    PyObject* PyObject_CallOneArg(PyObject* callable, PyObject* arg)
    void Py_DECREF(PyObject* o)
    void PyErr_Clear()

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef extern from "buffer_pool.h" nogil:
    void* mmap(void* addr, size_t length, int prot, int flags, int fd, long offset)
    int munmap(void* addr, size_t length)
    int PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_ANONYMOUS, MAP_POPULATE
    void* MAP_FAILED
    bint dali_push_block(vector[void*]& blocks, void* ptr) noexcept

cdef enum:
    ALIGNMENT = 64
    MIN_CLASS_BITS = 8          # smallest block: 256 bytes
    NUM_CLASSES = 4 * 48        # up to 2**56 bytes
    REUSE_CLASSES = 4           # a lease may take a cached block up to 4 classes larger
    LARGE = 1 << 20             # blocks from this size: mmap, headroom, replacement

# The largest lease: far beyond any machine's memory, and small enough that the class
# arithmetic (shifts of Py_ssize_t, classes up to 2**56) cannot overflow.
cdef Py_ssize_t MAX_LEASE = <Py_ssize_t>1 << 50


cdef void* _system_alloc(Py_ssize_t capacity, bint mapped) noexcept nogil:
    cdef void* ptr = NULL
    if mapped or capacity >= LARGE:
        # Populated at once: a block's pages are resident from the start, not as batches that
        # happen to be larger touch more of them (resident memory stays flat).
        ptr = mmap(NULL, capacity, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
        return NULL if ptr == MAP_FAILED else ptr
    if posix_memalign(&ptr, ALIGNMENT, capacity) != 0:
        return NULL
    return ptr


cdef void _system_free(void* ptr, Py_ssize_t capacity, bint mapped) noexcept nogil:
    if mapped or capacity >= LARGE:
        munmap(ptr, capacity)
    else:
        free(ptr)


cdef char* FORMAT_U8 = b"B"


cdef inline int size_class(Py_ssize_t nbytes) noexcept nogil:
    """Index of the smallest class that holds `nbytes` (at most MAX_LEASE)."""
    cdef Py_ssize_t n = nbytes if nbytes > (1 << MIN_CLASS_BITS) else (1 << MIN_CLASS_BITS)
    cdef int bits = 0
    while bits < 60 and (<Py_ssize_t>1 << (bits + 1)) <= n:
        bits += 1
    # n in [2**bits, 2**(bits+1)); quarter steps inside the octave
    cdef Py_ssize_t base = <Py_ssize_t>1 << bits
    cdef Py_ssize_t quarter = base >> 2
    cdef int q = <int>((n - base + quarter - 1) // quarter) if quarter > 0 else 0
    return (bits - MIN_CLASS_BITS) * 4 + q


cdef inline Py_ssize_t class_capacity(int cls) noexcept nogil:
    cdef int bits = cls // 4 + MIN_CLASS_BITS
    cdef int q = cls % 4
    cdef Py_ssize_t base = <Py_ssize_t>1 << bits
    return base + q * (base >> 2)


cdef inline Py_ssize_t fresh_capacity(int cls) noexcept nogil:
    """The block a lease of class `cls` gets from the system when no cached block fits: its
    class, or from LARGE on the next one (headroom for the next, slightly larger batch)."""
    cdef Py_ssize_t capacity = class_capacity(cls)
    if capacity >= LARGE and cls + 1 < NUM_CLASSES:
        return class_capacity(cls + 1)
    return capacity


@cython.no_gc_clear       # __dealloc__ still needs `unpin` when a cycle is collected
cdef class BufferPool:
    """A cache of host memory blocks, leased as `Buffer` objects.

    Parameters
    ----------
    max_cached : int
        Bytes kept on the free lists at most; blocks returned beyond that are freed.
    pin, unpin : callable, optional
        Make a pinned pool (see the module docstring): `pin(address, nbytes)` page-locks a
        block new from the system (an exception fails the lease), `unpin(address)` unlocks it
        before it is freed.
    """

    def __cinit__(self, Py_ssize_t max_cached=1 << 31, pin=None, unpin=None):
        if (pin is None) != (unpin is None):
            raise ValueError("a pinned BufferPool needs both `pin` and `unpin`")
        self.free_lists.resize(NUM_CLASSES)
        self.retired.resize(NUM_CLASSES)
        self.max_cached = max_cached
        self.pinned = pin is not None
        self.pin, self.unpin = pin, unpin

    def __dealloc__(self):
        cdef size_t i, j
        for i in range(self.free_lists.size()):
            for j in range(self.free_lists[i].size()):
                self._unpin_at_exit(self.free_lists[i][j])
                _system_free(self.free_lists[i][j], class_capacity(<int>i), self.pinned)
            for j in range(self.retired[i].size()):
                self._unpin_at_exit(self.retired[i][j])
                _system_free(self.retired[i][j], class_capacity(<int>i), True)

    cdef void _unpin_at_exit(self, void* ptr) noexcept:
        """Unpin a block of a pool being destroyed; a failure is passed over (module
        docstring), through the C API: nothing here can raise."""
        cdef PyObject* address
        cdef PyObject* result
        if self.pinned:
            address = PyLong_FromSize_t(<size_t>ptr)
            result = NULL
            if address != NULL:
                result = PyObject_CallOneArg(<PyObject*>self.unpin, address)
                Py_DECREF(address)
            if result == NULL:
                PyErr_Clear()
            else:
                Py_DECREF(result)

    cdef int _pin(self, void* ptr, Py_ssize_t capacity) except -1:
        """Page-lock a block new from the system; on failure it goes back at once."""
        try:
            self.pin(<size_t>ptr, capacity)
        except BaseException:
            _system_free(ptr, capacity, True)
            self.lock.lock()
            self.bytes_in_use -= capacity
            self.lock.unlock()
            raise
        return 0

    cdef int _free_all(self, vector[vector[void*]]& blocks) except -1:
        """Free `blocks` (per size class), a pinned pool's unpinned first; raises the first
        `unpin` error once all are freed."""
        cdef size_t i, j
        error = None
        for i in range(blocks.size()):
            for j in range(blocks[i].size()):
                if self.pinned:
                    try:
                        self.unpin(<size_t>blocks[i][j])
                    except BaseException as e:
                        error = error or e
                _system_free(blocks[i][j], class_capacity(<int>i), self.pinned)
        if error is not None:
            raise error
        return 0

    cdef int _drain_retired(self) except -1:
        """Unpin and free the retired blocks."""
        cdef vector[vector[void*]] blocks
        blocks.resize(NUM_CLASSES)
        self.lock.lock()
        blocks.swap(self.retired)
        self.lock.unlock()
        return self._free_all(blocks)

    cdef void* acquire(self, Py_ssize_t nbytes, Py_ssize_t* capacity) except NULL nogil:
        if nbytes < 0 or nbytes > MAX_LEASE:
            with gil:
                raise MemoryError(f"dali: cannot allocate {nbytes} bytes of host memory (more "
                                  f"than the {MAX_LEASE} bytes a buffer can have)")
        cdef int cls = size_class(nbytes), k
        cdef int last = min(cls + REUSE_CLASSES, NUM_CLASSES - 1)
        cdef void* ptr = NULL
        cdef void* evicted = NULL
        cdef Py_ssize_t evicted_capacity = 0
        if self.pinned:
            with gil:
                self._drain_retired()
        self.lock.lock()
        self.leases += 1
        for k in range(cls, last + 1):
            if not self.free_lists[k].empty():
                ptr = self.free_lists[k].back()
                self.free_lists[k].pop_back()
                capacity[0] = class_capacity(k)
                self.bytes_cached -= capacity[0]
                break
        if ptr == NULL:
            capacity[0] = fresh_capacity(cls)
            if capacity[0] != class_capacity(cls):
                for k in range(cls - 1, max(cls - 3, -1), -1):
                    if not self.free_lists[k].empty():
                        evicted = self.free_lists[k].back()
                        self.free_lists[k].pop_back()
                        evicted_capacity = class_capacity(k)
                        self.bytes_cached -= evicted_capacity
                        if self.pinned and dali_push_block(self.retired[k], evicted):
                            evicted = NULL          # unpinned and freed by the next lease
                        break
            self.allocations += 1
        self.bytes_in_use += capacity[0]
        self.lock.unlock()
        if evicted != NULL:
            _system_free(evicted, evicted_capacity, self.pinned)
        if ptr == NULL:
            ptr = _system_alloc(capacity[0], self.pinned)
            if ptr == NULL:
                self.lock.lock()
                self.bytes_in_use -= capacity[0]
                self.lock.unlock()
                with gil:
                    raise MemoryError(f"dali: cannot allocate {nbytes} bytes of host memory")
            if self.pinned:
                with gil:
                    self._pin(ptr, capacity[0])
        return ptr

    cdef void release(self, void* ptr, Py_ssize_t capacity) noexcept nogil:
        cdef int cls = size_class(capacity)
        cdef bint keep
        self.lock.lock()
        self.bytes_in_use -= capacity
        keep = (self.bytes_cached + capacity <= self.max_cached
                and dali_push_block(self.free_lists[cls], ptr))
        if keep:
            self.bytes_cached += capacity
        elif self.pinned:           # unpinned by the next lease (freed still pinned if no room)
            keep = dali_push_block(self.retired[cls], ptr)
        self.lock.unlock()
        if not keep:
            _system_free(ptr, capacity, self.pinned)

    cpdef Buffer lease(self, Py_ssize_t nbytes):
        """Lease a block of at least `nbytes` bytes (uninitialized)."""
        if nbytes < 0:
            raise ValueError(f"negative buffer size {nbytes}")
        cdef Buffer buf = Buffer.__new__(Buffer)
        buf.ptr = self.acquire(nbytes, &buf.capacity)
        buf.nbytes = nbytes
        buf.pool = self
        return buf

    def trim(self):
        """Free every cached block (a pinned pool's unpinned first)."""
        cdef vector[vector[void*]] blocks
        blocks.resize(NUM_CLASSES)
        self.lock.lock()
        blocks.swap(self.free_lists)
        self.bytes_cached = 0
        self.lock.unlock()
        self._free_all(blocks)
        if self.pinned:
            self._drain_retired()

    def stats(self):
        """Counters: bytes in use and cached, system allocations and leases so far."""
        return {
            "bytes_in_use": self.bytes_in_use,
            "bytes_cached": self.bytes_cached,
            "allocations": self.allocations,
            "leases": self.leases,
        }

    @staticmethod
    def capacity_for(Py_ssize_t nbytes):
        """The size class of `nbytes`: the smallest block a lease of `nbytes` gets."""
        return class_capacity(size_class(nbytes))

    @staticmethod
    def mapped_for(Py_ssize_t nbytes):
        """The most memory a lease of `nbytes` may take from the system: its size class, or
        from 1 MiB on the next class (the headroom a new large block gets)."""
        if nbytes < 0 or nbytes > MAX_LEASE:
            raise ValueError(f"no lease has {nbytes} bytes (0 to {MAX_LEASE})")
        return fresh_capacity(size_class(nbytes))


cdef class Buffer:
    """A lease on a pool block; exposes a writable 1-D uint8 buffer of `nbytes` bytes."""

    def __dealloc__(self):
        if self.ptr != NULL and self.pool is not None:
            self.pool.release(self.ptr, self.capacity)
            self.ptr = NULL

    @property
    def address(self):
        return <size_t>self.ptr

    def zero(self):
        memset(self.ptr, 0, self.nbytes)

    def __getbuffer__(self, Py_buffer* view, int flags):
        self.shape[0] = self.nbytes
        self.strides[0] = 1
        view.buf = self.ptr
        view.obj = self
        view.len = self.nbytes
        view.readonly = 0
        view.itemsize = 1
        view.format = FORMAT_U8 if flags & PyBUF_FORMAT else NULL
        view.ndim = 1
        view.shape = NULL
        view.strides = NULL
        if flags & PyBUF_ND:
            view.shape = &self.shape[0]
        if flags & PyBUF_STRIDES:
            view.strides = &self.strides[0]
        view.suboffsets = NULL
        view.internal = NULL
        self.exports += 1

    def __releasebuffer__(self, Py_buffer* view):
        self.exports -= 1

    def __len__(self):
        return self.nbytes


cdef BufferPool _default_pool = BufferPool()


cpdef BufferPool default_pool():
    """The process-wide host pool every operator leases from."""
    return _default_pool
