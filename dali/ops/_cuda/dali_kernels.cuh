// Kernel-stamping macros shared by the kernels (`#include "dali_kernels.cuh"`).
//
// Operators that move elements without looking at them (flip, cat/stack) have one kernel per
// element size: DALI_WORD_KERNELS(name, body, Sample) defines the extern "C" kernels name_1,
// name_2, name_4 and name_8, each `(const W* src, W* dst, const Sample* samples)` for the
// unsigned word W of that many bytes, calling the device template body(src, dst, samples).
#ifndef DALI_OPS_CUDA_DALI_KERNELS_CUH_
#define DALI_OPS_CUDA_DALI_KERNELS_CUH_

#define DALI_WORD_KERNEL(NAME, BODY, SAMPLE, W)                                  \
  extern "C" __global__ void NAME(const W* src, W* dst, const SAMPLE* samples) { \
    BODY(src, dst, samples);                                                     \
  }

#define DALI_WORD_KERNELS(NAME, BODY, SAMPLE)              \
  DALI_WORD_KERNEL(NAME##_1, BODY, SAMPLE, unsigned char)  \
  DALI_WORD_KERNEL(NAME##_2, BODY, SAMPLE, unsigned short) \
  DALI_WORD_KERNEL(NAME##_4, BODY, SAMPLE, unsigned int)   \
  DALI_WORD_KERNEL(NAME##_8, BODY, SAMPLE, unsigned long long)

#endif  // DALI_OPS_CUDA_DALI_KERNELS_CUH_
