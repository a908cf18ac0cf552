// fn.audio_resample on the GPU: one thread per output element (output position, channel) runs
// the CPU kernel's windowed-sinc resampler (_ext/kernels/audio_resample.h) in its float
// operations and order, so the results are the CPU's bit for bit:
// - positions advance in blocks of 256: a block starts from the exact (double) input position
//   block * scale and steps by the float scale, so a thread adds the float scale as many
//   times as its position is past its block's start;
// - a window inside the input sums its taps in 8 interleaved partial sums from the per-phase
//   table (dot_taps), one reaching past an end sums them in order from the tabulated window
//   interpolated linearly (tap_sum);
// - values are read normalized (integers to -1..1) and written back with saturation and
//   rounding to nearest even (rintf, as nearbyint).
// blockIdx.y is the sample; resample_<in>_<out> for u8, i8, u16, i16, u32, i32, f32.

struct ResampleSample {
  long long src_offset;            // elements from the start of the input buffer
  long long n_in;                  // input positions
  long long dst_offset;            // elements from the start of the output buffer
  long long n_out;                 // output positions
  long long channels;
};

#define DALI_RESAMPLE_BLOCK 256
#define DALI_RESAMPLE_PHASES 32
#define DALI_RESAMPLE_LANES 8

// The integer types' range (lo, hi: C++'s numeric_limits min and max) and their float values.
template <typename T> struct DaliLimits {         // float
  static constexpr bool is_signed = true, is_float = true;
  static constexpr T lo = 0, hi = 0;
};
#define DALI_RESAMPLE_LIMITS(T, SIGNED, LO, HI)            \
  template <> struct DaliLimits<T> {                         \
    static constexpr bool is_signed = SIGNED, is_float = false; \
    static constexpr T lo = LO, hi = HI;                     \
  };
DALI_RESAMPLE_LIMITS(unsigned char, false, 0, 255)
DALI_RESAMPLE_LIMITS(signed char, true, -128, 127)
DALI_RESAMPLE_LIMITS(unsigned short, false, 0, 65535)
DALI_RESAMPLE_LIMITS(short, true, -32768, 32767)
DALI_RESAMPLE_LIMITS(unsigned int, false, 0u, 4294967295u)
DALI_RESAMPLE_LIMITS(int, true, -2147483647 - 1, 2147483647)

template <typename T>
__device__ __forceinline__ float dali_read_norm(T v) {
  typedef DaliLimits<T> L;
  if (L::is_float) return (float)v;
  const float top = (float)L::hi;
  if (L::is_signed) return (float)v / top;
  return (float)v * (2.0f / top) - 1.0f;
}

template <typename T>
__device__ __forceinline__ T dali_write_norm(float v) {
  typedef DaliLimits<T> L;
  if (L::is_float) return (T)v;
  const float top = (float)L::hi, bottom = (float)L::lo;
  float s = L::is_signed ? v * top : (v * 0.5f + 0.5f) * top;
  if (!(s > bottom)) return L::lo;                // also NaN
  if (s >= top) return L::hi;
  return (T)rintf(s);
}

template <typename In, typename Out>
__device__ __forceinline__ void dali_resample(const In* __restrict__ src, Out* __restrict__ dst,
                                              const ResampleSample* __restrict__ samples,
                                              const double* __restrict__ scales,
                                              const float* __restrict__ lut,
                                              const float* __restrict__ phases, float wscale,
                                              float wcenter, int lobes) {
  const ResampleSample& s = samples[blockIdx.y];
  const long long C = s.channels;
  const long long total = s.n_out * C;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const double scale = scales[blockIdx.y];
  const float fscale = (float)scale;
  const In* in = src + s.src_offset;
  Out* out = dst + s.dst_offset;
  const int taps = 2 * lobes;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
    long long o = e / C, c = e % C;
    long long block = o / DALI_RESAMPLE_BLOCK * DALI_RESAMPLE_BLOCK;
    double in_block_f = block * scale;
    long long in_block = (long long)floor(in_block_f);
    float in_pos = (float)(in_block_f - in_block);
    for (long long q = block; q < o; q++) in_pos += fscale;
    long long i0 = (long long)ceilf(in_pos) - lobes;
    float v;
    if (i0 >= -in_block && i0 + taps <= s.n_in - in_block) {     // dot_taps
      float fi = ((float)i0 - in_pos) * wscale + wcenter;
      int k = min((int)fi, DALI_RESAMPLE_PHASES);
      float frac = fi - (float)k;
      const float* entry = phases + (long long)(2 * (k - 1)) * taps;
      const float* delta = entry + taps;
      const In* x = in + (in_block + i0) * C + c;
      float acc[DALI_RESAMPLE_LANES] = {0};
      int t = 0;
      for (; t + DALI_RESAMPLE_LANES <= taps; t += DALI_RESAMPLE_LANES) {
        for (int l = 0; l < DALI_RESAMPLE_LANES; l++) {
          float w = entry[t + l] + frac * delta[t + l];
          acc[l] += dali_read_norm<In>(x[(long long)(t + l) * C]) * w;
        }
      }
      for (; t < taps; t++)
        acc[t % DALI_RESAMPLE_LANES] += dali_read_norm<In>(x[(long long)t * C]) *
                                        (entry[t] + frac * delta[t]);
      v = 0;
      for (int l = 0; l < DALI_RESAMPLE_LANES; l++) v += acc[l];
    } else {                                                    // tap_sum
      long long xc = (long long)ceilf(in_pos);
      long long lo = xc - lobes > -in_block ? xc - lobes : -in_block;
      long long hi = xc + lobes < s.n_in - in_block ? xc + lobes : s.n_in - in_block;
      v = 0;
      float x = (float)lo - in_pos;
      for (long long i = lo; i < hi; i++, x++) {
        float fi = x * wscale + wcenter;
        int k = (int)fi;
        float w = lut[k] + (fi - (float)k) * (lut[k + 1] - lut[k]);
        v += dali_read_norm<In>(in[(in_block + i) * C + c]) * w;
      }
    }
    out[o * C + c] = dali_write_norm<Out>(v);
  }
}

#define DALI_RESAMPLE_KERNEL(IN_NAME, IN, OUT_NAME, OUT)                                     \
  extern "C" __global__ void resample_##IN_NAME##_##OUT_NAME(                              \
      const IN* src, OUT* dst, const ResampleSample* samples, const double* scales,        \
      const float* lut, const float* phases, float wscale, float wcenter, int lobes) {     \
    dali_resample<IN, OUT>(src, dst, samples, scales, lut, phases, wscale, wcenter, lobes); \
  }

#define DALI_RESAMPLE_FROM(IN_NAME, IN)                                  \
  DALI_RESAMPLE_KERNEL(IN_NAME, IN, u8, unsigned char)                  \
  DALI_RESAMPLE_KERNEL(IN_NAME, IN, i8, signed char)                    \
  DALI_RESAMPLE_KERNEL(IN_NAME, IN, u16, unsigned short)                \
  DALI_RESAMPLE_KERNEL(IN_NAME, IN, i16, short)                         \
  DALI_RESAMPLE_KERNEL(IN_NAME, IN, u32, unsigned int)                  \
  DALI_RESAMPLE_KERNEL(IN_NAME, IN, i32, int)                           \
  DALI_RESAMPLE_KERNEL(IN_NAME, IN, f32, float)

DALI_RESAMPLE_FROM(u8, unsigned char)
DALI_RESAMPLE_FROM(i8, signed char)
DALI_RESAMPLE_FROM(u16, unsigned short)
DALI_RESAMPLE_FROM(i16, short)
DALI_RESAMPLE_FROM(u32, unsigned int)
DALI_RESAMPLE_FROM(i32, int)
DALI_RESAMPLE_FROM(f32, float)
