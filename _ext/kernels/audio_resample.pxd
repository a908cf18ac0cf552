# The audio resampling kernel's C side (audio_resample.h): DALI's windowed-sinc filter, and
# one work item (a range of output positions of one sample, starting on a block boundary).
# Interleaved samples (length, channels), C-contiguous; input and output do not overlap.
from libc.stdint cimport int64_t


cdef extern from "audio_resample.h" namespace "dali_audio" nogil:
    const int64_t kBlock

    ctypedef struct Job:
        const void* in_ "in"
        int in_type
        int64_t n_in
        int channels
        void* out
        int out_type
        int64_t out_begin, out_end
        double scale
        const float* lut
        const float* phases
        int64_t lut_size
        float wscale, wcenter
        int lobes

    bint sse_taps
    bint use_sse_taps(bint on)

    int64_t window_size(int lobes)
    void make_window(int lobes, float* lut, float* wscale, float* wcenter)
    int64_t phase_table_size(int lobes)
    void phase_table(int lobes, const float* lut, float* table)
    void run(const Job* job)
