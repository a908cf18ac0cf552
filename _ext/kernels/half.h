// IEEE 754 binary16 <-> binary32 conversions for the CPU kernels (no compiler support needed).
//
// float -> half rounds to nearest, ties to even, like numpy's astype(float16) and CUDA's
// __float2half_rn: values from 65520 up overflow to infinity, NaN stays NaN (quiet).
#ifndef DALI_EXT_KERNELS_HALF_H_
#define DALI_EXT_KERNELS_HALF_H_

#include <stdint.h>
#include <string.h>

static inline float dali_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  float out;
  if (exponent == 0) {
    // zero or subnormal: mantissa * 2^-24 is exact in float
    out = (float)mantissa * 5.9604644775390625e-08f;
    return sign ? -out : out;
  }
  if (exponent == 31)
    bits = sign | 0x7f800000u | (mantissa << 13);
  else
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  memcpy(&out, &bits, sizeof(out));
  return out;
}

static inline uint16_t dali_float_to_half(float f) {
  uint32_t x, sign;
  memcpy(&x, &f, sizeof(x));
  sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x47800000u) {                  // |f| >= 65536, inf or NaN
    if (x > 0x7f800000u)
      return (uint16_t)(sign | 0x7e00u);   // NaN
    return (uint16_t)(sign | 0x7c00u);     // overflow -> inf
  }
  if (x < 0x38800000u) {                   // below the smallest normal half (2^-14)
    // Adding 0.5 (as a float) aligns the result's bits to the half subnormal grid; the
    // float addition does the round-to-nearest-even.
    float mag, aligned;
    uint32_t abits;
    memcpy(&mag, &x, sizeof(mag));
    aligned = mag + 0.5f;
    memcpy(&abits, &aligned, sizeof(abits));
    return (uint16_t)(sign | (abits - 0x3f000000u));
  }
  // normal: rebias the exponent and round the 13 dropped mantissa bits to nearest even; a
  // carry out of the mantissa correctly bumps the exponent (up to infinity)
  x += 0xc8000fffu + ((x >> 13) & 1u);     // (15 - 127) << 23, plus rounding bias
  return (uint16_t)(sign | (x >> 13));
}

#endif  // DALI_EXT_KERNELS_HALF_H_
