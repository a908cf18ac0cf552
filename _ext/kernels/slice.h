// The C++ side of the slice kernel (_ext/kernels/slice.pyx): copy an N-D window of each
// sample, placed anywhere relative to the sample, with what lies outside the sample given by
// a border policy (a constant per channel, the edge, a reflection or a wrap), converting the
// element type on the way if asked.
//
// Each output axis gets a map from output index to source index (-1: fill).  The innermost
// axes that copy whole rows of the source (anchor 0, extent of the source) merge with the
// axis outside them into one "group", so the innermost loop moves long runs: a run is a
// stretch of the group whose source indices follow each other (one memcpy when the type is
// kept) or a stretch of fill values.  A job is a range [lo, hi) of the outermost axis (of the
// group when it is the only one).
#ifndef DALI_EXT_KERNELS_SLICE_H_
#define DALI_EXT_KERNELS_SLICE_H_

#include <stdint.h>
#include <string.h>

#include <cfloat>
#include <vector>

#include "half.h"

namespace dali_slice {

enum { MAX_DIMS = 16 };
enum Policy { CONSTANT = 0, EDGE = 1, REFLECT_1001 = 2, REFLECT_101 = 3, WRAP = 4 };
// element types, as slice.pyx numbers them
enum Type { U8, I8, U16, I16, U32, I32, U64, I64, F16, F32, F64 };

struct Run {
  int64_t dst, src, len;                   // elements of the group; src -1: fill
};

struct Sample {                            // a sample's plan: no pointers to its data
  int ndim;                                // outer axes + the group
  int64_t extent[MAX_DIMS];                // the group's extent is counted in elements
  int64_t src_stride[MAX_DIMS];            // elements
  int64_t dst_stride[MAX_DIMS];
  std::vector<int64_t> map[MAX_DIMS];      // outer axes: source index per output index
  std::vector<Run> runs;                   // the group
  int chan_axis;                           // outer axis holding the channels, or -1
  int64_t chan_div, chan_count;            // channels inside the group: (p / div) % count
  const char* fill;                        // output-type values, one or one per channel
  int64_t nfill;
  bool cast;                               // convert with plain casts (see Cast)
  bool whole;                              // the group is one copy run
  std::vector<char> pattern;               // per-channel fill of the group, whole periods
};

struct Job {                               // samples of one plan share their Sample
  const Sample* s;
  const char* src;
  char* dst;
  int64_t lo, hi;
};

static inline int64_t source_index(int64_t i, int64_t n, int policy) {
  if (i >= 0 && i < n) return i;
  if (n <= 0) return -1;
  switch (policy) {
    case EDGE:
      return i < 0 ? 0 : n - 1;
    case REFLECT_1001: {
      int64_t p = 2 * n, m = ((i % p) + p) % p;
      return m < n ? m : p - 1 - m;
    }
    case REFLECT_101: {
      if (n == 1) return 0;
      int64_t p = 2 * n - 2, m = ((i % p) + p) % p;
      return m < n ? m : p - m;
    }
    case WRAP:
      return ((i % n) + n) % n;
    default:
      return -1;
  }
}

// Describe sample `s`: a window of `out_shape` at `anchor` of a source of `in_shape`.
static void setup(Sample* s, int ndim, const int64_t* in_shape, const int64_t* out_shape,
                  const int64_t* anchor, int policy, int channel_axis) {
  int g = ndim - 1;                        // the group: axes g.. (all inner ones whole)
  int64_t inner = 1;
  while (g > 0 && anchor[g] == 0 && out_shape[g] == in_shape[g]) {
    inner *= out_shape[g];
    g--;
  }
  if (ndim == 0) g = 0;
  s->ndim = g + 1;
  s->chan_axis = -1;
  s->chan_div = 1;
  s->chan_count = 1;
  int64_t ss = 1, ds = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    if (d < g) {
      s->extent[d] = out_shape[d];
      s->src_stride[d] = ss;
      s->dst_stride[d] = ds;
      s->map[d].resize((size_t)out_shape[d]);
      for (int64_t j = 0; j < out_shape[d]; j++)
        s->map[d][j] = source_index(anchor[d] + j, in_shape[d], policy);
      if (d == channel_axis) s->chan_axis = d;
    } else if (d == channel_axis) {
      s->chan_div = ds;
      s->chan_count = out_shape[d];
    }
    ss *= in_shape[d];
    ds *= out_shape[d];
  }
  int64_t e = ndim ? out_shape[g] : 1, a = ndim ? anchor[g] : 0, n = ndim ? in_shape[g] : 1;
  s->extent[g] = e * inner;
  s->src_stride[g] = 1;
  s->dst_stride[g] = 1;
  s->runs.clear();
  for (int64_t j = 0; j < e; j++) {
    int64_t from = source_index(a + j, n, policy);
    if (!s->runs.empty()) {
      Run& r = s->runs.back();
      bool follows = from < 0 ? r.src < 0 : r.src >= 0 && r.src + r.len == from * inner;
      if (follows) {
        r.len += inner;
        continue;
      }
    }
    s->runs.push_back(Run{j * inner, from < 0 ? -1 : from * inner, inner});
  }
  s->whole = s->runs.size() == 1 && s->runs[0].src >= 0;
}

// Conversions to the output types slice offers (uint8, float16, float): narrowing saturates at
// the target's finite limits (infinities included), uint8 truncates toward zero, NaN gives 0
// for uint8 and stays NaN for the float types.
struct Half { uint16_t bits; };

template <typename In>
static inline double widen(In v) { return (double)v; }
template <>
inline double widen<Half>(Half v) { return (double)dali_half_to_float(v.bits); }

template <typename Out, typename In>
struct Convert;

template <typename In>
struct Convert<uint8_t, In> {
  static inline uint8_t apply(In v) {
    double x = widen(v);
    if (!(x > 0)) return 0;
    return x >= 255 ? 255 : (uint8_t)x;
  }
};
template <typename In>
struct Convert<float, In> {
  static inline float apply(In v) {
    double x = widen(v);
    if (x > FLT_MAX) return FLT_MAX;
    if (x < -FLT_MAX) return -FLT_MAX;
    return (float)x;
  }
};
template <>
struct Convert<float, Half> {       // widening: infinities stay
  static inline float apply(Half v) { return dali_half_to_float(v.bits); }
};
template <typename In>
struct Convert<Half, In> {
  static inline Half apply(In v) {
    double x = widen(v);
    if (x > 65504.0) x = 65504.0;
    if (x < -65504.0) x = -65504.0;
    return Half{dali_float_to_half((float)x)};
  }
};

// The plain C++ casts DALI's slice kernel uses instead when it pads with per-channel fill
// values: integers wrap, floats go to uint8 through int32 (NaN and values out of its range
// give INT32_MIN, as x86's conversion does), float16 overflows to infinity.
template <typename Out, typename In>
struct Cast;

template <typename In>
struct Cast<uint8_t, In> {
  static inline uint8_t apply(In v) { return (uint8_t)v; }
};
template <>
struct Cast<uint8_t, double> {
  static inline uint8_t apply(double x) {
    if (!(x > -2147483649.0 && x < 2147483648.0)) return 0;
    return (uint8_t)(int32_t)x;
  }
};
template <>
struct Cast<uint8_t, float> {
  static inline uint8_t apply(float x) { return Cast<uint8_t, double>::apply(x); }
};
template <>
struct Cast<uint8_t, Half> {
  static inline uint8_t apply(Half v) {
    return Cast<uint8_t, double>::apply(dali_half_to_float(v.bits));
  }
};
template <typename In>
struct Cast<float, In> {
  static inline float apply(In v) { return (float)widen(v); }
};
template <typename In>
struct Cast<Half, In> {
  static inline Half apply(In v) { return Half{dali_float_to_half((float)widen(v))}; }
};

template <typename Out, typename In>
static inline void copy_run(const In* src, Out* dst, int64_t n, bool cast) {
  if (cast) {
    for (int64_t k = 0; k < n; k++) dst[k] = Cast<Out, In>::apply(src[k]);
  } else {
    for (int64_t k = 0; k < n; k++) dst[k] = Convert<Out, In>::apply(src[k]);
  }
}
template <typename T>
static inline void copy_run(const T* src, T* dst, int64_t n, bool) {
  memcpy(dst, src, (size_t)n * sizeof(T));
}

// fill dst[0, n) that starts at group position p; `chan`: the channel fixed by an outer axis
template <typename Out>
static void fill_run(const Sample* s, Out* dst, int64_t p, int64_t n, int64_t chan) {
  const Out* fill = (const Out*)s->fill;
  if (s->nfill == 1 || (s->chan_axis >= 0 && chan >= 0)) {
    Out v = fill[s->nfill == 1 ? 0 : chan];
    for (int64_t k = 0; k < n; k++) dst[k] = v;
    return;
  }
  int64_t div = s->chan_div, count = s->chan_count;
  if (!s->pattern.empty()) {               // short period: copy from the repeated pattern
    const Out* pat = (const Out*)s->pattern.data();
    int64_t len = (int64_t)(s->pattern.size() / sizeof(Out)), off = p % (div * count);
    while (n > 0) {
      int64_t m = len - off < n ? len - off : n;
      memcpy(dst, pat + off, (size_t)m * sizeof(Out));
      dst += m;
      n -= m;
      off = 0;
    }
    return;
  }
  int64_t k = 0;
  while (k < n) {
    int64_t q = p + k, c = (q / div) % count, len = div - q % div;
    if (len > n - k) len = n - k;
    Out v = fill[c];
    for (int64_t t = 0; t < len; t++) dst[k + t] = v;
    k += len;
  }
}

// After `setup` and with `fill`/`nfill` set: when the group holds the channels and their fill
// values repeat with a short period (an HWC row), lay out whole periods of them (up to about
// 4 KiB, or a group) for fill_run to copy instead of going value by value.
static void setup_pattern(Sample* s, int64_t itemsize) {
  s->pattern.clear();
  int64_t period = s->chan_div * s->chan_count;
  if (s->nfill == 1 || s->chan_axis >= 0 || period > 256) return;
  int64_t group = s->extent[s->ndim - 1], most = 4096 / itemsize;
  int64_t reps = ((group < most ? group : most) + period - 1) / period;
  int64_t bytes = period * itemsize, total = reps * bytes;
  if (total == 0) return;                  // an empty group: nothing to fill
  s->pattern.resize((size_t)total);
  char* p = s->pattern.data();
  for (int64_t j = 0; j < period; j++)
    memcpy(p + j * itemsize, s->fill + ((j / s->chan_div) % s->chan_count) * itemsize,
           (size_t)itemsize);
  for (int64_t done = bytes; done < total; done *= 2)     // double the periods laid out
    memcpy(p + done, p, (size_t)(total - done < done ? total - done : done));
}

template <typename Out, typename In>
static void group(const Sample* s, const In* src, Out* dst, int64_t lo, int64_t hi,
                  int64_t chan) {
  for (const Run& r : s->runs) {
    int64_t a = r.dst > lo ? r.dst : lo, b = r.dst + r.len < hi ? r.dst + r.len : hi;
    if (a >= b) continue;
    if (r.src < 0)
      fill_run<Out>(s, dst + a, a, b - a, chan);
    else
      copy_run(src + r.src + (a - r.dst), dst + a, b - a, s->cast);
  }
}

template <typename Out, typename In>
static void axis(const Sample* s, int d, const In* src, Out* dst, int64_t lo, int64_t hi,
                 int64_t chan, bool filling) {
  if (d == s->ndim - 1) {
    if (filling)
      fill_run<Out>(s, dst + lo, lo, hi - lo, chan);
    else
      group(s, src, dst, lo, hi, chan);
    return;
  }
  if (d == s->ndim - 2 && !filling && s->whole) {
    // rows of whole-group copies (the common slice): one tight loop
    const int64_t* map = s->map[d].data();
    int64_t ss = s->src_stride[d], ds = s->dst_stride[d], e = s->extent[d + 1];
    src += s->runs[0].src;
    for (int64_t j = lo; j < hi; j++) {
      if (map[j] < 0)
        fill_run<Out>(s, dst + j * ds, 0, e, d == s->chan_axis ? j : chan);
      else
        copy_run(src + map[j] * ss, dst + j * ds, e, s->cast);
    }
    return;
  }
  for (int64_t j = lo; j < hi; j++) {
    int64_t from = filling ? -1 : s->map[d][j];
    axis(s, d + 1, from < 0 ? src : src + from * s->src_stride[d], dst + j * s->dst_stride[d],
         0, s->extent[d + 1], d == s->chan_axis ? j : chan, from < 0);
  }
}

template <typename Out, typename In>
static void run_typed(const Job* job) {
  const Sample* s = job->s;
  axis<Out, In>(s, 0, (const In*)job->src, (Out*)job->dst, job->lo, job->hi, -1, false);
}

typedef void (*run_fn)(const Job*);

template <typename Out>
static run_fn pick_in(int in_type) {
  switch (in_type) {
    case U8: return run_typed<Out, uint8_t>;
    case I8: return run_typed<Out, int8_t>;
    case U16: return run_typed<Out, uint16_t>;
    case I16: return run_typed<Out, int16_t>;
    case U32: return run_typed<Out, uint32_t>;
    case I32: return run_typed<Out, int32_t>;
    case U64: return run_typed<Out, uint64_t>;
    case I64: return run_typed<Out, int64_t>;
    case F16: return run_typed<Out, Half>;
    case F32: return run_typed<Out, float>;
    case F64: return run_typed<Out, double>;
    default: return nullptr;
  }
}

// The job function for converting in_type to out_type (U8, F16 or F32), or for copying
// elements of `itemsize` bytes when out_type < 0; nullptr for a pair it does not do.
static run_fn pick(int in_type, int out_type, int64_t itemsize) {
  if (out_type < 0) {
    switch (itemsize) {
      case 1: return run_typed<uint8_t, uint8_t>;
      case 2: return run_typed<uint16_t, uint16_t>;
      case 4: return run_typed<uint32_t, uint32_t>;
      case 8: return run_typed<uint64_t, uint64_t>;
      default: return nullptr;
    }
  }
  switch (out_type) {
    case U8: return pick_in<uint8_t>(in_type);
    case F16: return pick_in<Half>(in_type);
    case F32: return pick_in<float>(in_type);
    default: return nullptr;
  }
}

}  // namespace dali_slice

#endif  // DALI_EXT_KERNELS_SLICE_H_
