// fn.cast on the GPU: element type conversion between every pair of DALI's numeric types, with
// the CPU kernel's rules (_ext/kernels/cast.h, measured on DALI 2.4):
//
// - float -> integer rounds half away from zero and saturates (infinities too); NaN gives 0,
//   except for int32/int64 (their minimum) and uint64 (2**63); sources other than double
//   convert to integers narrower than 64 bits in float arithmetic, the rest in double;
// - integer -> integer saturates;
// - to bool: floats give `round(x) != 0` (NaN gives true), integers `x != 0`;
// - bool -> anything is 0/1;
// - to a floating type: round to nearest even (overflow gives inf); float16 is rounded once,
//   from float for float sources and from double for the others.
//
// The batch is one flat range (samples back to back); kernel cast_<src>_<dst> for the codes
// bool i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64, a grid-stride loop over the elements.

#include "dali_numeric.cuh"

enum { DALI_BOOL, DALI_INT, DALI_HALF, DALI_FLOAT };

// kind, signedness, limits, the integer type the float conversion truncates to (`wide`, one
// holding every value of [min, max)) and the value a NaN converts to
template <typename T>
struct dali_cast_traits;

#define DALI_INT_TRAITS(T, SIGNED, MIN, MAX, WIDE, NAN_AS) \
  template <>                                              \
  struct dali_cast_traits<T> {                             \
    static constexpr int kind = DALI_INT;                  \
    static constexpr bool is_signed = SIGNED;              \
    static constexpr T min = MIN;                          \
    static constexpr T max = MAX;                          \
    typedef WIDE wide;                                     \
    static constexpr WIDE nan_as = NAN_AS;                 \
  };

DALI_INT_TRAITS(signed char, true, -128, 127, int, 0)
DALI_INT_TRAITS(unsigned char, false, 0, 255, int, 0)
DALI_INT_TRAITS(short, true, -32768, 32767, int, 0)
DALI_INT_TRAITS(unsigned short, false, 0, 65535, int, 0)
DALI_INT_TRAITS(int, true, -2147483647 - 1, 2147483647, int, -2147483647 - 1)
DALI_INT_TRAITS(unsigned int, false, 0u, 4294967295u, long long, 0)
DALI_INT_TRAITS(long long, true, -9223372036854775807ll - 1, 9223372036854775807ll,
                long long, -9223372036854775807ll - 1)
DALI_INT_TRAITS(unsigned long long, false, 0ull, 18446744073709551615ull,
                unsigned long long, 9223372036854775808ull)

template <>
struct dali_cast_traits<bool> {
  static constexpr int kind = DALI_BOOL;
};
template <>
struct dali_cast_traits<dali_half> {
  static constexpr int kind = DALI_HALF;
};
template <>
struct dali_cast_traits<float> {
  static constexpr int kind = DALI_FLOAT;
  static constexpr float half_eps = 5.9604644775390625e-08f;       // 2^-24
};
template <>
struct dali_cast_traits<double> {
  static constexpr int kind = DALI_FLOAT;
  static constexpr double half_eps = 1.1102230246251565404e-16;     // 2^-53
};

template <typename A, typename B>
struct dali_same {
  static constexpr bool value = false;
};
template <typename A>
struct dali_same<A, A> {
  static constexpr bool value = true;
};

// a < b for integers of any signedness (all at most 64 bits)
template <typename A, typename B>
__device__ __forceinline__ constexpr bool dali_less(A a, B b) {
  constexpr bool sa = dali_cast_traits<A>::is_signed, sb = dali_cast_traits<B>::is_signed;
  if constexpr (sa == sb)
    return a < b;
  else if constexpr (sa)
    return a < 0 || (unsigned long long)a < (unsigned long long)b;
  else
    return b >= 0 && (unsigned long long)a < (unsigned long long)b;
}

__device__ __forceinline__ dali_half dali_double_to_half(double d) {
  unsigned long long x = (unsigned long long)__double_as_longlong(d);
  const unsigned short sign = (unsigned short)((x >> 48) & 0x8000u);
  x &= 0x7fffffffffffffffull;
  if (x >= 0x40f0000000000000ull)          // |d| >= 65536, inf or NaN
    return dali_half{(unsigned short)(sign | (x > 0x7ff0000000000000ull ? 0x7e00u : 0x7c00u))};
  if (x < 0x3f10000000000000ull) {         // below 2^-14: 2^28's ulp is the subnormal step
    const double aligned = __longlong_as_double((long long)x) + 268435456.0;
    return dali_half{(unsigned short)(sign | (unsigned short)((aligned - 268435456.0) *
                                                              16777216.0))};
  }
  x -= 1008ull << 52;                      // rebias, round the 42 dropped bits to even
  x += ((1ull << 41) - 1) + ((x >> 42) & 1u);
  return dali_half{(unsigned short)(sign | (unsigned short)(x >> 42))};
}

template <typename T>
__device__ __forceinline__ T dali_widen(T x) { return x; }
__device__ __forceinline__ float dali_widen(dali_half x) { return dali_half_to_float(x); }

// float (F: float or double) -> integer D: clamped below max(D) in F, so that truncating to
// `wide` is exact and so is the remainder that rounds half away from zero
template <typename D, typename F>
__device__ __forceinline__ D dali_float_to_int(F v) {
  typedef dali_cast_traits<D> DL;
  typedef typename DL::wide I;
  const F hi = (F)DL::max, lo = (F)DL::min;
  const F below_hi = hi * ((F)1 - dali_cast_traits<F>::half_eps);
  F c = v != v ? (F)0 : v;
  c = c < lo ? lo : c;
  c = c > below_hi ? below_hi : c;
  const I t = (I)c;
  const F r = c - (F)t;
  I out = t + (I)(r >= (F)0.5) - (I)(r <= (F)-0.5);
  out = v >= hi ? (I)DL::max : out;
  out = v != v ? DL::nan_as : out;
  return (D)out;
}

template <typename D, typename S>
__device__ __forceinline__ D dali_convert(S x) {
  constexpr int sk = dali_cast_traits<S>::kind, dk = dali_cast_traits<D>::kind;
  if constexpr (dali_same<D, S>::value) {
    return x;
  } else if constexpr (sk == DALI_BOOL) {
    if constexpr (dk == DALI_HALF)
      return dali_half{(unsigned short)(x ? 0x3c00u : 0u)};
    else
      return (D)(x ? 1 : 0);
  } else if constexpr (dk == DALI_BOOL) {
    if constexpr (sk == DALI_INT) {
      return x != 0;
    } else {
      const auto v = dali_widen(x);
      return v >= 0.5 || v <= -0.5 || v != v;
    }
  } else if constexpr (dk == DALI_HALF) {
    if constexpr (dali_same<S, float>::value)
      return dali_float_to_half(x);
    else
      return dali_double_to_half((double)x);   // integers: exact where the result is finite
  } else if constexpr (dk == DALI_FLOAT) {
    return (D)dali_widen(x);
  } else if constexpr (sk != DALI_INT) {
    if constexpr (sizeof(D) < 8 && !dali_same<S, double>::value)
      return dali_float_to_int<D, float>(dali_widen(x));
    else
      return dali_float_to_int<D, double>((double)dali_widen(x));
  } else {                                   // integer -> integer
    typedef dali_cast_traits<D> DL;
    typedef dali_cast_traits<S> SL;
    if constexpr (dali_less(SL::min, DL::min)) {
      if (dali_less(x, DL::min)) return DL::min;
    }
    if constexpr (dali_less(DL::max, SL::max)) {
      if (dali_less(DL::max, x)) return DL::max;
    }
    return (D)x;
  }
}

template <typename D, typename S>
__device__ __forceinline__ void dali_cast(const S* __restrict__ src, D* __restrict__ dst,
                                          long long n) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    dst[i] = dali_convert<D, S>(src[i]);
}

#define DALI_CAST_KERNEL(SN, S, DN, D)                                                   \
  extern "C" __global__ void cast_##SN##_##DN(const S* src, D* dst, long long n) {      \
    dali_cast<D, S>(src, dst, n);                                                        \
  }

#define DALI_CAST_FROM(SN, S)                                                            \
  DALI_CAST_KERNEL(SN, S, bool, bool)                                                    \
  DALI_CAST_KERNEL(SN, S, i8, signed char)                                               \
  DALI_CAST_KERNEL(SN, S, u8, unsigned char)                                             \
  DALI_CAST_KERNEL(SN, S, i16, short)                                                    \
  DALI_CAST_KERNEL(SN, S, u16, unsigned short)                                           \
  DALI_CAST_KERNEL(SN, S, i32, int)                                                      \
  DALI_CAST_KERNEL(SN, S, u32, unsigned int)                                             \
  DALI_CAST_KERNEL(SN, S, i64, long long)                                                \
  DALI_CAST_KERNEL(SN, S, u64, unsigned long long)                                       \
  DALI_CAST_KERNEL(SN, S, f16, dali_half)                                                \
  DALI_CAST_KERNEL(SN, S, f32, float)                                                    \
  DALI_CAST_KERNEL(SN, S, f64, double)

DALI_CAST_FROM(bool, bool)
DALI_CAST_FROM(i8, signed char)
DALI_CAST_FROM(u8, unsigned char)
DALI_CAST_FROM(i16, short)
DALI_CAST_FROM(u16, unsigned short)
DALI_CAST_FROM(i32, int)
DALI_CAST_FROM(u32, unsigned int)
DALI_CAST_FROM(i64, long long)
DALI_CAST_FROM(u64, unsigned long long)
DALI_CAST_FROM(f16, dali_half)
DALI_CAST_FROM(f32, float)
DALI_CAST_FROM(f64, double)
