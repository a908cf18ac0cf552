# The slice kernel's C++ side (slice.h): a window of each sample, anywhere relative to it,
# with a border policy for what lies outside, copied (or converted) into the output sample.
# `setup` describes one sample (no allocation beyond its own vectors), `pick` chooses the typed
# copy, a job copies a range of the outermost described axis of a sample (its data pointers),
# described by a Sample that samples of one plan share.  Only `setup` and `setup_pattern`
# allocate (the vectors): std::bad_alloc reaches Python as MemoryError (`except +`).
from libc.stdint cimport int64_t


cdef extern from "slice.h" namespace "dali_slice" nogil:
    enum:
        MAX_DIMS

    cdef cppclass Sample:
        int ndim
        int64_t extent[MAX_DIMS]
        const char* fill
        int64_t nfill
        bint cast

    ctypedef struct Job:
        const Sample* s
        const char* src
        char* dst
        int64_t lo, hi

    ctypedef void (*run_fn)(const Job*)

    void setup(Sample* s, int ndim, const int64_t* in_shape, const int64_t* out_shape,
               const int64_t* anchor, int policy, int channel_axis) except +
    void setup_pattern(Sample* s, int64_t itemsize) except +
    run_fn pick(int in_type, int out_type, int64_t itemsize)
