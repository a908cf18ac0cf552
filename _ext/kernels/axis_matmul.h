// A matrix applied along one axis of float32 samples (fn.mel_filter_bank, fn.mfcc):
// a sample seen as (outer, nin, inner) becomes (outer, nout, inner) with
//   out[o, m, i] = sum over k in [lo[m], hi[m]) of w[m, k] in[o, k, i],
// the rows' non-zero bands [lo, hi) skipping the zeros of a sparse matrix (a mel filter bank
// touches about two rows' worth of inputs in all).  With inner elements (a frequency-major
// spectrogram) blocks of DALI_AXIS_BLOCK columns are summed over k in order in registers, a
// loop that vectorizes; fewer columns (time-major or short spectrograms) are summed in four
// interleaved partial sums, which breaks the chain of dependent additions (two columns at a
// time in SIMD lanes), and four rows of one band (a dense matrix: MFCC's DCT) are summed
// together, each sum as for one row.
#ifndef DALI_EXT_KERNELS_AXIS_MATMUL_H_
#define DALI_EXT_KERNELS_AXIS_MATMUL_H_

#include <stdint.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define DALI_AXIS_BLOCK 16

typedef struct {
  const float* w;                // nout x nin, row-major
  const int64_t* lo;             // per row: the first non-zero column
  const int64_t* hi;             // per row: one past the last non-zero column
  int64_t nin, nout;
} dali_axis_matrix;

typedef struct {
  const dali_axis_matrix* m;
  const float* in;
  float* out;
  int64_t inner;                 // elements after the axis
  int64_t o0, o1;                // the outer indices of this work item
  int64_t i0, i1;                // the inner indices of this work item
} dali_axis_matmul_job;

static inline void dali_axis_matmul_run(const dali_axis_matmul_job* j) {
  const dali_axis_matrix* m = j->m;
  int64_t inner = j->inner, nin = m->nin, nout = m->nout;
  for (int64_t o = j->o0; o < j->o1; o++) {
    const float* in = j->in + o * nin * inner;
    float* out = j->out + o * nout * inner;
    for (int64_t r = 0; r < nout; r++) {
      const float* w = m->w + r * nin;
      int64_t k0 = m->lo[r], k1 = m->hi[r];
      float* y = out + r * inner;
#ifdef __SSE2__
      if (j->i1 - j->i0 < DALI_AXIS_BLOCK && r + 4 <= nout && m->lo[r + 1] == k0 &&
          m->hi[r + 1] == k1 && m->lo[r + 2] == k0 && m->hi[r + 2] == k1 &&
          m->lo[r + 3] == k0 && m->hi[r + 3] == k1) {
        // four rows of one band (a dense matrix) together, row q's four partial sums in the
        // lanes of part[q]: each sum as below, sixteen chains in flight
        for (int64_t i = j->i0; i < j->i1; i++) {
          __m128 part[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(),
                            _mm_setzero_ps()};
          int64_t k = k0;
          for (; k + 4 <= k1; k += 4) {
            const __m128 x = _mm_setr_ps(in[k * inner + i], in[(k + 1) * inner + i],
                                         in[(k + 2) * inner + i], in[(k + 3) * inner + i]);
            for (int q = 0; q < 4; q++)
              part[q] = _mm_add_ps(part[q], _mm_mul_ps(_mm_loadu_ps(w + q * nin + k), x));
          }
          for (; k < k1; k++) {
            const __m128 x = _mm_set_ss(in[k * inner + i]);
            for (int q = 0; q < 4; q++)
              part[q] = _mm_add_ss(part[q], _mm_mul_ss(_mm_set_ss(w[q * nin + k]), x));
          }
          for (int q = 0; q < 4; q++) {   // (p0 + p1) + (p2 + p3)
            const __m128 pairs = _mm_add_ps(part[q], _mm_shuffle_ps(part[q], part[q],
                                                                    _MM_SHUFFLE(2, 3, 0, 1)));
            y[q * inner + i] = _mm_cvtss_f32(_mm_add_ss(pairs, _mm_movehl_ps(pairs, pairs)));
          }
        }
        r += 3;
        continue;
      }
#endif
      if (j->i1 - j->i0 < DALI_AXIS_BLOCK) {  // few columns: 4 partial sums per column
        int64_t i = j->i0;
#ifdef __SSE2__
        // two columns at once, their partial sums in lanes, a = (p0(i), p0(i + 1), p1(i),
        // p1(i + 1)) and b the same of p2 and p3: each column's sums as below, in the same
        // order; the tail adds to the p0 lanes alone
        for (; i + 2 <= j->i1; i += 2) {
          __m128 a = _mm_setzero_ps(), b = _mm_setzero_ps();
          int64_t k = k0;
          for (; k + 4 <= k1; k += 4) {
            const float* x = in + k * inner + i;
            const __m128 x01 = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64*)x),
                                            (const __m64*)(x + inner));
            const __m128 x23 = _mm_loadh_pi(
                _mm_loadl_pi(_mm_setzero_ps(), (const __m64*)(x + 2 * inner)),
                (const __m64*)(x + 3 * inner));
            a = _mm_add_ps(a, _mm_mul_ps(_mm_setr_ps(w[k], w[k], w[k + 1], w[k + 1]), x01));
            b = _mm_add_ps(b, _mm_mul_ps(_mm_setr_ps(w[k + 2], w[k + 2], w[k + 3], w[k + 3]),
                                         x23));
          }
          for (; k < k1; k++) {
            const __m128 x = _mm_loadl_pi(_mm_setzero_ps(), (const __m64*)(in + k * inner + i));
            const __m128 sum = _mm_add_ps(a, _mm_mul_ps(_mm_set1_ps(w[k]), x));
            a = _mm_castpd_ps(_mm_move_sd(_mm_castps_pd(a), _mm_castps_pd(sum)));
          }
          const __m128 r = _mm_add_ps(_mm_add_ps(a, _mm_movehl_ps(a, a)),
                                      _mm_add_ps(b, _mm_movehl_ps(b, b)));
          _mm_storel_pi((__m64*)(y + i), r);
        }
#endif
        for (; i < j->i1; i++) {
          float part[4] = {0, 0, 0, 0};
          int64_t k = k0;
          for (; k + 4 <= k1; k += 4)
            for (int b = 0; b < 4; b++)
              part[b] += w[k + b] * in[(k + b) * inner + i];
          for (; k < k1; k++)
            part[0] += w[k] * in[k * inner + i];
          y[i] = (part[0] + part[1]) + (part[2] + part[3]);
        }
        continue;
      }
      int64_t i = j->i0;
      for (; i + DALI_AXIS_BLOCK <= j->i1; i += DALI_AXIS_BLOCK) {
        float acc[DALI_AXIS_BLOCK] = {0};   // a block of columns stays in registers
        for (int64_t k = k0; k < k1; k++) {
          const float* x = in + k * inner + i;
          float c = w[k];
          for (int b = 0; b < DALI_AXIS_BLOCK; b++)
            acc[b] += c * x[b];
        }
        for (int b = 0; b < DALI_AXIS_BLOCK; b++)
          y[i + b] = acc[b];
      }
      for (; i < j->i1; i++) {
        float acc = 0.0f;
        for (int64_t k = k0; k < k1; k++)
          acc += w[k] * in[k * inner + i];
        y[i] = acc;
      }
    }
  }
}

#endif  // DALI_EXT_KERNELS_AXIS_MATMUL_H_
