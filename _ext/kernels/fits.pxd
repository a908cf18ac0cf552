# The FITS conversion's C side (fits.h): `n` big-endian stored elements of BITPIX `bitpix` at
# `src` to physical values (BZERO + BSCALE * stored) of output type `out` (a dali_fits::Out
# code) at `dst`; exact 64-bit modular stored + izero when `integral`, else in double
# precision.  `src` and `dst` may be the same memory when the element sizes are equal.
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t


cdef extern from "fits.h" namespace "dali_fits" nogil:
    int convert(int bitpix, int out, const uint8_t* src, uint8_t* dst, int64_t n,
                int integral, uint64_t izero, double scale, double zero)
    # A Rice-compressed image (RICE_1 tiles) into big-endian stored values; 0, or the
    # 1-based tile that cannot be decoded (see fits.h).
    int64_t rice_image(const uint8_t* table, int64_t rows, int64_t row_width, int64_t column,
                       bint wide, const uint8_t* heap, int64_t heap_len, int ndim,
                       const int64_t* shape, const int64_t* ztile, int block, int bytepix,
                       uint8_t* image, uint32_t* scratch)
