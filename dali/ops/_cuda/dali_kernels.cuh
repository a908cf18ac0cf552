// Kernel-stamping macros shared by the kernels (`#include "dali_kernels.cuh"`).
//
// Kernels that move elements without looking at them come in one per element size, for the
// unsigned word of 1, 2, 4 and 8 bytes:
// - DALI_FOR_WORDS(M, args...) expands M(args..., BYTES, W) for each word W of BYTES bytes;
// - DALI_FOR_INTS(M, args...) expands M(args..., CODE, T) for the eight integer types T, CODE
//   i8 u8 i16 u16 i32 u32 i64 u64 (DALI_FOR_INTS(DALI_FOR_WORDS, K): K for every pair);
// - DALI_WORD_KERNELS(name, body, Sample) defines the extern "C" kernels name_1, name_2, name_4
//   and name_8, each `(const W* src, W* dst, const Sample* samples)` calling the device
//   template body(src, dst, samples).
#ifndef DALI_OPS_CUDA_DALI_KERNELS_CUH_
#define DALI_OPS_CUDA_DALI_KERNELS_CUH_

#define DALI_FOR_WORDS(M, ...)      \
  M(__VA_ARGS__, 1, unsigned char)  \
  M(__VA_ARGS__, 2, unsigned short) \
  M(__VA_ARGS__, 4, unsigned int)   \
  M(__VA_ARGS__, 8, unsigned long long)

#define DALI_FOR_INTS(M, ...)         \
  M(__VA_ARGS__, i8, signed char)     \
  M(__VA_ARGS__, u8, unsigned char)   \
  M(__VA_ARGS__, i16, short)          \
  M(__VA_ARGS__, u16, unsigned short) \
  M(__VA_ARGS__, i32, int)            \
  M(__VA_ARGS__, u32, unsigned int)   \
  M(__VA_ARGS__, i64, long long)      \
  M(__VA_ARGS__, u64, unsigned long long)

#define DALI_WORD_KERNEL(NAME, BODY, SAMPLE, BYTES, W)                                     \
  extern "C" __global__ void NAME##_##BYTES(const W* src, W* dst, const SAMPLE* samples) { \
    BODY(src, dst, samples);                                                               \
  }

#define DALI_WORD_KERNELS(NAME, BODY, SAMPLE) \
  DALI_FOR_WORDS(DALI_WORD_KERNEL, NAME, BODY, SAMPLE)

#endif  // DALI_OPS_CUDA_DALI_KERNELS_CUH_
