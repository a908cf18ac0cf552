// fn.random.uniform, normal, coin_flip, choice (from range(a)) and beta on the GPU, with the
// CPU's counter-based streams (_ext/rng.pyx, _ext/kernels/random_draws.h), so that a seed gives
// the same numbers on both.
//
// Element j of a sample takes double j % 2 of Philox4x32-10 block j / 2 of counter (sample id
// low, sample id high, stream, j / 2) with the operator's key: uniform u = the top 53 bits of
// (w0:w1) or (w2:w3) times 2^-53; standard normal by Box-Muller of the block (u1 = 1 - u(w0:w1),
// u2 = u(w2:w3); rad * cos for even j, rad * sin for odd j).  random_draw then transforms in
// double precision, in random_draws.h's operation order:
//   RANDOM_UNIFORM  a + u * b, floats kept below `end` (the half-open range)
//   RANDOM_RINT     rint(a + u * b)                        (integer uniform)
//   RANDOM_NORMAL   a + b * z
//   RANDOM_COIN     u < a ? 1 : 0
//   RANDOM_INDEX    min(int64(u * a), a - 1)               (choice from range(a))
//   RANDOM_PICK     table[a + min(int64(u * b), b - 1)]    (uniform's `values`: the sample's
//                   b values start at table[a])
// and stores: floats cast; bool x != 0; integers rounded half away from zero, clamped to
// [lo, hi] and cast.  random_beta draws Beta(alpha, beta) from two gamma draws with the
// Marsaglia-Tsang rounds, streams and formulas random_draws.h states (dali_beta_run), its
// normals with random_draws.h's sine and cosine polynomials (random_sincos_2pi).
//
// One thread per element: blockIdx.y is the sample, a grid-stride loop over x its elements.
// The transforms call the C library's (CUDA's) double log, sqrt, cos, sin, exp and log1p.

#include "dali_philox.cuh"

enum { RANDOM_UNIFORM, RANDOM_RINT, RANDOM_NORMAL, RANDOM_COIN, RANDOM_INDEX, RANDOM_PICK };
enum { RANDOM_F32, RANDOM_F64, RANDOM_BOOL, RANDOM_U8, RANDOM_U16, RANDOM_U32, RANDOM_U64,
       RANDOM_I8, RANDOM_I16, RANDOM_I32, RANDOM_I64 };

struct RandomSample {
  long long offset;                // bytes from the start of the output buffer
  long long count;                 // elements
  long long sample_id;
  double a, b, end;                // the sample's parameters (beta: alpha, beta)
};

__device__ __forceinline__ double random_int(double x, double lo, double hi) {
  double r = trunc(x + copysign(0.5, x));
  r = r < lo ? lo : r;
  return r > hi ? hi : r;
}

// v (a double, or the uniform mode's float) stored as the output type
__device__ __forceinline__ void random_store(unsigned char* p, int dtype, int mode, double v,
                                             double end, double lo, double hi) {
  switch (dtype) {
    case RANDOM_F32: {
      float x = (float)v;
      if (mode == RANDOM_UNIFORM) {
        const float e = (float)end;
        if (x >= e) x = nextafterf(e, __int_as_float(0xff800000));      // below end
      }
      *(float*)p = x;
      break;
    }
    case RANDOM_F64:
      if (mode == RANDOM_UNIFORM && v >= end)
        v = nextafter(end, __longlong_as_double((long long)0xfff0000000000000ull));
      *(double*)p = v;
      break;
    case RANDOM_BOOL: *p = v != 0.0; break;
    case RANDOM_U8: *p = (unsigned char)random_int(v, lo, hi); break;
    case RANDOM_U16: *(unsigned short*)p = (unsigned short)random_int(v, lo, hi); break;
    case RANDOM_U32: *(unsigned*)p = (unsigned)random_int(v, lo, hi); break;
    case RANDOM_U64:
      *(unsigned long long*)p = (unsigned long long)random_int(v, lo, hi);
      break;
    case RANDOM_I8: *(signed char*)p = (signed char)random_int(v, lo, hi); break;
    case RANDOM_I16: *(short*)p = (short)random_int(v, lo, hi); break;
    case RANDOM_I32: *(int*)p = (int)random_int(v, lo, hi); break;
    default: *(long long*)p = (long long)random_int(v, lo, hi);
  }
}

// samples: one RandomSample per sample; itemsize: the output type's size; table: the values
// of RANDOM_PICK
extern "C" __global__ void random_draw(unsigned char* out, const RandomSample* samples,
                                       int n_samples, unsigned long long key, unsigned stream,
                                       int mode, int dtype, int itemsize, double lo, double hi,
                                       const double* table) {
  if ((int)blockIdx.y >= n_samples) return;
  const RandomSample s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < s.count; j += step) {
    const double x = mode == RANDOM_NORMAL ? dali_normal_draw(key, s.sample_id, stream, j)
                                           : dali_uniform_draw(key, s.sample_id, stream, j);
    double v;
    switch (mode) {
      case RANDOM_UNIFORM: v = s.a + x * s.b; break;
      case RANDOM_RINT: v = rint(s.a + x * s.b); break;
      case RANDOM_NORMAL: v = s.a + s.b * x; break;
      case RANDOM_COIN: v = x < s.a ? 1.0 : 0.0; break;
      case RANDOM_PICK: {
        const long long last = (long long)s.b - 1, idx = (long long)(x * s.b);
        v = table[(long long)s.a + (idx < last ? idx : last)];
        break;
      }
      default: {
        const long long last = (long long)s.a - 1, idx = (long long)(x * s.a);
        v = (double)(idx < last ? idx : last);
      }
    }
    random_store(out + s.offset + j * itemsize, dtype, mode, v, s.end, lo, hi);
  }
}

// ---- beta ----------------------------------------------------------------------------------
// sin and cos of 2 pi u, u in [0, 1), as dali_sincos_2pi of random_draws.h computes them
__device__ __forceinline__ void random_sincos_2pi(double u, double* sin_out, double* cos_out) {
  const double x = 8.0 * u;
  const int q = (int)x;
  double f[2] = {x - q, 0.0};
  f[1] = 1.0 - f[0];
  const double a = 0.78539816339744830962 * f[q & 1];
  const double z = a * a;
  const double rs = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 +
                    z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08 +
                    z * 1.58969099521155010221e-10)));
  const double rc = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 +
                    z * (2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07 +
                    z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
  const double hz = 0.5 * z, w = 1.0 - hz;
  double sc[2];
  sc[0] = a + (z * a) * (-1.66666666666666324348e-01 + z * rs);
  sc[1] = w + (((1.0 - w) - hz) + z * rc);
  const int swap = ((q + 1) >> 1) & 1;
  *sin_out = sc[swap] * (double)(1 - 2 * (q >> 2));
  *cos_out = sc[swap ^ 1] * (double)(1 - 2 * (((q + 2) >> 2) & 1));
}

// the standard normal of the beta draws: dali_normal_draw's Box-Muller with random_sincos_2pi
__device__ __forceinline__ double random_beta_normal(unsigned long long key, long long sid,
                                                     unsigned stream, long long k) {
  const DaliPhiloxBlock r = dali_philox(key, sid, stream, (unsigned)(k / 2));
  const double u1 = 1.0 - dali_u01(r.w[0], r.w[1]);
  const double u2 = dali_u01(r.w[2], r.w[3]);
  const double rad = sqrt(-2.0 * log(u1));
  double sn, cs;
  random_sincos_2pi(u2, &sn, &cs);
  return (k & 1) ? rad * sn : rad * cs;
}

// A Gamma(k) draw (`lin`, k >= 1) or its log for element j and variable `var` (0: X, 1: Y);
// false when 64 rounds rejected it
__device__ __forceinline__ bool random_gamma(unsigned long long key, long long sid, int var,
                                             double k, bool lin, long long j, double* res) {
  const bool boost = k < 1.0;
  const double d = (boost ? k + 1.0 : k) - 1.0 / 3.0;
  const double c = 1.0 / sqrt(9.0 * d);
  const double log_d = log(d);
  bool accepted = false;
  for (int r = 0; r < 64 && !accepted; r++) {
    const double z = random_beta_normal(key, sid, (unsigned)(2 + 4 * r + 2 * var), j);
    const double u = dali_uniform_draw(key, sid, (unsigned)(3 + 4 * r + 2 * var), j);
    const double t = 1.0 + c * z;
    const double v = t * t * t;
    if (!(v > 0)) continue;
    if (lin && u > 0.0331 * ((z * z) * (z * z))) {
      *res = d * v;
      accepted = true;
      continue;
    }
    const double log_v = log(v);
    if (log1p(-u) < 0.5 * z * z + d - d * v + d * log_v) {
      *res = lin ? d * v : log_d + log_v;
      accepted = true;
    }
  }
  if (accepted && boost)
    *res += log1p(-dali_uniform_draw(key, sid, (unsigned)var, j)) / k;
  return accepted;
}

// samples: a and b are alpha and beta; failed: one int per sample, set to 1 when an element's
// gamma sampling did not converge
extern "C" __global__ void random_beta(unsigned char* out, const RandomSample* samples,
                                       int n_samples, unsigned long long key, int is_double,
                                       int* failed) {
  if ((int)blockIdx.y >= n_samples) return;
  const RandomSample s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < s.count; j += step) {
    const bool lin = s.a >= 1.0 && s.b >= 1.0;
    double gx, gy;
    if (!random_gamma(key, s.sample_id, 0, s.a, lin, j, &gx) ||
        !random_gamma(key, s.sample_id, 1, s.b, lin, j, &gy)) {
      failed[blockIdx.y] = 1;
      continue;
    }
    const double x = lin ? gx / (gx + gy) : 1.0 / (1.0 + exp(gy - gx));
    if (is_double)
      *(double*)(out + s.offset + j * 8) = x;
    else
      *(float*)(out + s.offset + j * 4) = (float)x;
  }
}
