// fn.normalize on the GPU, the passes of the CPU kernel (_ext/kernels/normalize.pyx) with its
// arithmetic in the same order, so that the outputs are the same bit for bit:
//
// - normalize_stats_<in>: one thread per parameter (one combination of kept indices) loops
//   over the elements it reduces, in the order the CPU kernel adds them, in double: a row of
//   the innermost reduced group in eight partial sums ((a0 + a1) + (a2 + a3)) + ((a4 + a5) +
//   (a6 + a7)), added to the parameter's sum unit by unit; a plane of R rows of K kept
//   elements (K <= 64) in U = 64 / K partial sums of the rows r = u (mod U), added in order u
//   = 0..U-1, unit by unit; wider planes row by row.  `flags` as the CPU kernel's: SUM 1,
//   MEAN 2 (mean = float(sum / count)), SQ 4 (sums of (x - mean)^2), INV 8 (inv = float(scale /
//   sqrt(var)), var = sum / (count - ddof) + eps, 0 where var <= 0 or count <= ddof without
//   eps, or count == 0).  A thread runs its parameter's passes one after the other.
// - normalize_out_<in>_<out>: one thread per element: (float(x) - mean[p]) * inv[p] + shift in
//   float32, converted as convert.pxd's `store` does (integers round half away from zero and
//   saturate, NaN gives 0).
// in, out = i8 u8 i16 u16 i32 u32 f32.
//
// The host (dali/ops/math/_normalize_gpu.py) collapses each sample as the CPU kernel does
// (extents of 1 dropped, neighbouring reduced or kept axes merged: `nd` alternating groups),
// the last `outer` groups being the row (K == 0, n reduced elements) or the plane (R x K).
// Parameters of a sample lie at `poff` in the batch's mean, inv (float) and sums (double)
// arrays.  blockIdx.y is the sample, a grid-stride loop over x its parameters or elements.

#include "dali_numeric.cuh"

#define DALI_NORM_DIMS 16
#define DALI_NORM_BLOCK 64         // normalize.pyx's BLOCK: elements of a plane's block
#define DALI_NORM_SUM 1
#define DALI_NORM_MEAN 2
#define DALI_NORM_SQ 4
#define DALI_NORM_INV 8

struct NormSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long poff;                  // the sample's first parameter
  long long size;                  // elements
  long long nparams;
  long long count;                 // elements per parameter (size / nparams, 0 if none)
  long long nd;                    // collapsed groups
  long long outer;                 // groups before the row or plane
  long long n;                     // elements of a row or plane
  long long R, K;                  // a plane's rows and kept extent; K == 0: a row
  long long ext[DALI_NORM_DIMS];
  long long pstr[DALI_NORM_DIMS];  // parameter stride of a kept group, 0 for reduced ones
  long long estr[DALI_NORM_DIMS];  // element stride of the group
};

template <typename T>
__device__ __forceinline__ double dali_norm_value(const T* s, long long j, bool squared,
                                                  double m) {
  if (!squared) return (double)s[j];
  const double v = (double)s[j] - m;
  return v * v;
}

// normalize.pyx's _sum_row
template <typename T>
__device__ __forceinline__ double dali_norm_row(const T* s, long long n, bool squared,
                                                double m) {
  double a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  long long j = 0;
  for (; j + 8 <= n; j += 8)
    for (int lane = 0; lane < 8; lane++) a[lane] += dali_norm_value(s, j + lane, squared, m);
  for (int lane = 0; lane < n - j; lane++) a[lane] += dali_norm_value(s, j + lane, squared, m);
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

// normalize.pyx's _sum_plane for the column k: `acc` plus the plane's contribution
template <typename T>
__device__ __forceinline__ double dali_norm_plane(const T* s, long long R, long long K,
                                                  long long k, double acc, bool squared,
                                                  double m) {
  if (K > DALI_NORM_BLOCK) {
    for (long long r = 0; r < R; r++) acc += dali_norm_value(s, r * K + k, squared, m);
    return acc;
  }
  const long long U = DALI_NORM_BLOCK / K;
  for (long long u = 0; u < U; u++) {
    double blk = 0;
    for (long long r = u; r < R; r += U) blk += dali_norm_value(s, r * K + k, squared, m);
    acc += blk;
  }
  return acc;
}

// the sum (or sum of squared deviations from m) of parameter p: its units (the positions of
// the reduced outer groups, its kept outer indices fixed) in C order
template <typename T>
__device__ __forceinline__ double dali_norm_sum(const T* s, const NormSample& g, long long p,
                                                bool squared, double m) {
  if (g.size == 0) return 0;
  long long base = 0, units = 1;
  const long long k = g.K ? p % g.K : 0;
  for (int d = 0; d < g.outer; d++) {
    if (g.pstr[d])
      base += (p / g.pstr[d]) % g.ext[d] * g.estr[d];
    else
      units *= g.ext[d];
  }
  double acc = 0;
  for (long long u = 0; u < units; u++) {
    long long rest = u, at = base;
    for (int d = (int)g.outer - 1; d >= 0; d--) {
      if (g.pstr[d]) continue;
      const long long q = rest / g.ext[d];
      at += (rest - q * g.ext[d]) * g.estr[d];
      rest = q;
    }
    if (g.K == 0)
      acc += dali_norm_row(s + at, g.n, squared, m);
    else
      acc = dali_norm_plane(s + at, g.R, g.K, k, acc, squared, m);
  }
  return acc;
}

template <typename In>
__device__ __forceinline__ void dali_norm_stats(const In* __restrict__ src,
                                                const NormSample* __restrict__ samples,
                                                double* __restrict__ sums,
                                                float* __restrict__ mean,
                                                float* __restrict__ inv, int flags, float scale,
                                                float eps, int ddof) {
  const NormSample& g = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const In* s = src + g.src_offset;
  const long long count = g.count;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < g.nparams;
       p += step) {
    const long long at = g.poff + p;
    if (flags & DALI_NORM_SUM) {
      sums[at] = dali_norm_sum(s, g, p, false, 0.0);
      if (flags & DALI_NORM_MEAN)
        mean[at] = count ? (float)(sums[at] / (double)count) : (float)sums[at];
    }
    if (flags & DALI_NORM_SQ) {
      sums[at] = dali_norm_sum(s, g, p, true, (double)mean[at]);
      if (flags & DALI_NORM_INV) {
        if (count == 0 || (count <= ddof && eps == 0.f)) {
          inv[at] = 0.f;
        } else {
          const double var =
              (count > ddof ? sums[at] / (double)(count - ddof) : 0.0) + (double)eps;
          inv[at] = var > 0 ? (float)((double)scale / sqrt(var)) : 0.f;
        }
      }
    }
  }
}

template <typename In, typename Out>
__device__ __forceinline__ void dali_norm_out(const In* __restrict__ src, Out* __restrict__ dst,
                                              const NormSample* __restrict__ samples,
                                              const float* __restrict__ mean,
                                              const float* __restrict__ inv, float shift) {
  const NormSample& g = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const In* s = src + g.src_offset;
  Out* out = dst + g.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < g.size; i += step) {
    long long rest = i, p = g.poff;
    for (int d = (int)g.nd - 1; d >= 0; d--) {
      const long long q = rest / g.ext[d];
      p += (rest - q * g.ext[d]) * g.pstr[d];
      rest = q;
    }
    dali_store(((float)s[i] - mean[p]) * inv[p] + shift, &out[i]);
  }
}

#define DALI_NORM_STATS(IN, TIN)                                                             \
  extern "C" __global__ void normalize_stats_##IN(const TIN* src, const NormSample* samples, \
                                                  double* sums, float* mean, float* inv,     \
                                                  int flags, float scale, float eps,         \
                                                  int ddof) {                                \
    dali_norm_stats(src, samples, sums, mean, inv, flags, scale, eps, ddof);                 \
  }

#define DALI_NORM_OUT(IN, OUT, TIN, TOUT)                                                    \
  extern "C" __global__ void normalize_out_##IN##_##OUT(const TIN* src, TOUT* dst,           \
                                                        const NormSample* samples,           \
                                                        const float* mean, const float* inv, \
                                                        float shift) {                       \
    dali_norm_out(src, dst, samples, mean, inv, shift);                                      \
  }

#define DALI_NORM_KERNELS(IN, TIN)                 \
  DALI_NORM_STATS(IN, TIN)                         \
  DALI_NORM_OUT(IN, i8, TIN, signed char)          \
  DALI_NORM_OUT(IN, u8, TIN, unsigned char)        \
  DALI_NORM_OUT(IN, i16, TIN, short)               \
  DALI_NORM_OUT(IN, u16, TIN, unsigned short)      \
  DALI_NORM_OUT(IN, i32, TIN, int)                 \
  DALI_NORM_OUT(IN, u32, TIN, unsigned int)        \
  DALI_NORM_OUT(IN, f32, TIN, float)

DALI_NORM_KERNELS(i8, signed char)
DALI_NORM_KERNELS(u8, unsigned char)
DALI_NORM_KERNELS(i16, short)
DALI_NORM_KERNELS(u16, unsigned short)
DALI_NORM_KERNELS(i32, int)
DALI_NORM_KERNELS(u32, unsigned int)
DALI_NORM_KERNELS(f32, float)
