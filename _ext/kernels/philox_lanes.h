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
    for (; l + 8 <= n; l += 8)
        dali_philox_8(key, _mm256_loadu_si256((const __m256i*)(a0 + l)),
                      _mm256_loadu_si256((const __m256i*)(a1 + l)),
                      _mm256_set1_epi32((int)a2), _mm256_set1_epi32((int)a3), out + 4 * l);
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
