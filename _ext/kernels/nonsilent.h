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
// The powers are computed once into a buffer (the running sum is one long dependency chain),
// then scanned for their maximum and the first and last loud window.
#ifndef DALI_EXT_KERNELS_NONSILENT_H_
#define DALI_EXT_KERNELS_NONSILENT_H_

#include <stdint.h>

#include <memory>
#include <new>
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

// p[i] for every sample i into `out`.
template <typename T>
static void powers(const T* __restrict__ x, int64_t n, int64_t w, int64_t reset,
                   float* __restrict__ out) {
  using A = acc_t<T>;
  const float factor = 1.0f / (float)w;
  A acc = 0;
  // the next multiple of `reset` (none for exact sums)
  int64_t next = std::is_floating_point<T>::value && reset > 0 ? reset : n;
  for (int64_t i = 0; i < n; i++) {
    A s = (A)x[i] * (A)x[i];
    if (i == next) {
      next += reset;
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
    out[i] = (float)acc * factor;
  }
}

template <typename T>
static void run(const dali_nonsilent_args* a, const dali_nonsilent_job* j) {
  int64_t n = j->n, w = a->window;
  if (n == 0) {
    *j->begin = 0;
    *j->length = 0;
    return;
  }
  // nothrow: an exception must not cross the nogil caller (it would abort the process)
  std::unique_ptr<float[]> buf(new (std::nothrow) float[n]);
  if (!buf) {                        // begin -1: the caller raises a MemoryError
    *j->begin = -1;
    *j->length = 0;
    return;
  }
  const float* p = buf.get();
  powers((const T*)j->x, n, w, a->reset, buf.get());
  float ref = a->reference;
  if (!(ref > 0)) {
    ref = p[0];
    for (int64_t i = 1; i < n; i++)
      ref = p[i] > ref ? p[i] : ref;
  }
  float threshold = a->ratio * ref;
  int64_t lo = 0, hi = n - 1;
  while (lo < n && !(p[lo] >= threshold))
    lo++;
  if (lo == n) {
    *j->begin = 0;
    *j->length = 0;
    return;
  }
  while (!(p[hi] >= threshold))
    hi--;
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
