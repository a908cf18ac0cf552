# cython: boundscheck=False, wraparound=False, cdivision=True
"""A batch of readers.webdataset read in one call: the components of the samples `ids` (rows of
the index tables the reader keeps: archive, data offset and size of each output's component, -1
for none) gathered, their outputs allocated (1-D uint8, an absent component an empty sample)
and their bytes read without the GIL, in archive order (sample by sample, output by output).

An archive is opened once for consecutive components in it, and components that follow each
other in it with gaps of at most `_MAX_GAP` bytes (the tar headers and padding between the
members of a sample, and between consecutive samples) are read with one `preadv`, the gaps into
a scratch sink: a batch of samples stored in order takes one open and one call instead of one
`pread` per component.
"""
cimport numpy as cnp
import numpy as np

from libc.errno cimport EINTR, errno
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport strcmp
from posix.fcntl cimport O_CLOEXEC, O_RDONLY, open
from posix.uio cimport iovec, preadv
from posix.unistd cimport close, pread

from dali._ext.tensor_storage cimport BatchStorage

cnp.import_array()

cdef enum:
    _MAX_GAP = 8192               # bytes between two components read into the sink, not skipped
    _RUN = 256                    # components of one preadv at most (with gaps: 511 iovecs)


cdef struct Range:
    const char* path
    int64_t offset
    int64_t size
    int64_t got                   # bytes read
    uint8_t* out
    int err                       # errno of the failing call, 0 if none


def read_samples(list paths, ids, archives, offsets, sizes):
    """Read the components of samples `ids` (see the module docstring).

    Parameters
    ----------
    paths : list of bytes
        The archives.
    ids : array_like of int
        The samples: rows of `archives` (N,) int32, `offsets` and `sizes` (N, K) int64 (the
        data offset and size of each output's component of each sample, size -1 where the
        sample has none).

    Returns
    -------
    (outs, failure) : a list of K BatchStorage (1-D uint8, a sample per id) and None, or the
        first component that failed as (index in `ids`, output, errno of the failing call or
        0, bytes got: the archive ends early).
    """
    cdef cnp.ndarray[cnp.int64_t, ndim=1] idx = np.ascontiguousarray(ids, np.int64)
    cdef const int32_t[::1] arch = archives
    cdef const int64_t[:, ::1] offs = offsets
    cdef const int64_t[:, ::1] szs = sizes
    cdef Py_ssize_t n = idx.shape[0], k = offs.shape[1], n_paths = len(paths), i, j, m, s
    if szs.shape[0] != offs.shape[0] or szs.shape[1] != k or arch.shape[0] != offs.shape[0]:
        raise ValueError("the index tables must have a row per sample")
    if n and (idx.min() < 0 or idx.max() >= offs.shape[0]):
        raise ValueError("sample ids out of range")
    cdef const int64_t* ip = <const int64_t*>cnp.PyArray_DATA(idx)
    cdef cnp.ndarray[cnp.int64_t, ndim=2] shapes = np.empty((k, n), np.int64)
    for i in range(n):
        s = ip[i]
        if not 0 <= arch[s] < n_paths:
            raise ValueError(f"sample {s}: archive {arch[s]} out of range")
        for j in range(k):
            if szs[s, j] >= 0 and offs[s, j] < 0:
                raise ValueError(f"sample {s}: negative offset")
            shapes[j, i] = max(szs[s, j], 0)
    cdef list outs = [BatchStorage.allocate(np.uint8, shapes[j].reshape(-1, 1), ndim=1)
                      for j in range(k)]
    cdef list keep = [p if type(p) is bytes else bytes(p) for p in paths]
    cdef bytes b
    cdef Range* rs = <Range*>malloc(max(n * k, 1) * sizeof(Range))
    cdef uint8_t* sink = <uint8_t*>malloc(_MAX_GAP)
    cdef const char** cpaths = <const char**>malloc(max(n_paths, 1) * sizeof(char*))
    cdef BatchStorage out
    cdef const int64_t* out_offs
    if rs == NULL or sink == NULL or cpaths == NULL:
        free(rs)
        free(sink)
        free(cpaths)
        raise MemoryError()
    try:
        for i in range(n_paths):
            b = keep[i]
            cpaths[i] = b
        for j in range(k):                    # sample-major: the archives' order
            out = outs[j]
            out_offs = <const int64_t*>cnp.PyArray_DATA(out.offsets)
            for i in range(n):
                s = ip[i]
                rs[i * k + j].path = cpaths[arch[s]] if szs[s, j] >= 0 else NULL
                rs[i * k + j].offset = offs[s, j]
                rs[i * k + j].size = max(szs[s, j], 0)
                rs[i * k + j].got = 0
                rs[i * k + j].err = 0
                rs[i * k + j].out = <uint8_t*>out.data + out_offs[i]
        with nogil:
            m = _read_all(rs, n * k, sink)
        if m < 0:
            return outs, None
        return outs, (m // k, m % k, rs[m].err, rs[m].got)
    finally:
        free(rs)
        free(sink)
        free(cpaths)


cdef Py_ssize_t _read_all(Range* rs, Py_ssize_t n, uint8_t* sink) noexcept nogil:
    """Read the ranges `rs` (those with a path) in order; the first that failed, or -1."""
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
        end = _read_run(rs, i, n, fd, sink)
        while i < end:
            _pread(&rs[i], fd)            # completes a range the run left short, or fails
            if rs[i].path != NULL and (rs[i].err or rs[i].got != rs[i].size):
                failed = i
                break
            i += 1
        if failed >= 0:
            break
    if fd >= 0:
        close(fd)
    return failed


cdef Py_ssize_t _read_run(Range* rs, Py_ssize_t i, Py_ssize_t n, int fd,
                          uint8_t* sink) noexcept nogil:
    """Read range i and those after it in the same file at most `_MAX_GAP` bytes further
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
        if strcmp(rs[j].path, rs[i].path) != 0 or gap < 0 or gap > _MAX_GAP:
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


cdef void _pread(Range* e, int fd) noexcept nogil:
    """Read the rest of range `e` (e.got bytes are there); e.got stops short at the end of the
    file, e.err is set where a call fails."""
    cdef Py_ssize_t r
    if e.path == NULL:
        return
    while e.got < e.size:
        r = pread(fd, e.out + e.got, <size_t>(e.size - e.got), e.offset + e.got)
        if r < 0 and errno == EINTR:
            continue
        if r < 0:
            e.err = errno
            return
        if r == 0:
            return
        e.got += r
