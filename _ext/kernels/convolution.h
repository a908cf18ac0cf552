/* The inner loops of the convolution kernels (convolution.pyx), written so that the compiler
   vectorizes them: the sum of weighted rows (one multiply and one add per tap and element, no
   fused multiply-add at the -march levels used) and the float -> integer stores. */
#ifndef DALI_CONVOLUTION_H
#define DALI_CONVOLUTION_H

#include <math.h>
#include <stdint.h>

/* out[t] = sum_k w[k] * src[k][t] for t < n, the taps added in order to a sum starting at 0
   (one multiply and one add per tap, no fused multiply-add), 32 outputs at a time held in
   registers across all the taps: AVX2 (chosen at run time, dali_conv_avx2) or SSE, then plain C
   for the rest and for builds without SSE4.1.  Every path does the same float operations in
   the same order, so the results are bit for bit the same. */
static int dali_conv_avx2 = 0;

static inline void dali_conv_sum_tail(float* __restrict out, const float* const* src,
                                      const float* w, int ntaps, int64_t t, int64_t n) {
    for (; t < n; t++) {
        float a = 0.0f;
        for (int k = 0; k < ntaps; k++)
            a = a + w[k] * src[k][t];
        out[t] = a;
    }
}

#if defined(__x86_64__) && defined(__SSE4_1__)
#include <immintrin.h>

__attribute__((target("avx2")))
static int64_t dali_conv_sum_avx2(float* __restrict out, const float* const* src,
                                  const float* w, int ntaps, int64_t n) {
    int64_t t = 0;
    for (; t + 32 <= n; t += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (int k = 0; k < ntaps; k++) {
            const float* s = src[k] + t;
            __m256 wk = _mm256_set1_ps(w[k]);
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(wk, _mm256_loadu_ps(s)));
            a1 = _mm256_add_ps(a1, _mm256_mul_ps(wk, _mm256_loadu_ps(s + 8)));
            a2 = _mm256_add_ps(a2, _mm256_mul_ps(wk, _mm256_loadu_ps(s + 16)));
            a3 = _mm256_add_ps(a3, _mm256_mul_ps(wk, _mm256_loadu_ps(s + 24)));
        }
        _mm256_storeu_ps(out + t, a0);
        _mm256_storeu_ps(out + t + 8, a1);
        _mm256_storeu_ps(out + t + 16, a2);
        _mm256_storeu_ps(out + t + 24, a3);
    }
    for (; t + 8 <= n; t += 8) {
        __m256 a0 = _mm256_setzero_ps();
        for (int k = 0; k < ntaps; k++)
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(_mm256_set1_ps(w[k]),
                                                 _mm256_loadu_ps(src[k] + t)));
        _mm256_storeu_ps(out + t, a0);
    }
    return t;
}

static inline void dali_conv_sum(float* __restrict out, const float* const* src,
                                 const float* w, int ntaps, int64_t n) {
    int64_t t = 0;
    if (dali_conv_avx2) {
        t = dali_conv_sum_avx2(out, src, w, ntaps, n);
    } else {
        for (; t + 16 <= n; t += 16) {
            __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
            for (int k = 0; k < ntaps; k++) {
                const float* s = src[k] + t;
                __m128 wk = _mm_set1_ps(w[k]);
                a0 = _mm_add_ps(a0, _mm_mul_ps(wk, _mm_loadu_ps(s)));
                a1 = _mm_add_ps(a1, _mm_mul_ps(wk, _mm_loadu_ps(s + 4)));
                a2 = _mm_add_ps(a2, _mm_mul_ps(wk, _mm_loadu_ps(s + 8)));
                a3 = _mm_add_ps(a3, _mm_mul_ps(wk, _mm_loadu_ps(s + 12)));
            }
            _mm_storeu_ps(out + t, a0);
            _mm_storeu_ps(out + t + 4, a1);
            _mm_storeu_ps(out + t + 8, a2);
            _mm_storeu_ps(out + t + 12, a3);
        }
    }
    dali_conv_sum_tail(out, src, w, ntaps, t, n);
}

static void dali_conv_detect(void) {
    __builtin_cpu_init();
    dali_conv_avx2 = __builtin_cpu_supports("avx2");
}
#else
static inline void dali_conv_sum(float* __restrict out, const float* const* src,
                                 const float* w, int ntaps, int64_t n) {
    dali_conv_sum_tail(out, src, w, ntaps, 0, n);
}

static void dali_conv_detect(void) {}
#endif

/* float -> narrow integers as convert.pxd's `store` does it (NaN -> 0, clamp, round half away
   from zero exactly: truncate, then add the sign where the remainder reaches 0.5).  A loop of
   `store` calls does not vectorize (its branches; GCC does not if-convert them either), and a
   sharpening filter's outputs saturate at random places, where branches cost more than the
   filter: so SSE4.1 four floats at a time, with the same operations in plain C for the rest
   and for builds without SSE4.1.

   The `_rint` stores round halves to even instead (fn.filter: OpenCV's cvRound): NaN -> 0,
   clamp, then rintf, which cvtps2dq is (the current rounding mode, to nearest even by
   default); clamping first changes nothing as the bounds are integers. */
static inline int32_t dali_conv_round1(float v, float lo, float hi) {
    float x = v == v ? v : 0.0f;
    x = x > lo ? x : lo;
    x = x < hi ? x : hi;
    int32_t r = (int32_t)x;
    float rem = x - (float)r;
    return r + (rem >= 0.5f) - (rem <= -0.5f);
}

static inline int32_t dali_conv_rint1(float v, float lo, float hi) {
    float x = v == v ? v : 0.0f;
    x = x > lo ? x : lo;
    x = x < hi ? x : hi;
    return (int32_t)rintf(x);
}

#ifdef __SSE4_1__
#include <smmintrin.h>

static inline __m128i dali_conv_rint4(const float* v, float lo, float hi) {
    __m128 x = _mm_loadu_ps(v);
    x = _mm_and_ps(x, _mm_cmpord_ps(x, x));
    x = _mm_min_ps(_mm_max_ps(x, _mm_set1_ps(lo)), _mm_set1_ps(hi));
    return _mm_cvtps_epi32(x);
}

static inline __m128i dali_conv_round4(const float* v, float lo, float hi) {
    __m128 x = _mm_loadu_ps(v);
    x = _mm_and_ps(x, _mm_cmpord_ps(x, x));
    x = _mm_min_ps(_mm_max_ps(x, _mm_set1_ps(lo)), _mm_set1_ps(hi));
    __m128 t = _mm_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m128 rem = _mm_sub_ps(x, t);
    __m128 one = _mm_set1_ps(1.0f);
    t = _mm_add_ps(t, _mm_and_ps(_mm_cmpge_ps(rem, _mm_set1_ps(0.5f)), one));
    t = _mm_sub_ps(t, _mm_and_ps(_mm_cmple_ps(rem, _mm_set1_ps(-0.5f)), one));
    return _mm_cvttps_epi32(t);
}

#define DALI_CONV_PACK8(a, b, c, d, pack16) \
    pack16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d))
#define DALI_CONV_SIMD_8BIT(lo, hi, pack16, round4)                                         \
    for (; i + 16 <= n; i += 16) {                                                          \
        __m128i q = DALI_CONV_PACK8(round4(v + i, lo, hi), round4(v + i + 4, lo, hi),        \
                                    round4(v + i + 8, lo, hi), round4(v + i + 12, lo, hi),   \
                                    pack16);                                                 \
        _mm_storeu_si128((__m128i*)(dst + i), q);                                            \
    }
#define DALI_CONV_SIMD_16BIT(lo, hi, pack32, round4)                                        \
    for (; i + 8 <= n; i += 8) {                                                            \
        __m128i q = pack32(round4(v + i, lo, hi), round4(v + i + 4, lo, hi));                \
        _mm_storeu_si128((__m128i*)(dst + i), q);                                            \
    }
#else
#define DALI_CONV_SIMD_8BIT(lo, hi, pack16, round4)
#define DALI_CONV_SIMD_16BIT(lo, hi, pack32, round4)
#endif

#define DALI_CONV_STORE(name, T, lo, hi, simd, round1)                                       \
    static inline void name(T* __restrict dst, const float* __restrict v, int64_t n) {      \
        int64_t i = 0;                                                                       \
        simd                                                                                 \
        for (; i < n; i++)                                                                   \
            dst[i] = (T)round1(v[i], (float)(lo), (float)(hi));                              \
    }

/* int64 (DALI's gaussian_blur and laplacian take it) the same way in double precision. */
static inline void dali_conv_store_i64(int64_t* dst, const float* v, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        double x = v[i] == v[i] ? (double)v[i] : 0.0;
        if (x <= -9223372036854775808.0) {
            dst[i] = INT64_MIN;
        } else if (x >= 9223372036854775807.0) {
            dst[i] = INT64_MAX;
        } else {
            double t = trunc(x), rem = x - t;
            dst[i] = (int64_t)t + (rem >= 0.5) - (rem <= -0.5);
        }
    }
}

DALI_CONV_STORE(dali_conv_store_u8, uint8_t, 0, 255,
                DALI_CONV_SIMD_8BIT(0.0f, 255.0f, _mm_packus_epi16, dali_conv_round4),
                dali_conv_round1)
DALI_CONV_STORE(dali_conv_store_i8, int8_t, -128, 127,
                DALI_CONV_SIMD_8BIT(-128.0f, 127.0f, _mm_packs_epi16, dali_conv_round4),
                dali_conv_round1)
DALI_CONV_STORE(dali_conv_store_u16, uint16_t, 0, 65535,
                DALI_CONV_SIMD_16BIT(0.0f, 65535.0f, _mm_packus_epi32, dali_conv_round4),
                dali_conv_round1)
DALI_CONV_STORE(dali_conv_store_i16, int16_t, -32768, 32767,
                DALI_CONV_SIMD_16BIT(-32768.0f, 32767.0f, _mm_packs_epi32, dali_conv_round4),
                dali_conv_round1)
DALI_CONV_STORE(dali_conv_store_rint_u8, uint8_t, 0, 255,
                DALI_CONV_SIMD_8BIT(0.0f, 255.0f, _mm_packus_epi16, dali_conv_rint4),
                dali_conv_rint1)
DALI_CONV_STORE(dali_conv_store_rint_u16, uint16_t, 0, 65535,
                DALI_CONV_SIMD_16BIT(0.0f, 65535.0f, _mm_packus_epi32, dali_conv_rint4),
                dali_conv_rint1)
DALI_CONV_STORE(dali_conv_store_rint_i16, int16_t, -32768, 32767,
                DALI_CONV_SIMD_16BIT(-32768.0f, 32767.0f, _mm_packs_epi32, dali_conv_rint4),
                dali_conv_rint1)

/* uint8 <-> float32 rows of fn.filter with AVX2 where the CPU has it (dali_conv_avx2): the
   same conversions, rounding and saturation as the SSE4.1 and plain loops above, 32 values
   at a time; the rest goes to those. */
#if defined(__x86_64__) && defined(__SSE4_1__)
__attribute__((target("avx2")))
static inline __m256i dali_conv_rint8(const float* v) {
    __m256 x = _mm256_loadu_ps(v);
    x = _mm256_and_ps(x, _mm256_cmp_ps(x, x, _CMP_ORD_Q));
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_setzero_ps()), _mm256_set1_ps(255.0f));
    return _mm256_cvtps_epi32(x);
}

__attribute__((target("avx2")))
static int64_t dali_conv_store_rint_u8_avx2(uint8_t* dst, const float* v, int64_t n) {
    int64_t i = 0;
    /* the packs work within 128-bit lanes: 4-byte groups a0 b0 c0 d0 a1 b1 c1 d1 back to
       a0 a1 b0 b1 c0 c1 d0 d1 */
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; i + 32 <= n; i += 32) {
        __m256i ab = _mm256_packs_epi32(dali_conv_rint8(v + i), dali_conv_rint8(v + i + 8));
        __m256i cd = _mm256_packs_epi32(dali_conv_rint8(v + i + 16), dali_conv_rint8(v + i + 24));
        __m256i q = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), order);
        _mm256_storeu_si256((__m256i*)(dst + i), q);
    }
    return i;
}

__attribute__((target("avx2")))
static int64_t dali_conv_load_u8_avx2(const uint8_t* src, float* out, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i b = _mm_loadl_epi64((const __m128i*)(src + i));
        _mm256_storeu_ps(out + i, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b)));
    }
    return i;
}
#endif

static inline void dali_conv_store_rint_u8_fast(uint8_t* dst, const float* v, int64_t n) {
    int64_t i = 0;
#if defined(__x86_64__) && defined(__SSE4_1__)
    if (dali_conv_avx2) i = dali_conv_store_rint_u8_avx2(dst, v, n);
#endif
    dali_conv_store_rint_u8(dst + i, v + i, n - i);
}

static inline void dali_conv_load_u8(const uint8_t* src, float* out, int64_t n) {
    int64_t i = 0;
#if defined(__x86_64__) && defined(__SSE4_1__)
    if (dali_conv_avx2) i = dali_conv_load_u8_avx2(src, out, n);
#endif
    for (; i < n; i++) out[i] = (float)src[i];
}


/* fn.filter on uint8 images with small integer taps (sum of |w| <= 128, e.g. sharpening or
   box filters): every float32 partial sum of the float path is then an integer below 2^15 in
   magnitude, computed exactly, so the same sums in int16 lanes (16 a vector with AVX2, 8 with
   SSE4.1) and a saturating pack to uint8 give the float path's values (the rounding has
   nothing to round, the clamp is the saturation).  Rows are int16 copies of the uint8 ones. */
static inline void dali_conv_load_u8_i16(const uint8_t* src, int16_t* out, int64_t n) {
    int64_t i = 0;
#if defined(__x86_64__) && defined(__SSE4_1__)
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i*)(out + i),
                         _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i*)(src + i))));
#endif
    for (; i < n; i++) out[i] = (int16_t)src[i];
}

#if defined(__x86_64__) && defined(__SSE4_1__)
__attribute__((target("avx2")))
static int64_t dali_conv_sum_i16_u8_avx2(uint8_t* out, const int16_t* const* src,
                                         const int16_t* w, int ntaps, int64_t n) {
    int64_t t = 0;
    for (; t + 32 <= n; t += 32) {
        __m256i a0 = _mm256_setzero_si256(), a1 = a0;
        for (int k = 0; k < ntaps; k++) {
            const __m256i wk = _mm256_set1_epi16(w[k]);
            a0 = _mm256_add_epi16(a0, _mm256_mullo_epi16(
                wk, _mm256_loadu_si256((const __m256i*)(src[k] + t))));
            a1 = _mm256_add_epi16(a1, _mm256_mullo_epi16(
                wk, _mm256_loadu_si256((const __m256i*)(src[k] + t + 16))));
        }
        /* the pack works within 128-bit lanes: 8-byte groups a0lo a1lo a0hi a1hi back in
           order */
        const __m256i q = _mm256_permute4x64_epi64(_mm256_packus_epi16(a0, a1), 0xD8);
        _mm256_storeu_si256((__m256i*)(out + t), q);
    }
    return t;
}
#endif

static inline void dali_conv_sum_i16_u8(uint8_t* out, const int16_t* const* src,
                                        const int16_t* w, int ntaps, int64_t n) {
    int64_t t = 0;
#if defined(__x86_64__) && defined(__SSE4_1__)
    if (dali_conv_avx2) t = dali_conv_sum_i16_u8_avx2(out, src, w, ntaps, n);
    for (; t + 16 <= n; t += 16) {
        __m128i a0 = _mm_setzero_si128(), a1 = a0;
        for (int k = 0; k < ntaps; k++) {
            const __m128i wk = _mm_set1_epi16(w[k]);
            a0 = _mm_add_epi16(a0, _mm_mullo_epi16(wk, _mm_loadu_si128(
                (const __m128i*)(src[k] + t))));
            a1 = _mm_add_epi16(a1, _mm_mullo_epi16(wk, _mm_loadu_si128(
                (const __m128i*)(src[k] + t + 8))));
        }
        _mm_storeu_si128((__m128i*)(out + t), _mm_packus_epi16(a0, a1));
    }
#endif
    for (; t < n; t++) {
        int a = 0;
        for (int k = 0; k < ntaps; k++) a += w[k] * src[k][t];
        out[t] = (uint8_t)(a < 0 ? 0 : (a > 255 ? 255 : a));
    }
}

#endif
