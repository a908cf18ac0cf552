// fn.jitter on the GPU, the CPU kernel's rule (_ext/kernels/displace.pyx) with its random
// draws: output pixel (y, x) of an HWC image reads the input at (jx, jy) = (clamp(x + rx, 0, W),
// clamp(y + ry, 0, H)), r = min(int(u * degree), degree - 1) - degree / 2, where u is draw
// y * W + x (rx) or H * W + y * W + x (ry) of the sample's stream: draw k is the top 53 bits of
// words (0, 1) (k even) or (2, 3) (k odd) of Philox4x32-10 block (sample id low, sample id
// high, stream, k / 2) with the operator's key, times 2^-53 (_ext/rng.pyx).
//
// Nearest neighbour copies the pixel at (jx, jy) or writes `fill` (jx == W or jy == H);
// linear blends the four pixel centres around (jx - 0.5, jy - 0.5) in float32 as the CPU's
// `_displace` does (`a + (b - a) * f`, rows then columns; outside pixels read `fill`), then
// converts (uint8: round half away from zero and saturate).  A sample whose mask is 0 is
// copied.  jitter_u8, jitter_f32: one thread per output element, blockIdx.y the sample.
//
// fn.water and fn.sphere sample the input the same way (nearest neighbour: the pixel holding
// the position, `fill` outside; linear as above) at the CPU kernel's float32 positions:
// water_u8, water_f32: (x + waves[y], y + waves[H + x]), the sample's wave terms given by the
// host as the CPU kernel computes them (`displace.water_waves`, libm's sinf and cosf), from
// float `extra` of `waves` on; sphere_u8, sphere_f32: with m = (W * 0.5, H * 0.5),
// d = int(max(m)) and t = (x + 0.5 - m_x, y + 0.5 - m_y), m + t * (sqrtf(t_x^2 + t_y^2) / d),
// in the order of displace_rows.h (correctly rounded operations only).

#include "dali_numeric.cuh"
#include "dali_philox.cuh"

struct JitterSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long h, w, c;
  long long extra;                 // jitter: the sample id; water: its first wave term
  long long apply;                 // the mask: 0 copies the sample
};

// displace.pyx's _jitter_index: i + r - degree / 2 clamped to [0, n]
__device__ __forceinline__ long long dali_jitter_index(long long i, long long n, double u,
                                                       int degree) {
  const int r = (int)(u * degree);
  i += (r < degree ? r : degree - 1) - degree / 2;
  return i < 0 ? 0 : (i > n ? n : i);
}

// interpolation.pxd's floor_index: floor(x) limited to [-2, n + 1]
__device__ __forceinline__ long long dali_jitter_floor(float x, long long n) {
  if (!(x >= -2.f)) return -2;
  if (x >= (float)(n + 1)) return n + 1;
  const long long i = (long long)x;
  return x < (float)i ? i - 1 : i;
}


template <typename T>
__device__ __forceinline__ float dali_jitter_at(const T* src, long long h, long long w,
                                                long long nc, long long y, long long x,
                                                long long c, float fill) {
  if (0 <= x && x < w && 0 <= y && y < h) return dali_load(src[(y * w + x) * nc + c]);
  return fill;
}

// out = the input at float position (px, py): the CPU `_displace`'s sampling
template <typename T>
__device__ __forceinline__ void dali_displace_at(const T* __restrict__ in, T* out, long long h,
                                                 long long w, long long nc, long long c,
                                                 float px, float py, int linear, float fill) {
  if (!linear) {
    const long long xi = dali_jitter_floor(px, w), yi = dali_jitter_floor(py, h);
    if (0 <= xi && xi < w && 0 <= yi && yi < h)
      *out = in[(yi * w + xi) * nc + c];
    else
      dali_store(fill, out);
    return;
  }
  px = px - 0.5f;
  py = py - 0.5f;
  const long long xi = dali_jitter_floor(px, w), yi = dali_jitter_floor(py, h);
  float fx = px - (float)xi, fy = py - (float)yi;
  if (xi <= -2 || xi >= w + 1) fx = 0.f;
  if (yi <= -2 || yi >= h + 1) fy = 0.f;
  float a = dali_jitter_at(in, h, w, nc, yi, xi, c, fill);
  float b = dali_jitter_at(in, h, w, nc, yi, xi + 1, c, fill);
  const float top = a + (b - a) * fx;
  a = dali_jitter_at(in, h, w, nc, yi + 1, xi, c, fill);
  b = dali_jitter_at(in, h, w, nc, yi + 1, xi + 1, c, fill);
  const float bottom = a + (b - a) * fx;
  dali_store(top + (bottom - top) * fy, out);
}

enum { DALI_JITTER = 0, DALI_WATER = 1, DALI_SPHERE = 2 };

template <int MODE, typename T>
__device__ __forceinline__ void dali_displace(const T* __restrict__ src, T* __restrict__ dst,
                                              const JitterSample* __restrict__ samples,
                                              unsigned long long key, unsigned stream,
                                              int degree, const float* __restrict__ waves,
                                              int linear, float fill) {
  const JitterSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long h = s.h, w = s.w, nc = s.c, volume = h * w * nc;
  const T* in = src + s.src_offset;
  T* out = dst + s.dst_offset;
  const float mid_x = (float)w * 0.5f, mid_y = (float)h * 0.5f;
  const float d = (float)(int)(mid_x > mid_y ? mid_x : mid_y);
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume;
       i += step) {
    if (!s.apply) {
      out[i] = in[i];
      continue;
    }
    const long long p = i / nc, c = i - p * nc, y = p / w, x = p - y * w;
    float px, py;
    if (MODE == DALI_JITTER) {
      px = (float)dali_jitter_index(x, w, dali_uniform_draw(key, s.extra, stream, p), degree);
      py = (float)dali_jitter_index(y, h, dali_uniform_draw(key, s.extra, stream, h * w + p),
                                    degree);
    } else if (MODE == DALI_WATER) {
      px = (float)x + waves[s.extra + y];
      py = (float)y + waves[s.extra + h + x];
    } else {
      const float ty = (float)y + 0.5f - mid_y, tx = (float)x + 0.5f - mid_x;
      const float rad = sqrtf(tx * tx + ty * ty) / d;
      px = mid_x + rad * tx;
      py = mid_y + rad * ty;
    }
    dali_displace_at(in, out + i, h, w, nc, c, px, py, linear, fill);
  }
}

extern "C" __global__ void jitter_u8(const unsigned char* src, unsigned char* dst,
                                     const JitterSample* samples, unsigned long long key,
                                     unsigned stream, int degree, int linear, float fill) {
  dali_displace<DALI_JITTER>(src, dst, samples, key, stream, degree, nullptr, linear, fill);
}

extern "C" __global__ void jitter_f32(const float* src, float* dst, const JitterSample* samples,
                                      unsigned long long key, unsigned stream, int degree,
                                      int linear, float fill) {
  dali_displace<DALI_JITTER>(src, dst, samples, key, stream, degree, nullptr, linear, fill);
}

#define DALI_DISPLACE_KERNEL(NAME, MODE, T)                                                 \
  extern "C" __global__ void NAME(const T* src, T* dst, const JitterSample* samples,        \
                                  const float* waves, int linear, float fill) {             \
    dali_displace<MODE>(src, dst, samples, 0ull, 0u, 1, waves, linear, fill);               \
  }

DALI_DISPLACE_KERNEL(water_u8, DALI_WATER, unsigned char)
DALI_DISPLACE_KERNEL(water_f32, DALI_WATER, float)
DALI_DISPLACE_KERNEL(sphere_u8, DALI_SPHERE, unsigned char)
DALI_DISPLACE_KERNEL(sphere_f32, DALI_SPHERE, float)
