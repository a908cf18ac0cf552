// fn.experimental.warp_perspective on the GPU: the CPU kernel's two algorithms (OpenCV's, as
// _ext/kernels/warp_perspective.h reproduces them), one thread per output pixel (all its
// channels), blockIdx.y the image (a sample, a frame or a plane), a grid-stride loop over x.
//
// Fixed-point path (int16 images, and 2-channel ones): the position in double,
// (M0 * xb + M1 * y + M2) + M0 * x1 over OpenCV's blocks of bw0 pixels (bh0 = min(16, oh),
// bw0 = min(1024 / bh0, ow), xb the block's first pixel, x1 = x - xb); nearest rounds it
// (rint), linear rounds it times 32 and blends the 2x2 neighbours with weights in 1/32 steps,
// in float (integers rounded to nearest even and saturated) or, for uint8, in Q15 integers.
// Float path (uint8, uint16, float of 1, 3 or 4 channels): nearest rounds (X / W, Y / W)
// computed in double and converted to float; linear takes X = fmaf(m0, x, m1 * y + m2) in
// float32 (likewise Y, W), X / W split into floor and fraction and blends with fmaf.
// Borders: constant (the fill value), replicate, reflect, reflect_101, wrap (OpenCV's
// borderInterpolate).  Every operation is the CPU scalar loop's, so the outputs are equal bit
// for bit (the CPU's vector loops compute the same values).
//
// Kernels: warp_perspective_u8, _u16, _i16, _f32 (src, dst, images, matrices, fills, interp,
// border): `images` one WarpPerspectiveImage per image, `matrices` (rows of 9 doubles, output
// -> input, pixel (0, 0) centred at (0, 0)), `fills` (rows of 4 doubles, values of the type).

struct WarpPerspectiveImage {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long h, w, c, oh, ow;
  long long matrix;                // its row of `matrices`
  long long fill;                  // its row of `fills`
};

#define DALI_WP_INT_MIN (-2147483647 - 1)
#define DALI_WP_INT_MAX 2147483647

// OpenCV's borderInterpolate: the index of p in [0, len), -1 for a constant border
__device__ __forceinline__ int dali_wp_border(int p, int len, int mode) {
  if ((unsigned)p < (unsigned)len) return p;
  if (mode == 1) return p < 0 ? 0 : len - 1;
  if (mode == 2 || mode == 3) {
    const int delta = mode == 3;
    if (len == 1) return 0;
    do {
      if (p < 0)
        p = -p - 1 + delta;
      else
        p = len - 1 - (p - len) - delta;
    } while ((unsigned)p >= (unsigned)len);
    return p;
  }
  if (mode == 4) {
    if (p < 0) p -= ((p - len + 1) / len) * len;
    if (p >= len) p %= len;
    return p;
  }
  return -1;
}

// std::max(INT_MIN, std::min(INT_MAX, v)) rounded: NaN gives INT_MAX, as on the CPU
__device__ __forceinline__ int dali_wp_clamp_int(double v) {
  double m = (v < (double)DALI_WP_INT_MAX) ? v : (double)DALI_WP_INT_MAX;
  m = ((double)DALI_WP_INT_MIN < m) ? m : (double)DALI_WP_INT_MIN;
  return (int)rint(m);
}

__device__ __forceinline__ int dali_wp_sat_short(int v) {
  return v < -32768 ? -32768 : (v > 32767 ? 32767 : v);
}

// x86's float -> int conversions: out of range and NaN give INT_MIN
__device__ __forceinline__ int dali_wp_floor_int(float v) {
  if (!(v >= -2147483648.f && v < 2147483648.f)) return DALI_WP_INT_MIN;
  const int i = (int)v;
  return i - ((float)i > v);
}

__device__ __forceinline__ int dali_wp_round_int(float v) {      // halves to even
  if (!(v >= -2147483648.f && v < 2147483648.f)) return DALI_WP_INT_MIN;
  return (int)rintf(v);
}

__device__ __forceinline__ int dali_wp_clip(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// the float path's stores
__device__ __forceinline__ void dali_wp_store(float v, unsigned char* out) {
  *out = (unsigned char)dali_wp_clip(dali_wp_round_int(v), 0, 255);
}
__device__ __forceinline__ void dali_wp_store(float v, unsigned short* out) {
  *out = (unsigned short)dali_wp_clip(dali_wp_round_int(v), 0, 65535);
}
__device__ __forceinline__ void dali_wp_store(float v, short* out) {
  *out = (short)dali_wp_clip(dali_wp_round_int(v), -32768, 32767);
}
__device__ __forceinline__ void dali_wp_store(float v, float* out) { *out = v; }

// the fixed path's blend of four neighbours with the weights of index a (ay * 32 + ax)
template <typename T>
__device__ __forceinline__ T dali_wp_blend(int a, T v0, T v1, T v2, T v3) {
  const float ky = (float)(a >> 5) * (1.f / 32), kx = (float)(a & 31) * (1.f / 32);
  const float w0 = (1.f - ky) * (1.f - kx), w1 = (1.f - ky) * kx, w2 = ky * (1.f - kx),
              w3 = ky * kx;
  const float s = (float)v0 * w0 + (float)v1 * w1 + (float)v2 * w2 + (float)v3 * w3;
  if (sizeof(T) == 4) return (T)s;                  // float: the sum itself
  const int r = (int)rintf(s);
  return sizeof(T) == 2 && (T)-1 > 0 ? (T)dali_wp_clip(r, 0, 65535)
                                     : (T)dali_wp_clip(r, -32768, 32767);
}

template <>
__device__ __forceinline__ unsigned char dali_wp_blend(int a, unsigned char v0,
                                                       unsigned char v1, unsigned char v2,
                                                       unsigned char v3) {
  const int ky = a >> 5, kx = a & 31;
  int s = v0 * ((32 - ky) * (32 - kx) * 32) + v1 * ((32 - ky) * kx * 32) +
          v2 * (ky * (32 - kx) * 32) + v3 * (ky * kx * 32);
  s = (s + (1 << 14)) >> 15;
  return (unsigned char)dali_wp_clip(s, 0, 255);
}

template <typename T>
__device__ __forceinline__ void dali_wp_fixed(const T* __restrict__ src, T* __restrict__ out,
                                              const WarpPerspectiveImage& im, const double* M,
                                              const double* fill, long long y, long long x,
                                              int linear, int mode) {
  const int h = (int)im.h, w = (int)im.w, cn = (int)im.c;
  const long long row = (long long)w * cn;
  const long long bh0 = im.oh < 16 ? im.oh : 16;
  const long long bw = 1024 / (bh0 > 1 ? bh0 : 1), bw0 = bw < im.ow ? bw : im.ow;
  const long long xb = x / bw0 * bw0, x1 = x - xb;
  const double X0 = M[0] * xb + M[1] * y + M[2];
  const double Y0 = M[3] * xb + M[4] * y + M[5];
  const double W0 = M[6] * xb + M[7] * y + M[8];
  double W = W0 + M[6] * x1;
  if (!linear) {
    W = W ? 1. / W : 0;
    const int sx = dali_wp_sat_short(dali_wp_clamp_int((X0 + M[0] * x1) * W));
    const int sy = dali_wp_sat_short(dali_wp_clamp_int((Y0 + M[3] * x1) * W));
    const T* p;
    if ((unsigned)sx < (unsigned)w && (unsigned)sy < (unsigned)h) {
      p = src + sy * row + (long long)sx * cn;
    } else if (mode == 0) {
      for (int k = 0; k < cn; k++) out[k] = (T)fill[k];
      return;
    } else {
      p = src + dali_wp_border(sy, h, mode) * row + (long long)dali_wp_border(sx, w, mode) * cn;
    }
    for (int k = 0; k < cn; k++) out[k] = p[k];
    return;
  }
  W = W ? 32 / W : 0;
  const int X = dali_wp_clamp_int((X0 + M[0] * x1) * W);
  const int Y = dali_wp_clamp_int((Y0 + M[3] * x1) * W);
  const int sx = dali_wp_sat_short(X >> 5), sy = dali_wp_sat_short(Y >> 5);
  const int a = (Y & 31) * 32 + (X & 31);
  const unsigned w1 = (unsigned)(w - 1 > 0 ? w - 1 : 0), h1 = (unsigned)(h - 1 > 0 ? h - 1 : 0);
  if ((unsigned)sx < w1 && (unsigned)sy < h1) {
    const T* p = src + sy * row + (long long)sx * cn;
    for (int k = 0; k < cn; k++)
      out[k] = dali_wp_blend<T>(a, p[k], p[k + cn], p[k + row], p[k + row + cn]);
  } else if (mode == 0 && (sx >= w || sx + 1 < 0 || sy >= h || sy + 1 < 0)) {
    for (int k = 0; k < cn; k++) out[k] = (T)fill[k];
  } else {
    const int x0 = dali_wp_border(sx, w, mode), xn = dali_wp_border(sx + 1, w, mode);
    const int y0 = dali_wp_border(sy, h, mode), yn = dali_wp_border(sy + 1, h, mode);
    const T* r0 = src + y0 * row;
    const T* r1 = src + yn * row;
    for (int k = 0; k < cn; k++) {
      const T c = (T)fill[k];
      const T v0 = x0 >= 0 && y0 >= 0 ? r0[x0 * cn + k] : c;
      const T v1 = xn >= 0 && y0 >= 0 ? r0[xn * cn + k] : c;
      const T v2 = x0 >= 0 && yn >= 0 ? r1[x0 * cn + k] : c;
      const T v3 = xn >= 0 && yn >= 0 ? r1[xn * cn + k] : c;
      out[k] = dali_wp_blend<T>(a, v0, v1, v2, v3);
    }
  }
}

template <typename T>
__device__ __forceinline__ void dali_wp_float(const T* __restrict__ src, T* __restrict__ out,
                                              const WarpPerspectiveImage& im, const double* M,
                                              const double* fill, long long y, long long x,
                                              int linear, int mode) {
  const int h = (int)im.h, w = (int)im.w, cn = (int)im.c;
  const long long row = (long long)w * cn;
  if (!linear) {
    const double wd = M[6] * x + M[7] * y + M[8];
    const int ix = dali_wp_round_int((float)((M[0] * x + M[1] * y + M[2]) / wd));
    const int iy = dali_wp_round_int((float)((M[3] * x + M[4] * y + M[5]) / wd));
    const T* p;
    if ((unsigned)ix < (unsigned)w && (unsigned)iy < (unsigned)h) {
      p = src + iy * row + (long long)ix * cn;
    } else if (mode == 0) {
      for (int k = 0; k < cn; k++) out[k] = (T)(float)fill[k];
      return;
    } else {
      p = src + dali_wp_border(iy, h, mode) * row + (long long)dali_wp_border(ix, w, mode) * cn;
    }
    for (int k = 0; k < cn; k++) out[k] = p[k];
    return;
  }
  const float m0 = (float)M[0], m3 = (float)M[3], m6 = (float)M[6];
  const float yf = (float)y, xf = (float)x;
  const float mx = (float)M[1] * yf + (float)M[2], my = (float)M[4] * yf + (float)M[5];
  const float mw = (float)M[7] * yf + (float)M[8];
  const float sw = fmaf(m6, xf, mw);
  const float sx = fmaf(m0, xf, mx) / sw, sy = fmaf(m3, xf, my) / sw;
  const int ix = dali_wp_floor_int(sx), iy = dali_wp_floor_int(sy);
  const float fx = sx - (float)ix, fy = sy - (float)iy;
  if ((unsigned)ix < (unsigned)(w - 1) && (unsigned)iy < (unsigned)(h - 1)) {
    const T* p0 = src + iy * row + (long long)ix * cn;
    const T* p1 = p0 + row;
    for (int k = 0; k < cn; k++) {
      const float v0 = fmaf(fx, (float)p0[k + cn] - (float)p0[k], (float)p0[k]);
      const float v1 = fmaf(fx, (float)p1[k + cn] - (float)p1[k], (float)p1[k]);
      dali_wp_store(fmaf(fy, v1 - v0, v0), out + k);
    }
    return;
  }
  if (mode == 0 && ((unsigned)(ix + 1) >= (unsigned)(w + 1) ||
                    (unsigned)(iy + 1) >= (unsigned)(h + 1))) {
    for (int k = 0; k < cn; k++) out[k] = (T)(float)fill[k];
    return;
  }
  const int x0 = dali_wp_border(ix, w, mode), x1 = dali_wp_border(ix + 1, w, mode);
  const int y0 = dali_wp_border(iy, h, mode), y1 = dali_wp_border(iy + 1, h, mode);
  for (int k = 0; k < cn; k++) {
    const float c = (float)fill[k];
    const float p00 = x0 >= 0 && y0 >= 0 ? (float)src[y0 * row + (long long)x0 * cn + k] : c;
    const float p01 = x1 >= 0 && y0 >= 0 ? (float)src[y0 * row + (long long)x1 * cn + k] : c;
    const float p10 = x0 >= 0 && y1 >= 0 ? (float)src[y1 * row + (long long)x0 * cn + k] : c;
    const float p11 = x1 >= 0 && y1 >= 0 ? (float)src[y1 * row + (long long)x1 * cn + k] : c;
    const float v0 = fmaf(fx, p01 - p00, p00);
    const float v1 = fmaf(fx, p11 - p10, p10);
    dali_wp_store(fmaf(fy, v1 - v0, v0), out + k);
  }
}

template <typename T, bool kAlwaysFixed>
__device__ __forceinline__ void dali_warp_perspective(
    const T* __restrict__ src, T* __restrict__ dst,
    const WarpPerspectiveImage* __restrict__ images, const double* __restrict__ matrices,
    const double* __restrict__ fills, int interp, int border) {
  const WarpPerspectiveImage& im = images[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long pixels = im.oh * im.ow;
  const double* M = matrices + 9 * im.matrix;
  const double* fill = fills + 4 * im.fill;
  const bool fixed = kAlwaysFixed || im.c == 2;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < pixels; i += step) {
    const long long y = i / im.ow, x = i - y * im.ow;
    T* out = dst + im.dst_offset + i * im.c;
    if (fixed)
      dali_wp_fixed(src + im.src_offset, out, im, M, fill, y, x, interp, border);
    else
      dali_wp_float(src + im.src_offset, out, im, M, fill, y, x, interp, border);
  }
}

#define DALI_WP_KERNEL(NAME, T, FIXED)                                                        \
  extern "C" __global__ void NAME(const T* src, T* dst, const WarpPerspectiveImage* images,   \
                                  const double* matrices, const double* fills, int interp,    \
                                  int border) {                                               \
    dali_warp_perspective<T, FIXED>(src, dst, images, matrices, fills, interp, border);       \
  }

DALI_WP_KERNEL(warp_perspective_u8, unsigned char, false)
DALI_WP_KERNEL(warp_perspective_u16, unsigned short, false)
DALI_WP_KERNEL(warp_perspective_i16, short, true)
DALI_WP_KERNEL(warp_perspective_f32, float, false)
