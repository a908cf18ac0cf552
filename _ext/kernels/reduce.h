// The reduction kernel's C++ side (reduce.pyx): one sample reduced over some of its axes.
//
// A sample is described by its collapsed shape: axes of extent 1 dropped, neighbouring axes
// that are both reduced or both kept merged.  The walk goes over the collapsed outer axes with
// an odometer; the innermost axis is one contiguous run, either reduced into one output
// element or kept (element k of the run goes to output element base + k).
//
// Three accumulations:
// - min/max in the element type, written straight into the output (initialised to the type's
//   largest / lowest value; a NaN never replaces the running value, as in DALI);
// - sums in double (float outputs: sum, mean, mean_square, rms, variance, std_dev), with 8
//   partial sums over a reduced contiguous run, or exact integer sums of x and x^2 for 8- and
//   16-bit integers;
// - sums in uint64 (integer outputs of sum, mean and rms): two's complement wrapping, so the
//   result wraps to the output type as DALI's accumulation in that type does.
// and one finishing step (divide by the count, square root) into the output type.
#ifndef DALI_REDUCE_H
#define DALI_REDUCE_H

#include <math.h>
#include <stdint.h>

#include <limits>

enum { DALI_RED_MAX_DIMS = 32 };

enum dali_red_op {
  DALI_RED_MIN, DALI_RED_MAX, DALI_RED_SUM, DALI_RED_MEAN, DALI_RED_MEAN_SQUARE, DALI_RED_RMS,
  DALI_RED_VARIANCE, DALI_RED_STD_DEV
};

// Element type codes (reduce.pyx's _TYPES): int8, uint8, int16, uint16, int32, uint32, int64,
// uint64, float.
enum { DALI_RED_I8, DALI_RED_U8, DALI_RED_I16, DALI_RED_U16, DALI_RED_I32, DALI_RED_U32,
       DALI_RED_I64, DALI_RED_U64, DALI_RED_F32 };

typedef struct {
  const void* src;
  void* dst;
  const float* mean;      // variance/std_dev: 1 value (mean_count 1) or one per output element
  int64_t mean_count;
  void* acc;              // out_count doubles or uint64 (not used by min/max)
  int ndim;               // collapsed
  int64_t extent[DALI_RED_MAX_DIMS];
  uint8_t reduced[DALI_RED_MAX_DIMS];
  int64_t out_count;      // output elements
  int64_t count;          // input elements per output element
  int op, src_type, dst_type;
  int64_t ddof;
} dali_red_job;

// Fills the job's collapsed shape, out_count and count from a sample's shape and the reduced
// axes (ndim <= DALI_RED_MAX_DIMS).
static inline void dali_red_collapse(int ndim, const int64_t* shape, const uint8_t* reduced,
                                     dali_red_job* job) {
  int nd = 0;
  int64_t out = 1, count = 1;
  for (int d = 0; d < ndim; d++) {
    uint8_t r = reduced[d] ? 1 : 0;
    if (r) count *= shape[d]; else out *= shape[d];
    if (shape[d] == 1) continue;
    if (nd > 0 && job->reduced[nd - 1] == r) {
      job->extent[nd - 1] *= shape[d];
    } else {
      job->extent[nd] = shape[d];
      job->reduced[nd] = r;
      nd++;
    }
  }
  job->ndim = nd;
  job->out_count = out;
  job->count = count;
}

namespace dali_red {

// f(in_offset, out_offset, length, inner_reduced) for every innermost run of the sample.
template <typename F>
static void visit(const dali_red_job* j, F&& f) {
  int nd = j->ndim;
  int64_t total = 1;
  for (int d = 0; d < nd; d++) total *= j->extent[d];
  if (total == 0) return;
  if (nd == 0) { f(0, 0, 1, true); return; }
  int64_t out_stride[DALI_RED_MAX_DIMS], idx[DALI_RED_MAX_DIMS];
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; d--) {
    out_stride[d] = j->reduced[d] ? 0 : s;
    if (!j->reduced[d]) s *= j->extent[d];
    idx[d] = 0;
  }
  int64_t inner = j->extent[nd - 1];
  bool inner_reduced = j->reduced[nd - 1];
  int64_t in_off = 0, out_off = 0;
  for (;;) {
    f(in_off, out_off, inner, inner_reduced);
    in_off += inner;
    int d = nd - 2;
    for (; d >= 0; d--) {
      idx[d]++;
      out_off += out_stride[d];
      if (idx[d] < j->extent[d]) break;
      out_off -= out_stride[d] * idx[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

template <typename T>
static void min_max(const dali_red_job* j) {
  const T* x = static_cast<const T*>(j->src);
  T* out = static_cast<T*>(j->dst);
  bool is_max = j->op == DALI_RED_MAX;
  T init = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  for (int64_t k = 0; k < j->out_count; k++) out[k] = init;
  visit(j, [&](int64_t in, int64_t o, int64_t len, bool reduced) {
    const T* p = x + in;
    if (reduced) {
      T a = out[o];
      if (is_max) {
        for (int64_t k = 0; k < len; k++) if (p[k] > a) a = p[k];
      } else {
        for (int64_t k = 0; k < len; k++) if (p[k] < a) a = p[k];
      }
      out[o] = a;
    } else if (is_max) {
      for (int64_t k = 0; k < len; k++) if (p[k] > out[o + k]) out[o + k] = p[k];
    } else {
      for (int64_t k = 0; k < len; k++) if (p[k] < out[o + k]) out[o + k] = p[k];
    }
  });
}

// kind 0: x, 1: x * x, 2: (x - mean)^2
template <int kind>
static inline double term(double v, double m) {
  if (kind == 0) return v;
  if (kind == 1) return v * v;
  return (v - m) * (v - m);
}

// Sums of x and of x * x over a run of 8- or 16-bit integers, exactly (8-bit: 32-bit partial
// sums over chunks that cannot overflow them, which vectorize well).
template <typename T>
static inline void int_moments(const T* p, int64_t len, bool squares, int64_t* s1,
                               int64_t* s2) {
  int64_t a1 = 0, a2 = 0;
  if (sizeof(T) == 1) {
    for (int64_t lo = 0; lo < len; lo += 32768) {
      int64_t hi = lo + 32768 < len ? lo + 32768 : len;
      int32_t c1 = 0;
      uint32_t c2 = 0;
      for (int64_t k = lo; k < hi; k++) c1 += p[k];
      if (squares)
        for (int64_t k = lo; k < hi; k++) c2 += static_cast<uint32_t>(p[k] * p[k]);
      a1 += c1;
      a2 += c2;
    }
  } else {
    for (int64_t k = 0; k < len; k++) a1 += p[k];
    if (squares)
      for (int64_t k = 0; k < len; k++) a2 += static_cast<int64_t>(p[k]) * p[k];
  }
  *s1 = a1;
  *s2 = a2;
}

// The sum of term<kind> over a reduced contiguous run.  8- and 16-bit integers: from their
// exact moments (for kind 2, sum (x - m)^2 = S2 - 2 m S1 + len m^2, exact in double while the
// terms stay below 2^53); other types: in double with 8 partial sums.
template <typename T, int kind>
static inline double run_sum(const T* p, int64_t len, double m) {
  if (std::numeric_limits<T>::is_integer && sizeof(T) <= 2) {
    int64_t s1, s2;
    int_moments(p, len, kind != 0, &s1, &s2);
    if (kind == 0) return static_cast<double>(s1);
    if (kind == 1) return static_cast<double>(s2);
    return static_cast<double>(s2) - 2 * m * static_cast<double>(s1) +
           static_cast<double>(len) * m * m;
  }
  double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t k = 0;
  for (; k + 8 <= len; k += 8)
    for (int q = 0; q < 8; q++) part[q] += term<kind>(p[k + q], m);
  for (; k < len; k++) part[0] += term<kind>(p[k], m);
  return ((part[0] + part[1]) + (part[2] + part[3])) +
         ((part[4] + part[5]) + (part[6] + part[7]));
}

template <typename T, int kind>
static void sum_double(const dali_red_job* j) {
  const T* x = static_cast<const T*>(j->src);
  double* acc = static_cast<double*>(j->acc);
  for (int64_t k = 0; k < j->out_count; k++) acc[k] = 0;
  const float* mean = j->mean;
  bool per_out = j->mean_count > 1;
  visit(j, [&](int64_t in, int64_t o, int64_t len, bool reduced) {
    const T* p = x + in;
    if (reduced) {
      acc[o] += run_sum<T, kind>(p, len, kind == 2 ? mean[per_out ? o : 0] : 0.0);
    } else {
      for (int64_t k = 0; k < len; k++) {
        double m = kind == 2 ? mean[per_out ? o + k : 0] : 0.0;
        acc[o + k] += term<kind>(p[k], m);
      }
    }
  });
}

template <typename T>
static inline uint64_t widen(T v) {
  return std::numeric_limits<T>::is_signed ? static_cast<uint64_t>(static_cast<int64_t>(v))
                                           : static_cast<uint64_t>(v);
}

template <typename T, bool square>
static void sum_wrapping(const dali_red_job* j) {
  const T* x = static_cast<const T*>(j->src);
  uint64_t* acc = static_cast<uint64_t*>(j->acc);
  for (int64_t k = 0; k < j->out_count; k++) acc[k] = 0;
  visit(j, [&](int64_t in, int64_t o, int64_t len, bool reduced) {
    const T* p = x + in;
    if (reduced && std::numeric_limits<T>::is_integer && sizeof(T) <= 2) {
      int64_t s1, s2;
      int_moments(p, len, square, &s1, &s2);
      acc[o] += static_cast<uint64_t>(square ? s2 : s1);
    } else if (reduced) {
      uint64_t a = 0;
      for (int64_t k = 0; k < len; k++) {
        uint64_t v = widen(p[k]);
        a += square ? v * v : v;
      }
      acc[o] += a;
    } else {
      for (int64_t k = 0; k < len; k++) {
        uint64_t v = widen(p[k]);
        acc[o + k] += square ? v * v : v;
      }
    }
  });
}

static void finish_float(const dali_red_job* j) {
  const double* acc = static_cast<const double*>(j->acc);
  float* out = static_cast<float*>(j->dst);
  double n = static_cast<double>(j->count);
  if (j->op == DALI_RED_VARIANCE || j->op == DALI_RED_STD_DEV) n -= j->ddof;
  bool root = j->op == DALI_RED_RMS || j->op == DALI_RED_STD_DEV;
  for (int64_t k = 0; k < j->out_count; k++) {
    double v = j->op == DALI_RED_SUM ? acc[k] : acc[k] / n;
    out[k] = static_cast<float>(root ? sqrt(v) : v);
  }
}

template <typename T>
static void finish_int(const dali_red_job* j) {
  const uint64_t* acc = static_cast<const uint64_t*>(j->acc);
  T* out = static_cast<T*>(j->dst);
  int64_t n = j->count;
  const bool is_signed = std::numeric_limits<T>::is_signed;
  for (int64_t k = 0; k < j->out_count; k++) {
    T v = static_cast<T>(acc[k]);                   // wraps to the output type
    if (j->op == DALI_RED_SUM) {
      out[k] = v;
    } else if (n == 0) {
      out[k] = 0;
    } else if (j->op == DALI_RED_MEAN) {
      out[k] = is_signed ? static_cast<T>(static_cast<int64_t>(v) / n)
                         : static_cast<T>(static_cast<uint64_t>(v) / static_cast<uint64_t>(n));
    } else {
      double r = sqrt(static_cast<double>(v) / static_cast<double>(n));
      out[k] = r == r ? static_cast<T>(r) : 0;
    }
  }
}

template <typename T>
static void run_typed(const dali_red_job* j) {
  switch (j->op) {
    case DALI_RED_MIN:
    case DALI_RED_MAX:
      min_max<T>(j);
      return;
    default:
      break;
  }
  if (j->dst_type == DALI_RED_F32) {
    if (j->op == DALI_RED_VARIANCE || j->op == DALI_RED_STD_DEV)
      sum_double<T, 2>(j);
    else if (j->op == DALI_RED_MEAN_SQUARE || j->op == DALI_RED_RMS)
      sum_double<T, 1>(j);
    else
      sum_double<T, 0>(j);
    finish_float(j);
    return;
  }
  if (j->op == DALI_RED_RMS) sum_wrapping<T, true>(j); else sum_wrapping<T, false>(j);
  switch (j->dst_type) {
    case DALI_RED_I8: finish_int<int8_t>(j); break;
    case DALI_RED_U8: finish_int<uint8_t>(j); break;
    case DALI_RED_I16: finish_int<int16_t>(j); break;
    case DALI_RED_U16: finish_int<uint16_t>(j); break;
    case DALI_RED_I32: finish_int<int32_t>(j); break;
    case DALI_RED_U32: finish_int<uint32_t>(j); break;
    case DALI_RED_I64: finish_int<int64_t>(j); break;
    default: finish_int<uint64_t>(j); break;
  }
}

}  // namespace dali_red

// Reduces one sample (the job's src into its dst).
static inline void dali_red_run(const dali_red_job* j) {
  switch (j->src_type) {
    case DALI_RED_I8: dali_red::run_typed<int8_t>(j); break;
    case DALI_RED_U8: dali_red::run_typed<uint8_t>(j); break;
    case DALI_RED_I16: dali_red::run_typed<int16_t>(j); break;
    case DALI_RED_U16: dali_red::run_typed<uint16_t>(j); break;
    case DALI_RED_I32: dali_red::run_typed<int32_t>(j); break;
    case DALI_RED_U32: dali_red::run_typed<uint32_t>(j); break;
    case DALI_RED_I64: dali_red::run_typed<int64_t>(j); break;
    case DALI_RED_U64: dali_red::run_typed<uint64_t>(j); break;
    default: dali_red::run_typed<float>(j); break;
  }
}

#endif  // DALI_REDUCE_H
