// Fast Fourier transforms of real signals, any length, for the spectral operators
// (fn.spectrogram, fn.power_spectrum): many signals of one length at once.
//
// The signals are transformed side by side: a block of `batch` signals is stored
// interleaved, element i of signal b at [i * batch + b], real and imaginary parts in two
// arrays.  Every butterfly then runs as a loop over the signals with one twiddle factor, which
// the compiler vectorizes whatever the length's factors are.
//
// Complex transform (Stockham autosort, decimation in time): n = p_1 p_2 ... p_s.  Before a
// stage of radix p, the array holds, for each of the r = n / L residues k, the length-L DFT
// of the subsequence x[k + r t] at [q r + k] (q the frequency); the stage combines p of them
// into DFTs of length L p:
//   Y'[q + L m][k'] = sum_v w_p^(m v) (w_(L p)^(q v) Y[q][k' + r' v]),   r' = r / p,
// reading and writing contiguous runs over k' (and the signals).  After the last stage
// (L = n) the array holds the DFT in order.  Radices 4, 2, 3 and 5 have butterflies of their
// own; a larger prime factor p takes the plain p-point DFT (p^2 operations per p points).
//
// Real transform of even length n: the n/2 complex values z[k] = x[2k] + i x[2k+1] are
// transformed (Z) and X[k] = (Z[k] + conj Z[n/2-k]) / 2 - i w_n^k (Z[k] - conj Z[n/2-k]) / 2
// for k = 0 .. n/2.  An odd n is a complex transform of the signal with zero imaginary parts.
// Twiddle factors are computed in double and stored as float; the arithmetic is float.
#ifndef DALI_EXT_KERNELS_FFT_H_
#define DALI_EXT_KERNELS_FFT_H_

#include <math.h>
#include <stdint.h>

#include <vector>

namespace dali_fft {

// A complex transform of length n.
struct ComplexPlan {
  int64_t n = 0;
  std::vector<int> radices;
  std::vector<float> tw_re, tw_im;      // per stage: w_(L p)^(q v), q < L, 1 <= v < p
  std::vector<int64_t> tw_at;           // where each stage's twiddles start
  std::vector<std::vector<float>> root_re, root_im;  // per stage: w_p^j (generic DFT only)

  explicit ComplexPlan(int64_t len) : n(len) {
    int64_t m = n;
    while (m % 4 == 0) { radices.push_back(4); m /= 4; }
    while (m % 2 == 0) { radices.push_back(2); m /= 2; }
    for (int64_t p = 3; p * p <= m; p += 2)
      while (m % p == 0) { radices.push_back((int)p); m /= p; }
    if (m > 1)
      radices.push_back((int)m);
    int64_t L = 1;
    for (int p : radices) {
      tw_at.push_back((int64_t)tw_re.size());
      for (int64_t q = 0; q < L; q++) {
        for (int v = 1; v < p; v++) {
          double a = -2.0 * M_PI * (double)(q * v) / (double)(L * p);
          tw_re.push_back((float)cos(a));
          tw_im.push_back((float)sin(a));
        }
      }
      L *= p;
      root_re.emplace_back();
      root_im.emplace_back();
      for (int j = 0; p > 4 && j < p; j++) {
        double a = -2.0 * M_PI * j / p;
        root_re.back().push_back((float)cos(a));
        root_im.back().push_back((float)sin(a));
      }
    }
  }

  // The DFT of `batch` interleaved signals in (re, im); (sre, sim) is scratch of the same
  // size.  Returns true when the result is in the scratch arrays, false when in (re, im).
  bool run(float* re, float* im, float* sre, float* sim, int64_t batch) const {
    int64_t L = 1, r = n;
    bool swapped = false;
    for (size_t s = 0; s < radices.size(); s++) {
      int p = radices[s];
      int64_t r1 = r / p;
      stage(s, L, r1 * batch, re, im, sre, sim);
      float* t = re; re = sre; sre = t;
      t = im; im = sim; sim = t;
      swapped = !swapped;
      L *= p;
      r = r1;
    }
    return swapped;
  }

 private:
  // One stage: `len` = r' * batch contiguous values per (q, v) run.
  void stage(size_t s, int64_t L, int64_t len, const float* re, const float* im, float* ore,
             float* oim) const {
    int p = radices[s];
    const float* twr = tw_re.data() + tw_at[s];
    const float* twi = tw_im.data() + tw_at[s];
    int64_t in_q = len * p;                 // input stride of q: r * batch
    for (int64_t q = 0; q < L; q++) {
      const float* xr = re + q * in_q;
      const float* xi = im + q * in_q;
      const float* wr = twr + q * (p - 1);
      const float* wi = twi + q * (p - 1);
      float* yr = ore + q * len;
      float* yi = oim + q * len;
      int64_t out_m = L * len;              // output stride of m
      if (p == 4 && q == 0)
        radix4<false>(xr, xi, len, wr, wi, yr, yi, out_m);
      else if (p == 4)
        radix4<true>(xr, xi, len, wr, wi, yr, yi, out_m);
      else if (p == 2 && q == 0)
        radix2<false>(xr, xi, len, wr[0], wi[0], yr, yi, out_m);
      else if (p == 2)
        radix2<true>(xr, xi, len, wr[0], wi[0], yr, yi, out_m);
      else if (p == 3 && q == 0)
        radix3<false>(xr, xi, len, wr, wi, yr, yi, out_m);
      else if (p == 3)
        radix3<true>(xr, xi, len, wr, wi, yr, yi, out_m);
      else
        generic(p, root_re[s].data(), root_im[s].data(), xr, xi, len, wr, wi, q != 0, yr, yi,
                out_m);
    }
  }

  static inline void twiddle(float& a, float& b, float wr, float wi) {
    float t = a * wr - b * wi;
    b = a * wi + b * wr;
    a = t;
  }

  template <bool TW>
  static void radix2(const float* __restrict__ xr, const float* __restrict__ xi, int64_t len,
                     float wr, float wi, float* __restrict__ yr, float* __restrict__ yi,
                     int64_t om) {
#pragma GCC ivdep
    for (int64_t j = 0; j < len; j++) {
      float ar = xr[j], ai = xi[j], br = xr[j + len], bi = xi[j + len];
      if (TW) twiddle(br, bi, wr, wi);
      yr[j] = ar + br; yi[j] = ai + bi;
      yr[j + om] = ar - br; yi[j + om] = ai - bi;
    }
  }

  template <bool TW>
  static void radix3(const float* __restrict__ xr, const float* __restrict__ xi, int64_t len,
                     const float* wr, const float* wi, float* __restrict__ yr,
                     float* __restrict__ yi, int64_t om) {
    const float h = 0.86602540378443864676f;   // sqrt(3) / 2
#pragma GCC ivdep
    for (int64_t j = 0; j < len; j++) {
      float ar = xr[j], ai = xi[j];
      float br = xr[j + len], bi = xi[j + len], cr = xr[j + 2 * len], ci = xi[j + 2 * len];
      if (TW) { twiddle(br, bi, wr[0], wi[0]); twiddle(cr, ci, wr[1], wi[1]); }
      float sr = br + cr, si = bi + ci, dr = br - cr, di = bi - ci;
      float tr = ar - 0.5f * sr, ti = ai - 0.5f * si;
      yr[j] = ar + sr; yi[j] = ai + si;
      yr[j + om] = tr + h * di; yi[j + om] = ti - h * dr;
      yr[j + 2 * om] = tr - h * di; yi[j + 2 * om] = ti + h * dr;
    }
  }

  template <bool TW>
  static void radix4(const float* __restrict__ xr, const float* __restrict__ xi, int64_t len,
                     const float* wr, const float* wi, float* __restrict__ yr,
                     float* __restrict__ yi, int64_t om) {
#pragma GCC ivdep
    for (int64_t j = 0; j < len; j++) {
      float ar = xr[j], ai = xi[j], br = xr[j + len], bi = xi[j + len];
      float cr = xr[j + 2 * len], ci = xi[j + 2 * len];
      float dr = xr[j + 3 * len], di = xi[j + 3 * len];
      if (TW) {
        twiddle(br, bi, wr[0], wi[0]);
        twiddle(cr, ci, wr[1], wi[1]);
        twiddle(dr, di, wr[2], wi[2]);
      }
      float t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci;
      float t2r = br + dr, t2i = bi + di, t3r = bi - di, t3i = dr - br;   // (b - d) * -i
      yr[j] = t0r + t2r; yi[j] = t0i + t2i;
      yr[j + om] = t1r + t3r; yi[j + om] = t1i + t3i;
      yr[j + 2 * om] = t0r - t2r; yi[j + 2 * om] = t0i - t2i;
      yr[j + 3 * om] = t1r - t3r; yi[j + 3 * om] = t1i - t3i;
    }
  }

  static void generic(int p, const float* rr, const float* ri, const float* xr, const float* xi,
                      int64_t len, const float* wr, const float* wi, bool tw, float* yr,
                      float* yi, int64_t om) {
    for (int m = 0; m < p; m++) {
      float* outr = yr + m * om;
      float* outi = yi + m * om;
      for (int64_t j = 0; j < len; j++) { outr[j] = xr[j]; outi[j] = xi[j]; }
      for (int v = 1; v < p; v++) {
        int e = (int)(((int64_t)m * v) % p);
        float cr = rr[e], ci = ri[e];
        if (tw) {                           // w_p^(m v) * w_(L p)^(q v)
          float t = cr * wr[v - 1] - ci * wi[v - 1];
          ci = cr * wi[v - 1] + ci * wr[v - 1];
          cr = t;
        }
        const float* ar = xr + v * len;
        const float* ai = xi + v * len;
        for (int64_t j = 0; j < len; j++) {
          outr[j] += ar[j] * cr - ai[j] * ci;
          outi[j] += ar[j] * ci + ai[j] * cr;
        }
      }
    }
  }
};

// A real transform of length n (n >= 1): bins 0 .. n/2.
struct RealPlan {
  int64_t n;
  bool even;
  ComplexPlan plan;                     // of n/2 (even n) or n (odd n)
  std::vector<float> w_re, w_im;        // even n: w_n^k, k <= n/2

  explicit RealPlan(int64_t len)
      : n(len), even(len % 2 == 0), plan(len % 2 == 0 ? len / 2 : len) {
    if (even) {
      for (int64_t k = 0; k <= n / 2; k++) {
        double a = -2.0 * M_PI * (double)k / (double)n;
        w_re.push_back((float)cos(a));
        w_im.push_back((float)sin(a));
      }
    }
  }

  // Floats of scratch `run` needs for `batch` signals.
  int64_t scratch_size(int64_t batch) const { return 4 * plan.n * batch; }

  // Element i < n of signal b goes to [load_index(i) * batch + b] of the real (i even or n
  // odd) or imaginary (i odd, n even) array `load_parts` returns: callers fill them, with
  // zeros past their signals' ends, then call `run`.
  int64_t load_index(int64_t i) const { return even ? i / 2 : i; }
  bool load_imag(int64_t i) const { return even && (i & 1); }

  // The scratch's (re, im) arrays to fill: plan.n * batch floats each.
  float* load_re(float* scratch) const { return scratch; }
  float* load_im(float* scratch, int64_t batch) const { return scratch + plan.n * batch; }

  // Transform the loaded block and call out(k, re, im) for every bin k <= n/2 with the
  // bin's `batch` values (one per signal).
  template <typename Out>
  void run(float* scratch, int64_t batch, Out&& out) const {
    int64_t h = plan.n * batch;
    float* re = scratch;
    float* im = scratch + h;
    float* sre = scratch + 2 * h;
    float* sim = scratch + 3 * h;
    if (plan.run(re, im, sre, sim, batch)) {
      re = sre;
      im = sim;
      sre = scratch;
      sim = scratch + h;
    }
    if (!even) {
      for (int64_t k = 0; k <= n / 2; k++)
        out(k, re + k * batch, im + k * batch);
      return;
    }
    int64_t m = plan.n;                 // n / 2
    for (int64_t k = 0; k <= m; k++) {
      const float* ar = re + (k % m) * batch;
      const float* ai = im + (k % m) * batch;
      const float* br = re + ((m - k) % m) * batch;
      const float* bi = im + ((m - k) % m) * batch;
      float wr = w_re[k], wi = w_im[k];
      for (int64_t b = 0; b < batch; b++) {
        // E = (A + conj B) / 2, O = (A - conj B) / 2i, X = E + w O
        float er = 0.5f * (ar[b] + br[b]), ei = 0.5f * (ai[b] - bi[b]);
        float orr = 0.5f * (ai[b] + bi[b]), oi = -0.5f * (ar[b] - br[b]);
        sre[b] = er + wr * orr - wi * oi;
        sim[b] = ei + wr * oi + wi * orr;
      }
      out(k, sre, sim);
    }
  }
};

}  // namespace dali_fft

#endif  // DALI_EXT_KERNELS_FFT_H_
