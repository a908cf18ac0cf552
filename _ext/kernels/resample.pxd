# The N-D separable resampling engine's passes, shared with the 2-D HWC batch engine
# (resample_batch.pyx), which plans the same jobs without the GIL.  A Job is a list of 1-D
# passes (or a nearest-neighbour gather) over one sample; `dispatch` runs it on buffers of any
# supported input/output type pair, nogil, allocating its own scratch buffers.
from libc.stdint cimport int32_t

cdef enum:
    MAX_PASSES = 3
    SMALL_INNER = 8      # at most this many values per position: the pixel loop


cdef struct PassDesc:
    # The pass's input and output are seen as (outer0, outer1, n, inner): `inner` contiguous
    # values per position along the resampled axis, positions `in_sn` / `out_sn` apart, and
    # two levels of outer indices with their strides (all in elements).
    Py_ssize_t outer0, outer1
    Py_ssize_t n_in
    Py_ssize_t n_out
    Py_ssize_t inner
    Py_ssize_t in_s0, in_s1, in_sn
    Py_ssize_t out_s0, out_s1, out_sn
    int support
    const int32_t* starts
    const float* weights
    Py_ssize_t row_offset        # pixel passes: where their widened row starts in `acc`
    Py_ssize_t even_end          # integer outputs of a row pass: see store_row
    bint pixels                  # run by pass_pixels (else pass_rows)
    bint padded                  # the input is readable one value past its end (ours)


cdef struct Job:
    # separable passes (n_passes > 0)
    PassDesc passes[MAX_PASSES]
    int n_passes
    Py_ssize_t tmp_size          # floats in each intermediate buffer
    Py_ssize_t acc_size          # floats in the accumulation buffer
    # nearest-neighbour gather (n_passes == 0) over (planes, D0, D1, D2, channels)
    Py_ssize_t planes, channels
    Py_ssize_t nn_in[MAX_PASSES]
    Py_ssize_t nn_out[MAX_PASSES]
    const int32_t* nn_index[MAX_PASSES]


cdef int array_kind(object a, str what) except -1
cdef void pass_loop(Job* job, int p, bint pixels, Py_ssize_t even_end) noexcept nogil
cdef int dispatch(const char* src, int src_kind, char* dst, int dst_kind,
                  const Job* job) noexcept nogil
