/* The uint8 loops of the colour kernels (color.pyx) 16 or 32 pixels at a time.
 *
 * dali_color_affine_u8(s, d, n, m, off): d[i] = u8(s[i] * m + off), the float32 product and
 *   sum of the scalar loop, then convert.pxd's uint8 store: NaN and values <= 0 give 0, values
 *   >= 255 give 255, others round half away from zero (truncate, add 1 where the remainder is
 *   >= 0.5: exact, as the scalar code does it).  max/min keep NaN out as the scalar selects
 *   do (maxps returns its second operand, 0, for NaN).
 * dali_color_mat3_u8(s, d, n, m, off): the 3x3 map of RGB pixels, d = u8(m @ s + off), each
 *   output channel `m[c, 0] * s0 + m[c, 1] * s1 + m[c, 2] * s2 + off[c]` summed left to right
 *   in float32 and converted as above (fn.hsv, fn.color_twist on uint8).
 * dali_color_gray_u8(s, d, n, red): d[i] = (R * 9798 + G * 19235 + B * 3735 + 16384) >> 15
 *   of the RGB (red = 0) or BGR (red = 2) pixel s[3i..3i+2], in exact integer arithmetic.
 *
 * SSE4.1 loops (plain C fallback without it), AVX2 ones taken when
 * __builtin_cpu_supports("avx2") says so (dali_color_detect() at import; clearing
 * dali_color_avx2 forces SSE4.1).  No fused multiply-adds: every path computes the scalar
 * loop's values bit for bit. */
#ifndef DALI_EXT_KERNELS_COLOR_SIMD_H_
#define DALI_EXT_KERNELS_COLOR_SIMD_H_

#include <stdint.h>

static inline uint8_t dali_color_u8(float v) {
    v = v > 0 ? v : 0;
    v = v < 255 ? v : 255;
    int r = (int)v;
    return (uint8_t)(r + (v - (float)r >= 0.5f));
}

static inline void dali_color_mat3_1(const uint8_t* p, uint8_t* q, const float* m,
                                     const float* off) {
    float x0 = p[0], x1 = p[1], x2 = p[2];
    q[0] = dali_color_u8(m[0] * x0 + m[1] * x1 + m[2] * x2 + off[0]);
    q[1] = dali_color_u8(m[3] * x0 + m[4] * x1 + m[5] * x2 + off[1]);
    q[2] = dali_color_u8(m[6] * x0 + m[7] * x1 + m[8] * x2 + off[2]);
}

static inline uint8_t dali_color_gray1(const uint8_t* p, int red) {
    return (uint8_t)((p[red] * 9798 + p[1] * 19235 + p[2 - red] * 3735 + 16384) >> 15);
}

#if defined(__x86_64__) && defined(__SSE4_1__)
#include <immintrin.h>

static int dali_color_avx2 = 0;
static void dali_color_detect(void) {
    __builtin_cpu_init();
    dali_color_avx2 = __builtin_cpu_supports("avx2");
}

static inline __m128i dali_color_affine4(__m128i x, __m128 m, __m128 off) {
    __m128 v = _mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(x), m), off);
    v = _mm_min_ps(_mm_max_ps(v, _mm_setzero_ps()), _mm_set1_ps(255.0f));
    __m128i r = _mm_cvttps_epi32(v);
    __m128 up = _mm_cmpge_ps(_mm_sub_ps(v, _mm_cvtepi32_ps(r)), _mm_set1_ps(0.5f));
    return _mm_sub_epi32(r, _mm_castps_si128(up));
}

__attribute__((target("avx2")))
static inline __m256i dali_color_affine8(__m128i x8, __m256 m, __m256 off) {
    __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(x8)), m),
                             off);
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), _mm256_set1_ps(255.0f));
    __m256i r = _mm256_cvttps_epi32(v);
    __m256 up = _mm256_cmp_ps(_mm256_sub_ps(v, _mm256_cvtepi32_ps(r)), _mm256_set1_ps(0.5f),
                              _CMP_GE_OQ);
    return _mm256_sub_epi32(r, _mm256_castps_si256(up));
}

__attribute__((target("avx2")))
static int64_t dali_color_affine_u8_avx2(const uint8_t* s, uint8_t* d, int64_t n, float m,
                                         float off) {
    __m256 vm = _mm256_set1_ps(m), vo = _mm256_set1_ps(off);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i*)(s + i));
        __m128i lo = _mm256_castsi256_si128(x), hi = _mm256_extracti128_si256(x, 1);
        __m256i a = dali_color_affine8(lo, vm, vo);
        __m256i b = dali_color_affine8(_mm_srli_si128(lo, 8), vm, vo);
        __m256i c = dali_color_affine8(hi, vm, vo);
        __m256i e = dali_color_affine8(_mm_srli_si128(hi, 8), vm, vo);
        /* packs work per 128-bit lane: (a0 b0 | a1 b1), then fix the lane order */
        __m256i ab = _mm256_packus_epi32(a, b), ce = _mm256_packus_epi32(c, e);
        __m256i all = _mm256_packus_epi16(ab, ce);
        all = _mm256_permutevar8x32_epi32(all, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((__m256i*)(d + i), all);
    }
    return i;
}

static void dali_color_affine_u8(const uint8_t* s, uint8_t* d, int64_t n, float m,
                                 float off) {
    int64_t i = 0;
    if (dali_color_avx2)
        i = dali_color_affine_u8_avx2(s, d, n, m, off);
    __m128 vm = _mm_set1_ps(m), vo = _mm_set1_ps(off);
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i*)(s + i));
        __m128i a = dali_color_affine4(_mm_cvtepu8_epi32(x), vm, vo);
        __m128i b = dali_color_affine4(_mm_cvtepu8_epi32(_mm_srli_si128(x, 4)), vm, vo);
        __m128i c = dali_color_affine4(_mm_cvtepu8_epi32(_mm_srli_si128(x, 8)), vm, vo);
        __m128i e = dali_color_affine4(_mm_cvtepu8_epi32(_mm_srli_si128(x, 12)), vm, vo);
        _mm_storeu_si128((__m128i*)(d + i),
                         _mm_packus_epi16(_mm_packus_epi32(a, b), _mm_packus_epi32(c, e)));
    }
    for (; i < n; i++)
        d[i] = dali_color_u8((float)s[i] * m + off);
}

/* Four pixels (12 bytes at p; 16 are read) to four int32 gray values. */
static inline __m128i dali_color_gray4(const uint8_t* p, __m128i rg_shuf, __m128i b_shuf,
                                       __m128i w_rg, __m128i w_b) {
    __m128i x = _mm_loadu_si128((const __m128i*)p);
    __m128i rg = _mm_madd_epi16(_mm_shuffle_epi8(x, rg_shuf), w_rg);
    __m128i b = _mm_madd_epi16(_mm_shuffle_epi8(x, b_shuf), w_b);
    return _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(rg, b), _mm_set1_epi32(16384)), 15);
}

__attribute__((target("avx2")))
static inline __m256i dali_color_gray8(const uint8_t* p, __m256i rg_shuf, __m256i b_shuf,
                                       __m256i w_rg, __m256i w_b) {
    __m256i x = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i*)p)),
        _mm_loadu_si128((const __m128i*)(p + 12)), 1);
    __m256i rg = _mm256_madd_epi16(_mm256_shuffle_epi8(x, rg_shuf), w_rg);
    __m256i b = _mm256_madd_epi16(_mm256_shuffle_epi8(x, b_shuf), w_b);
    return _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(rg, b), _mm256_set1_epi32(16384)), 15);
}

/* shuffles of 4 pixels: (R, G) pairs as int16, and (B, 0) */
#define DALI_GRAY_SHUFFLES(red)                                                           \
    const int8_t r0 = (int8_t)(red), b0 = (int8_t)(2 - (red)), Z = -1;                    \
    __m128i rg_shuf = _mm_setr_epi8(r0, Z, 1, Z, 3 + r0, Z, 4, Z, 6 + r0, Z, 7, Z,        \
                                    9 + r0, Z, 10, Z);                                    \
    __m128i b_shuf = _mm_setr_epi8(b0, Z, Z, Z, 3 + b0, Z, Z, Z, 6 + b0, Z, Z, Z,         \
                                   9 + b0, Z, Z, Z);

__attribute__((target("avx2")))
static int64_t dali_color_gray_u8_avx2(const uint8_t* s, uint8_t* d, int64_t n, int red) {
    DALI_GRAY_SHUFFLES(red)
    __m256i rg8 = _mm256_broadcastsi128_si256(rg_shuf), b8 = _mm256_broadcastsi128_si256(b_shuf);
    __m256i w_rg = _mm256_set1_epi32(9798 | (19235 << 16)), w_b = _mm256_set1_epi32(3735);
    int64_t i = 0;
    /* 32 pixels read 96 bytes + 4 past the last pixel used: stop early enough */
    for (; i + 32 + 2 <= n; i += 32) {
        const uint8_t* p = s + 3 * i;
        __m256i a = dali_color_gray8(p, rg8, b8, w_rg, w_b);
        __m256i b = dali_color_gray8(p + 24, rg8, b8, w_rg, w_b);
        __m256i c = dali_color_gray8(p + 48, rg8, b8, w_rg, w_b);
        __m256i e = dali_color_gray8(p + 72, rg8, b8, w_rg, w_b);
        __m256i all = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, e));
        all = _mm256_permutevar8x32_epi32(all, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((__m256i*)(d + i), all);
    }
    return i;
}

static void dali_color_gray_u8(const uint8_t* s, uint8_t* d, int64_t n, int red) {
    int64_t i = 0;
    if (dali_color_avx2)
        i = dali_color_gray_u8_avx2(s, d, n, red);
    DALI_GRAY_SHUFFLES(red)
    __m128i w_rg = _mm_set1_epi32(9798 | (19235 << 16)), w_b = _mm_set1_epi32(3735);
    for (; i + 16 + 2 <= n; i += 16) {
        const uint8_t* p = s + 3 * i;
        __m128i a = dali_color_gray4(p, rg_shuf, b_shuf, w_rg, w_b);
        __m128i b = dali_color_gray4(p + 12, rg_shuf, b_shuf, w_rg, w_b);
        __m128i c = dali_color_gray4(p + 24, rg_shuf, b_shuf, w_rg, w_b);
        __m128i e = dali_color_gray4(p + 36, rg_shuf, b_shuf, w_rg, w_b);
        _mm_storeu_si128((__m128i*)(d + i),
                         _mm_packus_epi16(_mm_packus_epi32(a, b), _mm_packus_epi32(c, e)));
    }
    for (; i < n; i++)
        d[i] = dali_color_gray1(s + 3 * i, red);
}
/* 3x3 maps of RGB pixels: the channels of 4 pixels (8 with AVX2: 4 per 128-bit lane) spread
   to int32 lanes with pshufb, the float32 sums of the scalar loop, converted as
   dali_color_affine4 does, packed back to 3 bytes a pixel. */
#define DALI_MAT3_SHUFFLES                                                                \
    const int8_t Z = -1;                                                                  \
    __m128i s0 = _mm_setr_epi8(0, Z, Z, Z, 3, Z, Z, Z, 6, Z, Z, Z, 9, Z, Z, Z);           \
    __m128i s1 = _mm_setr_epi8(1, Z, Z, Z, 4, Z, Z, Z, 7, Z, Z, Z, 10, Z, Z, Z);          \
    __m128i s2 = _mm_setr_epi8(2, Z, Z, Z, 5, Z, Z, Z, 8, Z, Z, Z, 11, Z, Z, Z);          \
    __m128i pack = _mm_setr_epi8(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, Z, Z, Z, Z);

/* packs per 128 bits: int32 lanes c0, c1, c2 of 4 pixels -> their 12 bytes r g b r g b ...
   (after packs to bytes the order is c0[0..3] c1[0..3] c2[0..3]) */
static inline __m128i dali_color_mat3_4(__m128i x, __m128i s0, __m128i s1, __m128i s2,
                                        const __m128* m, const __m128* o, __m128i pack) {
    __m128 a = _mm_cvtepi32_ps(_mm_shuffle_epi8(x, s0));
    __m128 b = _mm_cvtepi32_ps(_mm_shuffle_epi8(x, s1));
    __m128 c = _mm_cvtepi32_ps(_mm_shuffle_epi8(x, s2));
    __m128i r[3];
    for (int k = 0; k < 3; k++) {
        __m128 v = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(m[3 * k], a),
                                                    _mm_mul_ps(m[3 * k + 1], b)),
                                         _mm_mul_ps(m[3 * k + 2], c)), o[k]);
        v = _mm_min_ps(_mm_max_ps(v, _mm_setzero_ps()), _mm_set1_ps(255.0f));
        __m128i t = _mm_cvttps_epi32(v);
        __m128 up = _mm_cmpge_ps(_mm_sub_ps(v, _mm_cvtepi32_ps(t)), _mm_set1_ps(0.5f));
        r[k] = _mm_sub_epi32(t, _mm_castps_si128(up));
    }
    __m128i bytes = _mm_packus_epi16(_mm_packus_epi32(r[0], r[1]),
                                     _mm_packus_epi32(r[2], _mm_setzero_si128()));
    return _mm_shuffle_epi8(bytes, pack);
}

__attribute__((target("avx2")))
static int64_t dali_color_mat3_u8_avx2(const uint8_t* s, uint8_t* d, int64_t n,
                                       const float* mat, const float* off) {
    DALI_MAT3_SHUFFLES
    __m256i t0 = _mm256_broadcastsi128_si256(s0), t1 = _mm256_broadcastsi128_si256(s1);
    __m256i t2 = _mm256_broadcastsi128_si256(s2), pk = _mm256_broadcastsi128_si256(pack);
    __m256 m[9], o[3];
    for (int k = 0; k < 9; k++)
        m[k] = _mm256_set1_ps(mat[k]);
    for (int k = 0; k < 3; k++)
        o[k] = _mm256_set1_ps(off[k]);
    int64_t i = 0;
    for (; i + 10 <= n; i += 8) {       /* reads and writes 4 bytes past the 8 pixels */
        const uint8_t* p = s + 3 * i;
        __m256i x = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i*)p)),
            _mm_loadu_si128((const __m128i*)(p + 12)), 1);
        __m256 a = _mm256_cvtepi32_ps(_mm256_shuffle_epi8(x, t0));
        __m256 b = _mm256_cvtepi32_ps(_mm256_shuffle_epi8(x, t1));
        __m256 c = _mm256_cvtepi32_ps(_mm256_shuffle_epi8(x, t2));
        __m256i r[3];
        for (int k = 0; k < 3; k++) {
            __m256 v = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(
                _mm256_mul_ps(m[3 * k], a), _mm256_mul_ps(m[3 * k + 1], b)),
                _mm256_mul_ps(m[3 * k + 2], c)), o[k]);
            v = _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), _mm256_set1_ps(255.0f));
            __m256i t = _mm256_cvttps_epi32(v);
            __m256 up = _mm256_cmp_ps(_mm256_sub_ps(v, _mm256_cvtepi32_ps(t)),
                                      _mm256_set1_ps(0.5f), _CMP_GE_OQ);
            r[k] = _mm256_sub_epi32(t, _mm256_castps_si256(up));
        }
        __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(r[0], r[1]),
                                            _mm256_packus_epi32(r[2], _mm256_setzero_si256()));
        bytes = _mm256_shuffle_epi8(bytes, pk);
        _mm_storeu_si128((__m128i*)(d + 3 * i), _mm256_castsi256_si128(bytes));
        _mm_storeu_si128((__m128i*)(d + 3 * i + 12), _mm256_extracti128_si256(bytes, 1));
    }
    return i;
}

static void dali_color_mat3_u8(const uint8_t* s, uint8_t* d, int64_t n, const float* mat,
                               const float* off) {
    int64_t i = 0;
    if (dali_color_avx2)
        i = dali_color_mat3_u8_avx2(s, d, n, mat, off);
    DALI_MAT3_SHUFFLES
    __m128 m[9], o[3];
    for (int k = 0; k < 9; k++)
        m[k] = _mm_set1_ps(mat[k]);
    for (int k = 0; k < 3; k++)
        o[k] = _mm_set1_ps(off[k]);
    for (; i + 6 <= n; i += 4) {        /* reads and writes 4 bytes past the 4 pixels */
        __m128i x = _mm_loadu_si128((const __m128i*)(s + 3 * i));
        _mm_storeu_si128((__m128i*)(d + 3 * i), dali_color_mat3_4(x, s0, s1, s2, m, o, pack));
    }
    for (; i < n; i++)
        dali_color_mat3_1(s + 3 * i, d + 3 * i, mat, off);
}
#else
static int dali_color_avx2 = 0;
static void dali_color_detect(void) {}

static void dali_color_affine_u8(const uint8_t* s, uint8_t* d, int64_t n, float m,
                                 float off) {
    for (int64_t i = 0; i < n; i++)
        d[i] = dali_color_u8((float)s[i] * m + off);
}

static void dali_color_gray_u8(const uint8_t* s, uint8_t* d, int64_t n, int red) {
    for (int64_t i = 0; i < n; i++)
        d[i] = dali_color_gray1(s + 3 * i, red);
}

static void dali_color_mat3_u8(const uint8_t* s, uint8_t* d, int64_t n, const float* mat,
                               const float* off) {
    for (int64_t i = 0; i < n; i++)
        dali_color_mat3_1(s + 3 * i, d + 3 * i, mat, off);
}
#endif

#endif  /* DALI_EXT_KERNELS_COLOR_SIMD_H_ */
