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
// The powers are computed once into a buffer, then scanned for their maximum and the first and
// last loud window.  The float running sum is one long dependency chain (two adds a sample, in
// this order for DALI's results), so a work item runs up to DALI_NONSILENT_GROUP signals with
// their sums advancing in lockstep: the chains overlap instead of waiting on each other.
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

// The signals jobs[0..count) of one work item.
typedef void (*dali_nonsilent_loop)(const dali_nonsilent_args* a, const dali_nonsilent_job* jobs,
                                    int64_t count);

// Signals a work item takes at most: their running sums advance in lockstep, so the float
// adds of up to this many independent dependency chains are in flight at once.
#define DALI_NONSILENT_GROUP 8

namespace dali_nonsilent {

template <typename T>
using acc_t = typename std::conditional<
    std::is_floating_point<T>::value, float,
    typename std::conditional<std::is_signed<T>::value, int64_t, uint64_t>::type>::type;

// The running sum of one signal, one sample at a time: `step(i)` writes p[i].
template <typename T>
struct Powers {
  using A = acc_t<T>;
  const T* __restrict__ x;
  float* __restrict__ out;
  int64_t w, reset, next;       // next: the next multiple of `reset` (none for exact sums)
  float factor;
  A acc;

  Powers() = default;
  Powers(const T* x_, float* out_, int64_t n, int64_t w_, int64_t reset_)
      : x(x_), out(out_), w(w_), reset(reset_),
        next(std::is_floating_point<T>::value && reset_ > 0 ? reset_ : n),
        factor(1.0f / (float)w_), acc(0) {}

  inline void step(int64_t i) {
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
};

// The largest of p[0..n) (n > 0) as `ref = p[i] > ref ? p[i] : ref` from ref = p[0] finds it
// (NaN when p[0] is; later NaNs skipped), kept as MAXES partial maxima: one compare chain would
// take its latency a value.
static inline float largest(const float* p, int64_t n) {
  enum { MAXES = 8 };
  float m[MAXES];
  for (int k = 0; k < MAXES; k++)
    m[k] = p[0];
  int64_t i = 1;
  for (; i + MAXES <= n; i += MAXES)
    for (int k = 0; k < MAXES; k++)
      m[k] = p[i + k] > m[k] ? p[i + k] : m[k];
  for (; i < n; i++)
    m[0] = p[i] > m[0] ? p[i] : m[0];
  float ref = m[0];
  for (int k = 1; k < MAXES; k++)
    ref = m[k] > ref ? m[k] : ref;
  return ref;
}

// The region of one signal from its powers p[0..n).
static void region(const float* p, int64_t n, int64_t w, float ratio, float reference,
                   const dali_nonsilent_job* j) {
  float ref = reference;
  if (!(ref > 0))
    ref = largest(p, n);
  float threshold = ratio * ref;
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

template <typename T>
static void run(const dali_nonsilent_args* a, const dali_nonsilent_job* jobs, int64_t count) {
  int64_t w = a->window, total = 0, common = INT64_MAX;
  for (int64_t k = 0; k < count; k++) {
    total += jobs[k].n;
    common = jobs[k].n < common ? jobs[k].n : common;
  }
  // nothrow: an exception must not cross the nogil caller (it would abort the process)
  std::unique_ptr<float[]> buf(new (std::nothrow) float[total > 0 ? total : 1]);
  if (!buf) {              // the longest signal's begin -1: the caller raises a MemoryError
    int64_t longest = 0;
    for (int64_t k = 0; k < count; k++) {
      *jobs[k].begin = 0;
      *jobs[k].length = 0;
      longest = jobs[k].n > jobs[longest].n ? k : longest;
    }
    *jobs[longest].begin = -1;
    return;
  }
  Powers<T> sums[DALI_NONSILENT_GROUP] = {};
  float* p = buf.get();
  for (int64_t k = 0; k < count; k++) {
    sums[k] = Powers<T>((const T*)jobs[k].x, p, jobs[k].n, w, a->reset);
    p += jobs[k].n;
  }
  // the first `common` samples in lockstep; a full group unrolled, its sums kept in registers
  static_assert(DALI_NONSILENT_GROUP == 8, "the unroll below");
  if (count == DALI_NONSILENT_GROUP) {
    for (int64_t i = 0; i < common; i++) {
#pragma GCC unroll 8
      for (int k = 0; k < DALI_NONSILENT_GROUP; k++)
        sums[k].step(i);
    }
  } else {
    for (int64_t i = 0; i < common; i++)
      for (int64_t k = 0; k < count; k++)
        sums[k].step(i);
  }
  for (int64_t k = 0; k < count; k++) {
    for (int64_t i = common; i < jobs[k].n; i++)
      sums[k].step(i);
    if (jobs[k].n == 0) {
      *jobs[k].begin = 0;
      *jobs[k].length = 0;
    } else {
      region(sums[k].out, jobs[k].n, w, a->ratio, a->reference, &jobs[k]);
    }
  }
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
