# Element types of the pointwise kernels and DALI's float -> T conversion (`ConvertSat`).
#
# `load(p)` reads any element type as float; `store(p, v)` writes a float computed in float32
# arithmetic the way DALI's CPU kernels do: integer outputs round half away from zero and
# saturate, NaN gives 0 for the types narrower than 32 bits and the type's minimum for
# (u)int32 (DALI converts through a 32-bit integer); float16 rounds to nearest even and
# overflows to infinity.  Comparisons instead of fminf/fmaxf/roundf: those are library calls
# on baseline x86-64 and would stop the loops from vectorizing.  Everything is nogil.
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t


cdef extern from "half.h" nogil:
    float dali_half_to_float(uint16_t h)
    uint16_t dali_float_to_half(float f)


cdef struct half:
    # float16 storage; a struct so that fused types tell it apart from uint16_t
    uint16_t bits


ctypedef fused src_t:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    float
    half

ctypedef fused dst_t:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    float
    half


cdef inline int round_half_away(float v) noexcept nogil:
    """Round to the nearest integer, halves away from zero (roundf); `v` must lie well within
    the int range.  Exact: the remainder of a truncation is computed without rounding."""
    cdef int r = <int>v
    cdef float rem = v - r
    return r + (rem >= 0.5) - (rem <= -0.5)


cdef inline int sat_int(float v, int lo, int hi) noexcept nogil:
    """Round and clamp to [lo, hi] for types narrower than 32 bits; NaN -> 0."""
    if v != v:
        return 0
    if v <= lo:
        return lo
    if v >= hi:
        return hi
    return round_half_away(v)


cdef inline int32_t sat_i32(float v) noexcept nogil:
    if v != v or v <= -2147483648.0:
        return -2147483648
    if v >= 2147483647.0:
        return 2147483647
    if v > 8388608 or v < -8388608:        # no fraction left from 2**23 on
        return <int32_t>v
    return round_half_away(v)


cdef inline uint32_t sat_u32(float v) noexcept nogil:
    if not (v > 0):                        # also NaN
        return 0
    if v >= 4294967295.0:
        return 4294967295
    if v > 8388608:
        return <uint32_t>v
    return <uint32_t>round_half_away(v)


cdef inline float load(const src_t* p) noexcept nogil:
    if src_t is half:
        return dali_half_to_float(p[0].bits)
    else:
        return <float>p[0]


cdef inline void store(dst_t* p, float v) noexcept nogil:
    if dst_t is float:
        p[0] = v
    elif dst_t is half:
        p[0].bits = dali_float_to_half(v)
    elif dst_t is uint8_t:
        p[0] = <uint8_t>sat_int(v, 0, 255)
    elif dst_t is int8_t:
        p[0] = <int8_t>sat_int(v, -128, 127)
    elif dst_t is int16_t:
        p[0] = <int16_t>sat_int(v, -32768, 32767)
    elif dst_t is uint16_t:
        p[0] = <uint16_t>sat_int(v, 0, 65535)
    elif dst_t is int32_t:
        p[0] = sat_i32(v)
    else:
        p[0] = sat_u32(v)
