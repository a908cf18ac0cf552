# Philox4x32-10 counter-based generator (Salmon et al., SC'11).
#
# Every random number in dali is a pure function of a 64-bit key and a 128-bit counter, so a
# sample's draws do not depend on which thread computes them or in what order.  The same
# formulas are in dali/ops/rng.cuh for the GPU.
from libc.stdint cimport uint32_t, uint64_t


cdef struct Philox4:
    uint32_t v[4]


cdef Philox4 philox4x32_10(uint64_t key, uint32_t c0, uint32_t c1, uint32_t c2,
                           uint32_t c3) noexcept nogil

cdef double u01_double(uint32_t hi, uint32_t lo) noexcept nogil
