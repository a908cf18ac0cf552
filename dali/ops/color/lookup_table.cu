// fn.lookup_table on the GPU, the CPU loops' rule (_ext/kernels/lut.h): out[i] = table[in[i]].
// The table is already in the output type, so only the output's element size matters
// (lookup_table_<in>_<word>, in = i8 u8 i16 u16 i32 u32 i64 u64, word = 1 2 4 8 bytes).  For
// 8- and 16-bit inputs the table covers every value of the input type from its minimum `lo`;
// for wider ones it covers [0, size) and any other key gets `dflt` (a bit pattern of the
// output's size).  The batch is one flat range of `count` elements (device batches are
// packed); a grid-stride loop, one thread per element.

#include "dali_kernels.cuh"

template <typename In, typename W>
__device__ __forceinline__ void dali_lookup(const In* __restrict__ src, W* __restrict__ dst,
                                            long long count, const W* __restrict__ table,
                                            long long lo, long long size,
                                            unsigned long long dflt) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step) {
    const In v = src[i];
    if (sizeof(In) <= 2)
      dst[i] = table[(long long)v - lo];
    else
      dst[i] = v >= 0 && (unsigned long long)v < (unsigned long long)size
                   ? table[(unsigned long long)v]
                   : (W)dflt;
  }
}

#define DALI_LOOKUP(IN, TIN, WORD, W)                                                        \
  extern "C" __global__ void lookup_table_##IN##_##WORD(const TIN* src, W* dst,             \
                                                        long long count, const W* table,     \
                                                        long long lo, long long size,        \
                                                        unsigned long long dflt) {           \
    dali_lookup(src, dst, count, table, lo, size, dflt);                                     \
  }

DALI_FOR_INTS(DALI_FOR_WORDS, DALI_LOOKUP)
