// FITS image data to native values: big-endian stored elements (BITPIX 8, 16, 32, 64, -32,
// -64) into an output type, as physical values BZERO + BSCALE * stored.  Integer outputs of
// integer data (BSCALE 1, integral BZERO) are computed exactly, stored + BZERO in 64-bit
// modular arithmetic (an unsigned 64-bit output with BZERO 2**63 included); the others in
// double precision and converted to the output type.  The source and destination may be the
// same memory when their element sizes are equal (each element is loaded before its store).
#ifndef DALI_EXT_KERNELS_FITS_H_
#define DALI_EXT_KERNELS_FITS_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace dali_fits {

enum Out { U8, I8, U16, I16, U32, I32, U64, I64, F32, F64 };

template <typename T>
inline T load_be(const uint8_t *p) {
  T v;
  if constexpr (sizeof(T) == 1) {
    std::memcpy(&v, p, 1);
  } else if constexpr (sizeof(T) == 2) {
    uint16_t u;
    std::memcpy(&u, p, 2);
    u = __builtin_bswap16(u);
    std::memcpy(&v, &u, 2);
  } else if constexpr (sizeof(T) == 4) {
    uint32_t u;
    std::memcpy(&u, p, 4);
    u = __builtin_bswap32(u);
    std::memcpy(&v, &u, 4);
  } else {
    uint64_t u;
    std::memcpy(&u, p, 8);
    u = __builtin_bswap64(u);
    std::memcpy(&v, &u, 8);
  }
  return v;
}

template <typename R, typename O>
inline void convert_typed(const uint8_t *src, uint8_t *dst, int64_t n, bool integral,
                          uint64_t izero, double scale, double zero) {
  constexpr int64_t rs = sizeof(R), os = sizeof(O);
  if constexpr (std::is_integral_v<R> && std::is_integral_v<O>) {
    if (integral) {
      for (int64_t i = 0; i < n; i++) {
        O out = static_cast<O>(static_cast<uint64_t>(static_cast<int64_t>(
            load_be<R>(src + i * rs))) + izero);
        std::memcpy(dst + i * os, &out, os);
      }
      return;
    }
  }
  if (scale == 1.0 && zero == 0.0) {  // stored values as they are (-0.0 and NaNs kept)
    for (int64_t i = 0; i < n; i++) {
      O out = static_cast<O>(load_be<R>(src + i * rs));
      std::memcpy(dst + i * os, &out, os);
    }
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    O out = static_cast<O>(static_cast<double>(load_be<R>(src + i * rs)) * scale + zero);
    std::memcpy(dst + i * os, &out, os);
  }
}

template <typename R>
inline int convert_from(int out, const uint8_t *src, uint8_t *dst, int64_t n, bool integral,
                        uint64_t izero, double scale, double zero) {
  switch (out) {
    case U8: convert_typed<R, uint8_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case I8: convert_typed<R, int8_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case U16: convert_typed<R, uint16_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case I16: convert_typed<R, int16_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case U32: convert_typed<R, uint32_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case I32: convert_typed<R, int32_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case U64: convert_typed<R, uint64_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case I64: convert_typed<R, int64_t>(src, dst, n, integral, izero, scale, zero); return 0;
    case F32: convert_typed<R, float>(src, dst, n, integral, izero, scale, zero); return 0;
    case F64: convert_typed<R, double>(src, dst, n, integral, izero, scale, zero); return 0;
    default: return -1;
  }
}

// Returns 0, or -1 for an unknown BITPIX or output code (checked by the caller beforehand).
inline int convert(int bitpix, int out, const uint8_t *src, uint8_t *dst, int64_t n,
                   int integral, uint64_t izero, double scale, double zero) {
  switch (bitpix) {
    case 8: return convert_from<uint8_t>(out, src, dst, n, integral, izero, scale, zero);
    case 16: return convert_from<int16_t>(out, src, dst, n, integral, izero, scale, zero);
    case 32: return convert_from<int32_t>(out, src, dst, n, integral, izero, scale, zero);
    case 64: return convert_from<int64_t>(out, src, dst, n, integral, izero, scale, zero);
    case -32: return convert_from<float>(out, src, dst, n, integral, izero, scale, zero);
    case -64: return convert_from<double>(out, src, dst, n, integral, izero, scale, zero);
    default: return -1;
  }
}

// Rice decompression (FITS tiled image compression, RICE_1) of one tile: `n` pixels of
// `bytepix` bytes (1, 2 or 4) from `len` bytes at `c`, coded in blocks of `block` pixels as
// differences from the previous pixel (the first pixel's predecessor stored raw, big-endian),
// each block with its split position fs (fs + 1 in 3, 4 or 5 bits: 0 for a block of zero
// differences, the maximum for raw differences).  Values are kept modulo 2**(8 * bytepix).
// Returns 0, or -1 for data that ends early.
inline int rice_decode(const uint8_t *c, int64_t len, int64_t n, int block, int bytepix,
                       uint32_t *out) {
  const int fsbits = bytepix == 1 ? 3 : bytepix == 2 ? 4 : 5;
  const int fsmax = bytepix == 1 ? 6 : bytepix == 2 ? 14 : 25;
  const int bbits = 8 * bytepix;
  const uint32_t mask = bbits == 32 ? 0xffffffffu : ((1u << bbits) - 1);
  const uint8_t *end = c + len;
  if (len < bytepix) return n ? -1 : 0;
  uint32_t last = 0;
  for (int k = 0; k < bytepix; k++) last = (last << 8) | *c++;
  uint64_t b = 0;      // bits not used yet: the low `nbits` of b
  int nbits = 0;
  auto need = [&](int count) -> bool {   // at least `count` bits in b
    while (nbits < count) {
      if (c >= end) return false;
      b = (b << 8) | *c++;
      nbits += 8;
    }
    return true;
  };
  auto take = [&](int count) -> uint32_t {   // the next `count` bits (need() first)
    nbits -= count;
    uint32_t v = count ? static_cast<uint32_t>((b >> nbits) & ((1ull << count) - 1)) : 0;
    b &= (1ull << nbits) - 1;
    return v;
  };
  for (int64_t i = 0; i < n;) {
    if (!need(fsbits)) return -1;
    int fs = static_cast<int>(take(fsbits)) - 1;
    int64_t stop = i + block < n ? i + block : n;
    for (; i < stop; i++) {
      uint32_t diff;
      if (fs < 0) {
        diff = 0;
      } else if (fs == fsmax) {
        if (!need(bbits)) return -1;
        diff = take(bbits);
      } else {
        uint32_t zeros = 0;
        for (;;) {
          if (!need(1)) return -1;
          if (take(1)) break;
          zeros++;
        }
        if (!need(fs)) return -1;
        diff = (zeros << fs) | take(fs);
      }
      diff = (diff & 1) ? ~(diff >> 1) : (diff >> 1);
      last = (last + diff) & mask;
      out[i] = last;
    }
  }
  return 0;
}

// The big-endian value v of `bytes` bytes at p.
inline void store_be(uint8_t *p, uint32_t v, int bytes) {
  for (int k = bytes - 1; k >= 0; k--) {
    p[k] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

// A Rice-compressed image into `image` (big-endian stored values, fastest axis first,
// `ndim` <= 16 axes of `shape`): tile r (tiles numbered fastest axis first, of `ztile`) from
// row r of the table at `table` (rows of `row_width` bytes; the (count, offset) descriptor of
// its bytes at `column`, 32- or 64-bit big-endian) and the heap at `heap` (`heap_len` bytes).
// `scratch` holds a tile's pixels.  Returns 0, or the 1-based tile that cannot be decoded.
inline int64_t rice_image(const uint8_t *table, int64_t rows, int64_t row_width, int64_t column,
                          bool wide, const uint8_t *heap, int64_t heap_len, int ndim,
                          const int64_t *shape, const int64_t *ztile, int block, int bytepix,
                          uint8_t *image, uint32_t *scratch) {
  int64_t grid[16], t[16], lo[16], ext[16], stride[16], idx[16];
  int64_t s = 1;
  for (int d = 0; d < ndim; d++) {
    grid[d] = (shape[d] + ztile[d] - 1) / ztile[d];
    stride[d] = s;
    s *= shape[d];
    t[d] = 0;
  }
  for (int64_t r = 0; r < rows; r++) {
    const uint8_t *row = table + r * row_width + column;
    uint64_t count = 0, offset = 0;
    const int w = wide ? 8 : 4;
    for (int k = 0; k < w; k++) count = (count << 8) | row[k];
    for (int k = 0; k < w; k++) offset = (offset << 8) | row[w + k];
    int64_t pixels = 1;
    for (int d = 0; d < ndim; d++) {
      lo[d] = t[d] * ztile[d];
      ext[d] = (lo[d] + ztile[d] < shape[d] ? lo[d] + ztile[d] : shape[d]) - lo[d];
      pixels *= ext[d];
    }
    if (offset > static_cast<uint64_t>(heap_len) ||
        count > static_cast<uint64_t>(heap_len) - offset ||
        rice_decode(heap + offset, static_cast<int64_t>(count), pixels, block, bytepix,
                    scratch) != 0)
      return r + 1;
    for (int d = 0; d < ndim; d++) idx[d] = 0;
    for (int64_t p = 0; p < pixels;) {     // one run along the fastest axis at a time
      int64_t at = 0;
      for (int d = 0; d < ndim; d++) at += (lo[d] + idx[d]) * stride[d];
      for (int64_t k = 0; k < ext[0]; k++)
        store_be(image + (at + k) * bytepix, scratch[p + k], bytepix);
      p += ext[0];
      for (int d = 1; d < ndim; d++) {
        if (++idx[d] < ext[d]) break;
        idx[d] = 0;
      }
    }
    for (int d = 0; d < ndim; d++) {       // the next tile, fastest axis first
      if (++t[d] < grid[d]) break;
      t[d] = 0;
    }
  }
  return 0;
}

}  // namespace dali_fits

#endif  // DALI_EXT_KERNELS_FITS_H_
