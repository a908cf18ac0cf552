// The vector step of the warp kernel (_ext/kernels/warp.pyx): the linear blend of one 3-channel
// uint8 pixel, with the channels in the lanes of one 4-float vector (GCC/Clang vector extensions, SSE4.1 for the byte <-> int conversions, which
// the compiler would otherwise split into scalar code; a scalar loop without SSE4.1).  Each lane does the scalar kernel's float32 operations in the same order and the
// same conversion as convert.pxd's `store` (clamp to [0, 255], NaN to 0, round half away from
// zero), so the result is bit-identical to the scalar path whatever the instruction set.
#ifndef DALI_EXT_KERNELS_WARP_H_
#define DALI_EXT_KERNELS_WARP_H_

#include <stdint.h>
#include <string.h>
#ifdef __SSE4_1__
#include <smmintrin.h>
#endif

typedef float dali_warp_f4 __attribute__((vector_size(16)));
typedef int32_t dali_warp_i4 __attribute__((vector_size(16)));
typedef uint8_t dali_warp_u8x4 __attribute__((vector_size(4)));

/* 4 bytes from p as floats; the 4th lane is the next pixel's first channel (unused). */
static inline dali_warp_f4 dali_warp_load4(const uint8_t* p) {
    int32_t b;
    memcpy(&b, p, 4);
#ifdef __SSE4_1__
    return (dali_warp_f4)_mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(b)));
#else
    dali_warp_u8x4 v;
    memcpy(&v, &b, 4);
    return __builtin_convertvector(v, dali_warp_f4);
#endif
}

/* A pixel's 3 channels (and a 0 lane) as floats; reads only those 3 bytes. */
static inline dali_warp_f4 dali_warp_load3(const uint8_t* p) {
    const int32_t b = p[0] | (p[1] << 8) | (p[2] << 16);
#ifdef __SSE4_1__
    return (dali_warp_f4)_mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(b)));
#else
    dali_warp_u8x4 v;
    memcpy(&v, &b, 4);
    return __builtin_convertvector(v, dali_warp_f4);
#endif
}

/* out[0..2] = the blend of corners a (top left), b (top right), c (bottom left), d at
   (fx, fy), stored as convert.pxd's `store` does for uint8. */
static inline void dali_warp_blend_u8c3(dali_warp_f4 a, dali_warp_f4 b, dali_warp_f4 c,
                                        dali_warp_f4 d, float fx, float fy, uint8_t* out) {
    const dali_warp_f4 top = a + (b - a) * fx;
    const dali_warp_f4 bottom = c + (d - c) * fx;
    dali_warp_f4 v = top + (bottom - top) * fy;
    const dali_warp_f4 zero = {0, 0, 0, 0}, hi = {255, 255, 255, 255};
    v = v == v ? v : zero;
    v = v <= zero ? zero : v;
    v = v >= hi ? hi : v;
    dali_warp_i4 r = __builtin_convertvector(v, dali_warp_i4);       /* truncation */
    const dali_warp_f4 rem = v - __builtin_convertvector(r, dali_warp_f4);
    const dali_warp_f4 half = {0.5f, 0.5f, 0.5f, 0.5f};
    r = r - (rem >= half) + (rem <= -half);          /* comparisons are -1 where true */
#ifdef __SSE4_1__
    const __m128i w16 = _mm_packus_epi32((__m128i)r, (__m128i)r);
    const int32_t px = _mm_cvtsi128_si32(_mm_packus_epi16(w16, w16));
#else
    const dali_warp_u8x4 px = __builtin_convertvector(r, dali_warp_u8x4);
#endif
    memcpy(out, &px, 3);
}

/* out[0..2] = the blend of p00, p01 = p00 + 3, p10 = p00 + row, p11 = p10 + 3 at (fx, fy).
   Reads one byte past p11's channels: the caller makes sure that it is inside the image. */
static inline void dali_warp_lerp_u8c3(const uint8_t* p00, int64_t row, uint8_t* out,
                                       float fx, float fy) {
    dali_warp_blend_u8c3(dali_warp_load4(p00), dali_warp_load4(p00 + 3),
                         dali_warp_load4(p00 + row), dali_warp_load4(p00 + row + 3), fx, fy,
                         out);
}

/* The same for any four corners (a border neighbourhood: clamped pointers); a corner whose bit
   of `inside` (1: p00, 2: p01, 4: p10, 8: p11) is clear takes `fill` instead. */
static inline void dali_warp_lerp4_u8c3(const uint8_t* p00, const uint8_t* p01,
                                        const uint8_t* p10, const uint8_t* p11, int inside,
                                        float fill, uint8_t* out, float fx, float fy) {
    const dali_warp_f4 f = {fill, fill, fill, fill};
    dali_warp_blend_u8c3(inside & 1 ? dali_warp_load3(p00) : f,
                         inside & 2 ? dali_warp_load3(p01) : f,
                         inside & 4 ? dali_warp_load3(p10) : f,
                         inside & 8 ? dali_warp_load3(p11) : f, fx, fy, out);
}

#endif  // DALI_EXT_KERNELS_WARP_H_
