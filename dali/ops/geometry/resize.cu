// fn.resize on the GPU (and random_resized_crop, resize_crop_mirror, tensor_resize, which reduce
// to it): separable resampling, one launch per pass, one thread per output value, with the
// values of the CPU engines (_ext/kernels/resample.pyx, resample_batch.pyx) bit for bit.
//
// The host (dali/ops/geometry/_resize_gpu.py) builds the CPU path's per-axis filters, pass
// order and input spans, and describes pass p of each sample with one ResamplePass.  A sample
// is seen as (planes, D0, D1, D2, channels) (missing spatial axes of extent 1); a pass resamples
// `axis`: output value (o, i, c) is
//
//     sum_k weights[i][k] * in[o, starts[i] + k, c]
//
// read through the input's element strides, every window inside the input (the host folded the
// taps outside it onto the edges).  The sum is float32 in tap order, starting from 0.f where the
// CPU runs the pass in its pixel loop and from the first product in its row loop (they differ
// only in the sign of a zero).  Intermediate passes write float32 scratch buffers; the last one
// converts to the output type: integers saturate (NaN to the lowest value) and round half away
// from zero, except the first `even_end` values of each row of `inner` values, which round half
// to even (DALI's vectorized vertical pass, see resample.pyx `store_row`).  blockIdx.y is the
// (sample, pass) descriptor, a grid-stride loop over x covers its values.
//
// Where the CPU gathers instead (nearest neighbour along every resized axis outside HWC batches,
// or nothing resized), ResampleGather copies out[p, i, j, k, c] = in[p, idx0[i], idx1[j],
// idx2[k], c], converted to float32 where the output is.
//
// Kernels: resample_<in>_<out> for in = u8 i16 u16 with out = in or f32, and in = f32 with out =
// u8 i16 u16 f32; gather_<in>_<out> for in = u8 i16 u16 f32 with out = in or f32.

#include "dali_numeric.cuh"

#define DALI_RS_DIMS 5

struct ResamplePass {
  long long src_offset;            // input elements before this sample's first value read
  long long dst_offset;            // output elements before this sample's output
  long long volume;                // output values
  long long axis;                  // the resampled axis, 1..3
  long long support;               // taps per output position
  long long starts;                // index in `starts` of output position 0's first tap
  long long weights;               // index in `weights` of output position 0's first weight
  long long from_zero;             // 1: the sum starts from 0.f (the CPU's pixel loop)
  long long inner;                 // output values after `axis` (one CPU row)
  long long even_end;              // values of each row rounded half to even
  long long extent[DALI_RS_DIMS];  // output extents
  long long stride[DALI_RS_DIMS];  // input strides in elements
};

struct ResampleGather {
  long long src_offset;
  long long dst_offset;
  long long volume;
  long long index[3];              // index in `starts` of the source positions of D0, D1, D2
  long long extent[DALI_RS_DIMS];  // output extents
  long long stride[DALI_RS_DIMS];  // input strides in elements
};

// Saturate (a NaN becomes lo), then round half to even or half away from zero.
__device__ __forceinline__ float dali_rs_round(float v, float lo, float hi, bool even) {
  v = v > lo ? v : lo;
  v = v < hi ? v : hi;
  return even ? rintf(v) : roundf(v);
}

__device__ __forceinline__ void dali_rs_store(float v, float* out, bool) { *out = v; }
__device__ __forceinline__ void dali_rs_store(float v, unsigned char* out, bool even) {
  *out = (unsigned char)dali_rs_round(v, 0.f, 255.f, even);
}
__device__ __forceinline__ void dali_rs_store(float v, short* out, bool even) {
  *out = (short)dali_rs_round(v, -32768.f, 32767.f, even);
}
__device__ __forceinline__ void dali_rs_store(float v, unsigned short* out, bool even) {
  *out = (unsigned short)dali_rs_round(v, 0.f, 65535.f, even);
}

template <typename In, typename Out>
__device__ __forceinline__ void dali_resample(const In* __restrict__ src, Out* __restrict__ dst,
                                              const ResamplePass* __restrict__ passes,
                                              const int* __restrict__ starts,
                                              const float* __restrict__ weights) {
  const ResamplePass& s = passes[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long axis_stride = s.stride[s.axis];
  Out* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s.volume;
       i += step) {
    long long rest = i, offset = s.src_offset, pos = 0;
    for (int d = DALI_RS_DIMS - 1; d >= 0; d--) {
      if (s.extent[d] == 1) continue;       // index 0 (the padded axes: no division)
      const long long q = rest / s.extent[d];
      const long long k = rest - q * s.extent[d];
      rest = q;
      if (d == s.axis)
        pos = k;
      else
        offset += k * s.stride[d];
    }
    const In* x = src + offset + (long long)starts[s.starts + pos] * axis_stride;
    const float* w = weights + s.weights + pos * s.support;
    float a = w[0] * dali_load(x[0]);
    if (s.from_zero) a = 0.f + a;
    for (long long k = 1; k < s.support; k++) a = a + w[k] * dali_load(x[k * axis_stride]);
    dali_rs_store(a, &out[i], i % s.inner < s.even_end);
  }
}

template <typename In, typename Out>
__device__ __forceinline__ void dali_gather(const In* __restrict__ src, Out* __restrict__ dst,
                                            const ResampleGather* __restrict__ samples,
                                            const int* __restrict__ index) {
  const ResampleGather& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  Out* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s.volume;
       i += step) {
    long long rest = i, offset = s.src_offset;
    for (int d = DALI_RS_DIMS - 1; d >= 0; d--) {
      long long k = 0;
      if (s.extent[d] != 1) {               // (no division for the padded axes)
        const long long q = rest / s.extent[d];
        k = rest - q * s.extent[d];
        rest = q;
      }
      if (d >= 1 && d <= 3) k = index[s.index[d - 1] + k];
      offset += k * s.stride[d];
    }
    out[i] = (Out)src[offset];
  }
}

#define DALI_RS_RESAMPLE(IN, OUT, TIN, TOUT)                                                  \
  extern "C" __global__ void resample_##IN##_##OUT(const TIN* src, TOUT* dst,               \
                                                   const ResamplePass* passes,              \
                                                   const int* starts, const float* weights) { \
    dali_resample(src, dst, passes, starts, weights);                                       \
  }

#define DALI_RS_GATHER(IN, OUT, TIN, TOUT)                                                  \
  extern "C" __global__ void gather_##IN##_##OUT(const TIN* src, TOUT* dst,               \
                                                 const ResampleGather* samples,           \
                                                 const int* index) {                      \
    dali_gather(src, dst, samples, index);                                                \
  }

DALI_RS_RESAMPLE(u8, u8, unsigned char, unsigned char)
DALI_RS_RESAMPLE(u8, f32, unsigned char, float)
DALI_RS_RESAMPLE(i16, i16, short, short)
DALI_RS_RESAMPLE(i16, f32, short, float)
DALI_RS_RESAMPLE(u16, u16, unsigned short, unsigned short)
DALI_RS_RESAMPLE(u16, f32, unsigned short, float)
DALI_RS_RESAMPLE(f32, u8, float, unsigned char)
DALI_RS_RESAMPLE(f32, i16, float, short)
DALI_RS_RESAMPLE(f32, u16, float, unsigned short)
DALI_RS_RESAMPLE(f32, f32, float, float)

DALI_RS_GATHER(u8, u8, unsigned char, unsigned char)
DALI_RS_GATHER(u8, f32, unsigned char, float)
DALI_RS_GATHER(i16, i16, short, short)
DALI_RS_GATHER(i16, f32, short, float)
DALI_RS_GATHER(u16, u16, unsigned short, unsigned short)
DALI_RS_GATHER(u16, f32, unsigned short, float)
DALI_RS_GATHER(f32, f32, float, float)
