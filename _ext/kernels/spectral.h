// The spectral operators' loops (fn.spectrogram, fn.power_spectrum) on fft.h's real
// transforms, in blocks of up to `dali_spectral_block` signals transformed side by side.
//
// Spectrogram: window t of a signal x of n samples starts at `offset + t * step` (offset
// -window_length/2 with centred windows, else 0); samples outside [0, n) are x mirrored at the
// ends without repeating them (x[-i] = x[i], x[n-1+i] = x[n-1-i]) with reflect padding, else 0.
// The window is multiplied by the window function and zero-padded to nfft; the output is
// |X[k]| or |X[k]|^2 of bins k <= nfft/2, frequency-major (bins x windows) or time-major.
//
// Power spectrum: a sample is (outer, len, inner) around the transformed axis; each of its
// outer * inner signals (first nfft elements, zero-padded) gives (outer, nfft/2+1, inner).
#ifndef DALI_EXT_KERNELS_SPECTRAL_H_
#define DALI_EXT_KERNELS_SPECTRAL_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <new>

#include "fft.h"

typedef struct {
  const dali_fft::RealPlan* plan;
  const float* window;           // window_length values
  int64_t window_length, step, offset;
  int reflect;                   // mirror the signal outside its ends (else zeros)
  int power;                     // 1 or 2
  int time_major;                // output (windows, bins) instead of (bins, windows)
} dali_spectrogram_args;

typedef struct {
  const float* x;
  float* out;
  int64_t n;                     // samples of the signal
  int64_t windows;               // windows of the signal
} dali_spectrogram_signal;

// The windows of a batch are numbered one after the other across its signals, so that a
// block of windows transformed together may come from several short signals.
typedef struct {
  const dali_spectrogram_signal* signals;
  const int64_t* signal;         // per window of the batch: its signal
  const int64_t* index;          // per window of the batch: its index in its signal
  int64_t lo, hi;                // the windows of this work item
} dali_spectrogram_job;

typedef struct {
  const dali_fft::RealPlan* plan;
  const float* const* x;         // the first element of every sample the signals run across
  float* out;                    // the first sample's output (the samples' back to back)
  int64_t len, inner;            // the transformed axis' extent; elements after it
  int64_t per_sample;            // signals of a sample (outer * inner)
  int64_t lo, hi;                // the signals of this work item
  int power;
} dali_power_spectrum_job;

// Signals per block: at most 16, fewer for long transforms, so the scratch stays within ~1 MB.
enum { DALI_SPECTRAL_MAX_BLOCK = 16 };

static inline int64_t dali_spectral_block(const dali_fft::RealPlan* plan) {
  return std::max<int64_t>(1, std::min<int64_t>(DALI_SPECTRAL_MAX_BLOCK,
                                                65536 / std::max<int64_t>(1, plan->plan.n)));
}

static inline int64_t dali_reflect101(int64_t i, int64_t n) {
  if (n == 1)
    return 0;
  int64_t period = 2 * (n - 1);
  i = i < 0 ? -i : i;
  if (i >= period)              // only for windows much longer than the signal
    i %= period;
  return i < n ? i : period - i;
}

// Store |v| or |v|^2 of `count` bins values.
static inline void dali_spectral_store(const float* re, const float* im, int64_t count,
                                       int power, float* out, int64_t stride) {
  for (int64_t b = 0; b < count; b++) {
    float m = re[b] * re[b] + im[b] * im[b];
    out[b * stride] = power == 1 ? sqrtf(m) : m;
  }
}

static inline int dali_spectrogram_run(const dali_spectrogram_args* a,
                                       const dali_spectrogram_job* j) {
  const dali_fft::RealPlan& plan = *a->plan;
  int64_t block = std::min(dali_spectral_block(a->plan), j->hi - j->lo);
  int64_t bins = plan.n / 2 + 1, wl = a->window_length;
  // nothrow: an exception must not cross the nogil caller (it would abort the process)
  // the FFT's scratch, then one window's samples where it reaches past the signal's ends
  std::unique_ptr<float[]> scratch(new (std::nothrow) float[plan.scratch_size(block) + wl]);
  if (!scratch) return -1;           // not zeroed; -1: the caller raises a MemoryError
  float* frame = scratch.get() + plan.scratch_size(block);
  const float* w = a->window;
  for (int64_t g0 = j->lo; g0 < j->hi; g0 += block) {
    int64_t nb = std::min(block, j->hi - g0);
    float* re = scratch.get();
    float* im = re + plan.plan.n * nb;
    memset(re, 0, 2 * plan.plan.n * nb * sizeof(float));
    for (int64_t b = 0; b < nb; b++) {
      const dali_spectrogram_signal& sig = j->signals[j->signal[g0 + b]];
      int64_t start = a->offset + j->index[g0 + b] * a->step;
      const float* x = frame;
      if (start >= 0 && start + wl <= sig.n) {
        x = sig.x + start;
      } else {                                // padded: the window's samples into `frame`
        int64_t lo = std::min(wl, std::max<int64_t>(0, -start));              // i < 0 below
        int64_t hi = std::max(lo, std::min(wl, sig.n - start));                // i < n below
        for (int64_t k = 0; k < lo; k++)
          frame[k] = a->reflect ? sig.x[dali_reflect101(start + k, sig.n)] : 0.0f;
        if (hi > lo)
          memcpy(frame + lo, sig.x + start + lo, (hi - lo) * sizeof(float));
        for (int64_t k = hi; k < wl; k++)
          frame[k] = a->reflect ? sig.x[dali_reflect101(start + k, sig.n)] : 0.0f;
      }
      if (plan.even) {
        int64_t k = 0;
        for (; k + 1 < wl; k += 2) {
          re[(k / 2) * nb + b] = x[k] * w[k];
          im[(k / 2) * nb + b] = x[k + 1] * w[k + 1];
        }
        if (k < wl)
          re[(k / 2) * nb + b] = x[k] * w[k];
        continue;
      }
      for (int64_t k = 0; k < wl; k++)
        re[k * nb + b] = x[k] * w[k];
    }
    if (j->signal[g0] == j->signal[g0 + nb - 1]) {   // one signal's consecutive windows
      const dali_spectrogram_signal& sig = j->signals[j->signal[g0]];
      int64_t t0 = j->index[g0];
      plan.run(scratch.get(), nb, [&](int64_t k, const float* xr, const float* xi) {
        if (a->time_major)
          dali_spectral_store(xr, xi, nb, a->power, sig.out + t0 * bins + k, bins);
        else
          dali_spectral_store(xr, xi, nb, a->power, sig.out + k * sig.windows + t0, 1);
      });
      continue;
    }
    // windows of several signals: bin k of window b goes to base[b] + k * stride[b]
    float* base[DALI_SPECTRAL_MAX_BLOCK];
    int64_t stride[DALI_SPECTRAL_MAX_BLOCK];
    for (int64_t b = 0; b < nb; b++) {
      const dali_spectrogram_signal& sig = j->signals[j->signal[g0 + b]];
      int64_t t = j->index[g0 + b];
      base[b] = a->time_major ? sig.out + t * bins : sig.out + t;
      stride[b] = a->time_major ? 1 : sig.windows;
    }
    plan.run(scratch.get(), nb, [&](int64_t k, const float* xr, const float* xi) {
      if (a->power == 1) {
        for (int64_t b = 0; b < nb; b++)
          base[b][k * stride[b]] = sqrtf(xr[b] * xr[b] + xi[b] * xi[b]);
      } else {
        for (int64_t b = 0; b < nb; b++)
          base[b][k * stride[b]] = xr[b] * xr[b] + xi[b] * xi[b];
      }
    });
  }
  return 0;
}

static inline int dali_power_spectrum_run(const dali_power_spectrum_job* j) {
  const dali_fft::RealPlan& plan = *j->plan;
  int64_t block = std::min(dali_spectral_block(j->plan), j->hi - j->lo);
  int64_t bins = plan.n / 2 + 1, used = std::min(plan.n, j->len);
  // nothrow: an exception must not cross the nogil caller (it would abort the process)
  std::unique_ptr<float[]> scratch(new (std::nothrow) float[plan.scratch_size(block)]);
  if (!scratch) return -1;           // not zeroed; -1: the caller raises a MemoryError
  for (int64_t s0 = j->lo; s0 < j->hi; s0 += block) {
    int64_t nb = std::min(block, j->hi - s0);
    float* re = scratch.get();
    float* im = re + plan.plan.n * nb;
    memset(re, 0, 2 * plan.plan.n * nb * sizeof(float));
    for (int64_t b = 0; b < nb; b++) {
      int64_t s = s0 + b, r = s % j->per_sample, o = r / j->inner, in = r % j->inner;
      const float* x = j->x[s / j->per_sample] + o * j->len * j->inner + in;
      for (int64_t k = 0; k < used; k++)
        (plan.load_imag(k) ? im : re)[plan.load_index(k) * nb + b] = x[k * j->inner];
    }
    plan.run(scratch.get(), nb, [&](int64_t k, const float* xr, const float* xi) {
      for (int64_t b = 0; b < nb; b++) {
        int64_t s = s0 + b, o = s / j->inner, in = s % j->inner;
        dali_spectral_store(xr + b, xi + b, 1, j->power,
                            j->out + (o * bins + k) * j->inner + in, 0);
      }
    });
  }
  return 0;
}

#endif  // DALI_EXT_KERNELS_SPECTRAL_H_
