/* fn.sphere's source positions, one output row at a time (displace.pyx).
 *
 * Output pixel (x, y) reads position (mid_x + rad * tx, mid_y + rad * ty), with
 * t = (x + 0.5 - mid_x, y + 0.5 - mid_y) and rad = sqrtf(tx * tx + ty * ty) / d: DALI's float32
 * operations in its order.  t is made of half-integers, exact in float32, and column w - 1 - x
 * has t = -tx exactly (row h - 1 - y: -ty), so its rad is bit for bit column x's (row y's):
 * dali_sphere_rad(fy, mid_x, mid_y, d, n, rad) makes the radii of the first n columns of row fy,
 * 4 at a time with SSE (square root and division are correctly rounded in both, so the vector
 * and the scalar loops give the same bits), plain C without SSE; one call serves the rows y
 * and h - 1 - y, with n = (w + 1) / 2.  dali_sphere_row(fy, mid_x, mid_y, w, rad, px, py)
 * makes the row's positions from them.
 *
 * dali_nn_row(px, py, w, h, xs, ys): the pixels that nearest-neighbour sampling reads at those
 * positions, 4 at a time with SSE: xs[x] = floor(px[x]) and ys[x] = floor(py[x]) where
 * 0 <= px[x] < w and 0 <= py[x] < h (the positions whose floor lies in the image), else
 * xs[x] = w (a NaN position included).  Exact for w, h < 2^24 (DALI_NN_ROW_MAX), whose float
 * conversions are exact. */
#ifndef DALI_EXT_KERNELS_DISPLACE_ROWS_H_
#define DALI_EXT_KERNELS_DISPLACE_ROWS_H_

#include <math.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define DALI_SPHERE_SSE 1
#endif

static void dali_sphere_rad(float fy, float mid_x, float mid_y, float d, int64_t n,
                            float* rad) {
    float ty = fy + 0.5f - mid_y;
    float tyy = ty * ty;
    int64_t x = 0;
#ifdef DALI_SPHERE_SSE
    __m128 vmx = _mm_set1_ps(mid_x), vtyy = _mm_set1_ps(tyy), vd = _mm_set1_ps(d);
    __m128 half = _mm_set1_ps(0.5f);
    for (; x + 4 <= n; x += 4) {
        __m128 fx = _mm_cvtepi32_ps(_mm_add_epi32(_mm_set1_epi32((int)x),
                                                  _mm_setr_epi32(0, 1, 2, 3)));
        __m128 tx = _mm_sub_ps(_mm_add_ps(fx, half), vmx);
        _mm_storeu_ps(rad + x, _mm_div_ps(_mm_sqrt_ps(_mm_add_ps(_mm_mul_ps(tx, tx), vtyy)),
                                          vd));
    }
#endif
    for (; x < n; x++) {
        float tx = (float)x + 0.5f - mid_x;
        rad[x] = sqrtf(tx * tx + tyy) / d;
    }
}

static void dali_sphere_row(float fy, float mid_x, float mid_y, int64_t w, const float* rad,
                            float* px, float* py) {
    float ty = fy + 0.5f - mid_y;
    for (int64_t x = 0; x < w; x++) {
        float r = rad[x < w - 1 - x ? x : w - 1 - x];
        float tx = (float)x + 0.5f - mid_x;
        px[x] = mid_x + r * tx;
        py[x] = mid_y + r * ty;
    }
}

#define DALI_NN_ROW_MAX (1 << 24)

static void dali_nn_row(const float* px, const float* py, int64_t w, int64_t h, int32_t* xs,
                        int32_t* ys) {
    float fw = (float)w, fh = (float)h;
    int64_t x = 0;
#ifdef DALI_SPHERE_SSE
    __m128 zero = _mm_setzero_ps(), vw = _mm_set1_ps(fw), vh = _mm_set1_ps(fh);
    __m128i outside = _mm_set1_epi32((int32_t)w);
    for (; x + 4 <= w; x += 4) {
        __m128 a = _mm_loadu_ps(px + x), b = _mm_loadu_ps(py + x);
        __m128i in = _mm_castps_si128(_mm_and_ps(
            _mm_and_ps(_mm_cmpge_ps(a, zero), _mm_cmplt_ps(a, vw)),
            _mm_and_ps(_mm_cmpge_ps(b, zero), _mm_cmplt_ps(b, vh))));
        __m128i xi = _mm_cvttps_epi32(a);   /* truncation is the floor where inside */
        _mm_storeu_si128((__m128i*)(xs + x), _mm_or_si128(_mm_and_si128(in, xi),
                                                          _mm_andnot_si128(in, outside)));
        __m128 yi = _mm_and_ps(b, _mm_castsi128_ps(in));
        _mm_storeu_si128((__m128i*)(ys + x), _mm_cvttps_epi32(yi));
    }
#endif
    for (; x < w; x++) {
        if (px[x] >= 0 && px[x] < fw && py[x] >= 0 && py[x] < fh) {
            xs[x] = (int32_t)px[x];
            ys[x] = (int32_t)py[x];
        } else {
            xs[x] = (int32_t)w;
            ys[x] = 0;
        }
    }
}

#endif  /* DALI_EXT_KERNELS_DISPLACE_ROWS_H_ */
