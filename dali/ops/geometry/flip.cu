// fn.flip on the GPU: every sample of a batch is a strided copy that reads some axes backwards.
//
// The host (dali/ops/geometry/_flip_gpu.py) collapses each sample to at most DALI_FLIP_DIMS
// axes (extent-1 axes dropped, neighbours flipped alike merged) and describes it with one
// FlipSample: the output is written in order, element i of the sample reads the source at
// src_offset + sum(index_d * stride_d), where a flipped axis has a negative stride and its last
// element's offset is folded into src_offset.  blockIdx.y is the sample, a grid-stride loop over
// x covers its elements.  Flip moves elements without looking at them, so one kernel per
// element size: flip_1, flip_2, flip_4, flip_8.

#include "dali_kernels.cuh"

#define DALI_FLIP_DIMS 6

struct FlipSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long volume;                // elements of the sample
  long long ndim;                  // collapsed axes, 0..DALI_FLIP_DIMS
  long long extent[DALI_FLIP_DIMS];
  long long stride[DALI_FLIP_DIMS];    // source elements, negative when flipped
};

template <typename T>
__device__ __forceinline__ void dali_flip(const T* __restrict__ src, T* __restrict__ dst,
                                          const FlipSample* __restrict__ samples) {
  const FlipSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  T* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s.volume;
       i += step) {
    long long rest = i, offset = s.src_offset;
    for (int d = (int)s.ndim - 1; d >= 0; d--) {
      const long long q = rest / s.extent[d];
      offset += (rest - q * s.extent[d]) * s.stride[d];
      rest = q;
    }
    out[i] = src[offset];
  }
}

DALI_WORD_KERNELS(flip, dali_flip, FlipSample)
