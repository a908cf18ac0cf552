// fn.nonsilent_region on the GPU: one thread per signal runs the CPU kernel's algorithm
// (_ext/kernels/nonsilent.h) in its arithmetic, so the results are the CPU's exactly: the
// short-term power p[i] (mean square of the window of `window` samples ending at i, fewer at
// the start, divided by `window`) as a running sum, in float for float32 input (recomputed from
// the window's samples at every multiple of `reset`, reset <= 0: never), in 64-bit integers for
// integer input; the reference (the largest p[i] unless given > 0); then the first and last i
// with p[i] >= ratio * reference.  The powers are computed twice (maximum, then the scan)
// instead of kept in a buffer: the running sum is deterministic, so both passes see the same
// values.  Outputs: begin (at least 0, `window - 1` before the first loud window end) and
// length, (0, 0) when all is silent.

struct SilenceSample {
  long long src_offset;            // elements from the start of the input buffer
  long long n;                     // samples of the signal
  long long begin_offset;          // int32 elements from the start of the begin buffer
  long long length_offset;         // int32 elements from the start of the length buffer
};

// The running sum's state: the next power of a signal at each call of next().
template <typename T, typename A>
struct DaliPowers {
  const T* x;
  long long w, reset, next_reset, i;
  float factor;
  A acc;

  __device__ __forceinline__ DaliPowers(const T* x_, long long n, long long w_, long long r,
                                        bool exact)
      : x(x_), w(w_), reset(r), next_reset(!exact && r > 0 ? r : n), i(0),
        factor(1.0f / (float)w_), acc(0) {}

  __device__ __forceinline__ float next() {
    A s = (A)x[i] * (A)x[i];
    if (i == next_reset) {
      next_reset += reset;
      acc = 0;
      for (long long k = i - w + 1 > 0 ? i - w + 1 : 0; k < i; k++) acc += (A)x[k] * (A)x[k];
      acc += s;
    } else if (i >= w) {
      A old = (A)x[i - w] * (A)x[i - w];
      acc = acc - old + s;
    } else {
      acc += s;
    }
    i++;
    return (float)acc * factor;
  }
};

template <typename T, typename A>
__device__ __forceinline__ void dali_nonsilent(const T* __restrict__ src,
                                               int* __restrict__ begin,
                                               int* __restrict__ length,
                                               const SilenceSample* __restrict__ samples,
                                               long long count, long long window,
                                               long long reset, float ratio, float reference,
                                               bool exact) {
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= count) return;
  const SilenceSample& s = samples[idx];
  const T* x = src + s.src_offset;
  int* b = begin + s.begin_offset;
  int* l = length + s.length_offset;
  if (s.n == 0) {
    *b = 0;
    *l = 0;
    return;
  }
  float ref = reference;
  if (!(ref > 0)) {
    DaliPowers<T, A> p(x, s.n, window, reset, exact);
    ref = p.next();
    for (long long i = 1; i < s.n; i++) {
      float v = p.next();
      ref = v > ref ? v : ref;
    }
  }
  float threshold = ratio * ref;
  long long lo = -1, hi = -1;
  DaliPowers<T, A> p(x, s.n, window, reset, exact);
  for (long long i = 0; i < s.n; i++) {
    if (p.next() >= threshold) {
      if (lo < 0) lo = i;
      hi = i;
    }
  }
  if (lo < 0) {
    *b = 0;
    *l = 0;
    return;
  }
  long long first = lo - window + 1 > 0 ? lo - window + 1 : 0;
  *b = (int)first;
  *l = (int)(hi - first + 1);
}

#define DALI_NONSILENT_KERNEL(NAME, T, A, EXACT)                                           \
  extern "C" __global__ void nonsilent_##NAME(const T* src, int* begin, int* length,     \
                                              const SilenceSample* samples,              \
                                              long long count, long long window,         \
                                              long long reset, float ratio,              \
                                              float reference) {                         \
    dali_nonsilent<T, A>(src, begin, length, samples, count, window, reset, ratio,        \
                         reference, EXACT);                                              \
  }

DALI_NONSILENT_KERNEL(i8, signed char, long long, true)
DALI_NONSILENT_KERNEL(u8, unsigned char, unsigned long long, true)
DALI_NONSILENT_KERNEL(i16, short, long long, true)
DALI_NONSILENT_KERNEL(u16, unsigned short, unsigned long long, true)
DALI_NONSILENT_KERNEL(i32, int, long long, true)
DALI_NONSILENT_KERNEL(u32, unsigned int, unsigned long long, true)
DALI_NONSILENT_KERNEL(i64, long long, long long, true)
DALI_NONSILENT_KERNEL(u64, unsigned long long, unsigned long long, true)
DALI_NONSILENT_KERNEL(f32, float, float, false)
