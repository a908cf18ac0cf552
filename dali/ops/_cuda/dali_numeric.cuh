// Numeric helpers shared by the kernels (`#include "dali_numeric.cuh"`): float16 storage and its
// conversions, and the loads and stores of DALI's CPU kernels (convert.pxd's `store`).
//
// - dali_half: float16 as 16-bit storage converted by hand (NVRTC has no cuda_fp16.h without
//   the CUDA headers); dali_half_to_float is exact, dali_float_to_half rounds to nearest even
//   and overflows to infinity (NaN stays NaN).
// - dali_load(x): the element as float32 (integers converted, float64 rounded).
// - dali_store(v, out): float32 v into *out: integers round half away from zero and saturate,
//   NaN gives 0 (the minimum for int32); float16 as dali_float_to_half.
//
// Both compilers find this folder: NVRTC through `--include-path` (dali/_gpu/nvrtc.py), the
// CPU emulation of tests/gpu through g++'s `-I` (tests/gpu/emulate.py).
#ifndef DALI_OPS_CUDA_DALI_NUMERIC_CUH_
#define DALI_OPS_CUDA_DALI_NUMERIC_CUH_

struct dali_half {                 // float16 storage, converted by hand (no CUDA headers)
  unsigned short bits;
};

__device__ __forceinline__ float dali_half_to_float(dali_half h) {
  const unsigned sign = (unsigned)(h.bits & 0x8000u) << 16;
  const unsigned exponent = (h.bits >> 10) & 0x1fu;
  const unsigned mantissa = h.bits & 0x3ffu;
  if (exponent == 0) {             // zero or subnormal: mantissa * 2^-24 is exact
    const float out = (float)mantissa * 5.9604644775390625e-08f;
    return sign ? -out : out;
  }
  if (exponent == 31) return __uint_as_float(sign | 0x7f800000u | (mantissa << 13));
  return __uint_as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

__device__ __forceinline__ dali_half dali_float_to_half(float f) {
  unsigned x = __float_as_uint(f);
  const unsigned sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x47800000u)            // |f| >= 65536, inf or NaN
    return dali_half{(unsigned short)(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u))};
  if (x < 0x38800000u) {           // below 2^-14: adding 0.5 rounds to the subnormal grid
    const unsigned aligned = __float_as_uint(__uint_as_float(x) + 0.5f);
    return dali_half{(unsigned short)(sign | (aligned - 0x3f000000u))};
  }
  x += 0xc8000fffu + ((x >> 13) & 1u);     // rebias, round the 13 dropped bits to even
  return dali_half{(unsigned short)(sign | (x >> 13))};
}

// ---- loads ---------------------------------------------------------------------------------
__device__ __forceinline__ float dali_load(unsigned char v) { return (float)v; }
__device__ __forceinline__ float dali_load(signed char v) { return (float)v; }
__device__ __forceinline__ float dali_load(unsigned short v) { return (float)v; }
__device__ __forceinline__ float dali_load(short v) { return (float)v; }
__device__ __forceinline__ float dali_load(unsigned int v) { return (float)v; }
__device__ __forceinline__ float dali_load(int v) { return (float)v; }
__device__ __forceinline__ float dali_load(long long v) { return (float)v; }
__device__ __forceinline__ float dali_load(float v) { return v; }
__device__ __forceinline__ float dali_load(double v) { return (float)v; }
__device__ __forceinline__ float dali_load(dali_half h) { return dali_half_to_float(h); }

// ---- stores --------------------------------------------------------------------------------
// convert.pxd's round_half_away, for |v| within int: exact, the remainder of a truncation has
// no rounding
__device__ __forceinline__ int dali_round_half_away(float v) {
  const int r = (int)v;
  const float rem = v - (float)r;
  return r + (rem >= 0.5f) - (rem <= -0.5f);
}

// v rounded half away from zero into [lo, hi] (narrow integers: lo and hi exact in float)
__device__ __forceinline__ int dali_sat_int(float v, int lo, int hi) {
  if (v != v) return 0;
  if (v <= (float)lo) return lo;
  if (v >= (float)hi) return hi;
  return dali_round_half_away(v);
}

__device__ __forceinline__ void dali_store(float v, unsigned char* out) {
  *out = (unsigned char)dali_sat_int(v, 0, 255);
}
__device__ __forceinline__ void dali_store(float v, signed char* out) {
  *out = (signed char)dali_sat_int(v, -128, 127);
}
__device__ __forceinline__ void dali_store(float v, unsigned short* out) {
  *out = (unsigned short)dali_sat_int(v, 0, 65535);
}
__device__ __forceinline__ void dali_store(float v, short* out) {
  *out = (short)dali_sat_int(v, -32768, 32767);
}
__device__ __forceinline__ void dali_store(float v, int* out) {
  if (v != v || v <= -2147483648.0f) {
    *out = -2147483647 - 1;
  } else if (v >= 2147483648.0f) {   // the float values >= 2147483647.0
    *out = 2147483647;
  } else if (v > 8388608.0f || v < -8388608.0f) {   // no fraction left from 2^23 on
    *out = (int)v;
  } else {
    *out = dali_round_half_away(v);
  }
}
__device__ __forceinline__ void dali_store(float v, unsigned int* out) {
  if (!(v > 0.f)) {                // also NaN
    *out = 0u;
  } else if (v >= 4294967296.0f) {   // the float values >= 4294967295.0
    *out = 4294967295u;
  } else if (v > 8388608.0f) {
    *out = (unsigned int)v;
  } else {
    *out = (unsigned int)dali_round_half_away(v);
  }
}
__device__ __forceinline__ void dali_store(float v, long long* out) {
  const double x = v == v ? (double)v : 0.0;
  if (x <= -9223372036854775808.0) {
    *out = (long long)(-9223372036854775807LL - 1);
  } else if (x >= 9223372036854775807.0) {
    *out = 9223372036854775807LL;
  } else {
    const double t = trunc(x), rem = x - t;
    *out = (long long)t + (rem >= 0.5) - (rem <= -0.5);
  }
}
__device__ __forceinline__ void dali_store(float v, float* out) { *out = v; }
__device__ __forceinline__ void dali_store(float v, double* out) { *out = (double)v; }
__device__ __forceinline__ void dali_store(float v, dali_half* out) {
  *out = dali_float_to_half(v);
}

#endif  // DALI_OPS_CUDA_DALI_NUMERIC_CUH_
