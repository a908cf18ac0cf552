// fn.to_decibels on the GPU: out = multiplier * log10(max(min_ratio, x * inv)) with inv = 1 /
// reference, the reference being each sample's maximum when not given; the float operations of
// the CPU kernel (_ext/kernels/decibels.h) in the same order, its log10 (Cephes' polynomial on
// the float's bits) included, so that the results are the CPU's bit for bit.  A minimum ratio
// below FLT_MIN takes log10f, as the CPU does (CUDA's is within 2 ulp of the C library's).
//
// The maximum is the CPU's: eight lanes (lane b: elements i = b mod 8 below n - n % 8, starting
// from x[0]; an element replaces the lane's value when greater), then the lanes and the last
// n % 8 elements in order.  A lane keeps the first of equal maxima (it matters only for 0 and
// -0) and ignores NaNs unless x[0] is one.  db_lanes: one thread per element, each lane's
// greatest element and the first index holding it by atomicMax on a 64-bit key (the value's
// order, both zeros alike, then the complement of the index in the lane); db_reference: one
// thread per sample combines the lanes as the CPU does and writes 1 / maximum.  db_convert:
// one thread per element; blockIdx.y is the sample.

struct DbSample {
  long long src_offset;            // floats from the start of the input buffer
  long long dst_offset;            // floats from the start of the output buffer
  long long n;                     // elements
};

__device__ __forceinline__ float dali_log10_approx(float x) {   // positive normal or +inf
  const unsigned bits = __float_as_uint(x);
  const unsigned ix = bits - 0x3f3504f3u;
  const int e = (int)ix >> 23;
  const unsigned mbits = (ix & 0x007fffffu) + 0x3f3504f3u;
  const float m = __uint_as_float(mbits);
  const float f = m - 1.0f;
  const float z = f * f;
  float y = ((((((((7.0376836292e-2f * f - 1.1514610310e-1f) * f + 1.1676998740e-1f) * f
                  - 1.2420140846e-1f) * f + 1.4249322787e-1f) * f - 1.6668057665e-1f) * f
                + 2.0000714765e-1f) * f - 2.4999993993e-1f) * f + 3.3333331174e-1f) * f * z;
  const float fe = (float)e;
  y += -2.12194440e-4f * fe;
  y += -0.5f * z;
  const float ln = f + y + 0.693359375f * fe;
  const float out = ln * 0.434294481903251828f;
  return bits == 0x7f800000u ? x : out;
}

// the order of floats as unsigned keys, 0 and -0 alike (NaNs are not keyed)
__device__ __forceinline__ unsigned long long dali_order(float v) {
  const unsigned u = v == 0.0f ? 0u : __float_as_uint(v);
  return (unsigned long long)(u & 0x80000000u ? ~u : u | 0x80000000u);
}

extern "C" __global__ void db_lanes(const float* __restrict__ src,
                                    unsigned long long* __restrict__ keys,
                                    const DbSample* __restrict__ samples) {
  const DbSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long main = s.n - s.n % 8;
  const float* x = src + s.src_offset;
  unsigned long long* lanes = keys + 8 * (long long)blockIdx.y;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < main; i += step) {
    const float v = x[i];
    if (v == v)
      atomicMax(&lanes[i % 8],
                (dali_order(v) << 32) | (0xffffffffull - (unsigned long long)(i / 8)));
  }
}

extern "C" __global__ void db_reference(const float* __restrict__ src,
                                        const unsigned long long* __restrict__ keys,
                                        float* __restrict__ inv,
                                        const DbSample* __restrict__ samples, long long count) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += step) {
    const DbSample& s = samples[k];
    const float* x = src + s.src_offset;
    float m = 0.0f;
    if (s.n > 0) {
      for (int b = 0; b < 8; b++) {
        float lane = x[0];
        const unsigned long long key = keys[8 * k + b];
        if (key != 0) {
          const float c = x[8 * (long long)(0xffffffffull - (key & 0xffffffffull)) + b];
          lane = c > lane ? c : lane;
        }
        m = b == 0 ? lane : (lane > m ? lane : m);
      }
      for (long long i = s.n - s.n % 8; i < s.n; i++) m = x[i] > m ? x[i] : m;
    }
    inv[k] = 1.0f / m;
  }
}

extern "C" __global__ void db_convert(const float* __restrict__ src, float* __restrict__ dst,
                                      const DbSample* __restrict__ samples,
                                      const float* __restrict__ inv, float multiplier,
                                      float min_ratio, int approx) {
  const DbSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const float scale = inv[blockIdx.y];
  const float* x = src + s.src_offset;
  float* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s.n; i += step) {
    const float r = x[i] * scale;
    const float v = min_ratio < r ? r : min_ratio;
    out[i] = multiplier * (approx ? dali_log10_approx(v) : log10f(v));
  }
}
