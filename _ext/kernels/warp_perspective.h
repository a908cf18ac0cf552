// Perspective warp of one image (HWC, 1-4 channels; planar images are 1-channel images), the
// loops of `warp_perspective_batch` (_ext/kernels/warp.pyx) behind fn.experimental.
// warp_perspective.  DALI's CPU operator computes what OpenCV's warpPerspective computes, and
// OpenCV has two algorithms, both reproduced here:
//
// `warp_rows_f32` (uint8, uint16 and float images of 1, 3 or 4 channels: OpenCV's newer
// float kernels).  Nearest: output pixel (x, y) maps to (X / W, Y / W) computed in double,
// converted to float and rounded (halves to even).  Linear: X = fma(M0, x, M1 * y + M2) in
// float32 (and likewise Y, W), the position X / W split into floor and fraction,
// `v0 = p00 + fx * (p01 - p00)`, `v1 = p10 + fx * (p11 - p10)`, `v0 + fy * (v1 - v0)`
// (fused multiply-adds), rounded to nearest even and saturated for integers.
//
// `warp_rows_fixed` (int16 images, and 2-channel ones: OpenCV's older path).  Positions in
// double, `(M0 * xb + M1 * y + M2) + M0 * x1` over OpenCV's blocks of `bw0` pixels (bh0 =
// min(16, rows), bw0 = min(1024 / bh0, cols)); nearest rounds them (lrint), linear rounds them
// times 32 and blends the 2x2 neighbours with weights in 1/32 steps, in float (integers
// rounded to nearest even and saturated) or, for uint8, in Q15 integers.
//
// Borders (both): constant (the fill value; a pixel whose neighbourhood lies wholly outside
// takes it whole, one partly outside blends it in), replicate, reflect, reflect_101, wrap
// (OpenCV's borderInterpolate).  Multiplications and additions are never fused except where
// fmaf says so (the functions are built with fp-contract=off).  DALI's results are matched
// bit for bit except by the linear float kernels, whose positions can differ from OpenCV's
// vector code in the last bit: rare +-1 differences on uint8 and uint16, relative
// differences around 1e-6 on float.
#ifndef DALI_EXT_KERNELS_WARP_PERSPECTIVE_H_
#define DALI_EXT_KERNELS_WARP_PERSPECTIVE_H_

#include <limits.h>
#include <math.h>
#include <stdint.h>

#include <algorithm>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#define DALI_WP_X86 1
#include <immintrin.h>
#endif

enum { DALI_WP_U8 = 0, DALI_WP_U16 = 1, DALI_WP_I16 = 2, DALI_WP_F32 = 3 };
enum { DALI_WP_NN = 0, DALI_WP_LINEAR = 1 };
enum {
    DALI_WP_CONSTANT = 0, DALI_WP_REPLICATE = 1, DALI_WP_REFLECT = 2, DALI_WP_REFLECT_101 = 3,
    DALI_WP_WRAP = 4
};

typedef struct {
    const void* src;       // h x w x c input
    void* dst;             // oh x ow x c output
    int64_t h, w, c, oh, ow;
    int64_t y0, y1;        // the output rows of this work item
    double m[9];           // output -> input, row-major
    double fill[4];        // per channel, already a value of the element type
    int type, interp, border;
} dali_wp_job;

namespace dali_wp {

const int kBits = 5, kTab = 1 << kBits;

// OpenCV's borderInterpolate: the index of p in [0, len), -1 for a constant border.
static inline int border_index(int p, int len, int mode) {
    if ((unsigned)p < (unsigned)len) return p;
    if (mode == DALI_WP_REPLICATE) return p < 0 ? 0 : len - 1;
    if (mode == DALI_WP_REFLECT || mode == DALI_WP_REFLECT_101) {
        int delta = mode == DALI_WP_REFLECT_101;
        if (len == 1) return 0;
        do {
            if (p < 0)
                p = -p - 1 + delta;
            else
                p = len - 1 - (p - len) - delta;
        } while ((unsigned)p >= (unsigned)len);
        return p;
    }
    if (mode == DALI_WP_WRAP) {
        if (p < 0) p -= ((p - len + 1) / len) * len;
        if (p >= len) p %= len;
        return p;
    }
    return -1;
}

static inline int clamp_int(double v) {
    // std::max/min as OpenCV writes them: NaN becomes INT_MAX
    return (int)lrint(std::max((double)INT_MIN, std::min((double)INT_MAX, v)));
}

static inline short sat_short(int v) { return (short)std::min(std::max(v, -32768), 32767); }

// The blend of four neighbours with the weights of index `a` (ay * 32 + ax).
template <typename T>
struct Blend {                    // int16, uint16, float: float weights and sum
    float w[4];
    explicit Blend(int a) {
        float ky = (float)(a >> kBits) * (1.f / kTab), kx = (float)(a & (kTab - 1)) * (1.f / kTab);
        w[0] = (1.f - ky) * (1.f - kx);
        w[1] = (1.f - ky) * kx;
        w[2] = ky * (1.f - kx);
        w[3] = ky * kx;
    }
    T operator()(T v0, T v1, T v2, T v3) const {
        float s = (float)v0 * w[0] + (float)v1 * w[1] + (float)v2 * w[2] + (float)v3 * w[3];
        return out(s);
    }
    static T out(float s);
};

template <> inline float Blend<float>::out(float s) { return s; }
template <> inline uint16_t Blend<uint16_t>::out(float s) {
    long v = lrintf(s);
    return (uint16_t)std::min(std::max(v, 0L), 65535L);
}
template <> inline int16_t Blend<int16_t>::out(float s) {
    long v = lrintf(s);
    return (int16_t)std::min(std::max(v, -32768L), 32767L);
}

template <>
struct Blend<uint8_t> {           // Q15 integer weights (exact: multiples of 2^-10)
    int w[4];
    explicit Blend(int a) {
        int ky = a >> kBits, kx = a & (kTab - 1);
        w[0] = (kTab - ky) * (kTab - kx) * 32;
        w[1] = (kTab - ky) * kx * 32;
        w[2] = ky * (kTab - kx) * 32;
        w[3] = ky * kx * 32;
    }
    uint8_t operator()(uint8_t v0, uint8_t v1, uint8_t v2, uint8_t v3) const {
        int s = v0 * w[0] + v1 * w[1] + v2 * w[2] + v3 * w[3];
        s = (s + (1 << 14)) >> 15;
        return (uint8_t)std::min(std::max(s, 0), 255);
    }
};

template <typename T>
__attribute__((optimize("fp-contract=off")))
static void warp_rows_fixed(const dali_wp_job* j) {
    const T* src = (const T*)j->src;
    T* dst = (T*)j->dst;
    const int h = (int)j->h, w = (int)j->w, cn = (int)j->c, mode = j->border;
    const int64_t ow = j->ow, row = (int64_t)w * cn;
    const double* M = j->m;
    T cval[4];
    for (int k = 0; k < 4; k++) cval[k] = (T)j->fill[k];
    int64_t bh0 = std::min<int64_t>(16, j->oh);
    int64_t bw0 = std::min<int64_t>(1024 / std::max<int64_t>(bh0, 1), ow);
    const bool linear = j->interp == DALI_WP_LINEAR;
    const unsigned w1 = (unsigned)std::max(w - 1, 0), h1 = (unsigned)std::max(h - 1, 0);
    for (int64_t y = j->y0; y < j->y1; y++) {
        T* out = dst + y * ow * cn;
        for (int64_t xb = 0; xb < ow; xb += bw0) {
            int64_t bw = std::min(bw0, ow - xb);
            double X0 = M[0] * xb + M[1] * y + M[2];
            double Y0 = M[3] * xb + M[4] * y + M[5];
            double W0 = M[6] * xb + M[7] * y + M[8];
            for (int64_t x1 = 0; x1 < bw; x1++, out += cn) {
                double W = W0 + M[6] * x1;
                if (!linear) {
                    W = W ? 1. / W : 0;
                    int sx = sat_short(clamp_int((X0 + M[0] * x1) * W));
                    int sy = sat_short(clamp_int((Y0 + M[3] * x1) * W));
                    if ((unsigned)sx < (unsigned)w && (unsigned)sy < (unsigned)h) {
                        const T* p = src + sy * row + (int64_t)sx * cn;
                        for (int k = 0; k < cn; k++) out[k] = p[k];
                    } else if (mode == DALI_WP_CONSTANT) {
                        for (int k = 0; k < cn; k++) out[k] = cval[k];
                    } else {
                        const T* p = src + border_index(sy, h, mode) * row +
                                     (int64_t)border_index(sx, w, mode) * cn;
                        for (int k = 0; k < cn; k++) out[k] = p[k];
                    }
                    continue;
                }
                W = W ? kTab / W : 0;
                int X = clamp_int((X0 + M[0] * x1) * W);
                int Y = clamp_int((Y0 + M[3] * x1) * W);
                int sx = sat_short(X >> kBits), sy = sat_short(Y >> kBits);
                Blend<T> blend((Y & (kTab - 1)) * kTab + (X & (kTab - 1)));
                if ((unsigned)sx < w1 && (unsigned)sy < h1) {
                    const T* p = src + sy * row + (int64_t)sx * cn;
                    for (int k = 0; k < cn; k++)
                        out[k] = blend(p[k], p[k + cn], p[k + row], p[k + row + cn]);
                } else if (mode == DALI_WP_CONSTANT &&
                           (sx >= w || sx + 1 < 0 || sy >= h || sy + 1 < 0)) {
                    for (int k = 0; k < cn; k++) out[k] = cval[k];
                } else {
                    int x0 = border_index(sx, w, mode), xn = border_index(sx + 1, w, mode);
                    int y0 = border_index(sy, h, mode), yn = border_index(sy + 1, h, mode);
                    const T* r0 = src + y0 * row;
                    const T* r1 = src + yn * row;
                    for (int k = 0; k < cn; k++) {
                        T v0 = x0 >= 0 && y0 >= 0 ? r0[x0 * cn + k] : cval[k];
                        T v1 = xn >= 0 && y0 >= 0 ? r0[xn * cn + k] : cval[k];
                        T v2 = x0 >= 0 && yn >= 0 ? r1[x0 * cn + k] : cval[k];
                        T v3 = xn >= 0 && yn >= 0 ? r1[xn * cn + k] : cval[k];
                        out[k] = blend(v0, v1, v2, v3);
                    }
                }
            }
        }
    }
}

// float -> int as x86's conversions do: out of range and NaN give INT_MIN
static inline int floor_int(float v) {
    if (!(v >= -2147483648.f && v < 2147483648.f)) return INT_MIN;
    int i = (int)v;
    return i - (i > v);
}

static inline int round_int(float v) {      // halves to even
    if (!(v >= -2147483648.f && v < 2147483648.f)) return INT_MIN;
#ifdef DALI_WP_X86
    return _mm_cvtss_si32(_mm_set_ss(v));
#else
    return (int)lrintf(v);
#endif
}

template <typename T> static inline T store_f32(float v);
template <> inline float store_f32<float>(float v) { return v; }
template <> inline uint8_t store_f32<uint8_t>(float v) {
    return (uint8_t)std::min(std::max(round_int(v), 0), 255);
}
template <> inline uint16_t store_f32<uint16_t>(float v) {
    return (uint16_t)std::min(std::max(round_int(v), 0), 65535);
}

#ifdef DALI_WP_X86
// The linear blend of one 3- or 4-channel uint8 pixel with the channels in the lanes of one
// vector: the scalar code's operations lane by lane (fused multiply-adds, rounding to nearest
// even, saturation), so the result is the same bit for bit.
__attribute__((target("avx2,fma")))
static inline void lerp_u8x4(const uint8_t* p0, const uint8_t* p1, int cn, uint8_t* out,
                             float fx, float fy) {
    int32_t b[4];
    memcpy(&b[0], p0, 4);
    memcpy(&b[1], p0 + cn, 4);
    memcpy(&b[2], p1, 4);
    memcpy(&b[3], p1 + cn, 4);
    __m128 p00 = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(b[0])));
    __m128 p01 = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(b[1])));
    __m128 p10 = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(b[2])));
    __m128 p11 = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(b[3])));
    __m128 vx = _mm_set1_ps(fx);
    __m128 v0 = _mm_fmadd_ps(vx, _mm_sub_ps(p01, p00), p00);
    __m128 v1 = _mm_fmadd_ps(vx, _mm_sub_ps(p11, p10), p10);
    __m128 v = _mm_fmadd_ps(_mm_set1_ps(fy), _mm_sub_ps(v1, v0), v0);
    __m128i i = _mm_cvtps_epi32(v);
    i = _mm_packus_epi16(_mm_packs_epi32(i, i), i);
    int32_t r = _mm_cvtsi128_si32(i);
    memcpy(out, &r, (size_t)cn);
}
#else
static inline void lerp_u8x4(const uint8_t*, const uint8_t*, int, uint8_t*, float, float) {}
#endif

const int kChunk = 256;          // positions computed ahead by positions8

struct Positions {               // of kChunk output pixels: floor and fraction of X/W, Y/W
    int ix[kChunk], iy[kChunk];
    float fx[kChunk], fy[kChunk];
};

#ifdef DALI_WP_X86
// The source positions of output pixels x0 .. x0 + n - 1 of a row, 8 at a time, as row_f32
// computes them one by one: X / W and Y / W with X = fma(m0, x, mx) and so on, floor (a
// truncation of the floored value: out of range and NaN give INT_MIN, as floor_int) and
// fraction.
__attribute__((target("avx2,fma")))
static inline void positions8(Positions* pos, int64_t x0, int64_t n, float m0, float m3,
                              float m6, float mx, float my, float mw) {
    const __m256 step = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    for (int64_t k = 0; k < n; k += 8) {   // kChunk is a multiple of 8: no overrun
        __m256 xf = _mm256_add_ps(_mm256_set1_ps((float)(x0 + k)), step);
        __m256 sw = _mm256_fmadd_ps(_mm256_set1_ps(m6), xf, _mm256_set1_ps(mw));
        __m256 sx = _mm256_div_ps(_mm256_fmadd_ps(_mm256_set1_ps(m0), xf, _mm256_set1_ps(mx)),
                                  sw);
        __m256 sy = _mm256_div_ps(_mm256_fmadd_ps(_mm256_set1_ps(m3), xf, _mm256_set1_ps(my)),
                                  sw);
        __m256i ix = _mm256_cvttps_epi32(_mm256_floor_ps(sx));
        __m256i iy = _mm256_cvttps_epi32(_mm256_floor_ps(sy));
        _mm256_storeu_si256((__m256i*)&pos->ix[k], ix);
        _mm256_storeu_si256((__m256i*)&pos->iy[k], iy);
        _mm256_storeu_ps(&pos->fx[k], _mm256_sub_ps(sx, _mm256_cvtepi32_ps(ix)));
        _mm256_storeu_ps(&pos->fy[k], _mm256_sub_ps(sy, _mm256_cvtepi32_ps(iy)));
    }
}
#else
static inline void positions8(Positions*, int64_t, int64_t, float, float, float, float, float,
                              float) {}
#endif

// One output row of the float kernels; `fmaf` is an instruction where the caller is built for
// FMA (warp_rows_f32_fma, which also computes the positions 8 at a time and blends 3- and
// 4-channel uint8 pixels as vectors: kVector) and glibc's correctly rounded function otherwise.
template <typename T, bool kVector>
__attribute__((always_inline, optimize("fp-contract=off")))
static inline void row_f32(const dali_wp_job* j, int64_t y) {
    const T* src = (const T*)j->src;
    T* out = (T*)j->dst + y * j->ow * j->c;
    const int h = (int)j->h, w = (int)j->w, cn = (int)j->c, mode = j->border;
    const int64_t ow = j->ow, row = (int64_t)w * cn;
    const double* M = j->m;
    float cval[4];
    for (int k = 0; k < 4; k++) cval[k] = (float)j->fill[k];
    if (j->interp != DALI_WP_LINEAR) {
        for (int64_t x = 0; x < ow; x++, out += cn) {
            double wd = M[6] * x + M[7] * y + M[8];
            int ix = round_int((float)((M[0] * x + M[1] * y + M[2]) / wd));
            int iy = round_int((float)((M[3] * x + M[4] * y + M[5]) / wd));
            const T* p;
            if ((unsigned)ix < (unsigned)w && (unsigned)iy < (unsigned)h) {
                p = src + iy * row + (int64_t)ix * cn;
            } else if (mode == DALI_WP_CONSTANT) {
                for (int k = 0; k < cn; k++) out[k] = (T)cval[k];
                continue;
            } else {
                p = src + border_index(iy, h, mode) * row +
                    (int64_t)border_index(ix, w, mode) * cn;
            }
            for (int k = 0; k < cn; k++) out[k] = p[k];
        }
        return;
    }
    const float m0 = (float)M[0], m3 = (float)M[3], m6 = (float)M[6];
    const float yf = (float)y;
    const float mx = (float)M[1] * yf + (float)M[2], my = (float)M[4] * yf + (float)M[5];
    const float mw = (float)M[7] * yf + (float)M[8];
    Positions pos;
    for (int64_t x = 0; x < ow; x++, out += cn) {
        int64_t at = x % kChunk;
        int ix, iy;
        float fx, fy;
        if (kVector) {          // 8 positions at a time, the same operations as below
            if (at == 0) positions8(&pos, x, std::min<int64_t>(kChunk, ow - x), m0, m3, m6,
                                    mx, my, mw);
            ix = pos.ix[at];
            iy = pos.iy[at];
            fx = pos.fx[at];
            fy = pos.fy[at];
        } else {
            float xf = (float)x;
            float sw = fmaf(m6, xf, mw);
            float sx = fmaf(m0, xf, mx) / sw, sy = fmaf(m3, xf, my) / sw;
            ix = floor_int(sx);
            iy = floor_int(sy);
            fx = sx - (float)ix;
            fy = sy - (float)iy;
        }
        if ((unsigned)ix < (unsigned)(w - 1) && (unsigned)iy < (unsigned)(h - 1)) {
            const T* p0 = src + iy * row + (int64_t)ix * cn;
            const T* p1 = p0 + row;
            if (kVector && sizeof(T) == 1 && cn >= 3 && (ix + 2 < w || iy + 2 < h)) {
                // the 4-byte loads read one byte past p11 with 3 channels: not at the last pixel
                lerp_u8x4((const uint8_t*)p0, (const uint8_t*)p1, cn, (uint8_t*)out, fx, fy);
                continue;
            }
            for (int k = 0; k < cn; k++) {
                float v0 = fmaf(fx, (float)p0[k + cn] - (float)p0[k], (float)p0[k]);
                float v1 = fmaf(fx, (float)p1[k + cn] - (float)p1[k], (float)p1[k]);
                out[k] = store_f32<T>(fmaf(fy, v1 - v0, v0));
            }
            continue;
        }
        if (mode == DALI_WP_CONSTANT && ((unsigned)(ix + 1) >= (unsigned)(w + 1) ||
                                         (unsigned)(iy + 1) >= (unsigned)(h + 1))) {
            for (int k = 0; k < cn; k++) out[k] = (T)cval[k];
            continue;
        }
        int x0 = border_index(ix, w, mode), x1 = border_index(ix + 1, w, mode);
        int y0 = border_index(iy, h, mode), y1 = border_index(iy + 1, h, mode);
        for (int k = 0; k < cn; k++) {
            float p00 = x0 >= 0 && y0 >= 0 ? (float)src[y0 * row + (int64_t)x0 * cn + k] : cval[k];
            float p01 = x1 >= 0 && y0 >= 0 ? (float)src[y0 * row + (int64_t)x1 * cn + k] : cval[k];
            float p10 = x0 >= 0 && y1 >= 0 ? (float)src[y1 * row + (int64_t)x0 * cn + k] : cval[k];
            float p11 = x1 >= 0 && y1 >= 0 ? (float)src[y1 * row + (int64_t)x1 * cn + k] : cval[k];
            float v0 = fmaf(fx, p01 - p00, p00);
            float v1 = fmaf(fx, p11 - p10, p10);
            out[k] = store_f32<T>(fmaf(fy, v1 - v0, v0));
        }
    }
}

// Whether the float kernels take their AVX2/FMA path (set by dali_wp_detect where the CPU has
// both; tests switch it off to compare with the plain path, which fmaf makes bit-identical).
static int dali_wp_fma = 0;

#ifdef DALI_WP_X86
static void dali_wp_detect(void) {
    dali_wp_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

template <typename T>
__attribute__((target("avx2,fma"), optimize("fp-contract=off")))
static void warp_rows_f32_fma(const dali_wp_job* j) {
    for (int64_t y = j->y0; y < j->y1; y++) row_f32<T, true>(j, y);
}
#else
static void dali_wp_detect(void) {}
#endif

template <typename T>
__attribute__((optimize("fp-contract=off")))
static void warp_rows_f32(const dali_wp_job* j) {
#ifdef DALI_WP_X86
    if (dali_wp_fma) {
        warp_rows_f32_fma<T>(j);
        return;
    }
#endif
    for (int64_t y = j->y0; y < j->y1; y++) row_f32<T, false>(j, y);
}

}  // namespace dali_wp

static inline void dali_wp_run(const dali_wp_job* j) {
    if (j->type == DALI_WP_I16 || j->c == 2) {
        if (j->type == DALI_WP_U8) dali_wp::warp_rows_fixed<uint8_t>(j);
        else if (j->type == DALI_WP_U16) dali_wp::warp_rows_fixed<uint16_t>(j);
        else if (j->type == DALI_WP_I16) dali_wp::warp_rows_fixed<int16_t>(j);
        else dali_wp::warp_rows_fixed<float>(j);
    } else if (j->type == DALI_WP_U8) {
        dali_wp::warp_rows_f32<uint8_t>(j);
    } else if (j->type == DALI_WP_U16) {
        dali_wp::warp_rows_f32<uint16_t>(j);
    } else {
        dali_wp::warp_rows_f32<float>(j);
    }
}

#endif  // DALI_EXT_KERNELS_WARP_PERSPECTIVE_H_
