# Byte ranges of files read without the GIL (files.pyx), for the kernels of readers that
# gather their own ranges (readers.webdataset).
from libc.stdint cimport int64_t, uint8_t


cdef struct Range:
    const char* path              # NULL: skipped
    int64_t offset
    int64_t size
    int64_t got                   # bytes read
    uint8_t* out
    int err                       # errno of the failing call, 0 if none


cdef enum:
    RANGE_GAP = 8192              # bytes between two ranges read into the sink, not skipped


cdef Py_ssize_t read_range_list(Range* rs, Py_ssize_t n, uint8_t* sink) noexcept nogil
