// FITS image data to native values: big-endian stored elements (BITPIX 8, 16, 32, 64, -32,
// -64) into an output type, as physical values BZERO + BSCALE * stored.  Integer outputs of
// integer data (BSCALE 1, integral BZERO) are computed exactly, stored + BZERO in 64-bit
// modular arithmetic (an unsigned 64-bit output with BZERO 2**63 included); the others in
// double precision and converted to the output type.  The source and destination may be the
// same memory when their element sizes are equal (each element is loaded before its store).
#ifndef DALI_EXT_KERNELS_FITS_H_
#define DALI_EXT_KERNELS_FITS_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace dali_fits {

enum Out { U8, I8, U16, I16, U32, I32, U64, I64, F32, F64 };

template <typename T>
inline T load_be(const uint8_t *p) {
  T v;
  if constexpr (sizeof(T) == 1) {
    std::memcpy(&v, p, 1);
  } else if constexpr (sizeof(T) == 2) {
    uint16_t u;
    std::memcpy(&u, p, 2);
    u = __builtin_bswap16(u);
    std::memcpy(&v, &u, 2);
  } else if constexpr (sizeof(T) == 4) {
    uint32_t u;
    std::memcpy(&u, p, 4);
    u = __builtin_bswap32(u);
    std::memcpy(&v, &u, 4);
  } else {
    uint64_t u;
    std::memcpy(&u, p, 8);
    u = __builtin_bswap64(u);
    std::memcpy(&v, &u, 8);
  }
  return v;
}

template <typename R, typename O>
inline void convert_typed(const uint8_t *src, uint8_t *dst, int64_t n, bool integral,
                          uint64_t izero, double scale, double zero) {
  constexpr int64_t rs = sizeof(R), os = sizeof(O);
  if constexpr (std::is_integral_v<R> && std::is_integral_v<O>) {
    if (integral) {
      for (int64_t i = 0; i < n; i++) {
        O out = static_cast<O>(static_cast<uint64_t>(static_cast<int64_t>(
            load_be<R>(src + i * rs))) + izero);
        std::memcpy(dst + i * os, &out, os);
      }
      return;
    }
  }
  if (scale == 1.0 && zero == 0.0) {  // stored values as they are (-0.0 and NaNs kept)
    for (int64_t i = 0; i < n; i++) {
      O out = static_cast<O>(load_be<R>(src + i * rs));
      std::memcpy(dst + i * os, &out, os);
    }
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    O out = static_cast<O>(static_cast<double>(load_be<R>(src + i * rs)) * scale + zero);
    std::memcpy(dst + i * os, &out, os);
  }
}

template <typename R>
inline int convert_from(int out, const uint8_t *src, uint8_t *dst, int64_t n, bool integral,
                        uint64_t izero, double scale, double zero) {
  switch (out) {
    case U8: convert_typed<R, uint8_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case I8: convert_typed<R, int8_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case U16: convert_typed<R, uint16_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case I16: convert_typed<R, int16_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case U32: convert_typed<R, uint32_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case I32: convert_typed<R, int32_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case U64: convert_typed<R, uint64_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case I64: convert_typed<R, int64_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case F32: convert_typed<R, float>(src, dst, n, integral, izero, scale, zero); return 0;
    case F64: convert_typed<R, double>(src, dst, n, integral, izero, scale, zero); return 0;
    default: return -1;
  }
}

// Returns 0, or -1 for an unknown BITPIX or output code (checked by the caller beforehand).
inline int convert(int bitpix, int out, const uint8_t *src, uint8_t *dst, int64_t n,
                   int integral, uint64_t izero, double scale, double zero) {
  switch (bitpix) {
    case 8: return convert_from<uint8_t>(out, src, dst, n, integral, izero, scale, zero);
    case 16: return convert_from<int16_t>(out, src, dst, n, integral, izero, scale, zero);
    case 32: return convert_from<int32_t>(out, src, dst, n, integral, izero, scale, zero);
    case 64: return convert_from<int64_t>(out, src, dst, n, integral, izero, scale, zero);
    case -32: return convert_from<float>(out, src, dst, n, integral, izero, scale, zero);
    case -64: return convert_from<double>(out, src, dst, n, integral, izero, scale, zero);
    default: return -1;
  }
}

}  // namespace dali_fits

#endif  // DALI_EXT_KERNELS_FITS_H_
