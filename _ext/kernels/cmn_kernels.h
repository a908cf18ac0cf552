/* The packed three-channel uint8 -> planar float32 loop of fn.crop_mirror_normalize
   (dali/_ext/kernels/cmn.pyx): SSSE3/SSE4.1 byte shuffles where the build allows them, a
   scalar loop otherwise.  Both compute (x - m[c]) * f[c] in float32, so the results are the
   same whichever is compiled. */
#ifndef DALI_CMN_KERNELS_H
#define DALI_CMN_KERNELS_H

#include <Python.h>
#include <stdint.h>

/* Packed three-channel uint8 pixels (read forwards, dir = 1, or backwards from `s`,
   dir = -1) into three float planes: (x - m[c]) * f[c], the scalar loop's operations.
   Eight pixels at a time: 24 bytes split into channels with byte shuffles. */
static inline void dali_cmn_u8x3_one(const uint8_t* s, int dir, float* d0, float* d1,
                                     float* d2, Py_ssize_t k, const float* m,
                                     const float* f) {
    const uint8_t* p = s + 3 * dir * k;
    d0[k] = ((float)p[0] - m[0]) * f[0];
    d1[k] = ((float)p[1] - m[1]) * f[1];
    d2[k] = ((float)p[2] - m[2]) * f[2];
}
#if defined(__SSSE3__) && defined(__SSE4_1__)
#include <smmintrin.h>
static inline void dali_cmn_store8(__m128i v, __m128 m, __m128 f, float* d) {
    for (int q = 0; q < 2; q++) {
        __m128 x = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(v));
        _mm_storeu_ps(d + 4 * q, _mm_mul_ps(_mm_sub_ps(x, m), f));
        v = _mm_srli_si128(v, 4);
    }
}
/* Eight pixels from the 24 bytes at p (in reverse order when `reverse`) into d0[0..7],
   d1[0..7] and d2[0..7]: byte i goes to channel i % 3, position i / 3. */
static inline void dali_cmn_block8(const uint8_t* p, int reverse, float* d0, float* d1,
                                   float* d2, __m128 m0, __m128 m1, __m128 m2, __m128 f0,
                                   __m128 f1, __m128 f2) {
    const __m128i x = _mm_loadu_si128((const __m128i*)p);
    const __m128i y = _mm_loadl_epi64((const __m128i*)(p + 16));
    const __m128i a0 = _mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1,
                                     -1, -1);
    const __m128i a1 = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 2, 5, -1, -1, -1, -1, -1, -1,
                                     -1, -1);
    const __m128i b0 = _mm_setr_epi8(1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                     -1, -1);
    const __m128i b1 = _mm_setr_epi8(-1, -1, -1, -1, -1, 0, 3, 6, -1, -1, -1, -1, -1, -1,
                                     -1, -1);
    const __m128i c0 = _mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                     -1, -1);
    const __m128i c1 = _mm_setr_epi8(-1, -1, -1, -1, -1, 1, 4, 7, -1, -1, -1, -1, -1, -1,
                                     -1, -1);
    __m128i r = _mm_or_si128(_mm_shuffle_epi8(x, a0), _mm_shuffle_epi8(y, a1));
    __m128i g = _mm_or_si128(_mm_shuffle_epi8(x, b0), _mm_shuffle_epi8(y, b1));
    __m128i bl = _mm_or_si128(_mm_shuffle_epi8(x, c0), _mm_shuffle_epi8(y, c1));
    if (reverse) {
        const __m128i rev = _mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, -1, -1, -1, -1, -1, -1,
                                          -1, -1);
        r = _mm_shuffle_epi8(r, rev);
        g = _mm_shuffle_epi8(g, rev);
        bl = _mm_shuffle_epi8(bl, rev);
    }
    dali_cmn_store8(r, m0, f0, d0);
    dali_cmn_store8(g, m1, f1, d1);
    dali_cmn_store8(bl, m2, f2, d2);
}
static void dali_cmn_u8x3_blocks(const uint8_t* s, int dir, float* d0, float* d1,
                                 float* d2, Py_ssize_t n, const float* m,
                                 const float* f) {
    const __m128 m0 = _mm_set1_ps(m[0]), m1 = _mm_set1_ps(m[1]), m2 = _mm_set1_ps(m[2]);
    const __m128 f0 = _mm_set1_ps(f[0]), f1 = _mm_set1_ps(f[1]), f2 = _mm_set1_ps(f[2]);
    /* Blocks in increasing source addresses (a mirrored row from its end: the hardware
       prefetcher follows ascending reads better), the n % 8 others one by one. */
    Py_ssize_t rest = n % 8, k;
    for (Py_ssize_t b = 0; b + 8 <= n; b += 8) {
        k = dir > 0 ? b : n - 8 - b;
        dali_cmn_block8(dir > 0 ? s + 3 * k : s - 3 * (k + 7), dir < 0, d0 + k, d1 + k,
                        d2 + k, m0, m1, m2, f0, f1, f2);
    }
    for (k = dir > 0 ? n - rest : 0; rest > 0; rest--, k++)
        dali_cmn_u8x3_one(s, dir, d0, d1, d2, k, m, f);
}
/* Mirrored rows go through a small buffer, read and written in increasing addresses
   (measured at batch 64, outputs far larger than the caches: 50 us per 224x224 sample
   against 64 writing blocks backwards and 100 reading pixels backwards; forwards 28). */
enum { DALI_CMN_CHUNK = 256 };
static inline void dali_cmn_copy(float* d, const float* b, Py_ssize_t n) {
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4)
        _mm_storeu_ps(d + i, _mm_loadu_ps(b + i));
    for (; i < n; i++)
        d[i] = b[i];
}
static void dali_cmn_u8x3(const uint8_t* s, int dir, float* d0, float* d1, float* d2,
                          Py_ssize_t n, const float* m, const float* f) {
    if (dir > 0 || n <= 64) {       /* (a short row stays in the cache either way) */
        dali_cmn_u8x3_blocks(s, dir, d0, d1, d2, n, m, f);
        return;
    }
    float buf[3][DALI_CMN_CHUNK];
    for (Py_ssize_t k0 = 0; k0 < n; k0 += DALI_CMN_CHUNK) {
        Py_ssize_t len = n - k0 < DALI_CMN_CHUNK ? n - k0 : DALI_CMN_CHUNK;
        dali_cmn_u8x3_blocks(s + 3 * dir * k0, dir, buf[0], buf[1], buf[2], len, m, f);
        dali_cmn_copy(d0 + k0, buf[0], len);
        dali_cmn_copy(d1 + k0, buf[1], len);
        dali_cmn_copy(d2 + k0, buf[2], len);
    }
}
#else
static void dali_cmn_u8x3(const uint8_t* s, int dir, float* d0, float* d1, float* d2,
                          Py_ssize_t n, const float* m, const float* f) {
    for (Py_ssize_t k = 0; k < n; k++)
        dali_cmn_u8x3_one(s, dir, d0, d1, d2, k, m, f);
}
#endif

#endif  /* DALI_CMN_KERNELS_H */
