// fn.crop, fn.slice, fn.pad and fn.transpose on the GPU: every output sample is a window of
// its input sample, placed anywhere relative to it, read through an optional permutation of
// the axes, with what lies outside the input given by a border policy; the element type is
// kept (bytes are moved) or converted to uint8, float16 or float32 as the CPU slice kernel
// (_ext/kernels/slice.h) converts.  One thread per output element, written in output order.
//
// The host (dali/ops/geometry/_slice_gpu.py) describes each sample with one SliceSample whose
// axes are the OUTPUT's: output index k along axis d reads source coordinate anchor[d] + k of
// an input axis of extent in_extent[d] and element stride in_stride[d].  A coordinate outside
// [0, in_extent) is mapped by the policy (slice.h's source_index): CONSTANT gives the fill
// value (fill[fill_offset + c], c the index along channel_axis, or fill[fill_offset] when
// channel_axis < 0), EDGE the nearest edge, REFLECT_1001 / REFLECT_101 a mirror image with /
// without the edge repeated, WRAP the input repeated.  blockIdx.y is the sample, a grid-stride
// loop over x covers its elements.
//
// Kernels: slice_copy_<bytes> (1, 2, 4, 8: the type kept) and slice_<in>_<out> for in = u8 i8
// u16 i16 u32 i32 u64 i64 f16 f32 f64 and out = u8 f16 f32 other than in; `cast` (per
// sample) picks DALI's plain C++ casts over the saturating conversion (slice.h: Convert, Cast).

#include "dali_numeric.cuh"

#define DALI_SLICE_DIMS 8

struct SliceSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long volume;                // output elements
  long long ndim;                  // collapsed output axes, 0..DALI_SLICE_DIMS
  long long policy;                // CONSTANT 0, EDGE 1, REFLECT_1001 2, REFLECT_101 3, WRAP 4
  long long channel_axis;          // the output axis whose index picks the fill value, or -1
  long long fill_offset;           // this sample's first value in `fill`
  long long cast;                  // 1: plain casts instead of the saturating conversion
  long long extent[DALI_SLICE_DIMS];     // output extents
  long long anchor[DALI_SLICE_DIMS];     // source coordinate of output index 0
  long long in_extent[DALI_SLICE_DIMS];
  long long in_stride[DALI_SLICE_DIMS];  // source elements
};

__device__ __forceinline__ long long dali_source_index(long long i, long long n, long long policy) {
  if (i >= 0 && i < n) return i;
  if (n <= 0) return -1;
  switch (policy) {
    case 1:
      return i < 0 ? 0 : n - 1;
    case 2: {
      const long long p = 2 * n, m = ((i % p) + p) % p;
      return m < n ? m : p - 1 - m;
    }
    case 3: {
      if (n == 1) return 0;
      const long long p = 2 * n - 2, m = ((i % p) + p) % p;
      return m < n ? m : p - m;
    }
    case 4:
      return ((i % n) + n) % n;
    default:
      return -1;
  }
}

// ---- conversions (slice.h's Convert and Cast, in the same order of operations) -------------
template <typename In>
__device__ __forceinline__ double dali_widen(In v) { return (double)v; }
__device__ __forceinline__ double dali_widen(dali_half v) {
  return (double)dali_half_to_float(v);
}

// to uint8 from a floating-point value (the integers have their own below)
template <typename In>
__device__ __forceinline__ void dali_convert(In v, bool cast, unsigned char* out) {
  const double x = dali_widen(v);
  if (cast)
    *out = !(x > -2147483649.0 && x < 2147483648.0) ? 0 : (unsigned char)(int)x;
  else
    *out = !(x > 0) ? 0 : x >= 255 ? 255 : (unsigned char)x;
}

// from an integer: plain casts wrap, on the integer itself (a double cannot hold every int64)
template <typename In>
__device__ __forceinline__ void dali_convert_int(In v, bool cast, unsigned char* out) {
  if (cast) {
    *out = (unsigned char)v;
    return;
  }
  const double x = (double)v;
  *out = !(x > 0) ? 0 : x >= 255 ? 255 : (unsigned char)x;
}

template <typename In>
__device__ __forceinline__ void dali_convert(In v, bool cast, float* out) {
  const double x = dali_widen(v);
  if (cast) {
    *out = (float)x;
    return;
  }
  *out = x > 3.40282346638528859812e+38 ? 3.40282346638528859812e+38f
       : x < -3.40282346638528859812e+38 ? -3.40282346638528859812e+38f : (float)x;
}
__device__ __forceinline__ void dali_convert(dali_half v, bool, float* out) {
  *out = dali_half_to_float(v);    // widening: infinities stay
}

template <typename In>
__device__ __forceinline__ void dali_convert(In v, bool cast, dali_half* out) {
  double x = dali_widen(v);
  if (!cast) {
    if (x > 65504.0) x = 65504.0;
    if (x < -65504.0) x = -65504.0;
  }
  *out = dali_float_to_half((float)x);
}

#define DALI_SLICE_INT_TO_U8(T)                                                             \
  __device__ __forceinline__ void dali_convert(T v, bool cast, unsigned char* out) {       \
    dali_convert_int(v, cast, out);                                                         \
  }
DALI_SLICE_INT_TO_U8(unsigned char)
DALI_SLICE_INT_TO_U8(signed char)
DALI_SLICE_INT_TO_U8(unsigned short)
DALI_SLICE_INT_TO_U8(short)
DALI_SLICE_INT_TO_U8(unsigned int)
DALI_SLICE_INT_TO_U8(int)
DALI_SLICE_INT_TO_U8(unsigned long long)
DALI_SLICE_INT_TO_U8(long long)

// the copy kernels' elements (uint8's is above)
__device__ __forceinline__ void dali_convert(unsigned short v, bool, unsigned short* out) {
  *out = v;
}
__device__ __forceinline__ void dali_convert(unsigned v, bool, unsigned* out) { *out = v; }
__device__ __forceinline__ void dali_convert(unsigned long long v, bool, unsigned long long* out) {
  *out = v;
}

template <typename In, typename Out>
__device__ __forceinline__ void dali_slice(const In* __restrict__ src, Out* __restrict__ dst,
                                           const SliceSample* __restrict__ samples,
                                           const Out* __restrict__ fill) {
  const SliceSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  Out* out = dst + s.dst_offset;
  const bool cast = s.cast != 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s.volume;
       i += step) {
    long long rest = i, offset = s.src_offset, c = 0;
    bool inside = true;
    for (int d = (int)s.ndim - 1; d >= 0; d--) {
      const long long q = rest / s.extent[d];
      const long long k = rest - q * s.extent[d];
      rest = q;
      if (d == s.channel_axis) c = k;
      const long long x = dali_source_index(s.anchor[d] + k, s.in_extent[d], s.policy);
      inside = inside && x >= 0;
      offset += x * s.in_stride[d];
    }
    if (inside)
      dali_convert(src[offset], cast, &out[i]);
    else
      out[i] = fill[s.fill_offset + c];
  }
}

#define DALI_SLICE_KERNEL(NAME, TIN, TOUT)                                                  \
  extern "C" __global__ void NAME(const TIN* src, TOUT* dst, const SliceSample* samples,   \
                                  const TOUT* fill) {                                       \
    dali_slice(src, dst, samples, fill);                                                    \
  }

DALI_SLICE_KERNEL(slice_copy_1, unsigned char, unsigned char)
DALI_SLICE_KERNEL(slice_copy_2, unsigned short, unsigned short)
DALI_SLICE_KERNEL(slice_copy_4, unsigned int, unsigned int)
DALI_SLICE_KERNEL(slice_copy_8, unsigned long long, unsigned long long)

// conversions: every input type to uint8, float16 and float32 but its own (a copy)
#define DALI_SLICE_KERNELS(IN, TIN)                        \
  DALI_SLICE_KERNEL(slice_##IN##_u8, TIN, unsigned char)   \
  DALI_SLICE_KERNEL(slice_##IN##_f16, TIN, dali_half)      \
  DALI_SLICE_KERNEL(slice_##IN##_f32, TIN, float)

DALI_SLICE_KERNEL(slice_u8_f16, unsigned char, dali_half)
DALI_SLICE_KERNEL(slice_u8_f32, unsigned char, float)
DALI_SLICE_KERNELS(i8, signed char)
DALI_SLICE_KERNELS(u16, unsigned short)
DALI_SLICE_KERNELS(i16, short)
DALI_SLICE_KERNELS(u32, unsigned int)
DALI_SLICE_KERNELS(i32, int)
DALI_SLICE_KERNELS(u64, unsigned long long)
DALI_SLICE_KERNELS(i64, long long)
DALI_SLICE_KERNEL(slice_f16_u8, dali_half, unsigned char)
DALI_SLICE_KERNEL(slice_f16_f32, dali_half, float)
DALI_SLICE_KERNEL(slice_f32_u8, float, unsigned char)
DALI_SLICE_KERNEL(slice_f32_f16, float, dali_half)
DALI_SLICE_KERNELS(f64, double)
