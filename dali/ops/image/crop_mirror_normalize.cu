// fn.crop_mirror_normalize on the GPU: crop, horizontal mirror, normalization, padding (out of
// bounds and extra channels), layout permutation and conversion in one pass; one thread per
// output element, written in output order.
//
// The host (dali/ops/image/_crop_mirror_normalize_gpu.py) describes each sample with one
// CmnSample whose axes are the OUTPUT's: output index k along axis d reads source coordinate
// start[d] + dir[d] * k of an input axis of extent in_extent[d] and element stride
// in_stride[d] (dir is -1 on a mirrored W).  A coordinate outside [0, in_extent) reads
// fill[c]; a channel c >= channels (pad_output) is fill[c] too (zero unless out_of_bounds_policy
// is "pad").  Inside, the value is (x - mean[c]) * mul[c] in float32 (mean and mul as the CPU
// operator computes them), converted as DALI does: integers round half away from zero and
// saturate (NaN -> 0), float16 rounds to nearest even and overflows to infinity.  mean, mul
// and fill are rows of `row` floats per sample.  blockIdx.y is the sample.
//
// Kernels: cmn_<in>_<out>, in = u8 i16 u16 i32 f16 f32, out = u8 i8 f16 f32.

#include "dali_numeric.cuh"

#define DALI_CMN_DIMS 6

struct CmnSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long volume;                // output elements
  long long ndim;
  long long channel_axis;          // the output axis of the channels
  long long channels;              // channels read from the input (the rest is padding)
  long long extent[DALI_CMN_DIMS];     // output extents
  long long start[DALI_CMN_DIMS];      // source coordinate of output index 0
  long long dir[DALI_CMN_DIMS];        // +1, or -1 when mirrored
  long long in_extent[DALI_CMN_DIMS];
  long long in_stride[DALI_CMN_DIMS];  // source elements
};

template <typename In, typename Out>
__device__ __forceinline__ void dali_cmn(const In* __restrict__ src, Out* __restrict__ dst,
                                         const CmnSample* __restrict__ samples,
                                         const float* __restrict__ mean,
                                         const float* __restrict__ mul,
                                         const float* __restrict__ fill, int row) {
  const CmnSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const float* m = mean + (long long)blockIdx.y * row;
  const float* f = mul + (long long)blockIdx.y * row;
  const float* pad = fill + (long long)blockIdx.y * row;
  Out* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s.volume;
       i += step) {
    long long rest = i, offset = s.src_offset, c = 0;
    bool inside = true;
    for (int d = (int)s.ndim - 1; d >= 0; d--) {
      const long long q = rest / s.extent[d];
      const long long k = rest - q * s.extent[d];
      rest = q;
      if (d == s.channel_axis) c = k;
      const long long x = s.start[d] + s.dir[d] * k;
      inside = inside && x >= 0 && x < s.in_extent[d];
      offset += x * s.in_stride[d];
    }
    if (inside && c < s.channels)
      dali_store((dali_load(src[offset]) - m[c]) * f[c], &out[i]);
    else
      dali_store(pad[c], &out[i]);
  }
}

#define DALI_CMN_KERNEL(IN, OUT, TIN, TOUT)                                                  \
  extern "C" __global__ void cmn_##IN##_##OUT(const TIN* src, TOUT* dst,                   \
                                              const CmnSample* samples, const float* mean, \
                                              const float* mul, const float* fill,         \
                                              int row) {                                   \
    dali_cmn(src, dst, samples, mean, mul, fill, row);                                     \
  }

#define DALI_CMN_KERNELS(IN, TIN)                  \
  DALI_CMN_KERNEL(IN, u8, TIN, unsigned char)      \
  DALI_CMN_KERNEL(IN, i8, TIN, signed char)        \
  DALI_CMN_KERNEL(IN, f16, TIN, dali_half)         \
  DALI_CMN_KERNEL(IN, f32, TIN, float)

DALI_CMN_KERNELS(u8, unsigned char)
DALI_CMN_KERNELS(i16, short)
DALI_CMN_KERNELS(u16, unsigned short)
DALI_CMN_KERNELS(i32, int)
DALI_CMN_KERNELS(f16, dali_half)
DALI_CMN_KERNELS(f32, float)
