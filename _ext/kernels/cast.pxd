# Element type conversion with DALI's rounding and saturation (the rules: cast.h).
#
# `dali_cast_fn(dst, src)` returns the nogil loop converting `n` elements of type code `src`
# (a `CastType`) to type code `dst`, or NULL for an unknown code.  The loops read and write
# plain arrays of the element types (bool is one byte holding 0 or 1; float16 is IEEE binary16
# bits) and never allocate; src and dst must not overlap.
from libc.stdint cimport int64_t


cdef extern from "cast.h" nogil:
    ctypedef void (*dali_cast_loop)(const void* src, void* dst, int64_t n) noexcept nogil

    cdef enum CastType "dali_cast::CastType":
        BOOL "dali_cast::BOOL"
        INT8 "dali_cast::INT8"
        UINT8 "dali_cast::UINT8"
        INT16 "dali_cast::INT16"
        UINT16 "dali_cast::UINT16"
        INT32 "dali_cast::INT32"
        UINT32 "dali_cast::UINT32"
        INT64 "dali_cast::INT64"
        UINT64 "dali_cast::UINT64"
        FLOAT16 "dali_cast::FLOAT16"
        FLOAT32 "dali_cast::FLOAT32"
        FLOAT64 "dali_cast::FLOAT64"

    dali_cast_loop dali_cast_fn(int dst, int src)
    # The vector level of the float -> integer loops (0 scalar, 1 SSE4.1, 2 AVX2);
    # `level` >= 0 sets it, capped at what the build and the CPU have.
    int dali_cast_simd(int level)
