# The reduction kernel's C++ side (reduce.h): one sample reduced over some of its axes, from
# its collapsed shape; min/max in the element type, sums in double (float outputs) or in
# wrapping uint64 (integer outputs), then divided / square-rooted into the output type.
from libc.stdint cimport int64_t, uint8_t


cdef extern from "reduce.h" nogil:
    enum: DALI_RED_MAX_DIMS

    ctypedef struct dali_red_job:
        const void* src
        void* dst
        const float* mean
        int64_t mean_count
        void* acc
        int ndim
        int64_t out_count
        int64_t count
        int op, src_type, dst_type
        int64_t ddof

    void dali_red_collapse(int ndim, const int64_t* shape, const uint8_t* reduced,
                           dali_red_job* job)
    void dali_red_run(const dali_red_job* job)
