"""Whole files read without the GIL, for the file reader: the sizes of a batch of paths, then
their contents into buffers of those sizes, each file opened, read and closed in C (no Python
per file), so the reader's thread does not hold the GIL while the pipeline runs.

`open_files` does both with one path lookup per file (open, then fstat, the file kept open
until it is read): a `stat` by path costs as much as the `open` (~1.5 us each), a third of the
time of reading a small file.  `sizes` and `read_into` look paths up twice, holding no file
open in between (for batches larger than the reader wants to keep open at once).

`read_ranges` reads byte ranges of files (records of a tar shard, a RecordIO or TFRecord file,
the region of a .npy), opening each file once for a run of ranges in the same file."""
import os

cimport numpy as cnp
import numpy as np

from libc.errno cimport EINTR, errno
from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport strcmp
from posix.fcntl cimport O_CLOEXEC, O_RDONLY, open
from posix.stat cimport fstat, stat, struct_stat
from posix.uio cimport iovec, readv
from posix.unistd cimport close, pread, read

cnp.import_array()


cdef struct Entry:
    const char* path              # NULL: skipped
    uint8_t* out
    int64_t size                  # bytes expected (read_into) or found (sizes)
    int64_t got                   # bytes read; -1: more than `size`
    int err                       # errno of the failing call, 0 if none


cdef void _size(Entry* e) noexcept nogil:
    cdef struct_stat st
    if stat(e.path, &st) != 0:
        e.err = errno
    else:
        e.size = st.st_size


cdef void _read(Entry* e) noexcept nogil:
    """Read e.size bytes; e.got is what was read (-1 when the file has more)."""
    cdef int fd = open(e.path, O_RDONLY | O_CLOEXEC)
    if fd < 0:
        e.err = errno
        return
    _read_fd(e, fd)


cdef void _read_fd(Entry* e, int fd) noexcept nogil:
    """`_read` of the open file `fd`, which it closes.  The first call asks for one byte more
    than expected: a file of the expected size ends short of it (a regular file reads short only
    at its end), one that grew fills it, so the usual case takes one read, not two."""
    cdef Py_ssize_t r
    cdef uint8_t extra
    cdef iovec iov[2]
    iov[0].iov_base = e.out
    iov[0].iov_len = <size_t>e.size
    iov[1].iov_base = &extra
    iov[1].iov_len = 1
    while True:
        r = readv(fd, iov, 2)
        if not (r < 0 and errno == EINTR):
            break
    if r < 0:
        e.err = errno
        close(fd)
        return
    if r > e.size:
        e.got = -1                # it grew since its size was taken
        close(fd)
        return
    e.got = r
    if e.got == e.size:
        close(fd)
        return
    if r == 0:
        close(fd)
        return
    while e.got < e.size:
        r = read(fd, e.out + e.got, <size_t>(e.size - e.got))
        if r < 0 and errno == EINTR:
            continue
        if r < 0:
            e.err = errno
            break
        if r == 0:
            break
        e.got += r
    if e.err == 0 and e.got == e.size:
        while True:
            r = read(fd, &extra, 1)
            if not (r < 0 and errno == EINTR):
                break
        if r > 0:
            e.got = -1            # it grew since its size was taken
        elif r < 0:
            e.err = errno
    close(fd)


cdef int _set_buffers(Entry* es, Py_ssize_t n, list outs) except -1:
    cdef cnp.ndarray out
    for i in range(n):
        if es[i].path == NULL:
            continue
        out = outs[i]
        if out.dtype != np.uint8 or not out.flags.c_contiguous:
            raise ValueError(f"buffer {i} must be a C-contiguous uint8 array")
        es[i].out = <uint8_t*>cnp.PyArray_DATA(out)
        es[i].size = out.size
    return 0


cdef Entry* _entries(list paths, list keep) except NULL:
    cdef Py_ssize_t n = len(paths), i
    cdef Entry* es = <Entry*>malloc(max(n, 1) * sizeof(Entry))
    if es == NULL:
        raise MemoryError()
    for i in range(n):
        es[i].out = NULL
        es[i].size = es[i].got = 0
        es[i].err = 0
        if paths[i] is None:
            es[i].path = NULL
        else:
            b = paths[i] if type(paths[i]) is bytes else os.fsencode(paths[i])
            keep.append(b)
            es[i].path = <const char*>b
    return es


def sizes(list paths):
    """(int64 array of the files' sizes, None), or (None, (index, errno)) for the first path
    that cannot be examined.  None paths are skipped (size 0)."""
    cdef Py_ssize_t n = len(paths), i
    cdef list keep = []
    cdef Entry* es = _entries(paths, keep)
    try:
        with nogil:
            for i in range(n):
                if es[i].path != NULL:
                    _size(&es[i])
        for i in range(n):
            if es[i].err:
                return None, (i, es[i].err)
        return np.array([es[i].size for i in range(n)], np.int64), None
    finally:
        free(es)


def read_into(list paths, list outs):
    """Read each file into its buffer (a C-contiguous uint8 array of the file's size); None
    paths are skipped.  Returns None, or (index, errno, got) for the first that failed: errno
    of the failing call, or 0 with `got` the bytes found (-1: more than the buffer holds)."""
    cdef Py_ssize_t n = len(paths), i
    cdef list keep = []
    if len(outs) != n:
        raise ValueError("one buffer per path")
    cdef Entry* es = _entries(paths, keep)
    try:
        _set_buffers(es, n, outs)
        with nogil:
            for i in range(n):
                if es[i].path != NULL:
                    _read(&es[i])
                    if es[i].err or es[i].got != es[i].size:
                        break
        for i in range(n):
            if es[i].path != NULL and (es[i].err or es[i].got != es[i].size):
                return i, es[i].err, es[i].got
        return None
    finally:
        free(es)


cdef class OpenFiles:
    """A batch of files opened and examined (fstat) without the GIL; `read_into` reads and
    closes them.  Files still open are closed when the object goes away.

    Attributes
    ----------
    sizes : int64 array
        The files' sizes (0 for None paths), or None when `failure` is set.
    failure : (index, errno) or None
        The first path that could not be opened or examined (no file is left open then).
    """

    cdef Entry* es
    cdef int* fds
    cdef Py_ssize_t n
    cdef list keep
    cdef readonly object sizes
    cdef readonly object failure

    def __cinit__(self, list paths):
        cdef Py_ssize_t i
        cdef struct_stat st
        self.n = len(paths)
        self.keep = []
        self.fds = <int*>malloc(max(self.n, 1) * sizeof(int))
        if self.fds == NULL:
            raise MemoryError()
        for i in range(self.n):
            self.fds[i] = -1
        self.es = _entries(paths, self.keep)
        with nogil:
            for i in range(self.n):
                if self.es[i].path == NULL:
                    continue
                self.fds[i] = open(self.es[i].path, O_RDONLY | O_CLOEXEC)
                if self.fds[i] < 0 or fstat(self.fds[i], &st) != 0:
                    self.es[i].err = errno
                    break
                self.es[i].size = st.st_size
        for i in range(self.n):
            if self.es[i].err:
                self.failure = (i, self.es[i].err)
                self._close()
                return
        self.sizes = np.array([self.es[i].size for i in range(self.n)], np.int64)

    cdef void _close(self) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(self.n):
            if self.fds[i] >= 0:
                close(self.fds[i])
                self.fds[i] = -1

    def __dealloc__(self):
        if self.fds != NULL:
            self._close()
            free(self.fds)
        free(self.es)

    def read_into(self, list outs):
        """`read_into` (the module function) of the open files, closing them."""
        cdef Py_ssize_t i
        if self.failure is not None:
            raise ValueError("the files could not all be opened")
        if len(outs) != self.n:
            raise ValueError("one buffer per path")
        _set_buffers(self.es, self.n, outs)
        with nogil:
            for i in range(self.n):
                if self.fds[i] >= 0:
                    _read_fd(&self.es[i], self.fds[i])
                    self.fds[i] = -1
                    if self.es[i].err or self.es[i].got != self.es[i].size:
                        break
            self._close()
        for i in range(self.n):
            if self.es[i].path != NULL and (self.es[i].err or self.es[i].got != self.es[i].size):
                return i, self.es[i].err, self.es[i].got
        return None


cdef void _pread(Entry* e, int fd, int64_t offset) noexcept nogil:
    """Read e.size bytes of `fd` from `offset`; e.got is what was read (short at the end)."""
    cdef Py_ssize_t r
    while e.got < e.size:
        r = pread(fd, e.out + e.got, <size_t>(e.size - e.got), offset + e.got)
        if r < 0 and errno == EINTR:
            continue
        if r < 0:
            e.err = errno
            return
        if r == 0:
            return
        e.got += r


def read_ranges(list paths, offsets, list outs):
    """Read `outs[i].size` bytes of file `paths[i]` from byte `offsets[i]` into `outs[i]` (a
    C-contiguous uint8 array), without the GIL; a file is opened once for consecutive entries
    of the same path.  Returns None, or (index, errno, got) for the first range that failed:
    errno of the failing call, or 0 with `got` the bytes found (the file ends early)."""
    cdef Py_ssize_t n = len(paths), i
    cdef list keep = []
    cdef int fd = -1
    cdef const char* open_path = NULL
    cdef cnp.ndarray[cnp.int64_t, ndim=1] offs = np.ascontiguousarray(offsets, np.int64)
    if len(outs) != n or offs.shape[0] != n:
        raise ValueError("one offset and one buffer per path")
    if n and offs.min() < 0:
        raise ValueError("negative offset")
    cdef Entry* es = _entries(paths, keep)
    try:
        _set_buffers(es, n, outs)
        with nogil:
            for i in range(n):
                if es[i].path == NULL:
                    continue
                if open_path == NULL or strcmp(open_path, es[i].path) != 0:
                    if fd >= 0:
                        close(fd)
                    open_path = es[i].path
                    fd = open(open_path, O_RDONLY | O_CLOEXEC)
                    if fd < 0:
                        es[i].err = errno
                        break
                _pread(&es[i], fd, offs[i])
                if es[i].err or es[i].got != es[i].size:
                    break
            if fd >= 0:
                close(fd)
        for i in range(n):
            if es[i].path != NULL and (es[i].err or es[i].got != es[i].size):
                return i, es[i].err, es[i].got
        return None
    finally:
        free(es)


def open_files(list paths):
    """`OpenFiles` of `paths` (None paths are skipped)."""
    return OpenFiles(paths)
