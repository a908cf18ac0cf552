/* fn.sphere's source positions, one output row at a time (displace.pyx).
 *
 * dali_sphere_row(fy, mid_x, mid_y, d, w, px, py): for x in [0, w), with t = (x + 0.5 - mid_x,
 * fy + 0.5 - mid_y) and rad = sqrtf(tx * tx + ty * ty) / d, px[x] = mid_x + rad * tx and
 * py[x] = mid_y + rad * ty: the per-pixel float32 operations in the same order, 4 pixels at a
 * time with SSE (square root and division are correctly rounded in both, so the vector and
 * the scalar loops give the same bits), plain C without SSE. */
#ifndef DALI_EXT_KERNELS_DISPLACE_ROWS_H_
#define DALI_EXT_KERNELS_DISPLACE_ROWS_H_

#include <math.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define DALI_SPHERE_SSE 1
#endif

static void dali_sphere_row(float fy, float mid_x, float mid_y, float d, int64_t w, float* px,
                            float* py) {
    float ty = fy + 0.5f - mid_y;
    float tyy = ty * ty;
    int64_t x = 0;
#ifdef DALI_SPHERE_SSE
    __m128 vmx = _mm_set1_ps(mid_x), vmy = _mm_set1_ps(mid_y), vty = _mm_set1_ps(ty);
    __m128 vtyy = _mm_set1_ps(tyy), vd = _mm_set1_ps(d), half = _mm_set1_ps(0.5f);
    for (; x + 4 <= w; x += 4) {
        __m128 fx = _mm_cvtepi32_ps(_mm_add_epi32(_mm_set1_epi32((int)x),
                                                  _mm_setr_epi32(0, 1, 2, 3)));
        __m128 tx = _mm_sub_ps(_mm_add_ps(fx, half), vmx);
        __m128 rad = _mm_div_ps(_mm_sqrt_ps(_mm_add_ps(_mm_mul_ps(tx, tx), vtyy)), vd);
        _mm_storeu_ps(px + x, _mm_add_ps(vmx, _mm_mul_ps(rad, tx)));
        _mm_storeu_ps(py + x, _mm_add_ps(vmy, _mm_mul_ps(rad, vty)));
    }
#endif
    for (; x < w; x++) {
        float tx = (float)x + 0.5f - mid_x;
        float rad = sqrtf(tx * tx + tyy) / d;
        px[x] = mid_x + rad * tx;
        py[x] = mid_y + rad * ty;
    }
}

#endif  /* DALI_EXT_KERNELS_DISPLACE_ROWS_H_ */
