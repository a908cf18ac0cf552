// The C loops of the resampling passes (_ext/kernels/resample.pyx): the row loops (SSE4.1,
// AVX2 chosen at run time, and a plain C fallback) and the float -> integer conversions of
// accumulated rows.  The filters are resample_filter.h's.
#ifndef DALI_EXT_KERNELS_RESAMPLE_KERNELS_H_
#define DALI_EXT_KERNELS_RESAMPLE_KERNELS_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Inner loops of the horizontal pass, written with GCC/Clang vector extensions (SSE on
   x86-64, NEON on ARM).  Four outputs are computed at once, so four independent
   dependency chains hide the latency of the additions; each output still sums its taps
   in order (the rounding DALI's sequential loop has). */
typedef float dali_rs_v4 __attribute__((vector_size(16)));
typedef float dali_rs_v4u __attribute__((vector_size(16), aligned(4)));

static inline dali_rs_v4 dali_rs_load4(const float* p) { return *(const dali_rs_v4u*)p; }

/* row: `step` (3 or 4) floats per input position, read as 4-float vectors (so with step
   3 the row must be readable one float past its end; the extra lane is never stored
   where a value is kept); out: `stride` (2 to 4) floats per output position, written as
   whole vectors in increasing order, so the last one writes 4 - stride floats past
   'stride * n_out' (out must have room for 4 * n_out). */
/* The loop both row functions share: four outputs at a time (four independent chains hide
   the latency of the additions), each summing its taps in order from zero, then the rest one
   by one.  VT is the accumulator type, PT the input's element type, LOAD(p, k) tap k of the
   position at p, POS(i) where output i's window starts, STORE(i, a) writes output i. */
#define DALI_RS_ROW_LOOP(VT, PT, ZERO, LOAD, POS, STORE)                                  \
    Py_ssize_t i = 0;                                                                     \
    for (; i + 4 <= n_out; i += 4) {                                                      \
        const float* w0 = weights + i * support;                                          \
        const float* w1 = w0 + support;                                                   \
        const float* w2 = w1 + support;                                                   \
        const float* w3 = w2 + support;                                                   \
        const PT* p0 = POS(i);                                                            \
        const PT* p1 = POS(i + 1);                                                        \
        const PT* p2 = POS(i + 2);                                                        \
        const PT* p3 = POS(i + 3);                                                        \
        VT a0 = ZERO, a1 = ZERO, a2 = ZERO, a3 = ZERO;                                    \
        for (int k = 0; k < support; k++) {                                               \
            a0 += w0[k] * LOAD(p0, k);                                                    \
            a1 += w1[k] * LOAD(p1, k);                                                    \
            a2 += w2[k] * LOAD(p2, k);                                                    \
            a3 += w3[k] * LOAD(p3, k);                                                    \
        }                                                                                 \
        STORE(i, a0);                                                                     \
        STORE(i + 1, a1);                                                                 \
        STORE(i + 2, a2);                                                                 \
        STORE(i + 3, a3);                                                                 \
    }                                                                                     \
    for (; i < n_out; i++) {                                                              \
        const float* w = weights + i * support;                                           \
        const PT* p = POS(i);                                                             \
        VT a = ZERO;                                                                      \
        for (int k = 0; k < support; k++)                                                 \
            a += w[k] * LOAD(p, k);                                                       \
        STORE(i, a);                                                                      \
    }

static inline __attribute__((always_inline)) void dali_rs_row4_n(
        const float* row, float* out, const int32_t* starts, const float* weights,
        Py_ssize_t n_out, int support, Py_ssize_t stride, Py_ssize_t step) {
    const dali_rs_v4 zero = {0, 0, 0, 0};
#define DALI_RS_POS4(i) (row + step * (Py_ssize_t)starts[i])
#define DALI_RS_LOAD4(p, k) dali_rs_load4((p) + step * (k))
#define DALI_RS_STORE4(i, a) (*(dali_rs_v4u*)(out + stride * (i)) = (a))
    DALI_RS_ROW_LOOP(dali_rs_v4, float, zero, DALI_RS_LOAD4, DALI_RS_POS4, DALI_RS_STORE4)
}
/* (the tap loop unrolled for the usual supports: 1 for NN, 2 for linear without antialias) */
static void dali_rs_row4(const float* row, float* out, const int32_t* starts,
                         const float* weights, Py_ssize_t n_out, int support,
                         Py_ssize_t stride, Py_ssize_t step) {
    if (support == 1)
        dali_rs_row4_n(row, out, starts, weights, n_out, 1, stride, step);
    else if (support == 2)
        dali_rs_row4_n(row, out, starts, weights, n_out, 2, stride, step);
    else
        dali_rs_row4_n(row, out, starts, weights, n_out, support, stride, step);
}

/* Rows of a pass along an outer axis: out[j] = sum_k w[k] * src[k * stride + j] for j < n,
   each sum in tap order from w[0] * src[j] (the rounding of the row-by-row loop it
   replaces).  Sixteen values are summed in registers over all taps before being stored:
   8 lanes at a time where the CPU has AVX2 (checked at run time), 4 with SSE4.1, the
   same multiplications and additions either way (no fused multiply-adds). */
#define DALI_RS_ROWS_TAIL(T)                                                              \
    for (; j < n; j++) {                                                                  \
        const T* p = src + j;                                                             \
        float a = w[0] * (float)p[0];                                                     \
        for (int k = 1; k < support; k++)                                                 \
            a += w[k] * (float)p[k * stride];                                             \
        out[j] = a;                                                                       \
    }
#if defined(__x86_64__) && defined(__SSE4_1__)
#include <immintrin.h>
#define DALI_RS_U8X8(p) _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(                          \
    _mm_loadl_epi64((const __m128i*)(p))))
#define DALI_RS_U8X4(p) _mm_cvtepi32_ps(_mm_cvtepu8_epi32(                                \
    _mm_cvtsi32_si128(dali_rs_u32(p))))
static inline int dali_rs_u32(const uint8_t* p) { int v; memcpy(&v, p, 4); return v; }

#define DALI_RS_ROWS(NAME, T, L8, L4)                                                     \
__attribute__((target("avx2")))                                                           \
static void NAME##_avx2(const T* src, Py_ssize_t stride, const float* w, int support,    \
                        float* out, Py_ssize_t n) {                                       \
    Py_ssize_t j = 0;                                                                     \
    for (; j + 16 <= n; j += 16) {                                                        \
        const T* p = src + j;                                                             \
        __m256 wk = _mm256_set1_ps(w[0]);                                                 \
        __m256 a0 = _mm256_mul_ps(wk, L8(p)), a1 = _mm256_mul_ps(wk, L8(p + 8));          \
        for (int k = 1; k < support; k++) {                                               \
            p += stride;                                                                  \
            wk = _mm256_set1_ps(w[k]);                                                    \
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(wk, L8(p)));                             \
            a1 = _mm256_add_ps(a1, _mm256_mul_ps(wk, L8(p + 8)));                         \
        }                                                                                 \
        _mm256_storeu_ps(out + j, a0);                                                    \
        _mm256_storeu_ps(out + j + 8, a1);                                                \
    }                                                                                     \
    DALI_RS_ROWS_TAIL(T)                                                                  \
}                                                                                         \
static void NAME(const T* src, Py_ssize_t stride, const float* w, int support,           \
                 float* out, Py_ssize_t n) {                                              \
    if (dali_rs_avx2) {                                                                   \
        NAME##_avx2(src, stride, w, support, out, n);                                     \
        return;                                                                           \
    }                                                                                     \
    Py_ssize_t j = 0;                                                                     \
    for (; j + 16 <= n; j += 16) {                                                        \
        const T* p = src + j;                                                             \
        __m128 wk = _mm_set1_ps(w[0]);                                                    \
        __m128 a0 = _mm_mul_ps(wk, L4(p)), a1 = _mm_mul_ps(wk, L4(p + 4));                \
        __m128 a2 = _mm_mul_ps(wk, L4(p + 8)), a3 = _mm_mul_ps(wk, L4(p + 12));           \
        for (int k = 1; k < support; k++) {                                               \
            p += stride;                                                                  \
            wk = _mm_set1_ps(w[k]);                                                       \
            a0 = _mm_add_ps(a0, _mm_mul_ps(wk, L4(p)));                                   \
            a1 = _mm_add_ps(a1, _mm_mul_ps(wk, L4(p + 4)));                               \
            a2 = _mm_add_ps(a2, _mm_mul_ps(wk, L4(p + 8)));                               \
            a3 = _mm_add_ps(a3, _mm_mul_ps(wk, L4(p + 12)));                              \
        }                                                                                 \
        _mm_storeu_ps(out + j, a0);                                                       \
        _mm_storeu_ps(out + j + 4, a1);                                                   \
        _mm_storeu_ps(out + j + 8, a2);                                                   \
        _mm_storeu_ps(out + j + 12, a3);                                                  \
    }                                                                                     \
    DALI_RS_ROWS_TAIL(T)                                                                  \
}
/* Three uint8 values per position widened to 4 floats (the fourth is the next
   position's first value, or 0 for the last position). */
static void dali_rs_widen3_u8(const uint8_t* s, float* row, Py_ssize_t n) {
    Py_ssize_t i = 0;
    for (; i + 1 < n; i++)
        _mm_storeu_ps(row + 4 * i, DALI_RS_U8X4(s + 3 * i));
    for (; i < n; i++) {
        row[4 * i] = s[3 * i];
        row[4 * i + 1] = s[3 * i + 1];
        row[4 * i + 2] = s[3 * i + 2];
        row[4 * i + 3] = 0;
    }
}
/* Position p's three uint8 values as 4 floats (the fourth is the next position's first value,
   or 0 for the row's last position, which ends at `end`: never read past it). */
static inline dali_rs_v4 dali_rs_load4_u8(const uint8_t* p) {
    return (dali_rs_v4)DALI_RS_U8X4(p);
}
static inline dali_rs_v4 dali_rs_load3_u8(const uint8_t* p, const uint8_t* end) {
    if (p + 4 <= end) return dali_rs_load4_u8(p);
    dali_rs_v4 v = {(float)p[0], (float)p[1], (float)p[2], 0};
    return v;
}
static int dali_rs_avx2 = 0;
static void dali_rs_detect(void) {
    __builtin_cpu_init();
    dali_rs_avx2 = __builtin_cpu_supports("avx2");
}
DALI_RS_ROWS(dali_rs_rows_u8, uint8_t, DALI_RS_U8X8, DALI_RS_U8X4)
DALI_RS_ROWS(dali_rs_rows_f32, float, _mm256_loadu_ps, _mm_loadu_ps)
#else
static void dali_rs_widen3_u8(const uint8_t* s, float* row, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        row[4 * i] = s[3 * i];
        row[4 * i + 1] = s[3 * i + 1];
        row[4 * i + 2] = s[3 * i + 2];
        row[4 * i + 3] = 0;
    }
}
static inline dali_rs_v4 dali_rs_load4_u8(const uint8_t* p) {
    dali_rs_v4 v = {(float)p[0], (float)p[1], (float)p[2], 0};
    return v;
}
static inline dali_rs_v4 dali_rs_load3_u8(const uint8_t* p, const uint8_t* end) {
    (void)end;
    return dali_rs_load4_u8(p);
}
static void dali_rs_detect(void) {}
static int dali_rs_avx2 = 0;
#define DALI_RS_ROWS(NAME, T)                                                             \
static void NAME(const T* src, Py_ssize_t stride, const float* w, int support,           \
                 float* out, Py_ssize_t n) {                                              \
    Py_ssize_t j = 0;                                                                     \
    DALI_RS_ROWS_TAIL(T)                                                                  \
}
DALI_RS_ROWS(dali_rs_rows_u8, uint8_t)
DALI_RS_ROWS(dali_rs_rows_f32, float)
#endif

/* dali_rs_row4 of a row of `n_in` positions of three uint8 values (out: stride 3), each tap
   widened to 4 floats where it is read: the values of dali_rs_widen3_u8 then dali_rs_row4,
   cheaper when there are fewer taps than about twice the positions (a reduction without
   antialiasing reads two positions per output): positions no output reads are never
   converted, and the widened row is neither stored nor reloaded. */
static inline __attribute__((always_inline)) void dali_rs_row3_u8_n(
        const uint8_t* s, Py_ssize_t n_in, float* out, const int32_t* starts,
        const float* weights, Py_ssize_t n_out, int support) {
    const dali_rs_v4 zero = {0, 0, 0, 0};
    const uint8_t* end = s + 3 * n_in;
    Py_ssize_t i = 0;
    for (; i + 4 <= n_out; i += 4) {
        const float* w0 = weights + i * support;
        const float* w1 = w0 + support;
        const float* w2 = w1 + support;
        const float* w3 = w2 + support;
        const uint8_t* p0 = s + 3 * (Py_ssize_t)starts[i];
        const uint8_t* p1 = s + 3 * (Py_ssize_t)starts[i + 1];
        const uint8_t* p2 = s + 3 * (Py_ssize_t)starts[i + 2];
        const uint8_t* p3 = s + 3 * (Py_ssize_t)starts[i + 3];
        const uint8_t* top = p0 > p1 ? p0 : p1;
        top = top > p2 ? top : p2;
        top = top > p3 ? top : p3;
        dali_rs_v4 a0 = zero, a1 = zero, a2 = zero, a3 = zero;
        if (top + 3 * support + 1 <= end) {      /* every tap's 4 bytes inside the row */
            for (int k = 0; k < support; k++) {
                a0 += w0[k] * dali_rs_load4_u8(p0 + 3 * k);
                a1 += w1[k] * dali_rs_load4_u8(p1 + 3 * k);
                a2 += w2[k] * dali_rs_load4_u8(p2 + 3 * k);
                a3 += w3[k] * dali_rs_load4_u8(p3 + 3 * k);
            }
        } else {
            for (int k = 0; k < support; k++) {
                a0 += w0[k] * dali_rs_load3_u8(p0 + 3 * k, end);
                a1 += w1[k] * dali_rs_load3_u8(p1 + 3 * k, end);
                a2 += w2[k] * dali_rs_load3_u8(p2 + 3 * k, end);
                a3 += w3[k] * dali_rs_load3_u8(p3 + 3 * k, end);
            }
        }
        *(dali_rs_v4u*)(out + 3 * i) = a0;
        *(dali_rs_v4u*)(out + 3 * (i + 1)) = a1;
        *(dali_rs_v4u*)(out + 3 * (i + 2)) = a2;
        *(dali_rs_v4u*)(out + 3 * (i + 3)) = a3;
    }
    for (; i < n_out; i++) {
        const float* w = weights + i * support;
        const uint8_t* p = s + 3 * (Py_ssize_t)starts[i];
        dali_rs_v4 a = zero;
        for (int k = 0; k < support; k++)
            a += w[k] * dali_rs_load3_u8(p + 3 * k, end);
        *(dali_rs_v4u*)(out + 3 * i) = a;
    }
}
/* (the tap loop unrolled for the usual supports: 1 for NN, 2 for linear without antialias) */
static void dali_rs_row3_u8(const uint8_t* s, Py_ssize_t n_in, float* out,
                            const int32_t* starts, const float* weights, Py_ssize_t n_out,
                            int support) {
    if (support == 1)
        dali_rs_row3_u8_n(s, n_in, out, starts, weights, n_out, 1);
    else if (support == 2)
        dali_rs_row3_u8_n(s, n_in, out, starts, weights, n_out, 2);
    else
        dali_rs_row3_u8_n(s, n_in, out, starts, weights, n_out, support);
}

/* One value per position. */
static void dali_rs_row1(const float* row, float* out, const int32_t* starts,
                         const float* weights, Py_ssize_t n_out, int support) {
#define DALI_RS_POS1(i) (row + starts[i])
#define DALI_RS_LOAD1(p, k) ((p)[k])
#define DALI_RS_STORE1(i, a) (out[i] = (a))
    DALI_RS_ROW_LOOP(float, float, 0.0f, DALI_RS_LOAD1, DALI_RS_POS1, DALI_RS_STORE1)
}

/* Float -> integer conversion of accumulated rows: saturate, then round half to even
   (the first `even_end` values) or half away from zero (the rest). */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline __m128i dali_rs_round4(const float* a, __m128 lo, __m128 hi, int even) {
    __m128 x = _mm_min_ps(_mm_max_ps(_mm_loadu_ps(a), lo), hi);   /* NaN -> lo */
    if (even)
        return _mm_cvtps_epi32(x);          /* the default rounding: half to even */
    __m128i sign = _mm_srai_epi32(_mm_castps_si128(x), 31);
    __m128 ax = _mm_andnot_ps(_mm_castsi128_ps(_mm_set1_epi32((int)0x80000000u)), x);
    __m128i t = _mm_cvttps_epi32(ax);
    __m128 frac = _mm_sub_ps(ax, _mm_cvtepi32_ps(t));              /* exact */
    t = _mm_sub_epi32(t, _mm_castps_si128(_mm_cmpge_ps(frac, _mm_set1_ps(0.5f))));
    return _mm_sub_epi32(_mm_xor_si128(t, sign), sign);
}
static inline int dali_rs_round1(float x, float lo, float hi) {
    x = x > lo ? x : lo;
    x = x < hi ? x : hi;
    float ax = x < 0 ? -x : x;
    int t = (int)ax;
    t += (ax - (float)t) >= 0.5f;
    return x < 0 ? -t : t;
}
/* 8 values -> 8 int16 lanes (signed saturation; exact for the saturated values). */
static inline __m128i dali_rs_round8(const float* a, __m128 lo, __m128 hi, int even,
                                     __m128i bias) {
    __m128i r0 = _mm_sub_epi32(dali_rs_round4(a, lo, hi, even), bias);
    __m128i r1 = _mm_sub_epi32(dali_rs_round4(a + 4, lo, hi, even), bias);
    return _mm_packs_epi32(r0, r1);
}
/* The values of a vector block straddling `even_end` are converted one by one. */
static inline int dali_rs_round_at(float x, float lo, float hi, int even) {
    if (!even) return dali_rs_round1(x, lo, hi);
    x = x > lo ? x : lo;
    x = x < hi ? x : hi;
    return _mm_cvtss_si32(_mm_set_ss(x));
}
/* dali_rs_round4 half away from zero for a range [lo, hi] without negative values: no sign
   to take off and put back (-0.0 and NaN become 0 either way). */
static inline __m128i dali_rs_round4_up(const float* a, __m128 lo, __m128 hi) {
    __m128 x = _mm_min_ps(_mm_max_ps(_mm_loadu_ps(a), lo), hi);   /* NaN -> lo */
    __m128i t = _mm_cvttps_epi32(x);
    __m128 frac = _mm_sub_ps(x, _mm_cvtepi32_ps(t));               /* exact */
    return _mm_sub_epi32(t, _mm_castps_si128(_mm_cmpge_ps(frac, _mm_set1_ps(0.5f))));
}
static void dali_rs_to_u8(uint8_t* out, const float* a, Py_ssize_t n,
                          Py_ssize_t even_end) {
    const __m128 lo = _mm_set1_ps(0.0f), hi = _mm_set1_ps(255.0f);
    const __m128i zero = _mm_setzero_si128();
    Py_ssize_t j = 0;
    for (; j + 16 <= n; j += 16) {
        if (j < even_end && j + 16 > even_end) {
            for (Py_ssize_t t = j; t < j + 16; t++)
                out[t] = (uint8_t)dali_rs_round_at(a[t], 0.0f, 255.0f, t < even_end);
            continue;
        }
        __m128i v0, v1;
        if (j + 16 <= even_end) {
            v0 = dali_rs_round8(a + j, lo, hi, 1, zero);
            v1 = dali_rs_round8(a + j + 8, lo, hi, 1, zero);
        } else {
            v0 = _mm_packs_epi32(dali_rs_round4_up(a + j, lo, hi),
                                 dali_rs_round4_up(a + j + 4, lo, hi));
            v1 = _mm_packs_epi32(dali_rs_round4_up(a + j + 8, lo, hi),
                                 dali_rs_round4_up(a + j + 12, lo, hi));
        }
        _mm_storeu_si128((__m128i*)(out + j), _mm_packus_epi16(v0, v1));
    }
    for (; j < n; j++)
        out[j] = (uint8_t)dali_rs_round_at(a[j], 0.0f, 255.0f, j < even_end);
}
/* 8 values at a time into 16-bit lanes: uint16 is shifted to the int16 range (BIAS 32768),
   packed with signed saturation and shifted back (the sign bit flipped); int16 as it is. */
#define DALI_RS_TO_16(NAME, T, LO, HI, BIAS)                                              \
static void NAME(T* out, const float* a, Py_ssize_t n, Py_ssize_t even_end) {            \
    const __m128 lo = _mm_set1_ps(LO), hi = _mm_set1_ps(HI);                              \
    const __m128i bias = _mm_set1_epi32(BIAS);                                            \
    const __m128i flip = _mm_set1_epi16((short)((BIAS) ? 0x8000 : 0));                    \
    Py_ssize_t j = 0;                                                                     \
    for (; j + 8 <= n; j += 8) {                                                          \
        if (j < even_end && j + 8 > even_end) {                                           \
            for (Py_ssize_t t = j; t < j + 8; t++)                                        \
                out[t] = (T)dali_rs_round_at(a[t], LO, HI, t < even_end);                 \
            continue;                                                                     \
        }                                                                                 \
        _mm_storeu_si128((__m128i*)(out + j), _mm_xor_si128(                              \
            dali_rs_round8(a + j, lo, hi, j + 8 <= even_end, bias), flip));               \
    }                                                                                     \
    for (; j < n; j++)                                                                    \
        out[j] = (T)dali_rs_round_at(a[j], LO, HI, j < even_end);                         \
}
DALI_RS_TO_16(dali_rs_to_i16, int16_t, -32768.0f, 32767.0f, 0)
DALI_RS_TO_16(dali_rs_to_u16, uint16_t, 0.0f, 65535.0f, 32768)
#else
#include <math.h>
#define DALI_RS_CONVERT(NAME, T, LO, HI)                                                  \
static void NAME(T* out, const float* a, Py_ssize_t n, Py_ssize_t even_end) {           \
    for (Py_ssize_t j = 0; j < n; j++) {                                                \
        float x = a[j] > LO ? a[j] : LO;                                                \
        x = x < HI ? x : HI;                                                            \
        out[j] = (T)(j < even_end ? nearbyintf(x) : roundf(x));                        \
    }                                                                                   \
}
DALI_RS_CONVERT(dali_rs_to_u8, uint8_t, 0.0f, 255.0f)
DALI_RS_CONVERT(dali_rs_to_u16, uint16_t, 0.0f, 65535.0f)
DALI_RS_CONVERT(dali_rs_to_i16, int16_t, -32768.0f, 32767.0f)
#endif

#endif  // DALI_EXT_KERNELS_RESAMPLE_KERNELS_H_
