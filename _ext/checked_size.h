// Size arithmetic that reports overflow instead of wrapping (signed overflow is undefined in C,
// and a wrapped batch size would lease a small block that kernels then write past).  Both
// functions store a*b (a+b) in *out and return nonzero when it does not fit in int64.
#pragma once
#include <stdint.h>

static inline int dali_mul_overflows(int64_t a, int64_t b, int64_t* out) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_mul_overflow(a, b, out);
#else  // sizes are never negative here
  if (a != 0 && b > INT64_MAX / a) return 1;
  *out = a * b;
  return 0;
#endif
}

static inline int dali_add_overflows(int64_t a, int64_t b, int64_t* out) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_add_overflow(a, b, out);
#else
  if (b > INT64_MAX - a) return 1;
  *out = a + b;
  return 0;
#endif
}
