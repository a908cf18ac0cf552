// fn.preemphasis_filter on the GPU: y[t] = x[t] - coeff * x[t - 1] over each sample's flat
// elements, x[-1] the border value (0, x[0], or x[1]: 0 for a sample of one element), one
// thread per element, in the arithmetic of the CPU kernel (_ext/kernels/preemphasis.h): float,
// or double for double input (the type of `x - float * x` in C++), the input converted to it
// as C++ converts it (round to nearest).
//
// preemph_<src>_<acc> writes the result in that arithmetic's type (acc: f32, or f64 for f64
// input); the host (dali/ops/signal/_preemphasis_filter_gpu.py) converts it to the output type
// with cast.cu's kernels (DALI's rounding and saturation, as the CPU kernel's `convert`) when
// the output type is another.  blockIdx.y is the sample.

#define BORDER_ZERO 0
#define BORDER_CLAMP 1
#define BORDER_REFLECT 2

struct PreemphSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long n;                     // elements of the sample
};

template <typename S, typename A>
__device__ __forceinline__ void dali_preemph(const S* __restrict__ src, A* __restrict__ dst,
                                             const PreemphSample* __restrict__ samples,
                                             const float* __restrict__ coeffs, int border) {
  const PreemphSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const float coeff = coeffs[blockIdx.y];
  const S* x = src + s.src_offset;
  A* y = dst + s.dst_offset;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < s.n; t += step) {
    S b = 0;
    if (t > 0) b = x[t - 1];
    else if (border == BORDER_CLAMP) b = x[0];
    else if (border == BORDER_REFLECT && s.n > 1) b = x[1];
    y[t] = x[t] - coeff * b;
  }
}

#define DALI_PREEMPH_KERNEL(SN, S, AN, A)                                                 \
  extern "C" __global__ void preemph_##SN##_##AN(const S* src, A* dst,                  \
                                                 const PreemphSample* samples,          \
                                                 const float* coeffs, int border) {     \
    dali_preemph<S, A>(src, dst, samples, coeffs, border);                              \
  }

DALI_PREEMPH_KERNEL(i8, signed char, f32, float)
DALI_PREEMPH_KERNEL(u8, unsigned char, f32, float)
DALI_PREEMPH_KERNEL(i16, short, f32, float)
DALI_PREEMPH_KERNEL(u16, unsigned short, f32, float)
DALI_PREEMPH_KERNEL(i32, int, f32, float)
DALI_PREEMPH_KERNEL(u32, unsigned int, f32, float)
DALI_PREEMPH_KERNEL(i64, long long, f32, float)
DALI_PREEMPH_KERNEL(u64, unsigned long long, f32, float)
DALI_PREEMPH_KERNEL(f32, float, f32, float)
DALI_PREEMPH_KERNEL(f64, double, f64, double)
