// Element type conversion between every pair of DALI's numeric types, with DALI's rules
// (fn.cast, measured on DALI 2.4; dali/ops/tensor/cast.py states them, its NumPy `convert` is
// the reference the tests compare with):
//
// - float -> integer rounds half away from zero and saturates (infinities too); NaN gives 0,
//   except for int32/int64 (their minimum) and uint64 (2**63);
// - integer -> integer saturates;
// - to bool: floats give `round(x) != 0` (NaN gives true), integers `x != 0`;
// - bool -> anything is 0/1;
// - to a floating type: round to nearest even (overflow gives inf), as numpy's astype; float16
//   is rounded directly from the source value (from double without going through float).
//
// Each conversion is a template instantiated for its pair of types; `dali_cast_fn(dst, src)`
// picks the loop for two type codes (the order of `CastType`).  Float sources convert to
// 32-bit and narrower integers in float arithmetic, to 64-bit ones in double; both are exact.
//
// float32/float64 -> (u)int8, (u)int16, int32 have vector loops (cast_simd.h: SSE4.1, AVX2
// chosen at run time) doing float_to_int's selects in its order with compare masks, so they
// give the scalar loop's results bit for bit; GCC does not vectorize the scalar loop itself.
#ifndef DALI_EXT_KERNELS_CAST_H_
#define DALI_EXT_KERNELS_CAST_H_

#include <stdint.h>
#include <string.h>

#include <limits>
#include <type_traits>

#include "half.h"

// A loop converting n elements from src to dst.
typedef void (*dali_cast_loop)(const void* src, void* dst, int64_t n);

namespace dali_cast {

struct half_t {
  uint16_t bits;
};

// The type codes, in the order of the `CastType` enum of cast.pxd.
enum CastType { BOOL, INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64, FLOAT16,
                FLOAT32, FLOAT64, NUM_TYPES };

// IEEE binary64 -> binary16, round to nearest even; the double counterpart of
// dali_float_to_half (half.h), so that a double is rounded once.
static inline uint16_t double_to_half(double d) {
  uint64_t x;
  memcpy(&x, &d, sizeof(x));
  uint16_t sign = (uint16_t)((x >> 48) & 0x8000u);
  x &= 0x7fffffffffffffffull;
  if (x >= 0x40f0000000000000ull) {       // |d| >= 65536, inf or NaN
    if (x > 0x7ff0000000000000ull)
      return (uint16_t)(sign | 0x7e00u);  // NaN
    return (uint16_t)(sign | 0x7c00u);    // overflow -> inf
  }
  if (x < 0x3f10000000000000ull) {        // below 2^-14: a subnormal half (or zero)
    // 2^28 has an ulp of 2^-24, the subnormal step: the addition rounds to the grid (nearest
    // even); 1024 steps is the smallest normal, which the same bits encode.
    double mag;
    memcpy(&mag, &x, sizeof(mag));
    double aligned = mag + 268435456.0;
    return (uint16_t)(sign | (uint16_t)((aligned - 268435456.0) * 16777216.0));
  }
  // normal: rebias the exponent (1023 -> 15) and round the 42 dropped mantissa bits to
  // nearest even; a carry out of the mantissa bumps the exponent (up to infinity)
  x -= (uint64_t)1008 << 52;
  x += ((1ull << 41) - 1) + ((x >> 42) & 1u);
  return (uint16_t)(sign | (uint16_t)(x >> 42));
}

template <typename T>
constexpr bool is_float_v = std::is_floating_point<T>::value || std::is_same<T, half_t>::value;

template <typename T>
constexpr bool is_int_v = std::is_integral<T>::value && !std::is_same<T, bool>::value;

// a < b for integers of any signedness
template <typename A, typename B>
constexpr bool less(A a, B b) {
  if constexpr (std::is_signed<A>::value == std::is_signed<B>::value)
    return a < b;
  else if constexpr (std::is_signed<A>::value)
    return a < 0 || (typename std::make_unsigned<A>::type)a < b;
  else
    return b >= 0 && a < (typename std::make_unsigned<B>::type)b;
}

template <typename S>
static inline auto widen(S x) {
  if constexpr (std::is_same<S, half_t>::value)
    return dali_half_to_float(x.bits);
  else
    return x;
}

// What a NaN converts to (see the header comment).
template <typename D>
constexpr D nan_as() {
  if constexpr (std::is_same<D, int32_t>::value || std::is_same<D, int64_t>::value)
    return std::numeric_limits<D>::min();
  else if constexpr (std::is_same<D, uint64_t>::value)
    return (uint64_t)1 << 63;
  else
    return 0;
}

template <typename D, typename F>
static inline D float_to_int(F v) {
  // F is float or double.  Written as selects; GCC still branches on them (float compares
  // may trap under its default -ftrapping-math), so these loops do not vectorize yet.
  // `hi` is max(D) in F (2^31, 2^63, 2^64 round up: `>=` catches them); the
  // clamped value stays below it, so the conversion to I (a type holding every value in
  // [lo, hi)) is plain truncation, and the remainder is exact.
  constexpr F hi = (F)std::numeric_limits<D>::max();
  constexpr F lo = (F)std::numeric_limits<D>::min();
  constexpr F below_hi = hi * ((F)1 - std::numeric_limits<F>::epsilon() / 2);
  using I = typename std::conditional<
      std::is_same<D, uint64_t>::value, uint64_t,
      typename std::conditional<(sizeof(D) < 4 || std::is_same<D, int32_t>::value), int32_t,
                                int64_t>::type>::type;
  F c = v != v ? (F)0 : v;
  c = c < lo ? lo : c;
  c = c > below_hi ? below_hi : c;
  I t = (I)c;
  F r = c - (F)t;
  I out = t + (I)(r >= (F)0.5) - (I)(r <= (F)-0.5);
  out = v >= hi ? (I)std::numeric_limits<D>::max() : out;
  out = v != v ? (I)nan_as<D>() : out;
  return (D)out;
}

template <typename D, typename S>
static inline D convert(S x) {
  if constexpr (std::is_same<D, S>::value) {
    return x;
  } else if constexpr (std::is_same<S, bool>::value) {
    if constexpr (std::is_same<D, half_t>::value)
      return D{(uint16_t)(x ? 0x3c00u : 0u)};
    else
      return (D)(x ? 1 : 0);
  } else if constexpr (std::is_same<D, bool>::value) {
    if constexpr (is_float_v<S>) {
      auto v = widen(x);
      return v >= 0.5 || v <= -0.5 || v != v;
    } else {
      return x != 0;
    }
  } else if constexpr (std::is_same<D, half_t>::value) {
    if constexpr (std::is_same<S, float>::value)
      return D{dali_float_to_half(x)};
    else
      return D{double_to_half((double)x)};  // integers: exact where the result is finite
  } else if constexpr (std::is_floating_point<D>::value) {
    return (D)widen(x);
  } else if constexpr (is_float_v<S>) {
    if constexpr (sizeof(D) < 8 && !std::is_same<S, double>::value)
      return float_to_int<D, float>(widen(x));
    else
      return float_to_int<D, double>((double)widen(x));
  } else {                                  // integer -> integer
    using DL = std::numeric_limits<D>;
    using SL = std::numeric_limits<S>;
    if constexpr (less(SL::min(), DL::min())) {
      if (less(x, DL::min()))
        return DL::min();
    }
    if constexpr (less(DL::max(), SL::max())) {
      if (less(DL::max(), x))
        return DL::max();
    }
    return (D)x;
  }
}

}  // namespace dali_cast

#include "cast_simd.h"

namespace dali_cast {

template <typename D, typename S>
static void cast_n(const void* src, void* dst, int64_t n) {
  const S* s = (const S*)src;
  D* d = (D*)dst;
  int64_t i = 0;
  if constexpr (has_simd<D, S>())
    i = simd_cast<D, S>(s, d, n);
  for (; i < n; i++)
    d[i] = convert<D, S>(s[i]);
}

template <typename D>
static dali_cast_loop from_any(int src) {
  switch (src) {
    case BOOL: return cast_n<D, bool>;
    case INT8: return cast_n<D, int8_t>;
    case UINT8: return cast_n<D, uint8_t>;
    case INT16: return cast_n<D, int16_t>;
    case UINT16: return cast_n<D, uint16_t>;
    case INT32: return cast_n<D, int32_t>;
    case UINT32: return cast_n<D, uint32_t>;
    case INT64: return cast_n<D, int64_t>;
    case UINT64: return cast_n<D, uint64_t>;
    case FLOAT16: return cast_n<D, half_t>;
    case FLOAT32: return cast_n<D, float>;
    case FLOAT64: return cast_n<D, double>;
    default: return nullptr;
  }
}

}  // namespace dali_cast

// The loop converting `n` elements of type code `src` to type code `dst`; NULL for a bad code.
static inline dali_cast_loop dali_cast_fn(int dst, int src) {
  using namespace dali_cast;
  switch (dst) {
    case BOOL: return from_any<bool>(src);
    case INT8: return from_any<int8_t>(src);
    case UINT8: return from_any<uint8_t>(src);
    case INT16: return from_any<int16_t>(src);
    case UINT16: return from_any<uint16_t>(src);
    case INT32: return from_any<int32_t>(src);
    case UINT32: return from_any<uint32_t>(src);
    case INT64: return from_any<int64_t>(src);
    case UINT64: return from_any<uint64_t>(src);
    case FLOAT16: return from_any<half_t>(src);
    case FLOAT32: return from_any<float>(src);
    case FLOAT64: return from_any<double>(src);
    default: return nullptr;
  }
}

#endif  // DALI_EXT_KERNELS_CAST_H_
