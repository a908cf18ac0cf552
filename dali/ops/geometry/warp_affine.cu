// fn.warp_affine and fn.rotate on the GPU: the affine warp of every HWC image (a sample, or a
// frame of an FHWC sample) by its output->input matrix, nearest-neighbour or linear, with a
// fill value or the clamped edge outside the input; one thread per output pixel (all its
// channels), written in output order.
//
// The arithmetic is the CPU kernel's (_ext/kernels/warp.pyx), operation for operation in
// float32: the source position of output pixel (y, x) starts at the row's
// m[1] * (y + 0.5) + (m[0] * 0.5 + m[2]) (likewise y with m[4], m[3], m[5]) and advances by
// adding m[0] (m[3]) once per pixel, as the CPU row loop does, so that positions on pixel
// boundaries resolve to the same pixels; linear blends are a + (b - a) * f; integer outputs
// round half away from zero and saturate (convert.pxd's `store`).
//
// The host (dali/ops/geometry/_warp_affine_gpu.py) describes each image with one WarpImage;
// blockIdx.y is the image, a grid-stride loop over x covers its output pixels.
// Kernels: warp_<in>_<out> for u8, i16, i32 to themselves or f32, and f32 to u8, i16, i32, f32.

#include "dali_numeric.cuh"

struct WarpImage {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long h, w, c;               // the input image
  long long oh, ow;                // the output image (c channels too)
  long long matrix;                // its row of `matrices` (6 floats)
};

// one pixel's channels, nearest neighbour: integer inputs keep their value exactly
template <typename S, typename D>
__device__ __forceinline__ void dali_copy_px(const S* px, D* out, long long nc) {
  for (long long c = 0; c < nc; c++) out[c] = (D)px[c];
}
template <typename S>
__device__ __forceinline__ void dali_copy_px(const S* px, float* out, long long nc) {
  for (long long c = 0; c < nc; c++) out[c] = (float)px[c];
}
template <typename D>
__device__ __forceinline__ void dali_copy_px(const float* px, D* out, long long nc) {
  for (long long c = 0; c < nc; c++) dali_store(px[c], &out[c]);
}
__device__ __forceinline__ void dali_copy_px(const float* px, float* out, long long nc) {
  for (long long c = 0; c < nc; c++) out[c] = px[c];
}

__device__ __forceinline__ long long dali_clamp(long long i, long long n) {
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

// floor(x) limited to [-2, n + 1] (interpolation.pxd's floor_index)
__device__ __forceinline__ long long dali_floor_index(float x, long long n) {
  if (!(x >= -2.f)) return -2;
  if (x >= (float)(n + 1)) return n + 1;
  const long long i = (long long)x;
  return x < (float)i ? i - 1 : i;
}

template <typename S, typename D>
__device__ __forceinline__ void dali_warp_linear(const S* src, long long h, long long w,
                                                 long long nc, D* out, float px, float py,
                                                 int use_fill, float fill) {
  const float xmax = (float)(w - 1), ymax = (float)(h - 1);
  if (px >= 0.f && px < xmax && py >= 0.f && py < ymax) {
    const long long xi = (long long)px, yi = (long long)py;
    const float fx = px - (float)xi, fy = py - (float)yi;
    const S* p00 = src + (yi * w + xi) * nc;
    const S* p10 = p00 + w * nc;
    for (long long c = 0; c < nc; c++) {
      const float top = (float)p00[c] + ((float)p00[c + nc] - (float)p00[c]) * fx;
      const float bottom = (float)p10[c] + ((float)p10[c + nc] - (float)p10[c]) * fx;
      dali_store(top + (bottom - top) * fy, &out[c]);
    }
    return;
  }
  const long long xi = dali_floor_index(px, w), yi = dali_floor_index(py, h);
  float fx = px - (float)xi, fy = py - (float)yi;
  const long long x1 = xi + 1, y1 = yi + 1;
  if (xi <= -2 || xi >= w + 1) fx = 0.f;       // far outside: keep inf * 0 out of the blend
  if (yi <= -2 || yi >= h + 1) fy = 0.f;
  const bool in00 = 0 <= xi && xi < w && 0 <= yi && yi < h;
  const bool in01 = 0 <= x1 && x1 < w && 0 <= yi && yi < h;
  const bool in10 = 0 <= xi && xi < w && 0 <= y1 && y1 < h;
  const bool in11 = 0 <= x1 && x1 < w && 0 <= y1 && y1 < h;
  const S* p00 = src + (dali_clamp(yi, h) * w + dali_clamp(xi, w)) * nc;
  const S* p01 = src + (dali_clamp(yi, h) * w + dali_clamp(x1, w)) * nc;
  const S* p10 = src + (dali_clamp(y1, h) * w + dali_clamp(xi, w)) * nc;
  const S* p11 = src + (dali_clamp(y1, h) * w + dali_clamp(x1, w)) * nc;
  for (long long c = 0; c < nc; c++) {
    float a, b;
    if (use_fill) {
      a = in00 ? (float)p00[c] : fill;
      b = in01 ? (float)p01[c] : fill;
    } else {
      a = (float)p00[c];
      b = (float)p01[c];
    }
    const float top = a + (b - a) * fx;
    if (use_fill) {
      a = in10 ? (float)p10[c] : fill;
      b = in11 ? (float)p11[c] : fill;
    } else {
      a = (float)p10[c];
      b = (float)p11[c];
    }
    const float bottom = a + (b - a) * fx;
    dali_store(top + (bottom - top) * fy, &out[c]);
  }
}

template <typename S, typename D>
__device__ __forceinline__ void dali_warp(const S* __restrict__ src, D* __restrict__ dst,
                                          const WarpImage* __restrict__ images,
                                          const float* __restrict__ matrices, int interp,
                                          int use_fill, float fill) {
  const WarpImage& im = images[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long pixels = im.oh * im.ow, nc = im.c, h = im.h, w = im.w;
  const S* in = src + im.src_offset;
  const float* m = matrices + im.matrix * 6;
  const float half = 0.5f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < pixels; i += step) {
    const long long y = i / im.ow, x = i - y * im.ow;
    D* out = dst + im.dst_offset + i * nc;
    if (h == 0 || w == 0) {
      for (long long c = 0; c < nc; c++) dali_store(use_fill ? fill : 0.f, &out[c]);
      continue;
    }
    const float x0 = m[0] * half + m[2];
    const float y0 = m[3] * half + m[5];
    float sx = m[1] * ((float)y + half) + x0;
    float sy = m[4] * ((float)y + half) + y0;
    for (long long k = 0; k < x; k++) {      // the CPU row loop's running sums
      sx = sx + m[0];
      sy = sy + m[3];
    }
    if (interp == 1) {
      dali_warp_linear(in, h, w, nc, out, sx - half, sy - half, use_fill, fill);
    } else if (sx >= 0.f && sx < (float)w && sy >= 0.f && sy < (float)h) {
      dali_copy_px(in + ((long long)sy * w + (long long)sx) * nc, out, nc);
    } else if (use_fill) {
      for (long long c = 0; c < nc; c++) dali_store(fill, &out[c]);
    } else {
      const long long xi = dali_floor_index(sx, w), yi = dali_floor_index(sy, h);
      dali_copy_px(in + (dali_clamp(yi, h) * w + dali_clamp(xi, w)) * nc, out, nc);
    }
  }
}

#define DALI_WARP_KERNEL(IN, OUT, TIN, TOUT)                                                 \
  extern "C" __global__ void warp_##IN##_##OUT(const TIN* src, TOUT* dst,                  \
                                               const WarpImage* images,                    \
                                               const float* matrices, int interp,          \
                                               int use_fill, float fill) {                 \
    dali_warp(src, dst, images, matrices, interp, use_fill, fill);                          \
  }

DALI_WARP_KERNEL(u8, u8, unsigned char, unsigned char)
DALI_WARP_KERNEL(u8, f32, unsigned char, float)
DALI_WARP_KERNEL(i16, i16, short, short)
DALI_WARP_KERNEL(i16, f32, short, float)
DALI_WARP_KERNEL(i32, i32, int, int)
DALI_WARP_KERNEL(i32, f32, int, float)
DALI_WARP_KERNEL(f32, u8, float, unsigned char)
DALI_WARP_KERNEL(f32, i16, float, short)
DALI_WARP_KERNEL(f32, i32, float, int)
DALI_WARP_KERNEL(f32, f32, float, float)
