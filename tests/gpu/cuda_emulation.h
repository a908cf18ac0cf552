// CPU emulation of the CUDA C that dali's `.cu` kernels use, so that the same sources compile
// with g++ and run on the CPU (tests/gpu/emulate.py force-includes this header).
//
// A launch runs every block, then every thread of the block, one after another on the calling
// thread, with threadIdx/blockIdx/blockDim/gridDim set before each call of the kernel's body.
// That is exact for kernels whose threads do not cooperate (no shared memory, no barriers, no
// warp functions): `__shared__`, `__syncthreads` and the warp intrinsics are deliberately not
// defined, so a kernel that needs them fails to compile here instead of running wrongly.
#ifndef DALI_TESTS_GPU_CUDA_EMULATION_H_
#define DALI_TESTS_GPU_CUDA_EMULATION_H_

#include <math.h>
#include <string.h>

#include <atomic>
#include <cstddef>
#include <type_traits>
#include <utility>

// `used` marks kernels in the preprocessed source, where emulate.py finds them
#define __global__ __attribute__((used))
#define __device__
#define __host__
#define __constant__ static
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)

struct dim3 {
  unsigned x, y, z;
};
typedef dim3 uint3;

static thread_local uint3 threadIdx, blockIdx;
static thread_local dim3 blockDim, gridDim;
static const int warpSize = 32;

// ---- device functions and intrinsics -------------------------------------------------------
template <typename T>
static inline T min(T a, T b) { return b < a ? b : a; }
template <typename T>
static inline T max(T a, T b) { return a < b ? b : a; }

static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline long long __double_as_longlong(double d) { long long i; memcpy(&i, &d, 8); return i; }
static inline double __longlong_as_double(long long i) { double d; memcpy(&d, &i, 8); return d; }
static inline int __float2int_rn(float f) { return (int)nearbyintf(f); }   // ties to even
static inline int __float2int_rz(float f) { return (int)f; }
static inline int __float2int_rd(float f) { return (int)floorf(f); }
static inline int __float2int_ru(float f) { return (int)ceilf(f); }
static inline float __saturatef(float f) { return f > 0.f ? (f < 1.f ? f : 1.f) : 0.f; }
static inline float __fdividef(float a, float b) { return a / b; }
static inline float rsqrtf(float f) { return 1.f / sqrtf(f); }
template <typename T>
static inline T __ldg(const T* p) { return *p; }

// ---- atomics (relaxed, as CUDA's are) ------------------------------------------------------
template <typename T>
static inline T atomicAdd(T* p, T v) {
  return std::atomic_ref<T>(*p).fetch_add(v, std::memory_order_relaxed);
}
template <typename T>
static inline T atomicSub(T* p, T v) {
  return std::atomic_ref<T>(*p).fetch_sub(v, std::memory_order_relaxed);
}
template <typename T>
static inline T atomicExch(T* p, T v) {
  return std::atomic_ref<T>(*p).exchange(v, std::memory_order_relaxed);
}
template <typename T>
static inline T atomicCAS(T* p, T expected, T desired) {
  std::atomic_ref<T>(*p).compare_exchange_strong(expected, desired, std::memory_order_relaxed);
  return expected;
}
template <typename T>
static inline T atomicMin(T* p, T v) {
  std::atomic_ref<T> a(*p);
  T old = a.load(std::memory_order_relaxed);
  while (v < old && !a.compare_exchange_weak(old, v, std::memory_order_relaxed)) {}
  return old;
}
template <typename T>
static inline T atomicMax(T* p, T v) {
  std::atomic_ref<T> a(*p);
  T old = a.load(std::memory_order_relaxed);
  while (old < v && !a.compare_exchange_weak(old, v, std::memory_order_relaxed)) {}
  return old;
}

// ---- launch ----------------------------------------------------------------------------
// args[i] points to the i-th kernel argument (cudaLaunchKernel's convention).
template <typename... A, std::size_t... I>
static inline void dali_emu_call(void (*k)(A...), void** args, std::index_sequence<I...>) {
  k(*static_cast<std::remove_reference_t<A>*>(args[I])...);
}

template <typename... A>
static void dali_emu_launch(void (*k)(A...), const unsigned* grid, const unsigned* block,
                            void** args) {
  gridDim = {grid[0], grid[1], grid[2]};
  blockDim = {block[0], block[1], block[2]};
  for (unsigned bz = 0; bz < grid[2]; bz++)
    for (unsigned by = 0; by < grid[1]; by++)
      for (unsigned bx = 0; bx < grid[0]; bx++) {
        blockIdx = {bx, by, bz};
        for (unsigned tz = 0; tz < block[2]; tz++)
          for (unsigned ty = 0; ty < block[1]; ty++)
            for (unsigned tx = 0; tx < block[0]; tx++) {
              threadIdx = {tx, ty, tz};
              dali_emu_call(k, args, std::index_sequence_for<A...>{});
            }
      }
}

#endif  // DALI_TESTS_GPU_CUDA_EMULATION_H_
