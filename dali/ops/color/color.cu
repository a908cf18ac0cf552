// The pointwise colour operators on the GPU, with the float operations of the CPU kernels
// (_ext/kernels/color.pyx, color_simd.h) in the same order, so that the outputs are the same
// bit for bit:
//
// - color_linear_<in>_<out>: fn.brightness_contrast, fn.brightness, fn.contrast (the 1x1 map
//   `x * m + off`) and fn.color_twist, fn.hsv, fn.hue, fn.saturation (the 3x3 map of RGB pixels,
//   channel c being `m[c,0] * x0 + m[c,1] * x1 + m[c,2] * x2 + off[c]` summed left to right),
//   in float32, then converted as convert.pxd's `store` does: integers round half away from
//   zero and saturate (NaN gives 0, or INT_MIN for int32), float16 rounds to nearest even.
//   in, out = u8 i16 i32 f32 f16.  The matrices (cout x cin floats) and offsets (cout floats)
//   are those of the CPU path's plan: one per part, a part being a sample or a frame of a
//   sequence whose arguments vary per frame (or one for the whole batch).
// - color_space_u8: fn.color_space_conversion of uint8 pixels (the CPU kernel's `_convert`),
//   `conversion` one of color.pyx's CONVERSIONS codes, `red` the red channel (0 RGB, 2 BGR),
//   `coeffs` the 20 float32 constants of color.pyx: RGB -> YCbCr (9), YCbCr -> RGB (9),
//   Y -> GRAY, GRAY -> Y.
//
// The host (dali/ops/color/_color_gpu.py) describes each sample with one ColorSample; one
// thread per output element, blockIdx.y the sample, a grid-stride loop over x.

#include "dali_numeric.cuh"

struct ColorSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long pixels;                // pixels of the sample
  long long part_pixels;           // pixels of each of its parts (linear maps; >= 1)
  long long param;                 // index of its first part's matrix and offset
};

template <typename In, typename Out>
__device__ __forceinline__ void dali_color_linear(const In* __restrict__ src,
                                                  Out* __restrict__ dst,
                                                  const ColorSample* __restrict__ samples,
                                                  const float* __restrict__ mats,
                                                  const float* __restrict__ offs, int cin,
                                                  int cout) {
  const ColorSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long volume = s.pixels * cout;
  const In* in = src + s.src_offset;
  Out* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume;
       i += step) {
    const long long p = i / cout;
    const int c = (int)(i - p * cout);
    const long long param = s.param + p / s.part_pixels;
    const float* m = mats + (param * cout + c) * cin;
    const float off = offs[param * cout + c];
    const In* x = in + p * cin;
    float v;
    if (cin == 1)
      v = dali_load(x[0]) * m[0] + off;
    else
      v = m[0] * dali_load(x[0]) + m[1] * dali_load(x[1]) + m[2] * dali_load(x[2]) + off;
    dali_store(v, &out[i]);
  }
}

#define DALI_COLOR_LINEAR(IN, OUT, TIN, TOUT)                                               \
  extern "C" __global__ void color_linear_##IN##_##OUT(                                     \
      const TIN* src, TOUT* dst, const ColorSample* samples, const float* mats,             \
      const float* offs, int cin, int cout) {                                               \
    dali_color_linear(src, dst, samples, mats, offs, cin, cout);                            \
  }

#define DALI_COLOR_LINEAR_FROM(IN, TIN)              \
  DALI_COLOR_LINEAR(IN, u8, TIN, unsigned char)      \
  DALI_COLOR_LINEAR(IN, i16, TIN, short)             \
  DALI_COLOR_LINEAR(IN, i32, TIN, int)               \
  DALI_COLOR_LINEAR(IN, f32, TIN, float)             \
  DALI_COLOR_LINEAR(IN, f16, TIN, dali_half)

DALI_COLOR_LINEAR_FROM(u8, unsigned char)
DALI_COLOR_LINEAR_FROM(i16, short)
DALI_COLOR_LINEAR_FROM(i32, int)
DALI_COLOR_LINEAR_FROM(f32, float)
DALI_COLOR_LINEAR_FROM(f16, dali_half)

// color.pyx's Conversion codes
#define DALI_SWAP_RB 0
#define DALI_TO_GRAY 1
#define DALI_GRAY_TO_RGB 2
#define DALI_RGB_TO_YCBCR 3
#define DALI_YCBCR_TO_RGB 4
#define DALI_YCBCR_TO_GRAY 5
#define DALI_GRAY_TO_YCBCR 6

__device__ __forceinline__ unsigned char dali_u8(float v) {
  return (unsigned char)dali_sat_int(v, 0, 255);
}

extern "C" __global__ void color_space_u8(const unsigned char* src, unsigned char* dst,
                                          const ColorSample* samples, int conversion, int red,
                                          const float* coeffs) {
  const ColorSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const bool gray_in = conversion == DALI_GRAY_TO_RGB || conversion == DALI_GRAY_TO_YCBCR;
  const bool gray_out = conversion == DALI_TO_GRAY || conversion == DALI_YCBCR_TO_GRAY;
  const int cin = gray_in ? 1 : 3, cout = gray_out ? 1 : 3, blue = 2 - red;
  const long long volume = s.pixels * cout;
  const unsigned char* in = src + s.src_offset;
  unsigned char* out = dst + s.dst_offset;
  const float* to_ycc = coeffs;
  const float* from_ycc = coeffs + 9;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume;
       i += step) {
    const long long p = i / cout;
    const int c = (int)(i - p * cout);
    const unsigned char* x = in + p * cin;
    unsigned char v;
    if (conversion == DALI_SWAP_RB) {
      v = x[2 - c];
    } else if (conversion == DALI_TO_GRAY) {
      v = (unsigned char)((x[red] * 9798 + x[1] * 19235 + x[blue] * 3735 + 16384) >> 15);
    } else if (conversion == DALI_GRAY_TO_RGB) {
      v = x[0];
    } else if (conversion == DALI_RGB_TO_YCBCR) {
      const float r = x[red], g = x[1], b = x[blue];
      v = dali_u8(to_ycc[3 * c] * r + to_ycc[3 * c + 1] * g + to_ycc[3 * c + 2] * b +
                  (c == 0 ? 16.f : 128.f));
    } else if (conversion == DALI_YCBCR_TO_RGB) {
      const float y = x[0] - 16.f, cb = x[1] - 128.f, cr = x[2] - 128.f;
      const float* row = from_ycc + 3 * (c == 1 ? 1 : c == red ? 0 : 2);
      v = dali_u8(row[0] * y + row[1] * cb + row[2] * cr);
    } else if (conversion == DALI_YCBCR_TO_GRAY) {
      v = dali_u8(coeffs[18] * (x[0] - 16.f));
    } else {                       // DALI_GRAY_TO_YCBCR
      v = c == 0 ? dali_u8(x[0] * coeffs[19] + 16.f) : (unsigned char)128;
    }
    out[i] = v;
  }
}
