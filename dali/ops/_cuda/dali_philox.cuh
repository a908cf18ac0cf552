// The CPU's counter-based random streams on the GPU (`#include "dali_philox.cuh"`), as
// _ext/rng.pyx and _ext/kernels/random_draws.h make them, so that a seed gives the same numbers
// on both: draw k of stream `stream` of a sample takes double k % 2 of Philox4x32-10 block
// (sample id low, sample id high, stream, k / 2) with the operator's key.
//
// - dali_uniform_draw: the top 53 bits of words (w0:w1) (k even) or (w2:w3) (k odd) times
//   2^-53, in [0, 1);
// - dali_normal_draw: standard normal by Box-Muller of the block (u1 = 1 - u(w0:w1),
//   u2 = u(w2:w3); rad * cos for even k, rad * sin for odd k), with the C library's (CUDA's)
//   double sqrt, log, cos and sin.
#ifndef DALI_OPS_CUDA_DALI_PHILOX_CUH_
#define DALI_OPS_CUDA_DALI_PHILOX_CUH_

#define DALI_TWO_PI 6.283185307179586

struct DaliPhiloxBlock {
  unsigned w[4];
};

__device__ __forceinline__ DaliPhiloxBlock dali_philox(unsigned long long key, long long sid,
                                                       unsigned stream, unsigned block) {
  unsigned k0 = (unsigned)key, k1 = (unsigned)(key >> 32);
  unsigned c0 = (unsigned)sid, c1 = (unsigned)((unsigned long long)sid >> 32), c2 = stream;
  unsigned c3 = block;
  for (int r = 0; r < 10; r++) {
    const unsigned long long p0 = (unsigned long long)0xD2511F53u * c0;
    const unsigned long long p1 = (unsigned long long)0xCD9E8D57u * c2;
    const unsigned n0 = (unsigned)(p1 >> 32) ^ c1 ^ k0, n2 = (unsigned)(p0 >> 32) ^ c3 ^ k1;
    c1 = (unsigned)p1;
    c3 = (unsigned)p0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return DaliPhiloxBlock{{c0, c1, c2, c3}};
}

__device__ __forceinline__ double dali_u01(unsigned hi, unsigned lo) {
  const unsigned long long bits = (((unsigned long long)hi << 32) | lo) >> 11;
  return bits * (1.0 / 9007199254740992.0);
}

__device__ __forceinline__ double dali_uniform_draw(unsigned long long key, long long sid,
                                                    unsigned stream, long long k) {
  const DaliPhiloxBlock r = dali_philox(key, sid, stream, (unsigned)(k / 2));
  return (k & 1) ? dali_u01(r.w[2], r.w[3]) : dali_u01(r.w[0], r.w[1]);
}

__device__ __forceinline__ double dali_normal_draw(unsigned long long key, long long sid,
                                                   unsigned stream, long long k) {
  const DaliPhiloxBlock r = dali_philox(key, sid, stream, (unsigned)(k / 2));
  const double u1 = 1.0 - dali_u01(r.w[0], r.w[1]);
  const double u2 = dali_u01(r.w[2], r.w[3]);
  const double rad = sqrt(-2.0 * log(u1));
  return (k & 1) ? rad * sin(DALI_TWO_PI * u2) : rad * cos(DALI_TWO_PI * u2);
}

#endif  // DALI_OPS_CUDA_DALI_PHILOX_CUH_
