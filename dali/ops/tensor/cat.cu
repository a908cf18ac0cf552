// fn.cat and fn.stack on the GPU: each input's samples are copied into their place in the
// joined output samples, one launch per input.
//
// Joining along an axis makes every output sample a matrix of `outer` rows (the product of
// the extents before the axis); input q's part of a row is a contiguous block of inner_q
// bytes (extents from the axis on), at the sum of the earlier inputs' blocks.  The host
// (dali/ops/tensor/_cat_gpu.py) describes input q's sample i with one JoinSample in units of
// the kernel's word size (the largest of 8, 4, 2, 1 bytes dividing every block and offset):
// element k of the input sample goes to row k / row_len, column k % row_len of the output
// block.  blockIdx.y is the sample, a grid-stride loop over x covers its elements.  Nothing
// is computed: join_1, join_2, join_4, join_8 move words.

#include "dali_kernels.cuh"

struct JoinSample {
  long long src_offset;            // words from the start of the input buffer
  long long dst_offset;            // words from the start of the output buffer, to the block
  long long volume;                // words of the input sample
  long long row_len;               // words of its block in a row (> 0 when volume > 0)
  long long dst_stride;            // words of an output row
};

template <typename T>
__device__ __forceinline__ void dali_join(const T* __restrict__ src, T* __restrict__ dst,
                                          const JoinSample* __restrict__ samples) {
  const JoinSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const T* in = src + s.src_offset;
  T* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s.volume;
       i += step) {
    const long long row = i / s.row_len;
    out[row * s.dst_stride + (i - row * s.row_len)] = in[i];
  }
}

DALI_WORD_KERNELS(join, dali_join, JoinSample)
