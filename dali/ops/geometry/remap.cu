// fn.experimental.remap on the GPU (DALI runs NPP's nppiRemap): output(y, x, c) =
// input(mapy(y, x), mapx(y, x), c), interpolated, the border constant 0.
//
// The host (dali/ops/geometry/_remap_gpu.py) describes every frame (an HWC image; a frame of
// FHWC) with one RemapPart; blockIdx.y is the part, a grid-stride loop over x covers its output
// elements, one thread per element.  The output has the input's shape; the maps are float32
// H x W planes (one per frame, or one for all the frames of a sequence).
//
// Coordinates: fx = mapx + shift, fy = mapy + shift in float32, shift -0.5 for the "corner"
// pixel origin (DALI shifts the maps so), 0 for "center" (OpenCV's convention: pixel k's centre
// at k).  Nearest neighbour reads (floor(fy + 0.5), floor(fx + 0.5)); linear blends the four
// pixels around (fy, fx) with weights (1 - a, a), rows first, then the two rows:
// (1 - ay) * row0 + ay * row1 with row = (1 - ax) * p0 + ax * p1.  Positions outside the image
// read 0.  Integer outputs are rounded to nearest (ties to even, __float2int_rn as DALI's GPU
// conversions) and saturated.  remap_<t> for u8, i16, u16, f32; `interp` 0 nearest, 1 linear.

#include "dali_numeric.cuh"

struct RemapPart {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long mapx_offset;           // floats from the start of the mapx buffer
  long long mapy_offset;           // floats from the start of the mapy buffer
  long long height, width, channels;
  long long pad;
};

__device__ __forceinline__ void dali_remap_store(unsigned char* p, float v) {
  *p = (unsigned char)__float2int_rn(fminf(fmaxf(v, 0.f), 255.f));
}
__device__ __forceinline__ void dali_remap_store(short* p, float v) {
  *p = (short)__float2int_rn(fminf(fmaxf(v, -32768.f), 32767.f));
}
__device__ __forceinline__ void dali_remap_store(unsigned short* p, float v) {
  *p = (unsigned short)__float2int_rn(fminf(fmaxf(v, 0.f), 65535.f));
}
__device__ __forceinline__ void dali_remap_store(float* p, float v) { *p = v; }

template <typename T>
__device__ __forceinline__ float dali_remap_pixel(const T* in, const RemapPart& p, long long y,
                                                  long long x, long long c) {
  if (y < 0 || y >= p.height || x < 0 || x >= p.width) return 0.f;
  return dali_load(in[(y * p.width + x) * p.channels + c]);
}

template <typename T>
__device__ __forceinline__ void dali_remap(const T* __restrict__ src, T* __restrict__ dst,
                                           const float* __restrict__ mapx,
                                           const float* __restrict__ mapy,
                                           const RemapPart* __restrict__ parts, float shift,
                                           int interp) {
  const RemapPart& p = parts[blockIdx.y];
  const long long volume = p.height * p.width * p.channels;
  const long long step = (long long)gridDim.x * blockDim.x;
  const T* in = src + p.src_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume; i += step) {
    const long long c = i % p.channels, pixel = i / p.channels;
    const float fx = mapx[p.mapx_offset + pixel] + shift;
    const float fy = mapy[p.mapy_offset + pixel] + shift;
    float v;
    if (interp == 0) {
      const float rx = floorf(fx + 0.5f), ry = floorf(fy + 0.5f);
      // far outside (or NaN): 0 without converting an unrepresentable float
      const bool inside = rx >= 0.f && rx < (float)p.width && ry >= 0.f && ry < (float)p.height;
      v = inside ? dali_remap_pixel(in, p, (long long)ry, (long long)rx, c) : 0.f;
    } else {
      const float x0 = floorf(fx), y0 = floorf(fy);
      if (!(x0 >= -1.f && x0 < (float)p.width && y0 >= -1.f && y0 < (float)p.height)) {
        v = 0.f;
      } else {
        const float ax = fx - x0, ay = fy - y0;
        const long long ix = (long long)x0, iy = (long long)y0;
        const float row0 = (1.f - ax) * dali_remap_pixel(in, p, iy, ix, c) +
                           ax * dali_remap_pixel(in, p, iy, ix + 1, c);
        const float row1 = (1.f - ax) * dali_remap_pixel(in, p, iy + 1, ix, c) +
                           ax * dali_remap_pixel(in, p, iy + 1, ix + 1, c);
        v = (1.f - ay) * row0 + ay * row1;
      }
    }
    dali_remap_store(dst + p.dst_offset + i, v);
  }
}

#define DALI_REMAP_KERNEL(code, T)                                                           \
  extern "C" __global__ void remap_##code(const T* src, T* dst, const float* mapx,           \
                                          const float* mapy, const RemapPart* parts,         \
                                          float shift, int interp) {                         \
    dali_remap<T>(src, dst, mapx, mapy, parts, shift, interp);                               \
  }

DALI_REMAP_KERNEL(u8, unsigned char)
DALI_REMAP_KERNEL(i16, short)
DALI_REMAP_KERNEL(u16, unsigned short)
DALI_REMAP_KERNEL(f32, float)
