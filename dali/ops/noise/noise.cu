// fn.noise.gaussian, fn.noise.salt_and_pepper and fn.noise.shot on the GPU, with the CPU
// kernel's draws and arithmetic (_ext/kernels/noise.h), so that a seed gives the same output on
// both.
//
// "Pixel" q of a sample covers the nc elements ((q / inner) * nc + c) * inner + q % inner,
// c < nc (nc = 1: every element on its own; salt and pepper without per_channel: the channels
// of a pixel).  Draw q of stream s is double q % 2 of Philox4x32-10 block (sample id low,
// sample id high, s, q / 2) with the operator's key: uniform u = the top 53 bits of (w0:w1) or
// (w2:w3) times 2^-53; standard normal by Box-Muller of the block (u1 = 1 - u(w0:w1),
// u2 = u(w2:w3); rad * cos for even q, rad * sin for odd q).
//   NOISE_GAUSSIAN  out = in + (float)(mean + stddev * z), in float32
//   NOISE_SALT      u = uniform q of stream 0, v = uniform q of stream 1: u < prob replaces the
//                   pixel by salt (v < salt_vs_pepper) or pepper (values of the type, stored
//                   as they are), else copies it
//   NOISE_SHOT      out = poisson(max(0, in / factor)) * factor in float32 (factor 0 gives 0):
//                   lambda < 10 by inversion of uniform q of stream 0; else PTRS (Hoermann
//                   1993), round 0 on uniforms q of streams 0 and 1, round r on streams 2r and
//                   2r + 1
// Integer outputs round half away from zero, saturate to [lo, hi] (NaN gives 0) and cast.
//
// noise_apply: one thread per pixel, blockIdx.y the sample, a grid-stride loop over x.  The
// double log, sqrt, cos, sin, exp and lgamma are CUDA's (glibc's under the emulation).

#include "dali_philox.cuh"

enum { NOISE_GAUSSIAN, NOISE_SALT, NOISE_SHOT };
// the type codes of noise.h (random_draws.h's DALI_DT_*; no float64, no bool)
enum { NOISE_F32 = 0, NOISE_U8 = 3, NOISE_U16, NOISE_U32, NOISE_U64, NOISE_I8, NOISE_I16,
       NOISE_I32, NOISE_I64 };

struct NoiseSample {
  long long src_offset;            // bytes from the start of the input buffer
  long long dst_offset;            // bytes from the start of the output buffer
  long long pixels;                // elements / nc
  long long nc, inner;
  long long sample_id;
  double a, b, c, d;               // mean, stddev | prob, salt_vs_pepper, salt, pepper | factor
};

__device__ __forceinline__ double noise_load(int dtype, const unsigned char* p, long long i) {
  switch (dtype) {
    case NOISE_F32: return ((const float*)p)[i];
    case NOISE_U8: return p[i];
    case NOISE_I8: return ((const signed char*)p)[i];
    case NOISE_U16: return ((const unsigned short*)p)[i];
    case NOISE_I16: return ((const short*)p)[i];
    case NOISE_U32: return ((const unsigned*)p)[i];
    case NOISE_I32: return ((const int*)p)[i];
    case NOISE_U64: return (double)((const unsigned long long*)p)[i];
    default: return (double)((const long long*)p)[i];
  }
}

// v stored as the type: rounded and saturated unless `raw` (a value of the type already)
__device__ __forceinline__ void noise_store(int dtype, unsigned char* p, long long i, double v,
                                            bool raw, double lo, double hi) {
  if (dtype == NOISE_F32) {
    ((float*)p)[i] = (float)v;
    return;
  }
  if (!raw) {
    if (v == v) {
      double r = trunc(v + copysign(0.5, v));
      r = r < lo ? lo : r;
      v = r > hi ? hi : r;
    } else {
      v = 0.0;
    }
  }
  switch (dtype) {
    case NOISE_U8: p[i] = (unsigned char)v; break;
    case NOISE_I8: ((signed char*)p)[i] = (signed char)v; break;
    case NOISE_U16: ((unsigned short*)p)[i] = (unsigned short)v; break;
    case NOISE_I16: ((short*)p)[i] = (short)v; break;
    case NOISE_U32: ((unsigned*)p)[i] = (unsigned)v; break;
    case NOISE_I32: ((int*)p)[i] = (int)v; break;
    case NOISE_U64:
      ((unsigned long long*)p)[i] =
          v >= 18446744073709551615.0 ? 0xffffffffffffffffull : (unsigned long long)v;
      break;
    default:
      ((long long*)p)[i] = v >= 9223372036854775807.0 ? 0x7fffffffffffffffll : (long long)v;
  }
}

// Poisson(lam) of pixel q (u0, u1: its uniforms of streams 0 and 1), noise.h's
// dali_noise_poisson
__device__ double noise_poisson(unsigned long long key, long long sid, long long q, double lam,
                                double u0, double u1) {
  if (!(lam > 0)) return 0.0;
  if (lam < 10) {
    double p = exp(-lam), s = p;
    int k = 0;
    while (u0 > s && k < 1000) {
      k++;
      p *= lam / k;
      s += p;
    }
    return k;
  }
  const double slam = sqrt(lam), loglam = log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (int r = 0; r < 64; r++) {
    double U, V;
    if (r == 0) {
      U = u0 - 0.5;
      V = u1;
    } else {
      U = dali_uniform_draw(key, sid, (unsigned)(2 * r), q) - 0.5;
      V = dali_uniform_draw(key, sid, (unsigned)(2 * r + 1), q);
    }
    const double us = 0.5 - fabs(U);
    const double k = floor((2 * a / us + b) * U + lam + 0.43);
    if (us >= 0.07 && V <= vr) return k;
    if (k < 0 || (us < 0.013 && V > us)) continue;
    if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1))
      return k;
  }
  return floor(lam);
}

// samples: one NoiseSample per sample; dtype: a NOISE_* type code of both buffers; lo, hi: the
// integer clamp range
extern "C" __global__ void noise_apply(const unsigned char* in, unsigned char* out,
                                       const NoiseSample* samples, int n_samples,
                                       unsigned long long key, int mode, int dtype,
                                       int itemsize, double lo, double hi) {
  if ((int)blockIdx.y >= n_samples) return;
  const NoiseSample s = samples[blockIdx.y];
  const unsigned char* src = in + s.src_offset;
  unsigned char* dst = out + s.dst_offset;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < s.pixels; q += step) {
    const long long e = (q / s.inner) * s.nc * s.inner + q % s.inner;
    if (mode == NOISE_GAUSSIAN) {
      const double z = dali_normal_draw(key, s.sample_id, 0, q);
      const float noise = (float)(s.a + s.b * z);
      const float x = (float)noise_load(dtype, src, e);
      noise_store(dtype, dst, e, (double)(x + noise), false, lo, hi);
      continue;
    }
    const double u = dali_uniform_draw(key, s.sample_id, 0, q);
    const double v = dali_uniform_draw(key, s.sample_id, 1, q);
    for (long long c = 0; c < s.nc; c++) {
      const long long i = e + c * s.inner;
      if (mode == NOISE_SALT) {
        if (u < s.a) {
          noise_store(dtype, dst, i, v < s.b ? s.c : s.d, true, lo, hi);
        } else {
          for (int k = 0; k < itemsize; k++) dst[i * itemsize + k] = src[i * itemsize + k];
        }
      } else {
        const float f = (float)s.a, x = (float)noise_load(dtype, src, i);
        float lam = f == 0.0f ? 0.0f : x / f;
        lam = lam > 0.0f ? lam : 0.0f;
        const float k = (float)noise_poisson(key, s.sample_id, q, lam, u, v);
        noise_store(dtype, dst, i, (double)(k * f), false, lo, hi);
      }
    }
  }
}
