// `x[...]` on a GPU DataNode (_tensor_subscript): every output sample is a strided view of its
// input sample, copied.  The host (dali/ops/tensor/_subscript_gpu.py) folds integer indices and
// slice starts into `base` and describes the view by the output's extents and, per output axis,
// the step in source elements (a slice's step times the input axis' stride: negative for
// reversed slices); axes that stay contiguous in the source are merged.  Output element k, at
// index (i_0, ..., i_{ndim-1}) in output order, reads source element
// base + sum(i_d * stride[d]).  subscript_<bytes> (1, 2, 4, 8) moves elements of that size;
// blockIdx.y is the sample, a grid-stride loop over x covers its elements.

#define DALI_SUBSCRIPT_DIMS 8

struct SubscriptSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long volume;                // output elements
  long long ndim;                  // merged output axes, 0..DALI_SUBSCRIPT_DIMS
  long long base;                  // source element of output index 0, from src_offset
  long long extent[DALI_SUBSCRIPT_DIMS];
  long long stride[DALI_SUBSCRIPT_DIMS];   // source elements per output index, may be < 0
};

template <typename T>
__device__ __forceinline__ void dali_subscript(const T* src, T* dst,
                                               const SubscriptSample* samples) {
  const SubscriptSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const T* from = src + s.src_offset + s.base;
  T* to = dst + s.dst_offset;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < s.volume;
       k += step) {
    long long rest = k, at = 0;
    for (long long d = s.ndim - 1; d >= 0; d--) {
      const long long e = s.extent[d];
      at += (rest % e) * s.stride[d];
      rest /= e;
    }
    to[k] = from[at];
  }
}

#define DALI_SUBSCRIPT_KERNEL(UNIT, T)                                                  \
  extern "C" __global__ void subscript_##UNIT(const T* src, T* dst,                     \
                                              const SubscriptSample* samples) {         \
    dali_subscript(src, dst, samples);                                                  \
  }

DALI_SUBSCRIPT_KERNEL(1, unsigned char)
DALI_SUBSCRIPT_KERNEL(2, unsigned short)
DALI_SUBSCRIPT_KERNEL(4, unsigned int)
DALI_SUBSCRIPT_KERNEL(8, unsigned long long)
