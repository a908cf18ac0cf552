// fn.reductions.* on the GPU (min, max, sum, mean, mean_square, rms, variance, std_dev): one
// thread per output element, adding its input elements up in the order the CPU kernel
// (_ext/kernels/reduce.h) adds them, so that the results are bit-exact with it.
//
// The host (dali/ops/reductions/_reductions_gpu.py) collapses each sample's shape as reduce.h
// does (axes of extent 1 dropped, neighbours both reduced or both kept merged).  The CPU walks
// the collapsed sample in memory order, one innermost run at a time; for one output element
// that is: the runs it reduces, in the lexicographic order of their reduced coordinates.  The
// thread walks exactly those:
// - min/max in the element type (a NaN never replaces the running value);
// - float outputs: sums in double; a reduced innermost run adds its run_sum (8- and 16-bit
//   integers: exact integer moments, S2 - 2 m S1 + len m^2 for the centred sum; other types: 8
//   partial sums, combined pairwise), a kept innermost axis adds term by term; then divided
//   by the count (minus ddof) and square-rooted as the operation says, in double;
// - integer outputs of sum, mean and rms: uint64 wrapping sums (order-free), wrapped to the
//   output type, then mean divides (truncating) and rms takes the square root in double.
// Kernels reduce_<src> for src i8 u8 i16 u16 i32 u32 i64 u64 f32; the operation and the output
// type are arguments.

#define RED_DIMS 16

enum { RED_MIN, RED_MAX, RED_SUM, RED_MEAN, RED_MEAN_SQUARE, RED_RMS, RED_VARIANCE,
       RED_STD_DEV };
enum { RED_I8, RED_U8, RED_I16, RED_U16, RED_I32, RED_U32, RED_I64, RED_U64, RED_F32 };

struct RedSample {
  long long src;                   // byte offsets of the sample in the input, output and mean
  long long dst;
  long long mean;
  long long mean_count;            // 1 (one mean for every output element) or out_count
  long long out_count;             // output elements
  long long count;                 // input elements per output element
  long long ndim;                  // collapsed axes
  long long extent[RED_DIMS];
  long long reduced[RED_DIMS];
};

template <typename T>
struct red_limits;
#define RED_LIMITS(T, LOWEST, MAX, SIGNED, SMALL)           \
  template <>                                               \
  struct red_limits<T> {                                    \
    static constexpr T lowest = LOWEST;                     \
    static constexpr T max = MAX;                           \
    static constexpr bool is_signed = SIGNED;               \
    static constexpr bool small = SMALL;                    \
  };
RED_LIMITS(signed char, -128, 127, true, true)
RED_LIMITS(unsigned char, 0, 255, false, true)
RED_LIMITS(short, -32768, 32767, true, true)
RED_LIMITS(unsigned short, 0, 65535, false, true)
RED_LIMITS(int, -2147483647 - 1, 2147483647, true, false)
RED_LIMITS(unsigned, 0u, 4294967295u, false, false)
RED_LIMITS(long long, -9223372036854775807ll - 1, 9223372036854775807ll, true, false)
RED_LIMITS(unsigned long long, 0ull, 18446744073709551615ull, false, false)
RED_LIMITS(float, -3.40282347e+38f, 3.40282347e+38f, true, false)

// kind 0: x, 1: x * x, 2: (x - mean)^2
template <int kind>
__device__ __forceinline__ double red_term(double v, double m) {
  if (kind == 0) return v;
  if (kind == 1) return v * v;
  return (v - m) * (v - m);
}

// reduce.h's run_sum: the sum of red_term<kind> over a reduced contiguous run
template <typename T, int kind>
__device__ __forceinline__ double red_run_sum(const T* p, long long len, double m) {
  if constexpr (red_limits<T>::small) {
    long long s1 = 0, s2 = 0;               // exact, as reduce.h's int_moments
    for (long long k = 0; k < len; k++) {
      s1 += p[k];
      if (kind != 0) s2 += (long long)p[k] * p[k];
    }
    if (kind == 0) return (double)s1;
    if (kind == 1) return (double)s2;
    return (double)s2 - 2 * m * (double)s1 + (double)len * m * m;
  } else {
    double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    long long k = 0;
    for (; k + 8 <= len; k += 8)
      for (int q = 0; q < 8; q++) part[q] += red_term<kind>((double)p[k + q], m);
    for (; k < len; k++) part[0] += red_term<kind>((double)p[k], m);
    return ((part[0] + part[1]) + (part[2] + part[3])) +
           ((part[4] + part[5]) + (part[6] + part[7]));
  }
}

// The walk of output element o: visit(offset) for each run it reduces (elements from
// `offset`), runs of `run` elements, in the CPU's order.
struct RedWalk {
  long long base;                  // input offset (elements) of the first run
  long long run;                   // elements of a run: the innermost extent if reduced, else 1
  bool inner_reduced;
  int nwalk;                       // reduced axes walked (the innermost excluded)
  long long extent[RED_DIMS];
  long long stride[RED_DIMS];
};

__device__ __forceinline__ RedWalk red_walk(const RedSample& s, long long o) {
  RedWalk w;
  const int nd = (int)s.ndim;
  w.inner_reduced = nd == 0 || s.reduced[nd - 1];
  w.run = nd == 0 ? 1 : (w.inner_reduced ? s.extent[nd - 1] : 1);
  w.base = 0;
  w.nwalk = 0;
  long long stride = 1, rest = o;
  long long strides[RED_DIMS];
  for (int d = nd - 1; d >= 0; d--) {
    strides[d] = stride;
    stride *= s.extent[d];
  }
  for (int d = nd - 1; d >= 0; d--) {      // the kept coordinates of o
    if (!s.reduced[d]) {
      const long long q = rest / s.extent[d];
      w.base += (rest - q * s.extent[d]) * strides[d];
      rest = q;
    }
  }
  const int last = w.inner_reduced ? nd - 1 : nd;
  for (int d = 0; d < last; d++) {
    if (s.reduced[d]) {
      w.extent[w.nwalk] = s.extent[d];
      w.stride[w.nwalk] = strides[d];
      w.nwalk++;
    }
  }
  return w;
}

template <typename F>
__device__ __forceinline__ void red_visit(const RedWalk& w, long long count, F&& visit) {
  if (count == 0) return;
  long long idx[RED_DIMS];
  for (int d = 0; d < w.nwalk; d++) idx[d] = 0;
  long long offset = w.base;
  for (;;) {
    visit(offset);
    int d = w.nwalk - 1;
    for (; d >= 0; d--) {                  // odometer over the walked axes
      offset += w.stride[d];
      if (++idx[d] < w.extent[d]) break;
      offset -= w.stride[d] * idx[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

template <typename T>
__device__ __forceinline__ unsigned long long red_widen(T v) {
  if constexpr (red_limits<T>::is_signed)
    return (unsigned long long)(long long)v;
  else
    return (unsigned long long)v;
}

template <typename T, int kind>
__device__ __forceinline__ double red_sum_double(const T* x, const RedWalk& w, long long count,
                                                 double m) {
  double acc = 0;
  red_visit(w, count, [&](long long offset) {
    acc += w.inner_reduced ? red_run_sum<T, kind>(x + offset, w.run, m)
                           : red_term<kind>((double)x[offset], m);
  });
  return acc;
}

template <typename D>
__device__ __forceinline__ void red_finish_int(unsigned char* out, int op, unsigned long long acc,
                                               long long n) {
  const D v = (D)acc;                      // wraps to the output type
  D r;
  if (op == RED_SUM) {
    r = v;
  } else if (n == 0) {
    r = 0;
  } else if (op == RED_MEAN) {
    r = red_limits<D>::is_signed ? (D)((long long)v / n)
                                 : (D)((unsigned long long)v / (unsigned long long)n);
  } else {
    const double q = sqrt((double)v / (double)n);
    r = q == q ? (D)q : (D)0;
  }
  *(D*)out = r;
}

template <typename T>
__device__ __forceinline__ void red_element(const unsigned char* src, unsigned char* dst,
                                            const float* mean, const RedSample& s, long long o,
                                            int op, int dst_type, long long ddof) {
  const T* x = (const T*)(src + s.src);
  const RedWalk w = red_walk(s, o);
  if (op == RED_MIN || op == RED_MAX) {
    T a = op == RED_MAX ? red_limits<T>::lowest : red_limits<T>::max;
    red_visit(w, s.count, [&](long long offset) {
      for (long long k = 0; k < w.run; k++) {
        const T v = x[offset + k];
        if (op == RED_MAX ? v > a : v < a) a = v;
      }
    });
    ((T*)(dst + s.dst))[o] = a;
    return;
  }
  if (dst_type == RED_F32) {
    double acc;
    if (op == RED_VARIANCE || op == RED_STD_DEV) {
      const double m = mean[s.mean_count > 1 ? o : 0];
      acc = red_sum_double<T, 2>(x, w, s.count, m);
    } else if (op == RED_MEAN_SQUARE || op == RED_RMS) {
      acc = red_sum_double<T, 1>(x, w, s.count, 0.0);
    } else {
      acc = red_sum_double<T, 0>(x, w, s.count, 0.0);
    }
    double n = (double)s.count;
    if (op == RED_VARIANCE || op == RED_STD_DEV) n -= ddof;
    const double v = op == RED_SUM ? acc : acc / n;
    ((float*)(dst + s.dst))[o] = (float)(op == RED_RMS || op == RED_STD_DEV ? sqrt(v) : v);
    return;
  }
  unsigned long long acc = 0;
  const bool square = op == RED_RMS;
  red_visit(w, s.count, [&](long long offset) {
    for (long long k = 0; k < w.run; k++) {
      const unsigned long long v = red_widen(x[offset + k]);
      acc += square ? v * v : v;
    }
  });
  unsigned char* out = dst + s.dst;
  switch (dst_type) {
    case RED_I8: red_finish_int<signed char>(out + o, op, acc, s.count); break;
    case RED_U8: red_finish_int<unsigned char>(out + o, op, acc, s.count); break;
    case RED_I16: red_finish_int<short>(out + 2 * o, op, acc, s.count); break;
    case RED_U16: red_finish_int<unsigned short>(out + 2 * o, op, acc, s.count); break;
    case RED_I32: red_finish_int<int>(out + 4 * o, op, acc, s.count); break;
    case RED_U32: red_finish_int<unsigned>(out + 4 * o, op, acc, s.count); break;
    case RED_I64: red_finish_int<long long>(out + 8 * o, op, acc, s.count); break;
    default: red_finish_int<unsigned long long>(out + 8 * o, op, acc, s.count);
  }
}

template <typename T>
__device__ __forceinline__ void red_kernel(const unsigned char* src, unsigned char* dst,
                                           const unsigned char* mean, const RedSample* samples,
                                           int n_samples, int op, int dst_type, long long ddof) {
  if ((int)blockIdx.y >= n_samples) return;
  const RedSample& s = samples[blockIdx.y];
  const float* m = mean ? (const float*)(mean + s.mean) : (const float*)0;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < s.out_count;
       o += step)
    red_element<T>(src, dst, m, s, o, op, dst_type, ddof);
}

// src, dst, mean: the batches (mean: null unless variance/std_dev); samples: one RedSample per
// sample
#define RED_KERNEL(NAME, T)                                                               \
  extern "C" __global__ void NAME(const unsigned char* src, unsigned char* dst,           \
                                  const unsigned char* mean, const RedSample* samples,    \
                                  int n_samples, int op, int dst_type, long long ddof) {  \
    red_kernel<T>(src, dst, mean, samples, n_samples, op, dst_type, ddof);               \
  }

RED_KERNEL(reduce_i8, signed char)
RED_KERNEL(reduce_u8, unsigned char)
RED_KERNEL(reduce_i16, short)
RED_KERNEL(reduce_u16, unsigned short)
RED_KERNEL(reduce_i32, int)
RED_KERNEL(reduce_u32, unsigned)
RED_KERNEL(reduce_i64, long long)
RED_KERNEL(reduce_u64, unsigned long long)
RED_KERNEL(reduce_f32, float)
