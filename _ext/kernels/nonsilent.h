// Leading and trailing silence detection (fn.nonsilent_region) in one 1-D signal, as DALI 2.4
// computes it:
//
// - the short-term power p[i] is the mean square of the window of `w` samples ending at i
//   (fewer at the start, still divided by w), kept as a running sum: in float for float
//   input (acc - x[i-w]^2 + x[i]^2, recomputed from the window's samples at every multiple of
//   `reset` so the rounding errors do not pile up), exactly in 64-bit integers for integer
//   input;
// - the threshold is 10^(cutoff_db / 10) times the reference power (the largest p[i] unless
//   given); p[i] >= threshold is not silent;
// - the region runs from w - 1 samples before the first such window end (at least 0) to the
//   last one: (begin, length), (0, 0) when every window is silent.
//
// The powers are recomputed rather than stored when the maximum is needed first, so a work
// item needs no memory.
#ifndef DALI_EXT_KERNELS_NONSILENT_H_
#define DALI_EXT_KERNELS_NONSILENT_H_

#include <stdint.h>

#include <type_traits>

#include "cast.h"

typedef struct {
  const void* x;
  int64_t n;
  int32_t* begin;
  int32_t* length;
} dali_nonsilent_job;

typedef struct {
  int64_t window, reset;        // reset <= 0: never
  float ratio;                  // 10^(cutoff_db / 10)
  float reference;              // <= 0: the largest power
} dali_nonsilent_args;

typedef void (*dali_nonsilent_loop)(const dali_nonsilent_args* a, const dali_nonsilent_job* j);

namespace dali_nonsilent {

template <typename T>
using acc_t = typename std::conditional<
    std::is_floating_point<T>::value, float,
    typename std::conditional<std::is_signed<T>::value, int64_t, uint64_t>::type>::type;

// Calls f(i, p[i]) for every sample i; stops early when f returns false.
template <typename T, typename F>
static void powers(const T* x, int64_t n, int64_t w, int64_t reset, F&& f) {
  using A = acc_t<T>;
  const float factor = 1.0f / (float)w;
  A acc = 0;
  bool resets = std::is_floating_point<T>::value && reset > 0;
  for (int64_t i = 0; i < n; i++) {
    A s = (A)x[i] * (A)x[i];
    if (resets && i > 0 && i % reset == 0) {
      acc = 0;
      for (int64_t k = i - w + 1 > 0 ? i - w + 1 : 0; k < i; k++)
        acc += (A)x[k] * (A)x[k];
      acc += s;
    } else if (i >= w) {
      A old = (A)x[i - w] * (A)x[i - w];
      acc = acc - old + s;
    } else {
      acc += s;
    }
    if (!f(i, (float)acc * factor))
      return;
  }
}

template <typename T>
static void run(const dali_nonsilent_args* a, const dali_nonsilent_job* j) {
  const T* x = (const T*)j->x;
  int64_t n = j->n, w = a->window;
  float ref = a->reference;
  if (!(ref > 0)) {
    ref = 0;
    bool first = true;
    powers(x, n, w, a->reset, [&](int64_t, float p) {
      ref = first || p > ref ? p : ref;
      first = false;
      return true;
    });
  }
  float threshold = a->ratio * ref;
  int64_t lo = -1, hi = -1;
  powers(x, n, w, a->reset, [&](int64_t i, float p) {
    if (p >= threshold) {
      if (lo < 0) lo = i;
      hi = i;
    }
    return true;
  });
  if (lo < 0) {
    *j->begin = 0;
    *j->length = 0;
    return;
  }
  int64_t begin = lo - w + 1 > 0 ? lo - w + 1 : 0;
  *j->begin = (int32_t)begin;
  *j->length = (int32_t)(hi - begin + 1);
}

}  // namespace dali_nonsilent

// The loop for cast.h's type code `src` (the integers and float32); NULL for another type.
static inline dali_nonsilent_loop dali_nonsilent_fn(int src) {
  using namespace dali_nonsilent;
  switch (src) {
    case dali_cast::INT8: return run<int8_t>;
    case dali_cast::UINT8: return run<uint8_t>;
    case dali_cast::INT16: return run<int16_t>;
    case dali_cast::UINT16: return run<uint16_t>;
    case dali_cast::INT32: return run<int32_t>;
    case dali_cast::UINT32: return run<uint32_t>;
    case dali_cast::INT64: return run<int64_t>;
    case dali_cast::UINT64: return run<uint64_t>;
    case dali_cast::FLOAT32: return run<float>;
    default: return nullptr;
  }
}

#endif  // DALI_EXT_KERNELS_NONSILENT_H_
