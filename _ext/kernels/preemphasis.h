// The preemphasis filter's loop (fn.preemphasis_filter): y[t] = x[t] - coeff * x[t-1], with
// x[-1] the border value (0, x[0] or x[1]).  As DALI computes it: in float, or in double for
// double input (the type of `x - float * x` in C++), then converted to the output type with
// DALI's rounding and saturation (cast.h's `convert`).
#ifndef DALI_EXT_KERNELS_PREEMPHASIS_H_
#define DALI_EXT_KERNELS_PREEMPHASIS_H_

#include <stdint.h>

#include <type_traits>

#include "cast.h"

// One work item: elements [lo, hi) of a sample of n elements.
typedef struct {
  const void* src;
  void* dst;
  int64_t n, lo, hi;
  float coeff;
  int border;                 // 0 zero, 1 clamp, 2 reflect
} dali_preemph_job;

typedef void (*dali_preemph_loop)(const dali_preemph_job* job);

namespace dali_preemph {

template <typename D, typename S>
static void run(const dali_preemph_job* j) {
  using A = typename std::conditional<std::is_same<S, double>::value, double, float>::type;
  // locals, not the job's fields: the build has -fno-strict-aliasing, and a loop whose bound
  // might change with each store is not vectorized
  const S* __restrict__ x = (const S*)j->src;
  D* __restrict__ y = (D*)j->dst;
  const int64_t hi = j->hi;
  const float coeff = j->coeff;
  int64_t t = j->lo;
  if (t == 0 && hi > 0) {
    S b = 0;
    if (j->border == 1)
      b = x[0];
    else if (j->border == 2 && j->n > 1)
      b = x[1];
    y[0] = dali_cast::convert<D, A>(x[0] - coeff * b);
    t = 1;
  }
  for (; t < hi; t++)
    y[t] = dali_cast::convert<D, A>(x[t] - coeff * x[t - 1]);
}

template <typename D>
static dali_preemph_loop from_any(int src) {
  using namespace dali_cast;
  switch (src) {
    case INT8: return run<D, int8_t>;
    case UINT8: return run<D, uint8_t>;
    case INT16: return run<D, int16_t>;
    case UINT16: return run<D, uint16_t>;
    case INT32: return run<D, int32_t>;
    case UINT32: return run<D, uint32_t>;
    case INT64: return run<D, int64_t>;
    case UINT64: return run<D, uint64_t>;
    case FLOAT32: return run<D, float>;
    case FLOAT64: return run<D, double>;
    default: return nullptr;
  }
}

}  // namespace dali_preemph

// The loop for cast.h's type codes `dst` and `src`; NULL for a type the filter does not take
// (bool and float16, as DALI).
static inline dali_preemph_loop dali_preemph_fn(int dst, int src) {
  using namespace dali_cast;
  switch (dst) {
    case INT8: return dali_preemph::from_any<int8_t>(src);
    case UINT8: return dali_preemph::from_any<uint8_t>(src);
    case INT16: return dali_preemph::from_any<int16_t>(src);
    case UINT16: return dali_preemph::from_any<uint16_t>(src);
    case INT32: return dali_preemph::from_any<int32_t>(src);
    case UINT32: return dali_preemph::from_any<uint32_t>(src);
    case INT64: return dali_preemph::from_any<int64_t>(src);
    case UINT64: return dali_preemph::from_any<uint64_t>(src);
    case FLOAT32: return dali_preemph::from_any<float>(src);
    case FLOAT64: return dali_preemph::from_any<double>(src);
    default: return nullptr;
  }
}

#endif  // DALI_EXT_KERNELS_PREEMPHASIS_H_
