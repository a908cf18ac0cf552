/* Runs of Philox4x32-10 blocks, several at once: what fn.jitter draws per pixel.
 *
 * dali_philox_blocks(key, c0, c1, c2, first, n, out) writes the 4 words of the blocks with
 * counter (c0, c1, c2, first + b), b in [0, n), block after block, exactly as
 * `philox4x32_10` of _ext/rng.pyx computes them one at a time (integer operations only, so
 * the SSE4.1 path, 4 blocks at a time, and the AVX2 one, 8 at a time, taken when
 * __builtin_cpu_supports("avx2") says so, give the same words as the plain C fallback).
 * dali_philox_detect() sets dali_px_avx2 once, at import; clearing it forces SSE4.1. */
#ifndef DALI_EXT_KERNELS_PHILOX_BLOCKS_H_
#define DALI_EXT_KERNELS_PHILOX_BLOCKS_H_

#include <stdint.h>

#define DALI_PX_M0 0xD2511F53u
#define DALI_PX_M1 0xCD9E8D57u
#define DALI_PX_W0 0x9E3779B9u
#define DALI_PX_W1 0xBB67AE85u

static inline void dali_philox_one(uint64_t key, uint32_t c0, uint32_t c1, uint32_t c2,
                                   uint32_t c3, uint32_t* out) {
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)DALI_PX_M0 * c0, p1 = (uint64_t)DALI_PX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += DALI_PX_W0;
        k1 += DALI_PX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

#if defined(__x86_64__) && defined(__SSE4_1__)
#include <immintrin.h>

/* One round on lanes of 32-bit words: high halves of the 64-bit products from the even and
   the odd lanes' multiplications, low halves by mullo. */
#define DALI_PX_ROUND(V, MUL, SRL, BLEND, MULLO, XOR, SET1, K0, K1)                       \
    {                                                                                     \
        V m0 = SET1((int)DALI_PX_M0), m1 = SET1((int)DALI_PX_M1);                         \
        V h0 = BLEND(SRL(MUL(c0, m0), 32), MUL(SRL(c0, 32), m0), 0xCC);                   \
        V h1 = BLEND(SRL(MUL(c2, m1), 32), MUL(SRL(c2, 32), m1), 0xCC);                   \
        V l0 = MULLO(c0, m0), l1 = MULLO(c2, m1);                                         \
        c0 = XOR(XOR(h1, c1), SET1((int)(K0)));                                           \
        c2 = XOR(XOR(h0, c3), SET1((int)(K1)));                                           \
        c1 = l1;                                                                          \
        c3 = l0;                                                                          \
    }

/* The 10 rounds on 8 lanes of counters (c0, c1, c2, c3), their blocks stored lane after lane
   (4 words each) at out: what the AVX2 paths here and in philox_lanes.h share. */
__attribute__((target("avx2")))
static inline void dali_philox_8(uint64_t key, __m256i c0, __m256i c1, __m256i c2, __m256i c3,
                                 uint32_t* out) {
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
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
    __m256i* o = (__m256i*)out;
    _mm256_storeu_si256(o, _mm256_permute2x128_si256(q0, q1, 0x20));
    _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(q2, q3, 0x20));
    _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(q0, q1, 0x31));
    _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(q2, q3, 0x31));
}

__attribute__((target("avx2")))
static int64_t dali_philox_blocks_avx2(uint64_t key, uint32_t a0, uint32_t a1, uint32_t a2,
                                       uint32_t first, int64_t n, uint32_t* out) {
    int64_t b = 0;
    for (; b + 8 <= n; b += 8)
        dali_philox_8(key, _mm256_set1_epi32((int)a0), _mm256_set1_epi32((int)a1),
                      _mm256_set1_epi32((int)a2),
                      _mm256_add_epi32(_mm256_set1_epi32((int)(first + (uint32_t)b)),
                                       _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)),
                      out + 4 * b);
    return b;
}

static int dali_px_avx2 = 0;
static void dali_philox_detect(void) {
    __builtin_cpu_init();
    dali_px_avx2 = __builtin_cpu_supports("avx2");
}

static inline void dali_philox_blocks(uint64_t key, uint32_t a0, uint32_t a1, uint32_t a2,
                                      uint32_t first, int64_t n, uint32_t* out) {
    int64_t b = 0;
    if (dali_px_avx2)
        b = dali_philox_blocks_avx2(key, a0, a1, a2, first, n, out);
    for (; b + 4 <= n; b += 4) {
        uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
        __m128i c0 = _mm_set1_epi32((int)a0), c1 = _mm_set1_epi32((int)a1);
        __m128i c2 = _mm_set1_epi32((int)a2);
        __m128i c3 = _mm_add_epi32(_mm_set1_epi32((int)(first + (uint32_t)b)),
                                   _mm_setr_epi32(0, 1, 2, 3));
        for (int r = 0; r < 10; r++) {
            DALI_PX_ROUND(__m128i, _mm_mul_epu32, _mm_srli_epi64, _mm_blend_epi16,
                          _mm_mullo_epi32, _mm_xor_si128, _mm_set1_epi32, k0, k1)
            k0 += DALI_PX_W0;
            k1 += DALI_PX_W1;
        }
        __m128i t0 = _mm_unpacklo_epi32(c0, c1), t1 = _mm_unpackhi_epi32(c0, c1);
        __m128i t2 = _mm_unpacklo_epi32(c2, c3), t3 = _mm_unpackhi_epi32(c2, c3);
        __m128i* o = (__m128i*)(out + 4 * b);
        _mm_storeu_si128(o, _mm_unpacklo_epi64(t0, t2));
        _mm_storeu_si128(o + 1, _mm_unpackhi_epi64(t0, t2));
        _mm_storeu_si128(o + 2, _mm_unpacklo_epi64(t1, t3));
        _mm_storeu_si128(o + 3, _mm_unpackhi_epi64(t1, t3));
    }
    for (; b < n; b++)
        dali_philox_one(key, a0, a1, a2, first + (uint32_t)b, out + 4 * b);
}
#else
static int dali_px_avx2 = 0;
static void dali_philox_detect(void) {}
static inline void dali_philox_blocks(uint64_t key, uint32_t a0, uint32_t a1, uint32_t a2,
                                      uint32_t first, int64_t n, uint32_t* out) {
    for (int64_t b = 0; b < n; b++)
        dali_philox_one(key, a0, a1, a2, first + (uint32_t)b, out + 4 * b);
}
#endif

/* The switch the tests use: `enable` < 0 asks, 0 turns the AVX2 path off, 1 on (where the CPU
 * has AVX2); returns whether it is on.  Each extension including this header has its own. */
static int dali_philox_avx2(int enable) {
    if (enable >= 0) {
        dali_philox_detect();
        if (!enable)
            dali_px_avx2 = 0;
    }
    return dali_px_avx2;
}

#endif  /* DALI_EXT_KERNELS_PHILOX_BLOCKS_H_ */
