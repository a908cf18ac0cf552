/* One Philox4x32-10 block for each of many counters that differ in their first two words (a
 * sample id): what a batch's per-sample streams draw, block by block (fn.random_crop_generator,
 * fn.random_resized_crop: a few blocks per sample, too few for the runs of philox_blocks.h).
 *
 * dali_philox_lanes(key, a0, a1, a2, a3, n, out) writes the 4 words of the blocks with counter
 * (a0[l], a1[l], a2, a3), l in [0, n), lane after lane, exactly as `philox4x32_10` of
 * _ext/rng.pyx computes them: 8 lanes at a time with AVX2 (when dali_px_avx2, set by
 * dali_philox_detect() of philox_blocks.h), the rest one at a time (integer operations only, so
 * both give the same words). */
#ifndef DALI_EXT_KERNELS_PHILOX_LANES_H_
#define DALI_EXT_KERNELS_PHILOX_LANES_H_

#include <stdint.h>

#include "philox_blocks.h"

#if defined(__x86_64__) && defined(__SSE4_1__)
__attribute__((target("avx2")))
static int64_t dali_philox_lanes_avx2(uint64_t key, const uint32_t* a0, const uint32_t* a1,
                                      uint32_t a2, uint32_t a3, int64_t n, uint32_t* out) {
    int64_t l = 0;
    for (; l + 8 <= n; l += 8) {
        uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
        __m256i c0 = _mm256_loadu_si256((const __m256i*)(a0 + l));
        __m256i c1 = _mm256_loadu_si256((const __m256i*)(a1 + l));
        __m256i c2 = _mm256_set1_epi32((int)a2), c3 = _mm256_set1_epi32((int)a3);
        for (int r = 0; r < 10; r++) {
            DALI_PX_ROUND(__m256i, _mm256_mul_epu32, _mm256_srli_epi64, _mm256_blend_epi16,
                          _mm256_mullo_epi32, _mm256_xor_si256, _mm256_set1_epi32, k0, k1)
            k0 += DALI_PX_W0;
            k1 += DALI_PX_W1;
        }
        __m256i t0 = _mm256_unpacklo_epi32(c0, c1), t1 = _mm256_unpackhi_epi32(c0, c1);
        __m256i t2 = _mm256_unpacklo_epi32(c2, c3), t3 = _mm256_unpackhi_epi32(c2, c3);
        __m256i q0 = _mm256_unpacklo_epi64(t0, t2), q1 = _mm256_unpackhi_epi64(t0, t2);
        __m256i q2 = _mm256_unpacklo_epi64(t1, t3), q3 = _mm256_unpackhi_epi64(t1, t3);
        __m256i* o = (__m256i*)(out + 4 * l);
        _mm256_storeu_si256(o, _mm256_permute2x128_si256(q0, q1, 0x20));
        _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(q2, q3, 0x20));
        _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(q0, q1, 0x31));
        _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(q2, q3, 0x31));
    }
    return l;
}
#endif

static inline void dali_philox_lanes(uint64_t key, const uint32_t* a0, const uint32_t* a1,
                                     uint32_t a2, uint32_t a3, int64_t n, uint32_t* out) {
    int64_t l = 0;
#if defined(__x86_64__) && defined(__SSE4_1__)
    if (dali_px_avx2)
        l = dali_philox_lanes_avx2(key, a0, a1, a2, a3, n, out);
#endif
    for (; l < n; l++)
        dali_philox_one(key, a0[l], a1[l], a2, a3, out + 4 * l);
}

#endif  /* DALI_EXT_KERNELS_PHILOX_LANES_H_ */
