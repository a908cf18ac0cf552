# The 1-D filters both resampling engines build (resample.pyx: N-D, sample by sample;
# resample_batch.pyx: a batch of HWC images), and the plan both derive from them: pass order,
# input span, rounding boundary.  C in resample_filter.h, every function nogil and
# allocation-free except dali_rs_make_filter (which reports a failed malloc with -1).
from libc.stdint cimport int32_t, int64_t


cdef extern from "resample_filter.h" nogil:
    ctypedef struct dali_rs_table:
        const float* data        # kernel samples followed by two zeros (NULL: NN)
        int samples
        float radius

    ctypedef struct dali_rs_filter:
        int32_t* starts          # first input of each output
        float* weights           # n_out x width
        int width
        int identity             # output == input

    enum:
        DALI_RS_MAX_AXES
        DALI_RS_SIMD_WIDTH

    int dali_rs_filter_shape(int samples, float radius, int n_out, float lo, float hi,
                             int antialias, float* scale_out, float* step_out,
                             float* origin_out) noexcept
    void dali_rs_filter_taps(const float* table, int samples, int n_out, int support,
                             float scale, float step, float origin, int64_t* first,
                             float* w) noexcept
    void dali_rs_filter_nn(int n_in, int n_out, float lo, float hi,
                           int32_t* starts) noexcept
    void dali_rs_filter_fold(const int64_t* first, const float* w, int n_out, int support,
                             int n_in, int32_t* starts, float* out) noexcept
    int dali_rs_filter_identity(const int32_t* starts, const float* w, int n_out, int width,
                                int n_in) noexcept
    int dali_rs_make_filter(const dali_rs_table* t, int nearest, int n_in, int n_out,
                            float lo, float hi, int antialias, dali_rs_filter* f) noexcept
    void dali_rs_filter_free(dali_rs_filter* f) noexcept
    int dali_rs_pass_order(int n, const int64_t* in_sizes, const int64_t* out_sizes,
                           const int* support, const int* identity, int* order) noexcept
    void dali_rs_input_span(const int32_t* starts, int width, int identity, int64_t lo,
                            int64_t hi, int64_t* first, int64_t* last) noexcept
    int64_t dali_rs_even_end(int64_t columns, int64_t channels, int64_t x0,
                             int64_t x1) noexcept
