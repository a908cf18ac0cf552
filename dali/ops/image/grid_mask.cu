// fn.grid_mask on the GPU: the CPU kernel's rule (_ext/kernels/grid_mask.pyx), pixel (y, x) of
// an HWC image is kept where either grid coordinate has a fractional part of at least `ratio`,
//   fx = -sx + y * -sa + x * ca,   fy = -sy + y * ca + x * sa
// in float32 in that order, with the sample's constants (ca, sa, sx, sy, ratio) as the CPU
// kernel computes them (`grid_geometry`: cosf(angle) / tile, sinf(angle) / tile,
// shift_x / tile, shift_y / tile), so that the same pixels are masked; masked pixels are 0.
// One thread per output element, blockIdx.y the sample; elements are copied or zeroed without
// being looked at, so one kernel per element size: grid_mask_1, _2, _4.

struct GridMaskSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long h, w, c;
};

template <typename T>
__device__ __forceinline__ void dali_grid_mask(const T* __restrict__ src, T* __restrict__ dst,
                                               const GridMaskSample* __restrict__ samples,
                                               const float* __restrict__ geometry) {
  const GridMaskSample& s = samples[blockIdx.y];
  const float* g = geometry + 5 * (long long)blockIdx.y;
  const float ca = g[0], sa = g[1], sx = g[2], sy = g[3], ratio = g[4];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long w = s.w, nc = s.c, volume = s.h * w * nc;
  const T* in = src + s.src_offset;
  T* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume;
       i += step) {
    const long long p = i / nc, y = p / w, x = p - y * w;
    const float yf = (float)y;
    const float base_x = -sx + yf * -sa, base_y = -sy + yf * ca;
    const float fx = base_x + (float)x * ca, fy = base_y + (float)x * sa;
    out[i] = (fx - floorf(fx) >= ratio || fy - floorf(fy) >= ratio) ? in[i] : (T)0;
  }
}

#define DALI_GRID_MASK_KERNEL(NAME, T)                                                     \
  extern "C" __global__ void NAME(const T* src, T* dst, const GridMaskSample* samples,     \
                                  const float* geometry) {                                 \
    dali_grid_mask(src, dst, samples, geometry);                                           \
  }

DALI_GRID_MASK_KERNEL(grid_mask_1, unsigned char)
DALI_GRID_MASK_KERNEL(grid_mask_2, unsigned short)
DALI_GRID_MASK_KERNEL(grid_mask_4, unsigned int)
