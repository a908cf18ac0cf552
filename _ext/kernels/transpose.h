// Permuting the dimensions of a C-contiguous array into a C-contiguous output.
//
// A sample is first described by its output dimensions (shape, and the input stride of each,
// in elements) with dimensions of extent 1 dropped and output neighbours that are neighbours
// in the input too merged (`dali_tr_collapse`); HWC -> CHW becomes the 2-D transpose of an
// (H*W, C) matrix.  Then:
//
// - one dimension left: a copy;
// - two (out[a][b] = in[b][a]): with 2 to 4 rows or columns (images' channels) a loop whose
//   inner extent is a compile-time constant, which GCC turns into shuffles of whole vectors;
//   otherwise 32 x 32 blocks, so that both sides stay in cache;
// - more: an odometer over the outer output dimensions and the last two done as blocks of
//   rows (memcpy where the last dimension is contiguous in the input too).
//
// Work can be split along the first collapsed output dimension (`lo`, `hi`: a range of it),
// except for the 2-D case with a constant inner loop, which splits the longer side.  Elements
// are moved as 1, 2, 4 or 8-byte integers, other sizes byte by byte; nothing is computed, so the
// output is the same on every CPU.
#ifndef DALI_EXT_KERNELS_TRANSPOSE_H_
#define DALI_EXT_KERNELS_TRANSPOSE_H_

#include <stdint.h>
#include <string.h>

#define DALI_TR_MAX_DIMS 32

struct dali_tr_desc {
  int n;                              // collapsed output dimensions (at least 1)
  int64_t esize;                      // bytes per element (see dali_tr_collapse)
  int64_t shape[DALI_TR_MAX_DIMS];    // their extents
  int64_t stride[DALI_TR_MAX_DIMS];   // the input stride (elements) of each
};

// Describes the transpose of a C-contiguous `in_shape` (ndim dimensions) of `esize`-byte
// elements by `perm` (output dimension i is input dimension perm[i]).  Returns the number of
// elements.  A last dimension that stays last (HWC -> WHC) becomes part of a larger element
// where that makes a 2, 4 or 8-byte word.
static inline int64_t dali_tr_collapse(int ndim, const int64_t* in_shape, const int* perm,
                                       int64_t esize, dali_tr_desc* d) {
  int64_t in_stride[DALI_TR_MAX_DIMS];
  int64_t s = 1;
  for (int i = ndim - 1; i >= 0; i--) {
    in_stride[i] = s;
    s *= in_shape[i];
  }
  int n = 0;
  for (int i = 0; i < ndim; i++) {
    int64_t extent = in_shape[perm[i]], stride = in_stride[perm[i]];
    if (extent == 1)
      continue;
    if (n > 0 && d->stride[n - 1] == stride * extent) {
      d->shape[n - 1] *= extent;
      d->stride[n - 1] = stride;
    } else {
      d->shape[n] = extent;
      d->stride[n] = stride;
      n++;
    }
  }
  if (n == 0) {
    d->shape[0] = s;          // one element, or none
    d->stride[0] = 1;
    n = 1;
  }
  d->esize = esize;
  if (n > 2 && d->stride[n - 1] == 1) {
    // every other input stride is a multiple of the last extent
    int64_t k = d->shape[n - 1], bytes = k * esize;
    if (bytes == 2 || bytes == 4 || bytes == 8) {
      n--;
      for (int i = 0; i < n; i++)
        d->stride[i] /= k;
      d->esize = bytes;
    }
  }
  d->n = n;
  return s;
}

namespace dali_tr {

// out (A, B) from in (B, A): out[a][b] = in[b][a], for b in [b0, b1), A a constant.
template <typename T, int A>
static void narrow_rows(const T* __restrict__ in, T* __restrict__ out, int64_t B, int64_t b0, int64_t b1) {
  for (int64_t b = b0; b < b1; b++)
    for (int a = 0; a < A; a++)
      out[a * B + b] = in[b * A + a];
}

// out (A, B) from in (B, A), B a constant, for a in [a0, a1).
template <typename T, int B>
static void narrow_cols(const T* __restrict__ in, T* __restrict__ out, int64_t A, int64_t a0, int64_t a1) {
  for (int64_t a = a0; a < a1; a++)
    for (int b = 0; b < B; b++)
      out[a * B + b] = in[b * A + a];
}

// A block of rows r in [r0, r1), columns [0, cols): out[r * ostride + c] = in[r * rs + c * cs],
// in 32 x 32 tiles.
template <typename T>
static void tiles(const T* __restrict__ in, T* __restrict__ out, int64_t r0, int64_t r1, int64_t cols, int64_t rs,
                  int64_t cs, int64_t ostride) {
  const int64_t K = 32;
  for (int64_t rb = r0; rb < r1; rb += K) {
    int64_t re = rb + K < r1 ? rb + K : r1;
    for (int64_t cb = 0; cb < cols; cb += K) {
      int64_t ce = cb + K < cols ? cb + K : cols;
      for (int64_t r = rb; r < re; r++) {
        const T* ip = in + r * rs;
        T* op = out + r * ostride;
        for (int64_t c = cb; c < ce; c++)
          op[c] = ip[c * cs];
      }
    }
  }
}

// out (A, B) from in (B, A) where A or B is at most 4; [lo, hi) is a range of the longer side.
template <typename T>
static void narrow(const T* in, T* out, int64_t A, int64_t B, int64_t lo, int64_t hi) {
  switch (A) {
    case 2: narrow_rows<T, 2>(in, out, B, lo, hi); return;
    case 3: narrow_rows<T, 3>(in, out, B, lo, hi); return;
    case 4: narrow_rows<T, 4>(in, out, B, lo, hi); return;
    default: break;
  }
  switch (B) {
    case 2: narrow_cols<T, 2>(in, out, A, lo, hi); return;
    case 3: narrow_cols<T, 3>(in, out, A, lo, hi); return;
    default: narrow_cols<T, 4>(in, out, A, lo, hi); return;
  }
}

template <typename T>
static void run(const dali_tr_desc* d, const void* src, void* dst, int64_t lo, int64_t hi) {
  const T* in = (const T*)src;
  T* out = (T*)dst;
  const int n = d->n;
  if (lo >= hi)
    return;
  if (n == 1) {
    memcpy(out + lo, in + lo, (size_t)(hi - lo) * sizeof(T));
    return;
  }
  if (n == 2 && d->stride[0] == 1) {
    int64_t A = d->shape[0], B = d->shape[1];
    if (A <= 4 || B <= 4) {
      narrow<T>(in, out, A, B, lo, hi);
    } else {
      tiles<T>(in + lo, out + lo * B, 0, hi - lo, B, 1, A, B);
    }
    return;
  }
  // Outer odometer over output dims 1 .. n-3 (dim 0 limited to [lo, hi)), then the last two.
  const int64_t rows = d->shape[n - 2], cols = d->shape[n - 1];
  const int64_t rs = d->stride[n - 2], cs = d->stride[n - 1];
  int64_t ostride[DALI_TR_MAX_DIMS];
  int64_t s = 1;
  for (int i = n - 1; i >= 0; i--) {
    ostride[i] = s;
    s *= d->shape[i];
  }
  if (n == 2) {                        // dim 0 is the rows
    if (cs == 1) {
      for (int64_t r = lo; r < hi; r++)
        memcpy(out + r * cols, in + r * rs, (size_t)cols * sizeof(T));
    } else {
      tiles<T>(in, out, lo, hi, cols, rs, cs, cols);
    }
    return;
  }
  int64_t idx[DALI_TR_MAX_DIMS] = {0};
  idx[0] = lo;
  for (;;) {
    int64_t ioff = 0, ooff = 0;
    for (int i = 0; i < n - 2; i++) {
      ioff += idx[i] * d->stride[i];
      ooff += idx[i] * ostride[i];
    }
    if (cs == 1) {
      for (int64_t r = 0; r < rows; r++)
        memcpy(out + ooff + r * cols, in + ioff + r * rs, (size_t)cols * sizeof(T));
    } else {
      tiles<T>(in + ioff, out + ooff, 0, rows, cols, rs, cs, cols);
    }
    int i = n - 3;
    for (; i >= 0; i--) {
      if (++idx[i] < (i == 0 ? hi : d->shape[i]))
        break;
      if (i == 0)
        return;
      idx[i] = 0;
    }
    if (i < 0)
      return;
  }
}

}  // namespace dali_tr

// The extent of the range `dali_tr_run` splits work along (see the header comment).
static inline int64_t dali_tr_split_extent(const dali_tr_desc* d) {
  if (d->n == 2 && d->stride[0] == 1) {
    int64_t A = d->shape[0], B = d->shape[1];
    return A <= 4 ? B : A;
  }
  return d->shape[0];
}

// Transposes the part [lo, hi) of the split range of one sample.
static inline void dali_tr_run(const dali_tr_desc* d, const void* src, void* dst, int64_t lo,
                               int64_t hi) {
  using namespace dali_tr;
  const int64_t esize = d->esize;
  switch (esize) {
    case 1: run<uint8_t>(d, src, dst, lo, hi); return;
    case 2: run<uint16_t>(d, src, dst, lo, hi); return;
    case 4: run<uint32_t>(d, src, dst, lo, hi); return;
    case 8: run<uint64_t>(d, src, dst, lo, hi); return;
    default: break;
  }
  // other sizes: a transpose of bytes with one more (innermost, contiguous) dimension
  dali_tr_desc e = *d;     // d->n < DALI_TR_MAX_DIMS: the caller allows one dimension less
  if (lo < hi) {
    for (int i = 0; i < e.n; i++)
      e.stride[i] *= esize;
    if (e.n == 1) {            // a copy
      memcpy((char*)dst + lo * esize, (const char*)src + lo * esize, (size_t)((hi - lo) * esize));
      return;
    }
    if (e.n == 2 && e.stride[0] == esize) {
      // (A, B) from (B, A): row a of the output gathers element a of every input row
      const char* in = (const char*)src;
      char* out = (char*)dst;
      int64_t A = d->shape[0], B = d->shape[1];
      int64_t a0 = 0, a1 = A, b0 = 0, b1 = B;
      if (A <= 4) {
        b0 = lo;
        b1 = hi;
      } else {
        a0 = lo;
        a1 = hi;
      }
      for (int64_t a = a0; a < a1; a++)
        for (int64_t b = b0; b < b1; b++)
          memcpy(out + (a * B + b) * esize, in + (b * A + a) * esize, (size_t)esize);
      return;
    }
    if (e.stride[e.n - 1] == esize) {     // rows contiguous in the input: copied whole
      e.shape[e.n - 1] *= esize;
      e.stride[e.n - 1] = 1;
    } else {
      e.shape[e.n] = esize;
      e.stride[e.n] = 1;
      e.n++;
    }
    run<uint8_t>(&e, src, dst, lo, hi);
  }
}

#endif  // DALI_EXT_KERNELS_TRANSPOSE_H_
