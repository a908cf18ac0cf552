// fn.one_hot on the GPU, the CPU kernel's rule (_ext/kernels/onehot.pyx): sample i is `outer`
// rows of `inner` class indices, written as `outer` blocks of `classes` rows of `inner`
// elements; element (o, c, j) is `on` where the index at (o, j), truncated toward zero, is c,
// else `off`.  Indices outside [0, classes) (NaN too) give `off` only.  The output values are
// bit patterns of the output's element size (the host converts on/off to the output type), so
// the kernels are per index type and element size: one_hot_<src>_<word>, src = i8 u8 i16 u16
// i32 u32 i64 u64 f32 f64, word = 1 2 4 8 (bytes).
//
// The host (dali/ops/tensor/_one_hot_gpu.py) describes each sample with one OneHotSample; one
// thread per output element, blockIdx.y the sample, a grid-stride loop over x.

#include "dali_kernels.cuh"

struct OneHotSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long outer;                 // rows of indices
  long long inner;                 // indices per row
};

// whether index x is class c (0 <= c < classes), as the CPU kernel decides it
template <typename T>
__device__ __forceinline__ bool dali_one_hot_is(T x, long long c, long long classes) {
  return x >= 0 && (long long)x == c;
}
__device__ __forceinline__ bool dali_one_hot_is(unsigned long long x, long long c,
                                                long long classes) {
  return x == (unsigned long long)c;
}
__device__ __forceinline__ bool dali_one_hot_is(double v, long long c, long long classes) {
  return v > -1.0 && v < (double)classes && (long long)v == c;
}
__device__ __forceinline__ bool dali_one_hot_is(float x, long long c, long long classes) {
  return dali_one_hot_is((double)x, c, classes);
}

template <typename T, typename W>
__device__ __forceinline__ void dali_one_hot(const T* __restrict__ src, W* __restrict__ dst,
                                             const OneHotSample* __restrict__ samples,
                                             long long classes, unsigned long long on,
                                             unsigned long long off) {
  const OneHotSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long volume = s.outer * classes * s.inner;
  const T* in = src + s.src_offset;
  W* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume;
       i += step) {
    const long long t = i / s.inner;
    const long long j = i - t * s.inner;
    const long long o = t / classes;
    const long long c = t - o * classes;
    out[i] = (W)(dali_one_hot_is(in[o * s.inner + j], c, classes) ? on : off);
  }
}

#define DALI_ONE_HOT(SRC, T, WORD, W)                                                        \
  extern "C" __global__ void one_hot_##SRC##_##WORD(const T* src, W* dst,                   \
                                                    const OneHotSample* samples,             \
                                                    long long classes,                       \
                                                    unsigned long long on,                   \
                                                    unsigned long long off) {                \
    dali_one_hot(src, dst, samples, classes, on, off);                                       \
  }

DALI_FOR_INTS(DALI_FOR_WORDS, DALI_ONE_HOT)
DALI_FOR_WORDS(DALI_ONE_HOT, f32, float)
DALI_FOR_WORDS(DALI_ONE_HOT, f64, double)
