// The decibel conversion (fn.to_decibels) of one float32 sample:
//   out = multiplier * log10(max(min_ratio, x / reference)),
// reference being the sample's maximum when not given, min_ratio = 10^(cutoff_db / multiplier).
// In float, as DALI; x / reference is NaN for a sample of zeros with no reference given, and
// max(min_ratio, NaN) is min_ratio there (the comparison is false), as in DALI.
//
// log10 is Cephes' logf polynomial (relative error about 1e-7) on the exponent and mantissa
// taken from the float's bits, without branches so that the loop vectorizes (libm's log10f is
// a call per element, twice as slow as the whole conversion).  It holds for positive normal
// numbers and infinity; a minimum ratio below FLT_MIN (cutoff_db under about -380 dB with the
// default multiplier) lets subnormal ratios through, and those samples take log10f.
//
// The loops are compiled twice: for the build's level (SSE4.2: 4 floats a vector) and for AVX2
// (8), taken at run time where the CPU has it (dali_decibels_avx2).  Both do the same float
// operations in the same order (no fused multiply-add: the target is "avx2" only), so the
// results are bit for bit the same.
#ifndef DALI_EXT_KERNELS_DECIBELS_H_
#define DALI_EXT_KERNELS_DECIBELS_H_

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  const float* x;
  float* out;
  int64_t n;
  float multiplier, reference, min_ratio;   // reference <= 0 (not given): the sample's max
  int use_max;
} dali_decibels_job;

// log10(x) for a positive normal x or +inf.
static inline float dali_log10_approx(float x) {
  // x = m 2^e with m in [sqrt(1/2), sqrt(2)): musl's integer split, no branch
  uint32_t bits;
  memcpy(&bits, &x, 4);
  uint32_t ix = bits - 0x3f3504f3u;
  int32_t e = (int32_t)ix >> 23;
  uint32_t mbits = (ix & 0x007fffffu) + 0x3f3504f3u;
  float m;
  memcpy(&m, &mbits, 4);
  float f = m - 1.0f;
  float z = f * f;
  float y = ((((((((7.0376836292e-2f * f - 1.1514610310e-1f) * f + 1.1676998740e-1f) * f
                  - 1.2420140846e-1f) * f + 1.4249322787e-1f) * f - 1.6668057665e-1f) * f
                + 2.0000714765e-1f) * f - 2.4999993993e-1f) * f + 3.3333331174e-1f) * f * z;
  float fe = (float)e;
  y += -2.12194440e-4f * fe;
  y += -0.5f * z;
  float ln = f + y + 0.693359375f * fe;
  float out = ln * 0.434294481903251828f;
  // +inf stays +inf: a blend of the bits (a conditional would stop the vectorization)
  uint32_t obits, keep = (uint32_t)0 - (uint32_t)(bits == 0x7f800000u);
  memcpy(&obits, &out, 4);
  obits = (obits & ~keep) | (bits & keep);
  memcpy(&out, &obits, 4);
  return out;
}

static int dali_decibels_avx2 = 0;

static void dali_decibels_detect(void) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  dali_decibels_avx2 = __builtin_cpu_supports("avx2");
#endif
}

// The conversion of n elements with the reference's inverse `inv` (loops of their own: inlined
// into the one below them they are not vectorized).
__attribute__((always_inline)) static inline void dali_decibels_span_loop(
    const float* __restrict__ x, float* __restrict__ out, int64_t n, float inv, float lo,
    float mul) {
  for (int64_t i = 0; i < n; i++) {
    float r = x[i] * inv;
    out[i] = mul * dali_log10_approx(lo < r ? r : lo);
  }
}

// The largest of n > 0 elements, in 8 lanes (a loop that vectorizes).
__attribute__((always_inline)) static inline float dali_decibels_max_loop(
    const float* __restrict__ x, int64_t n) {
  float lane[8];
  for (int b = 0; b < 8; b++)
    lane[b] = x[0];
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int b = 0; b < 8; b++)
      lane[b] = x[i + b] > lane[b] ? x[i + b] : lane[b];
  float m = lane[0];
  for (int b = 1; b < 8; b++)
    m = lane[b] > m ? lane[b] : m;
  for (; i < n; i++)
    m = x[i] > m ? x[i] : m;
  return m;
}

#if defined(__x86_64__)
#define DALI_DECIBELS_AVX2 __attribute__((noinline, target("avx2")))
#else
#define DALI_DECIBELS_AVX2 __attribute__((noinline))
#endif

__attribute__((noinline)) static void dali_decibels_span_base(
    const float* __restrict__ x, float* __restrict__ out, int64_t n, float inv, float lo,
    float mul) {
  dali_decibels_span_loop(x, out, n, inv, lo, mul);
}

DALI_DECIBELS_AVX2 static void dali_decibels_span_avx2(
    const float* __restrict__ x, float* __restrict__ out, int64_t n, float inv, float lo,
    float mul) {
  dali_decibels_span_loop(x, out, n, inv, lo, mul);
}

__attribute__((noinline)) static float dali_decibels_max_base(const float* __restrict__ x,
                                                              int64_t n) {
  return dali_decibels_max_loop(x, n);
}

DALI_DECIBELS_AVX2 static float dali_decibels_max_avx2(const float* __restrict__ x, int64_t n) {
  return dali_decibels_max_loop(x, n);
}

static inline void dali_decibels_run(const dali_decibels_job* j) {
  float ref = j->reference;
  if (j->use_max)
    ref = !j->n ? 0.0f : dali_decibels_avx2 ? dali_decibels_max_avx2(j->x, j->n)
                                            : dali_decibels_max_base(j->x, j->n);
  float inv = 1.0f / ref, lo = j->min_ratio;
  if (lo >= FLT_MIN) {
    if (dali_decibels_avx2)
      dali_decibels_span_avx2(j->x, j->out, j->n, inv, lo, j->multiplier);
    else
      dali_decibels_span_base(j->x, j->out, j->n, inv, lo, j->multiplier);
    return;
  }
  for (int64_t i = 0; i < j->n; i++) {
    float r = j->x[i] * inv;
    j->out[i] = j->multiplier * log10f(lo < r ? r : lo);
  }
}

#endif  // DALI_EXT_KERNELS_DECIBELS_H_
