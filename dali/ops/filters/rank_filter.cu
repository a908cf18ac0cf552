// fn.experimental.median_blur, fn.experimental.dilate and fn.experimental.erode on the GPU (DALI
// runs CV-CUDA's MedianBlur and Morphology): each output element is a rank of the input
// elements in a window of its channel plane.
//
// A batch is cut into parts (an image, a frame of FHWC, a channel plane of CHW/FCHW); the host
// (dali/ops/filters/_rank_filter_gpu.py) describes every part with one RankPart and blockIdx.y
// is the part; a grid-stride loop over x covers its elements, one thread per output element
// (y, x, c), channels interleaved.  The window of output (y, x) covers the input rows
// y - ay .. y - ay + kh - 1 and columns x - ax .. x - ax + kw - 1.
//
// median_<t>: the window's (kw x kh, odd extents, anchor at the centre) sorted value of index
// kw * kh / 2, positions outside the plane clamped to its edge (CV-CUDA's replicate border).
// Found by counting, without storage: the value c of the window with count(< c) <= k and
// count(<= c) > k.
//
// dilate_<t> / erode_<t>: the maximum / minimum over the window, starting from `ident` (CV-CUDA's
// std::numeric_limits<T>::min() / max(), which is also the constant border's value, so
// positions outside are skipped with the "constant" border); other borders map a position
// outside to one inside: replicate, reflect (fedcba|abcdef), reflect_101 (fedcb|abcdef) or wrap.
// Floats compare with fmaxf / fminf (a NaN loses against a number).
// Types: u8, u16, f32.

#define BORDER_CONSTANT 0
#define BORDER_REPLICATE 1
#define BORDER_REFLECT 2
#define BORDER_REFLECT_101 3
#define BORDER_WRAP 4

struct RankPart {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long height, width, channels;
  long long kw, kh;                // the window
  long long ax, ay;                // its anchor
  long long pad;
};

// An index of [0, n) for position i by the border mode, or -1 (constant border, outside).
__device__ __forceinline__ long long dali_border_index(long long i, long long n, int border) {
  if (i >= 0 && i < n) return i;
  if (border == BORDER_CONSTANT) return -1;
  if (border == BORDER_REPLICATE || n == 1) return i < 0 ? 0 : n - 1;
  if (border == BORDER_WRAP) {
    long long m = i % n;
    return m < 0 ? m + n : m;
  }
  const long long period = border == BORDER_REFLECT ? 2 * n : 2 * n - 2;
  long long m = i % period;
  if (m < 0) m += period;
  if (m >= n) m = border == BORDER_REFLECT ? period - 1 - m : period - m;
  return m;
}

__device__ __forceinline__ unsigned char dali_max(unsigned char a, unsigned char b) {
  return a < b ? b : a;
}
__device__ __forceinline__ unsigned short dali_max(unsigned short a, unsigned short b) {
  return a < b ? b : a;
}
__device__ __forceinline__ float dali_max(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ unsigned char dali_min(unsigned char a, unsigned char b) {
  return b < a ? b : a;
}
__device__ __forceinline__ unsigned short dali_min(unsigned short a, unsigned short b) {
  return b < a ? b : a;
}
__device__ __forceinline__ float dali_min(float a, float b) { return fminf(a, b); }

template <typename T>
__device__ __forceinline__ void dali_median(const T* __restrict__ src, T* __restrict__ dst,
                                            const RankPart* __restrict__ parts) {
  const RankPart& p = parts[blockIdx.y];
  const long long volume = p.height * p.width * p.channels;
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long n = p.kw * p.kh, k = n / 2;
  const T* in = src + p.src_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume; i += step) {
    const long long c = i % p.channels, pixel = i / p.channels;
    const long long x = pixel % p.width, y = pixel / p.width;
    T result = in[i];              // a window without an ordered median (NaNs) keeps the input
    bool found = false;
    for (long long jy = 0; jy < p.kh && !found; jy++) {
      const T* cand_row = in + dali_border_index(y - p.ay + jy, p.height, BORDER_REPLICATE) *
                                   p.width * p.channels + c;
      for (long long jx = 0; jx < p.kw && !found; jx++) {
        const T cand =
            cand_row[dali_border_index(x - p.ax + jx, p.width, BORDER_REPLICATE) * p.channels];
        long long less = 0, not_more = 0;
        for (long long ty = 0; ty < p.kh; ty++) {
          const T* row = in + dali_border_index(y - p.ay + ty, p.height, BORDER_REPLICATE) *
                                  p.width * p.channels + c;
          for (long long tx = 0; tx < p.kw; tx++) {
            const T v = row[dali_border_index(x - p.ax + tx, p.width, BORDER_REPLICATE) *
                            p.channels];
            less += v < cand;
            not_more += v <= cand;
          }
        }
        if (less <= k && k < not_more) {
          result = cand;
          found = true;
        }
      }
    }
    dst[p.dst_offset + i] = result;
  }
}

template <typename T, bool DILATE>
__device__ __forceinline__ void dali_morph(const T* __restrict__ src, T* __restrict__ dst,
                                           const RankPart* __restrict__ parts, int border,
                                           T ident) {
  const RankPart& p = parts[blockIdx.y];
  const long long volume = p.height * p.width * p.channels;
  const long long step = (long long)gridDim.x * blockDim.x;
  const T* in = src + p.src_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume; i += step) {
    const long long c = i % p.channels, pixel = i / p.channels;
    const long long x = pixel % p.width, y = pixel / p.width;
    T result = ident;
    for (long long dy = 0; dy < p.kh; dy++) {
      const long long cy = dali_border_index(y - p.ay + dy, p.height, border);
      if (cy < 0) continue;
      for (long long dx = 0; dx < p.kw; dx++) {
        const long long cx = dali_border_index(x - p.ax + dx, p.width, border);
        if (cx < 0) continue;
        const T v = in[(cy * p.width + cx) * p.channels + c];
        result = DILATE ? dali_max(result, v) : dali_min(result, v);
      }
    }
    dst[p.dst_offset + i] = result;
  }
}

#define DALI_RANK_KERNELS(code, T)                                                          \
  extern "C" __global__ void median_##code(const T* src, T* dst, const RankPart* parts) {   \
    dali_median<T>(src, dst, parts);                                                        \
  }                                                                                         \
  extern "C" __global__ void dilate_##code(const T* src, T* dst, const RankPart* parts,     \
                                           int border, T ident) {                           \
    dali_morph<T, true>(src, dst, parts, border, ident);                                    \
  }                                                                                         \
  extern "C" __global__ void erode_##code(const T* src, T* dst, const RankPart* parts,      \
                                          int border, T ident) {                            \
    dali_morph<T, false>(src, dst, parts, border, ident);                                   \
  }

DALI_RANK_KERNELS(u8, unsigned char)
DALI_RANK_KERNELS(u16, unsigned short)
DALI_RANK_KERNELS(f32, float)
