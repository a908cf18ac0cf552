// fn.gaussian_blur, fn.laplacian (separable convolutions) and fn.filter (a 2-D window) on the
// GPU, with the float32 operations of the CPU kernels (_ext/kernels/convolution.pyx) in the same
// order, so that the results are the CPU operator's bit for bit.
//
// A batch is cut into parts as on the CPU (a frame of FHWC, a channel plane of CHW); the host
// (dali/ops/filters/_convolution_gpu.py) describes every part of a launch with one row, and
// blockIdx.y is the part; a grid-stride loop over x covers its elements, one thread per output
// element.
//
// Separable: one launch per pass.  A pass views its part as outer x extent x inner and computes
// v = sum_k w[k] * in[o, reflect101(y + k - r), c] for k = 0..len-1, the taps added in order to
// a sum starting at 0, reading the input type (the first pass) or float32 (the others).  Then,
// by `mode`: PASS_PLAIN writes v (float32, the next pass's input); PASS_FIRST writes scale * v
// and PASS_ADD acc[i] + scale * v (the last pass of term 0, and of the next terms), converted
// to the output type (float32 when the output is the accumulator of the next term).
// sep_<in>_<out> for the pairs the host needs: <k>_f32, f32_<k> and <k>_<k> (one pass that is
// also the last) for k in u8 i8 u16 i16 u32 i32 f16 i64 f64, and f32_f32.
//
// Filter: out[y, x] = sum_i sum_j f[i, j] * in[y - ay + i, x - ax + j] over the non-zero taps
// (i-major, as OpenCV's filter2D skips zero taps), positions outside the part by the border
// mode (the constant one reads the part's fill value); volumes (the GPU only, as in DALI) add
// the depth as the outermost axis of the part, of the filter and of the sums; integer outputs
// are rounded half to
// even before the conversion (cvRound, as the __float2int_rn of DALI's GPU kernel).
// filter_<in>_<out>: u8, i8, i16, u16, f16 to themselves or f32, and f32_f32 (i8 and f16 on
// the GPU only, as in DALI).
//
// Conversions as DALI's CPU kernels (convert.pxd, convolution.h): integers round half away
// from zero and saturate, NaN gives 0 (the type's minimum for int32, 0 for uint32), float16
// rounds to nearest even; int64 and float64 are computed in float32 too.

#include "dali_numeric.cuh"

#define PASS_PLAIN 0
#define PASS_FIRST 1
#define PASS_ADD 2

#define BORDER_REFLECT_101 0
#define BORDER_REFLECT_1001 1
#define BORDER_WRAP 2
#define BORDER_CLAMP 3
#define BORDER_CONSTANT 4

struct SepPart {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long acc_offset;            // elements from the start of the accumulator (PASS_ADD)
  long long outer, extent, inner;  // the part as outer x extent x inner, convolved along extent
  long long win_offset;            // the window: floats from the start of `windows`
  long long win_len;               // odd
};

struct FilterPart {
  long long src_offset;
  long long dst_offset;
  long long depth, height, width, channels;   // the input part (channels interleaved; depth 1
                                              // for images)
  long long out_depth, out_height, out_width; // smaller than the input's in "valid" mode
  long long filt_offset;                      // the filter: fd x fh x fw floats, row-major
  long long fd, fh, fw;
  long long az, ay, ax;                       // the anchor
};

template <typename T>
__device__ __forceinline__ bool dali_is_float(const T*) { return false; }
__device__ __forceinline__ bool dali_is_float(const float*) { return true; }
__device__ __forceinline__ bool dali_is_float(const dali_half*) { return true; }

// ---- borders -------------------------------------------------------------------------------
// The index read for position i of an axis of extent n >= 1 (-1: the fill value), as the CPU
// kernel's `_border`.
__device__ __forceinline__ long long dali_border(long long i, long long n, int mode) {
  if (i >= 0 && i < n) return i;
  if (mode == BORDER_CONSTANT) return -1;
  if (mode == BORDER_CLAMP) return i < 0 ? 0 : n - 1;
  long long p;
  if (mode == BORDER_WRAP) {
    i %= n;
    return i < 0 ? i + n : i;
  }
  if (mode == BORDER_REFLECT_1001) {
    p = 2 * n;
    i %= p;
    if (i < 0) i += p;
    return i >= n ? p - 1 - i : i;
  }
  if (n == 1) return 0;
  p = 2 * (n - 1);
  i %= p;
  if (i < 0) i = -i;
  return i >= n ? p - i : i;
}

// ---- separable passes ----------------------------------------------------------------------
template <typename In, typename Out>
__device__ __forceinline__ void dali_sep_pass(const In* __restrict__ src, Out* dst,
                                              const float* acc,
                                              const float* __restrict__ windows,
                                              const SepPart* __restrict__ parts,
                                              const float* __restrict__ scales, int mode) {
  const SepPart& p = parts[blockIdx.y];
  const long long volume = p.outer * p.extent * p.inner;
  const long long step = (long long)gridDim.x * blockDim.x;
  const float* w = windows + p.win_offset;
  const int len = (int)p.win_len, r = len / 2;
  const float scale = scales[blockIdx.y];
  const In* in = src + p.src_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume; i += step) {
    const long long c = i % p.inner;
    const long long rest = i / p.inner;
    const long long y = rest % p.extent;
    const long long base = (rest - y) * p.inner + c;
    float v = 0.0f;
    for (int k = 0; k < len; k++)
      v = v + w[k] * dali_load(in[base + dali_border(y + k - r, p.extent, BORDER_REFLECT_101)
                                   * p.inner]);
    if (mode == PASS_FIRST) v = scale * v;
    else if (mode == PASS_ADD) v = acc[p.acc_offset + i] + scale * v;
    dali_store(v, &dst[p.dst_offset + i]);
  }
}

#define DALI_SEP_KERNEL(IN, OUT, TIN, TOUT)                                                  \
  extern "C" __global__ void sep_##IN##_##OUT(const TIN* src, TOUT* dst, const float* acc, \
                                              const float* windows, const SepPart* parts,  \
                                              const float* scales, int mode) {             \
    dali_sep_pass(src, dst, acc, windows, parts, scales, mode);                            \
  }

#define DALI_SEP_KERNELS(K, T)       \
  DALI_SEP_KERNEL(K, f32, T, float)  \
  DALI_SEP_KERNEL(f32, K, float, T)  \
  DALI_SEP_KERNEL(K, K, T, T)

DALI_SEP_KERNELS(u8, unsigned char)
DALI_SEP_KERNELS(i8, signed char)
DALI_SEP_KERNELS(u16, unsigned short)
DALI_SEP_KERNELS(i16, short)
DALI_SEP_KERNELS(u32, unsigned int)
DALI_SEP_KERNELS(i32, int)
DALI_SEP_KERNELS(f16, dali_half)
DALI_SEP_KERNELS(i64, long long)
DALI_SEP_KERNELS(f64, double)
DALI_SEP_KERNEL(f32, f32, float, float)

// ---- filter --------------------------------------------------------------------------------
template <typename In, typename Out>
__device__ __forceinline__ void dali_filter(const In* __restrict__ src, Out* __restrict__ dst,
                                            const float* __restrict__ filters,
                                            const FilterPart* __restrict__ parts,
                                            const float* __restrict__ fills, int border) {
  const FilterPart& p = parts[blockIdx.y];
  const long long nc = p.channels;
  const long long volume = p.out_depth * p.out_height * p.out_width * nc;
  const long long step = (long long)gridDim.x * blockDim.x;
  const float* f = filters + p.filt_offset;
  const float fill = fills[blockIdx.y];
  const In* in = src + p.src_offset;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < volume; e += step) {
    const long long c = e % nc;
    const long long x = (e / nc) % p.out_width;
    const long long y = (e / (nc * p.out_width)) % p.out_height;
    const long long z = e / (nc * p.out_width * p.out_height);
    float v = 0.0f;
    for (long long a = 0; a < p.fd; a++) {
      const long long sz = dali_border(z - p.az + a, p.depth, border);
      for (long long i = 0; i < p.fh; i++) {
        const long long sy = dali_border(y - p.ay + i, p.height, border);
        for (long long j = 0; j < p.fw; j++) {
          const float wv = f[(a * p.fh + i) * p.fw + j];
          if (wv != 0.0f) {
            const long long sx = dali_border(x - p.ax + j, p.width, border);
            const float value =
                sz < 0 || sy < 0 || sx < 0
                    ? fill
                    : dali_load(in[((sz * p.height + sy) * p.width + sx) * nc + c]);
            v = v + wv * value;
          }
        }
      }
    }
    if (!dali_is_float(dst)) v = rintf(v);    // OpenCV's rounding: halves to even
    dali_store(v, &dst[p.dst_offset + e]);
  }
}

#define DALI_FILTER_KERNEL(IN, OUT, TIN, TOUT)                                              \
  extern "C" __global__ void filter_##IN##_##OUT(const TIN* src, TOUT* dst,                \
                                                 const float* filters,                     \
                                                 const FilterPart* parts, const float* fills, \
                                                 int border) {                             \
    dali_filter(src, dst, filters, parts, fills, border);                                  \
  }

DALI_FILTER_KERNEL(u8, u8, unsigned char, unsigned char)
DALI_FILTER_KERNEL(u8, f32, unsigned char, float)
DALI_FILTER_KERNEL(i8, i8, signed char, signed char)
DALI_FILTER_KERNEL(i8, f32, signed char, float)
DALI_FILTER_KERNEL(f16, f16, dali_half, dali_half)
DALI_FILTER_KERNEL(f16, f32, dali_half, float)
DALI_FILTER_KERNEL(i16, i16, short, short)
DALI_FILTER_KERNEL(i16, f32, short, float)
DALI_FILTER_KERNEL(u16, u16, unsigned short, unsigned short)
DALI_FILTER_KERNEL(u16, f32, unsigned short, float)
DALI_FILTER_KERNEL(f32, f32, float, float)
