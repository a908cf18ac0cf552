# The displacement kernel's nogil side (displace.pyx): one image per job, fn.water, fn.sphere,
# fn.jitter and the remap of given positions, NN or linear.
#
# Contract of `displace_run(job)`: reads h * w * nc elements (uint8, or float32 when
# `is_float`) at `src`, writes as many at `dst` (C-contiguous HWC, not overlapping); every
# pointer the mode needs is valid (`wave` for WATER; `scratch`, h + w floats, for WATER and
# 5 * w for SPHERE; with `waves_ready` WATER only reads `scratch`, which other jobs may share;
# `map_x`/`map_y`, h * w floats each, for REMAP; `words`, 4 * (w // 2 + 2) + 2 * w
# words, for JITTER, whose draws it makes itself from `key`, `sample_id` and `stream`: the
# Philox stream of rng.uniform, the x offsets of every pixel in row-major order, then the y
# offsets).  Touches
# nothing else, takes no lock and never fails: jobs on distinct `dst` run concurrently.
# Arguments are checked by the Python entry points before any job runs.
from libc.stdint cimport int64_t, uint32_t, uint64_t

cdef enum DisplaceMode:
    DISPLACE_WATER = 0
    DISPLACE_SPHERE = 1
    DISPLACE_REMAP = 2
    DISPLACE_COPY = 3
    DISPLACE_JITTER = 4

cdef enum DisplaceInterp:
    DISPLACE_NN = 0
    DISPLACE_LINEAR = 1


cdef struct DisplaceJob:
    const char* src
    char* dst
    bint is_float
    Py_ssize_t h, w, nc
    int mode                # a DisplaceMode
    int interp              # a DisplaceInterp (JITTER and COPY ignore it)
    float wave[6]           # ampl_x, freq_x, phase_x, ampl_y, freq_y, phase_y (WATER)
    const float* map_x      # REMAP positions
    const float* map_y
    uint64_t key            # JITTER: the Philox key, the sample's id and stream
    int64_t sample_id
    uint32_t stream
    uint32_t* words         # JITTER scratch
    int degree              # JITTER: offsets r - degree // 2, r in [0, degree)
    float fill              # the value outside the image, already in the element's range
    float* scratch          # WATER: h + w floats; SPHERE: 5 * w
    bint waves_ready        # WATER: `scratch` already holds the wave terms (shared, read only)


cdef void displace_run(const DisplaceJob* job) noexcept nogil
