"""Whole files read without the GIL, for the file reader: the sizes of a batch of paths, then
their contents into buffers of those sizes, each file opened, read and closed in C (no Python
per file), so the reader's thread does not hold the GIL while the pipeline runs.

`open_files` does both with one path lookup per file (open, then fstat, the file kept open
until it is read): a `stat` by path costs as much as the `open` (~1.5 us each), a third of the
time of reading a small file.  `sizes` and `read_into` look paths up twice, holding no file
open in between (for batches larger than the reader wants to keep open at once).

`read_ranges` reads byte ranges of files (records of a tar shard, a RecordIO or TFRecord file,
the region of a .npy), opening each file once for a run of ranges in the same file and
reading ranges close to each other with one call (`read_range_list`, which readers'
kernels call with ranges of their own: files.pxd).
`read_heads` reads the first bytes and the size of each file (a header to parse), and
`read_regions` an N-D region of an array stored in each file, run by run (the .npy reader's
region of interest); `read_split` reads files whose header length is known (one type and shape
in a batch of .npy files) whole, header and data into separate buffers, one open each, and
`read_region_split` the same region of such files, with one open each."""
import os

cimport numpy as cnp
import numpy as np

from libc.errno cimport EINTR, ENOMEM, errno
from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, strcmp
from posix.fcntl cimport O_CLOEXEC, O_RDONLY, open
from posix.stat cimport fstat, stat, struct_stat
from posix.uio cimport iovec, preadv, readv
from posix.unistd cimport SEEK_SET, close, lseek, pread, read

from dali._ext.thread_pool cimport ThreadPool, run_largest_first

cnp.import_array()


cdef enum:
    _RUN = 256                    # ranges read with one preadv at most (with gaps: 511 iovecs)

# the cost of reading a file from the page cache: opening, reading and closing it, then its
# bytes; batches of `read_split` and `read_region_split` cheaper than the pool's inline cost
# (60 us: 20 small files, 0.6 MB) are read on the caller
cdef double _NS_PER_FILE = 3000
cdef double _NS_PER_BYTE = 0.1


cdef struct Entry:
    const char* path              # NULL: skipped
    uint8_t* out
    int64_t size                  # bytes expected (read_into) or found (sizes)
    int64_t got                   # bytes read; -1: more than `size`
    int err                       # errno of the failing call, 0 if none


cdef inline Py_ssize_t _read_step(Py_ssize_t r, int* err) noexcept nogil:
    """A read call's result as the loops below take it: the bytes read (> 0), 0 to call again
    (interrupted by a signal), -1 to stop (the file's end, or a failure, with *err set)."""
    if r > 0:
        return r
    if r < 0 and errno == EINTR:
        return 0
    if r < 0:
        err[0] = errno
    return -1


cdef int64_t _pread_all(int fd, uint8_t* buf, int64_t size, int64_t offset,
                        int* err) noexcept nogil:
    """Bytes of `fd` read from `offset` (-1: from where the file is, which also works for a
    pipe) into buf: `size`, or fewer where the file ends; *err is set on a failing call."""
    cdef int64_t got = 0
    cdef Py_ssize_t r
    while got < size:
        if offset < 0:
            r = _read_step(read(fd, buf + got, <size_t>(size - got)), err)
        else:
            r = _read_step(pread(fd, buf + got, <size_t>(size - got), offset + got), err)
        if r < 0:
            break
        got += r
    return got


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
    e.got += _pread_all(fd, e.out + e.got, e.size - e.got, -1, &e.err)
    if e.err == 0 and e.got == e.size and _pread_all(fd, &extra, 1, -1, &e.err) > 0:
        e.got = -1                # it grew since its size was taken
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


cdef struct ReadJob:
    Entry* es
    int* fds                      # the files already open (-1: skipped), or NULL: by path


cdef void _read_item(void* ctx, int64_t i) noexcept nogil:
    """File i of a `read_into` job, read into its buffer and closed."""
    cdef ReadJob* job = <ReadJob*>ctx
    if job.fds != NULL:
        if job.fds[i] >= 0:
            _read_fd(&job.es[i], job.fds[i])
            job.fds[i] = -1
    elif job.es[i].path != NULL:
        _read(&job.es[i])


cdef int _read_all(Entry* es, int* fds, Py_ssize_t n, ThreadPool pool) except -1:
    """Read every file of `es` (see `read_into`): on the caller in order, stopping at the
    first failure, or spread over `pool`, largest first."""
    cdef ReadJob job
    cdef Py_ssize_t i
    job.es, job.fds = es, fds
    if pool is None:
        with nogil:
            for i in range(n):
                _read_item(&job, i)
                if es[i].err or es[i].got != es[i].size:
                    break
        return 0
    run_largest_first(pool, _read_item, &job,
                      [_NS_PER_FILE + es[i].size * _NS_PER_BYTE if es[i].path != NULL else 0
                       for i in range(n)], 1.0)
    return 0


def read_into(list paths, list outs, ThreadPool pool=None):
    """Read each file into its buffer (a C-contiguous uint8 array of the file's size); None
    paths are skipped.  The files are spread over the threads of `pool` (None: read on the
    caller, in order).  Returns None, or (index, errno, got) for the first that failed: errno
    of the failing call, or 0 with `got` the bytes found (-1: more than the buffer holds)."""
    cdef Py_ssize_t n = len(paths), i
    cdef list keep = []
    if len(outs) != n:
        raise ValueError("one buffer per path")
    cdef Entry* es = _entries(paths, keep)
    try:
        _set_buffers(es, n, outs)
        _read_all(es, NULL, n, pool)
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

    def read_into(self, list outs, ThreadPool pool=None):
        """`read_into` (the module function) of the open files, closing them."""
        cdef Py_ssize_t i
        if self.failure is not None:
            raise ValueError("the files could not all be opened")
        if len(outs) != self.n:
            raise ValueError("one buffer per path")
        _set_buffers(self.es, self.n, outs)
        try:
            _read_all(self.es, self.fds, self.n, pool)
        finally:
            self._close()
        for i in range(self.n):
            if self.es[i].path != NULL and (self.es[i].err or self.es[i].got != self.es[i].size):
                return i, self.es[i].err, self.es[i].got
        return None


cdef void _pread(Entry* e, int fd, int64_t offset) noexcept nogil:
    """Read e.size bytes of `fd` from `offset`; e.got is what was read (short at the end)."""
    e.got += _pread_all(fd, e.out + e.got, e.size - e.got, offset + e.got, &e.err)


def read_ranges(list paths, offsets, list outs):
    """Read `outs[i].size` bytes of file `paths[i]` from byte `offsets[i]` into `outs[i]` (a
    C-contiguous uint8 array), without the GIL (`read_range_list`).  Returns None, or (index,
    errno, got) for the first range that failed: errno of the failing call, or 0 with `got`
    the bytes found (the file ends early)."""
    cdef Py_ssize_t n = len(paths), i, failed
    cdef list keep = []
    cdef cnp.ndarray[cnp.int64_t, ndim=1] offs = np.ascontiguousarray(offsets, np.int64)
    if len(outs) != n or offs.shape[0] != n:
        raise ValueError("one offset and one buffer per path")
    if n and offs.min() < 0:
        raise ValueError("negative offset")
    cdef Entry* es = _entries(paths, keep)
    cdef Range* rs = <Range*>malloc(max(n, 1) * sizeof(Range))
    cdef uint8_t* sink = <uint8_t*>malloc(RANGE_GAP)
    try:
        if rs == NULL or sink == NULL:
            raise MemoryError()
        _set_buffers(es, n, outs)
        for i in range(n):
            rs[i].path, rs[i].offset, rs[i].size = es[i].path, offs[i], es[i].size
            rs[i].got, rs[i].out, rs[i].err = 0, es[i].out, 0
        with nogil:
            failed = read_range_list(rs, n, sink)
        if failed < 0:
            return None
        return failed, rs[failed].err, rs[failed].got
    finally:
        free(es)
        free(rs)
        free(sink)


cdef Py_ssize_t read_range_list(Range* rs, Py_ssize_t n, uint8_t* sink) noexcept nogil:
    """Read the ranges `rs` (those with a path) in order: a file is opened once for
    consecutive ranges in it, and ranges that follow each other in it with gaps of at most
    `RANGE_GAP` bytes (records and their headers, the members of a tar shard) are read with
    one preadv, the gaps into `sink` (RANGE_GAP bytes).  Returns the first range that failed
    (its `err`, or `got` short of `size`: the file ends early), or -1."""
    cdef int fd = -1
    cdef const char* open_path = NULL
    cdef Py_ssize_t i = 0, failed = -1, end
    while i < n:
        if rs[i].path == NULL:
            i += 1
            continue
        if open_path == NULL or strcmp(open_path, rs[i].path) != 0:
            if fd >= 0:
                close(fd)
            open_path = rs[i].path
            fd = open(open_path, O_RDONLY | O_CLOEXEC)
            if fd < 0:
                rs[i].err = errno
                failed = i
                break
        end = _range_run(rs, i, n, fd, sink)
        while i < end:
            _range_rest(&rs[i], fd)       # completes a range the run left short, or fails
            if rs[i].path != NULL and (rs[i].err or rs[i].got != rs[i].size):
                failed = i
                break
            i += 1
        if failed >= 0:
            break
    if fd >= 0:
        close(fd)
    return failed


cdef Py_ssize_t _range_run(Range* rs, Py_ssize_t i, Py_ssize_t n, int fd,
                           uint8_t* sink) noexcept nogil:
    """Read range i and those after it in the same file at most `RANGE_GAP` bytes further
    (ranges without a path passed over, at most `_RUN`) with one preadv, crediting each range
    with the bytes it got; returns the end of the run."""
    cdef iovec iov[2 * _RUN]
    cdef Py_ssize_t j = i + 1, last = i, k, count = 0, v = 0
    cdef int64_t pos = rs[i].offset + rs[i].size, gap
    cdef Py_ssize_t r
    while j < n and count < _RUN - 1:
        if rs[j].path == NULL:
            j += 1
            continue
        gap = rs[j].offset - pos
        if strcmp(rs[j].path, rs[i].path) != 0 or gap < 0 or gap > RANGE_GAP:
            break
        pos = rs[j].offset + rs[j].size
        last = j
        count += 1
        j += 1
    if last == i:
        return i + 1
    pos = rs[i].offset
    for k in range(i, last + 1):
        if rs[k].path == NULL:
            continue
        if rs[k].offset > pos:
            iov[v].iov_base = sink
            iov[v].iov_len = <size_t>(rs[k].offset - pos)
            v += 1
        iov[v].iov_base = rs[k].out
        iov[v].iov_len = <size_t>rs[k].size
        v += 1
        pos = rs[k].offset + rs[k].size
    while True:
        r = preadv(fd, iov, <int>v, rs[i].offset)
        if not (r < 0 and errno == EINTR):
            break
    if r < 0:
        return last + 1                   # each range is read again on its own
    pos = rs[i].offset
    for k in range(i, last + 1):
        if rs[k].path == NULL:
            continue
        r -= rs[k].offset - pos           # the gap before it
        if r <= 0:
            break
        rs[k].got = min(<int64_t>r, rs[k].size)
        r -= rs[k].got
        pos = rs[k].offset + rs[k].size
    return last + 1


cdef void _range_rest(Range* e, int fd) noexcept nogil:
    """Read the rest of range `e` (e.got bytes are there); e.got stops short at the end of the
    file, e.err is set where a call fails."""
    if e.path != NULL:
        e.got += _pread_all(fd, e.out + e.got, e.size - e.got, e.offset + e.got, &e.err)


def open_files(list paths):
    """`OpenFiles` of `paths` (None paths are skipped)."""
    return OpenFiles(paths)


cdef void _head(Entry* e, int64_t* size) noexcept nogil:
    """Read the first e.size bytes of file e.path into e.out (e.got: how many) and its size
    into *size: what was read when the read came back short (a regular file reads short
    only at its end), so only files longer than e.size are examined (fstat)."""
    cdef struct_stat st
    cdef int fd = open(e.path, O_RDONLY | O_CLOEXEC)
    if fd < 0:
        e.err = errno
        return
    _pread(e, fd, 0)
    if e.err == 0 and e.got == e.size:
        if fstat(fd, &st) != 0:
            e.err = errno
        else:
            size[0] = st.st_size
    else:
        size[0] = e.got
    close(fd)


def read_heads(list paths, Py_ssize_t n):
    """The first `n` bytes and the size of each file, without the GIL (for readers that parse
    a header before reading a file's data: the .npy reader).  Returns (heads, got, sizes,
    None): `heads` a (len(paths), n) uint8 array, `got` the bytes read into each row (less
    than `n` for a shorter file), `sizes` the files' sizes; or (None, None, None,
    (index, errno)) for the first file that cannot be opened, examined or read."""
    cdef Py_ssize_t count = len(paths), i
    cdef list keep = []
    if n < 1:
        raise ValueError("n must be positive")
    cdef cnp.ndarray[cnp.uint8_t, ndim=2] heads = np.empty((count, n), np.uint8)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] got = np.zeros(count, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] sizes = np.zeros(count, np.int64)
    cdef Entry* es = _entries(paths, keep)
    try:
        with nogil:
            for i in range(count):
                if es[i].path == NULL:
                    continue
                es[i].out = &heads[i, 0]
                es[i].size = n
                _head(&es[i], &sizes[i])
                got[i] = es[i].got
                if es[i].err:
                    break
        for i in range(count):
            if es[i].err:
                return None, None, None, (i, es[i].err)
        return heads, got, sizes, None
    finally:
        free(es)


cdef int64_t _readv_all(int fd, iovec* iov, int count, int* err) noexcept nogil:
    """Read `fd` into the `count` buffers of `iov` in order until they are full or the file
    ends (`iov` is consumed); returns the bytes read, with *err set on a failing call."""
    cdef int64_t total = 0
    cdef Py_ssize_t r
    while count > 0:
        r = _read_step(readv(fd, iov, count), err)
        if r < 0:
            break
        total += r
        while count > 0 and <size_t>r >= iov[0].iov_len:
            r -= iov[0].iov_len
            iov += 1
            count -= 1
        if count > 0:
            iov[0].iov_base = <uint8_t*>iov[0].iov_base + r
            iov[0].iov_len -= r
    return total


cdef struct SplitJob:
    Entry* es
    uint8_t* heads
    int64_t k
    uint8_t* out
    int64_t size


cdef void _split_item(void* ctx, int64_t i) noexcept nogil:
    """File i of a `read_split` job: opened, read into its head row and data slot, closed."""
    cdef SplitJob* job = <SplitJob*>ctx
    cdef Entry* e = &job.es[i]
    cdef uint8_t extra
    cdef iovec iov[3]
    cdef int fd = open(e.path, O_RDONLY | O_CLOEXEC)
    if fd < 0:
        e.err = errno
        return
    iov[0].iov_base = job.heads + i * job.k
    iov[0].iov_len = <size_t>job.k
    iov[1].iov_base = job.out + i * job.size
    iov[1].iov_len = <size_t>job.size
    iov[2].iov_base = &extra
    iov[2].iov_len = 1
    # the usual file: one call that stops short of the extra byte (a regular file reads short
    # only at its end); anything else is completed or found short by `_readv_all`
    e.got = readv(fd, iov, 3)
    if e.got != job.k + job.size:
        if lseek(fd, 0, SEEK_SET) != 0:
            e.err = errno
        else:
            e.got = _readv_all(fd, iov, 3, &e.err)
    close(fd)


def read_split(list paths, heads, out, int64_t size, ThreadPool pool=None):
    """Each file read whole with one open and (usually) one call, without the GIL: its first
    `k` bytes into its row of `heads` (a C-contiguous (n, k) uint8 array) and the next `size`
    into `out[i * size:(i + 1) * size]` (`out`: a C-contiguous uint8 array of n * size
    bytes), for files that share a header of known length (the .npy arrays of one type and
    shape of a batch); the files are spread over the threads of `pool` (None: read on the
    caller).  Returns (got, None), `got` the bytes each file has up to k + size + 1 (one more
    than both parts: the file is longer than that), or (None, (index, errno)) for the first
    file that cannot be opened or read."""
    cdef Py_ssize_t n = len(paths), i
    cdef list keep = []
    cdef SplitJob job
    if None in paths:
        raise ValueError("read_split takes no None paths")
    cdef cnp.ndarray[cnp.uint8_t, ndim=2] hd = heads
    cdef cnp.ndarray dst = out
    if not hd.flags.c_contiguous or hd.shape[0] != n:
        raise ValueError("heads must be a C-contiguous (len(paths), k) uint8 array")
    if dst.dtype != np.uint8 or not dst.flags.c_contiguous or not dst.flags.writeable or \
            size < 0 or dst.size != n * size:
        raise ValueError("out must be a writable C-contiguous uint8 array of "
                         "len(paths) * size bytes")
    job.heads = <uint8_t*>cnp.PyArray_DATA(hd)
    job.k = hd.shape[1]
    job.out = <uint8_t*>cnp.PyArray_DATA(dst)
    job.size = size
    job.es = _entries(paths, keep)
    try:
        run_largest_first(pool, _split_item, &job,
                          np.full(n, _NS_PER_FILE + (job.k + size) * _NS_PER_BYTE), 1.0)
        for i in range(n):
            if job.es[i].err:
                return None, (i, job.es[i].err)
        return np.array([job.es[i].got for i in range(n)], np.int64), None
    finally:
        free(job.es)


cdef enum:
    _MAX_DIMS = 32
    _GAP = 8192               # bytes between runs below which the span is read, not skipped
    _WINDOW = 4 << 20         # bytes of the window the span is read through


cdef struct Region:
    int ndim
    int64_t offset            # of the array's data in the file
    int64_t esize
    int64_t shape[_MAX_DIMS]  # of the array as stored (C order)
    int64_t lo[_MAX_DIMS]     # the part read, within `shape`
    int64_t hi[_MAX_DIMS]
    int64_t dshape[_MAX_DIMS]  # of the destination
    int64_t at[_MAX_DIMS]     # where `lo` lands in the destination


cdef int _region_read(const char* path, int fd, const Region* r, uint8_t* dst,
                      uint8_t** buf, int64_t* buf_size, const uint8_t* head, int64_t head_len,
                      int* err, int64_t* end) noexcept nogil:
    """Copy the part [lo, hi) of the stored array into dst (C-contiguous, `dshape`, the part
    at `at`): one pread per contiguous run of the file, or, where the runs lie closer than
    _GAP bytes on average, the span they cover read through a window of at most _WINDOW
    bytes (*buf, of *buf_size bytes, grown as needed) and the runs copied out of it.  A
    region within the file's first `head_len` bytes, given in `head`, is copied from there
    without opening the file.  `fd`, when not -1, is the file already open (left open); else
    `path` is opened when needed.  Returns 0, or -1 with *err set or, where the file ended
    early, *end the bytes it has."""
    cdef int d = r.ndim, k, j
    cdef int64_t sstride[_MAX_DIMS]
    cdef int64_t dstride[_MAX_DIMS]
    cdef int64_t idx[_MAX_DIMS]
    cdef int64_t run, runs = 1, first, last, s, t, wlo = 0, whi = 0, want, got
    cdef int status = 0
    cdef bint opened = False
    cdef uint8_t* window
    cdef bint through_window
    s = t = r.esize
    for j in range(d - 1, -1, -1):
        sstride[j] = s
        dstride[j] = t
        s *= r.shape[j]
        t *= r.dshape[j]
        if r.hi[j] <= r.lo[j]:
            return 0
    # axes after k are read whole, in the file and in dst: a run is [lo[k], hi[k]) of axis k
    k = d - 1
    while k > 0 and r.lo[k] == 0 and r.hi[k] == r.shape[k] and r.dshape[k] == r.shape[k]:
        k -= 1
    run = r.esize if d == 0 else (r.hi[k] - r.lo[k]) * sstride[k]
    for j in range(k):
        runs *= r.hi[j] - r.lo[j]
        idx[j] = r.lo[j]
    first = last = r.offset
    for j in range(d):
        first += r.lo[j] * sstride[j]
        last += (r.hi[j] - 1) * sstride[j]
    last += r.esize
    through_window = (runs > 1 and run <= _WINDOW
                      and (last - first) - runs * run <= runs * <int64_t>_GAP)
    if head != NULL and last <= head_len:
        through_window = True
        window = <uint8_t*>head
        whi = head_len
    else:
        if through_window and buf_size[0] < min(<int64_t>_WINDOW, last - first):
            free(buf[0])
            buf_size[0] = min(<int64_t>_WINDOW, last - first)
            buf[0] = <uint8_t*>malloc(buf_size[0])
            if buf[0] == NULL:
                buf_size[0] = 0
                err[0] = ENOMEM
                return -1
        window = buf[0]
        if fd < 0:
            fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0:
                err[0] = errno
                return -1
            opened = True
    while runs > 0:
        s = r.offset
        t = 0
        for j in range(d):
            if j < k:
                s += idx[j] * sstride[j]
                t += (idx[j] - r.lo[j] + r.at[j]) * dstride[j]
            else:
                s += r.lo[j] * sstride[j]
                t += r.at[j] * dstride[j]
        if through_window:
            if s + run > whi:
                want = min(buf_size[0], last - s)
                got = _pread_all(fd, window, want, s, err)
                if err[0] or got != want:
                    end[0] = s + got
                    status = -1
                    break
                wlo = s
                whi = s + want
            memcpy(dst + t, window + (s - wlo), <size_t>run)
        else:
            got = _pread_all(fd, dst + t, run, s, err)
            if err[0] or got != run:
                end[0] = s + got
                status = -1
                break
        j = k - 1
        while j >= 0:
            idx[j] += 1
            if idx[j] < r.hi[j]:
                break
            idx[j] = r.lo[j]
            j -= 1
        runs -= 1
    if opened:
        close(fd)
    return status


cdef int64_t _set_region(Region* r, int d, int64_t offset, int64_t esize, int64_t* shape,
                         int64_t* lo, int64_t* hi, int64_t* dshape, int64_t* at) noexcept:
    """Fill `r` (`d` <= _MAX_DIMS dimensions); returns the bytes of its destination, or -1
    when the offset or element size is invalid or the region does not fit the array or its
    destination."""
    cdef int j
    cdef int64_t vol = esize
    if offset < 0 or esize < 1:
        return -1
    r.ndim = d
    r.offset = offset
    r.esize = esize
    for j in range(d):
        r.shape[j] = shape[j]
        r.lo[j] = lo[j]
        r.hi[j] = hi[j]
        r.dshape[j] = dshape[j]
        r.at[j] = at[j]
        if not (0 <= lo[j] and hi[j] <= shape[j] and 0 <= at[j] and dshape[j] >= 0
                and (hi[j] <= lo[j] or at[j] + hi[j] - lo[j] <= dshape[j])):
            return -1
        vol *= dshape[j]
    return vol


cdef struct RegionJob:
    Entry* es                 # e.got: the bytes read into the file's head row
    uint8_t* heads            # (n, k): the first k bytes of each file
    int64_t k
    int64_t need              # bytes each file must have (its header and whole array)
    Region region             # the same in every file
    uint8_t* out              # file i's destination: out[i * size:(i + 1) * size]
    int64_t size


cdef void _region_item(void* ctx, int64_t i) noexcept nogil:
    """File i of a `read_region_split` job: opened, its first k bytes read into its head row,
    its size checked, its region copied from the head or read, closed.  e.got is -1 for a
    file shorter than `need`."""
    cdef RegionJob* job = <RegionJob*>ctx
    cdef Entry* e = &job.es[i]
    cdef uint8_t* row = job.heads + i * job.k
    cdef uint8_t* window = NULL
    cdef int64_t window_size = 0, end = 0
    cdef struct_stat st
    cdef int fd = open(e.path, O_RDONLY | O_CLOEXEC)
    if fd < 0:
        e.err = errno
        return
    e.got = _pread_all(fd, row, job.k, 0, &e.err)
    if e.err == 0 and e.got == job.k and job.k < job.need:
        if fstat(fd, &st) != 0:
            e.err = errno
        elif st.st_size < job.need:
            e.got = -1
    if e.err == 0 and e.got == job.k:
        if _region_read(e.path, fd, &job.region, job.out + i * job.size, &window,
                        &window_size, row, job.k, &e.err, &end) != 0:
            e.got = -1
    close(fd)
    free(window)


def read_region_split(list paths, heads, int64_t need, int64_t offset, int64_t esize, rows,
                      out, ThreadPool pool=None):
    """The same region of the arrays of files that share a header (the .npy arrays of one
    type and shape of a batch) with one open each, without the GIL: each file's first `k`
    bytes into its row of `heads` (a C-contiguous (n, k) uint8 array; the caller compares
    them with the header it assumed), its size checked against `need` (fstat, when `k` is
    less), and the region, as `read_regions` reads it (copied from the head row when it lies
    within it), into `out[i * size:(i + 1) * size]` (`out`: a writable C-contiguous uint8
    array of n * size bytes).  `rows` is the (5, ndim) int64 array of the stored shape, the
    part read [lo, hi), the destination shape and where the part lands in it; the array's
    data starts at byte `offset`, its elements have `esize` bytes.  The files are spread
    over the threads of `pool` (None: read on the caller).  Returns None, or (index, errno)
    for the first file that could not be opened or read (errno 0: shorter than `k` or `need`
    bytes, or than its region)."""
    cdef Py_ssize_t n = len(paths), i
    cdef list keep = []
    cdef RegionJob job
    if None in paths:
        raise ValueError("read_region_split takes no None paths")
    cdef cnp.ndarray[cnp.uint8_t, ndim=2] hd = heads
    cdef cnp.ndarray[cnp.int64_t, ndim=2] rw = np.ascontiguousarray(rows, np.int64)
    cdef cnp.ndarray dst = out
    if not hd.flags.c_contiguous or hd.shape[0] != n or hd.shape[1] < 1:
        raise ValueError("heads must be a C-contiguous (len(paths), k) uint8 array, k >= 1")
    if rw.shape[0] != 5 or rw.shape[1] > _MAX_DIMS:
        raise ValueError(f"rows must be a (5, ndim) array, ndim <= {_MAX_DIMS}")
    cdef int d = rw.shape[1]
    cdef int64_t* r = <int64_t*>cnp.PyArray_DATA(rw)
    job.size = _set_region(&job.region, d, offset, esize, r, r + d, r + 2 * d, r + 3 * d,
                           r + 4 * d)
    if job.size < 0:
        raise ValueError("negative offset, element size below 1, or a region that does not "
                         "fit the array or its destination")
    if dst.dtype != np.uint8 or not dst.flags.c_contiguous or not dst.flags.writeable or \
            dst.size != n * job.size:
        raise ValueError("out must be a writable C-contiguous uint8 array of len(paths) times "
                         "the region's bytes")
    job.heads = <uint8_t*>cnp.PyArray_DATA(hd)
    job.k = hd.shape[1]
    job.need = need
    job.out = <uint8_t*>cnp.PyArray_DATA(dst)
    job.es = _entries(paths, keep)
    try:
        run_largest_first(pool, _region_item, &job,
                          np.full(n, _NS_PER_FILE + (job.k + job.size) * _NS_PER_BYTE), 1.0)
        for i in range(n):
            if job.es[i].err or job.es[i].got != job.k:
                return i, job.es[i].err
        return None
    finally:
        free(job.es)


def read_regions(list paths, out, out_offsets, offsets, esizes, shapes, lo, hi, dshapes, at,
                 heads=None, head_sizes=None):
    """Read a region of an array stored in each file (C order, from byte `offsets[i]`,
    elements of `esizes[i]` bytes, shape `shapes[i]`): the part [lo[i], hi[i]) into the bytes
    of shape `dshapes[i]` that start at `out_offsets[i]` of `out` (a writable C-contiguous
    uint8 array: the batch), placed at `at[i]`; the rest of those bytes is left as it is.
    The shapes and corners are (n, ndim) int64 arrays.  `heads` (an (n, k) uint8 array) and
    `head_sizes` may give the first `head_sizes[i]` bytes of each file (`read_heads`): a
    region within them is copied from there, without opening the file.  Reads only the runs
    of the region (or, for runs close together, the span they cover), without the GIL.
    Returns None, or (index, errno, end) for the first file that failed: errno of the failing
    call, or 0 with `end` the bytes the file has (it ends early)."""
    cdef Py_ssize_t n = len(paths), i
    cdef int d, j
    cdef int64_t vol
    cdef list keep = []
    cdef cnp.ndarray[cnp.int64_t, ndim=1] offs = np.ascontiguousarray(offsets, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] es_ = np.ascontiguousarray(esizes, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=2] sh = np.ascontiguousarray(shapes, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=2] lo_ = np.ascontiguousarray(lo, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=2] hi_ = np.ascontiguousarray(hi, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=2] ds = np.ascontiguousarray(dshapes, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=2] at_ = np.ascontiguousarray(at, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] dst_offs = np.ascontiguousarray(out_offsets, np.int64)
    cdef cnp.ndarray dst = out
    cdef cnp.ndarray[cnp.uint8_t, ndim=2] hd = None
    cdef cnp.ndarray[cnp.int64_t, ndim=1] hs = None
    cdef uint8_t* head
    cdef uint8_t* head_base = NULL
    cdef int64_t head_len, head_row = 0
    cdef const int64_t* head_lens = NULL
    if heads is not None:
        hd = np.ascontiguousarray(heads, np.uint8)
        hs = np.ascontiguousarray(head_sizes, np.int64)
        if hd.shape[0] != len(paths) or hs.shape[0] != len(paths) or (
                len(paths) and (hs.min() < 0 or hs.max() > hd.shape[1])):
            raise ValueError("one head of at most its row's bytes per path")
        head_base = <uint8_t*>cnp.PyArray_DATA(hd)
        head_row = hd.shape[1]
        head_lens = <const int64_t*>cnp.PyArray_DATA(hs)
    if dst.dtype != np.uint8 or not dst.flags.c_contiguous or not dst.flags.writeable:
        raise ValueError("out must be a writable C-contiguous uint8 array")
    cdef bint mismatch = dst_offs.shape[0] != n or offs.shape[0] != n or es_.shape[0] != n
    for a in (sh, lo_, hi_, ds, at_):
        mismatch |= a.shape[0] != n or a.shape[1] != sh.shape[1]
    if mismatch:
        raise ValueError("one path, output offset, offset, element size and region per "
                         "file")
    d = sh.shape[1]
    if d > _MAX_DIMS:
        raise ValueError(f"at most {_MAX_DIMS} dimensions, not {d}")
    cdef Region* rs = <Region*>malloc(max(n, 1) * sizeof(Region))
    cdef uint8_t** dsts = <uint8_t**>malloc(max(n, 1) * sizeof(uint8_t*))
    cdef uint8_t* window = NULL
    cdef int64_t window_size = 0
    cdef int* errs = NULL
    cdef int64_t* ends = NULL
    cdef Entry* es = NULL
    try:
        if rs == NULL or dsts == NULL:
            raise MemoryError()
        for i in range(n):
            vol = _set_region(&rs[i], d, offs[i], es_[i], &sh[i, 0], &lo_[i, 0], &hi_[i, 0],
                              &ds[i, 0], &at_[i, 0])
            if vol < 0:
                raise ValueError(f"file {i}: negative offset, element size below 1, or a "
                                 "region that does not fit the array or the buffer")
            if dst_offs[i] < 0 or dst_offs[i] + vol > dst.size:
                raise ValueError(f"file {i}: its {vol} bytes from {dst_offs[i]} do not fit out "
                                 f"({dst.size} bytes)")
            dsts[i] = <uint8_t*>cnp.PyArray_DATA(dst) + dst_offs[i]
        es = _entries(paths, keep)
        errs = <int*>calloc(max(n, 1), sizeof(int))
        ends = <int64_t*>calloc(max(n, 1), sizeof(int64_t))
        if errs == NULL or ends == NULL:
            raise MemoryError()
        with nogil:
            for i in range(n):
                if es[i].path == NULL:
                    continue
                head = NULL
                head_len = 0
                if head_base != NULL:
                    head = head_base + i * head_row
                    head_len = head_lens[i]
                j = _region_read(es[i].path, -1, &rs[i], dsts[i], &window, &window_size, head,
                                 head_len, &errs[i], &ends[i])
                if j != 0:
                    es[i].err = -1
                    break
        for i in range(n):
            if es[i].path != NULL and (errs[i] or es[i].err):
                return i, errs[i], ends[i]
        return None
    finally:
        free(rs)
        free(dsts)
        free(window)
        free(errs)
        free(ends)
        free(es)
