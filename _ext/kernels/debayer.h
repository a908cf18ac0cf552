// Bilinear demosaicing of a Bayer mosaic (fn.debayer's default algorithm), computed as
// OpenCV's COLOR_Bayer*2RGB does it, which is what DALI's CPU operator runs:
//
// - an inner pixel (not on the first or last row or column) keeps its own colour; a green
//   one takes the other two colours from its two horizontal and its two vertical neighbours,
//   (a + b + 1) >> 1 each; a red or blue one takes green from its four direct neighbours and
//   the opposite colour from its four diagonal ones, (a + b + c + d + 2) >> 2;
// - the first and last columns copy their neighbours' values, then the first and last rows
//   copy theirs; an image of 2 rows or 2 columns is black.
//
// Red sits at the sensor positions (y, x) with y % 2 == red_y and x % 2 == red_x, blue at
// the diagonally opposite ones.  Any unsigned element type (uint8, uint16); dst is h x w x 3
// RGB, pixels contiguous.
//
// uint8 rows run 16 pixels at a time with SSE4.1 where the build has it (32 with AVX2 where
// the CPU has it; a row's last pixels in one more block overlapping the one before): the two-value averages are pavgb ((a + b + 1) >> 1 exactly), the
// four-value ones 16-bit sums, each lane picks its colour or green value with a blend, and
// pshufb interleaves the three planes into RGB: the scalar rule's values bit for bit
// (`dali_debayer_simd` switches both off for tests).
#ifndef DALI_DEBAYER_H_
#define DALI_DEBAYER_H_

#include <stdint.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE4_1__)
#define DALI_DEBAYER_SIMD 1
#include <immintrin.h>
#endif

static bool dali_debayer_use_simd = true;

// Whether uint8 rows take the SSE4.1 path; returns whether the build has it.
static inline bool dali_debayer_simd(bool on) {
  dali_debayer_use_simd = on;
#ifdef DALI_DEBAYER_SIMD
  return true;
#else
  return false;
#endif
}

// One inner row, two pixels (a colour site, red or blue, and a green site) at a time: the
// row's parity decides which comes first and whether the row holds red or blue sites.
template <typename T>
static inline void dali_debayer_put(T* p, unsigned a, unsigned b, unsigned c) {
  p[0] = static_cast<T>(a);
  p[1] = static_cast<T>(b);
  p[2] = static_cast<T>(c);
}

template <typename T>
static inline void dali_debayer_colour(const T* up, const T* s, const T* down, T* p, int64_t x,
                                       bool red_row) {
  const unsigned own = s[x];
  const unsigned cross = (up[x] + down[x] + s[x - 1] + s[x + 1] + 2u) >> 2;
  const unsigned diag = (up[x - 1] + up[x + 1] + down[x - 1] + down[x + 1] + 2u) >> 2;
  if (red_row)
    dali_debayer_put(p, own, cross, diag);
  else
    dali_debayer_put(p, diag, cross, own);
}

template <typename T>
static inline void dali_debayer_green(const T* up, const T* s, const T* down, T* p, int64_t x,
                                      bool red_row) {
  const unsigned horiz = (s[x - 1] + s[x + 1] + 1u) >> 1;
  const unsigned vert = (up[x] + down[x] + 1u) >> 1;
  if (red_row)                             // red in the row of red pixels
    dali_debayer_put(p, horiz, static_cast<unsigned>(s[x]), vert);
  else
    dali_debayer_put(p, vert, static_cast<unsigned>(s[x]), horiz);
}

#ifdef DALI_DEBAYER_SIMD
// (a + b + c + d + 2) >> 2 of 16 uint8 lanes, summed in 16 bits.
static inline __m128i dali_debayer_avg4(__m128i a, __m128i b, __m128i c, __m128i d) {
  const __m128i zero = _mm_setzero_si128(), two = _mm_set1_epi16(2);
  __m128i lo = _mm_add_epi16(_mm_add_epi16(_mm_unpacklo_epi8(a, zero), _mm_unpacklo_epi8(b, zero)),
                             _mm_add_epi16(_mm_unpacklo_epi8(c, zero), _mm_unpacklo_epi8(d, zero)));
  __m128i hi = _mm_add_epi16(_mm_add_epi16(_mm_unpackhi_epi8(a, zero), _mm_unpackhi_epi8(b, zero)),
                             _mm_add_epi16(_mm_unpackhi_epi8(c, zero), _mm_unpackhi_epi8(d, zero)));
  lo = _mm_srli_epi16(_mm_add_epi16(lo, two), 2);
  hi = _mm_srli_epi16(_mm_add_epi16(hi, two), 2);
  return _mm_packus_epi16(lo, hi);
}

// Stores 16 pixels of the planes r, g, b as 48 bytes of RGB at d.
static inline void dali_debayer_store_rgb(uint8_t* d, __m128i r, __m128i g, __m128i b) {
  const char z = -128;                     // pshufb: a zero byte
  const __m128i r0 = _mm_setr_epi8(0, z, z, 1, z, z, 2, z, z, 3, z, z, 4, z, z, 5);
  const __m128i g0 = _mm_setr_epi8(z, 0, z, z, 1, z, z, 2, z, z, 3, z, z, 4, z, z);
  const __m128i b0 = _mm_setr_epi8(z, z, 0, z, z, 1, z, z, 2, z, z, 3, z, z, 4, z);
  const __m128i r1 = _mm_setr_epi8(z, z, 6, z, z, 7, z, z, 8, z, z, 9, z, z, 10, z);
  const __m128i g1 = _mm_setr_epi8(5, z, z, 6, z, z, 7, z, z, 8, z, z, 9, z, z, 10);
  const __m128i b1 = _mm_setr_epi8(z, 5, z, z, 6, z, z, 7, z, z, 8, z, z, 9, z, z);
  const __m128i r2 = _mm_setr_epi8(z, 11, z, z, 12, z, z, 13, z, z, 14, z, z, 15, z, z);
  const __m128i g2 = _mm_setr_epi8(z, z, 11, z, z, 12, z, z, 13, z, z, 14, z, z, 15, z);
  const __m128i b2 = _mm_setr_epi8(10, z, z, 11, z, z, 12, z, z, 13, z, z, 14, z, z, 15);
  __m128i* p = reinterpret_cast<__m128i*>(d);
  _mm_storeu_si128(p, _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(r, r0), _mm_shuffle_epi8(g, g0)),
                                   _mm_shuffle_epi8(b, b0)));
  _mm_storeu_si128(p + 1, _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(r, r1),
                                                    _mm_shuffle_epi8(g, g1)),
                                       _mm_shuffle_epi8(b, b1)));
  _mm_storeu_si128(p + 2, _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(r, r2),
                                                    _mm_shuffle_epi8(g, g2)),
                                       _mm_shuffle_epi8(b, b2)));
}

// The inner pixels x = 1, 17, 33, ... of a uint8 row, 16 at a time while the loads stay in
// the row; returns the first x left to the scalar loop (odd, like 1).
template <bool kRedRow, bool kColourFirst>
static int64_t dali_debayer_row_simd(const uint8_t* up, const uint8_t* s, const uint8_t* down,
                                     uint8_t* d, int64_t w) {
  // lane i holds pixel x + i, x odd: a colour site where i is even iff colour comes first
  const __m128i colour = kColourFirst ? _mm_set1_epi16(0x00ff) : _mm_set1_epi16(-256);
  int64_t x = 1;
  for (; x + 16 <= w - 1; x += 16) {
    const __m128i ul = _mm_loadu_si128(reinterpret_cast<const __m128i*>(up + x - 1));
    const __m128i uc = _mm_loadu_si128(reinterpret_cast<const __m128i*>(up + x));
    const __m128i ur = _mm_loadu_si128(reinterpret_cast<const __m128i*>(up + x + 1));
    const __m128i sl = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + x - 1));
    const __m128i sc = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + x));
    const __m128i sr = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + x + 1));
    const __m128i dl = _mm_loadu_si128(reinterpret_cast<const __m128i*>(down + x - 1));
    const __m128i dc = _mm_loadu_si128(reinterpret_cast<const __m128i*>(down + x));
    const __m128i dr = _mm_loadu_si128(reinterpret_cast<const __m128i*>(down + x + 1));
    const __m128i cross = dali_debayer_avg4(uc, dc, sl, sr);
    const __m128i diag = dali_debayer_avg4(ul, ur, dl, dr);
    const __m128i horiz = _mm_avg_epu8(sl, sr), vert = _mm_avg_epu8(uc, dc);
    const __m128i own = _mm_blendv_epi8(horiz, sc, colour);   // the row's colour
    const __m128i other = _mm_blendv_epi8(vert, diag, colour);  // the opposite colour
    const __m128i g = _mm_blendv_epi8(sc, cross, colour);
    if (kRedRow)
      dali_debayer_store_rgb(d + x * 3, own, g, other);
    else
      dali_debayer_store_rgb(d + x * 3, other, g, own);
  }
  return x;
}

// The same, 32 pixels at a time with AVX2 (where the CPU has it): the values of the 16-pixel
// loop, each half of the vectors interleaved by dali_debayer_store_rgb.
__attribute__((target("avx2"))) static inline __m256i dali_debayer_avg4_avx2(
    __m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i zero = _mm256_setzero_si256(), two = _mm256_set1_epi16(2);
  __m256i lo = _mm256_add_epi16(
      _mm256_add_epi16(_mm256_unpacklo_epi8(a, zero), _mm256_unpacklo_epi8(b, zero)),
      _mm256_add_epi16(_mm256_unpacklo_epi8(c, zero), _mm256_unpacklo_epi8(d, zero)));
  __m256i hi = _mm256_add_epi16(
      _mm256_add_epi16(_mm256_unpackhi_epi8(a, zero), _mm256_unpackhi_epi8(b, zero)),
      _mm256_add_epi16(_mm256_unpackhi_epi8(c, zero), _mm256_unpackhi_epi8(d, zero)));
  lo = _mm256_srli_epi16(_mm256_add_epi16(lo, two), 2);
  hi = _mm256_srli_epi16(_mm256_add_epi16(hi, two), 2);
  return _mm256_packus_epi16(lo, hi);       // per 128-bit lane, as unpack split them
}

template <bool kRedRow, bool kColourFirst>
__attribute__((target("avx2"))) static int64_t dali_debayer_row_avx2(
    const uint8_t* up, const uint8_t* s, const uint8_t* down, uint8_t* d, int64_t w) {
  const __m256i colour = kColourFirst ? _mm256_set1_epi16(0x00ff) : _mm256_set1_epi16(-256);
  int64_t x = 1;
  for (; x + 32 <= w - 1; x += 32) {
    const __m256i ul = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(up + x - 1));
    const __m256i uc = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(up + x));
    const __m256i ur = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(up + x + 1));
    const __m256i sl = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + x - 1));
    const __m256i sc = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + x));
    const __m256i sr = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + x + 1));
    const __m256i dl = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(down + x - 1));
    const __m256i dc = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(down + x));
    const __m256i dr = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(down + x + 1));
    const __m256i cross = dali_debayer_avg4_avx2(uc, dc, sl, sr);
    const __m256i diag = dali_debayer_avg4_avx2(ul, ur, dl, dr);
    const __m256i horiz = _mm256_avg_epu8(sl, sr), vert = _mm256_avg_epu8(uc, dc);
    const __m256i own = _mm256_blendv_epi8(horiz, sc, colour);
    const __m256i other = _mm256_blendv_epi8(vert, diag, colour);
    const __m256i g = _mm256_blendv_epi8(sc, cross, colour);
    const __m256i r = kRedRow ? own : other, b = kRedRow ? other : own;
    dali_debayer_store_rgb(d + x * 3, _mm256_castsi256_si128(r), _mm256_castsi256_si128(g),
                           _mm256_castsi256_si128(b));
    dali_debayer_store_rgb(d + x * 3 + 48, _mm256_extracti128_si256(r, 1),
                           _mm256_extracti128_si256(g, 1), _mm256_extracti128_si256(b, 1));
  }
  return x;
}

static inline bool dali_debayer_detect_avx2() {
  __builtin_cpu_init();   // this runs as a static initializer: the CPU model may not be read yet
  return __builtin_cpu_supports("avx2");
}

static const bool dali_debayer_has_avx2 = dali_debayer_detect_avx2();

// The inner pixels of a uint8 row by `row` (dali_debayer_row_avx2 or _simd: blocks of kBlock
// pixels from x = 1), and the pixels its blocks leave by one more block that ends at the last
// inner pixel w - 2, or at w - 3 where that block would start on an even x (the lanes' colour
// pattern holds for odd starts): its first pixels are computed again, to the same values.
// Returns the first x left to the scalar loop (w - 1, or w - 2).
template <int kBlock, typename Row>
static int64_t dali_debayer_blocks(Row row, const uint8_t* up, const uint8_t* s,
                                   const uint8_t* down, uint8_t* d, int64_t w) {
  int64_t x = row(up, s, down, d, w);
  if (x > 1 && x < w - 1) {
    const int64_t at = (w - 1 - kBlock) - ((w - 2 - kBlock) & 1);
    x = at - 1 + row(up + at - 1, s + at - 1, down + at - 1, d + (at - 1) * 3, kBlock + 2);
  }
  return x;
}
#endif

template <typename T, bool kRedRow, bool kColourFirst>
static void dali_debayer_row(const T* up, const T* s, const T* down, T* d, int64_t w) {
  int64_t x = 1;
#ifdef DALI_DEBAYER_SIMD
  if (sizeof(T) == 1 && dali_debayer_use_simd) {
    const uint8_t* u8 = reinterpret_cast<const uint8_t*>(up);
    const uint8_t* s8 = reinterpret_cast<const uint8_t*>(s);
    const uint8_t* d8 = reinterpret_cast<const uint8_t*>(down);
    uint8_t* o8 = reinterpret_cast<uint8_t*>(d);
    if (dali_debayer_has_avx2 && w >= 34)   // a row of at least one 32-pixel block
      x = dali_debayer_blocks<32>(dali_debayer_row_avx2<kRedRow, kColourFirst>, u8, s8, d8,
                                  o8, w);
    else
      x = dali_debayer_blocks<16>(dali_debayer_row_simd<kRedRow, kColourFirst>, u8, s8, d8,
                                  o8, w);
  }
#endif
  for (; x + 1 < w - 1; x += 2) {
    if (kColourFirst) {
      dali_debayer_colour(up, s, down, d + x * 3, x, kRedRow);
      dali_debayer_green(up, s, down, d + x * 3 + 3, x + 1, kRedRow);
    } else {
      dali_debayer_green(up, s, down, d + x * 3, x, kRedRow);
      dali_debayer_colour(up, s, down, d + x * 3 + 3, x + 1, kRedRow);
    }
  }
  if (x < w - 1) {
    if (kColourFirst)
      dali_debayer_colour(up, s, down, d + x * 3, x, kRedRow);
    else
      dali_debayer_green(up, s, down, d + x * 3, x, kRedRow);
  }
}

template <typename T>
static void dali_debayer_bilinear(const T* src, T* dst, int64_t h, int64_t w, int red_y,
                                  int red_x) {
  if (h <= 2 || w <= 2) {
    memset(dst, 0, static_cast<size_t>(h * w * 3) * sizeof(T));
    return;
  }
  for (int64_t y = 1; y < h - 1; y++) {
    T* d = dst + y * w * 3;
    const T* up = src + (y - 1) * w;
    const T* s = src + y * w;
    const T* down = src + (y + 1) * w;
    const bool red_row = (y & 1) == red_y;
    // column 1 is a colour site where its parity is that of the row's colour sites
    const bool colour_first = (red_row ? red_x : 1 - red_x) == 1;
    if (red_row)
      colour_first ? dali_debayer_row<T, true, true>(up, s, down, d, w)
                   : dali_debayer_row<T, true, false>(up, s, down, d, w);
    else
      colour_first ? dali_debayer_row<T, false, true>(up, s, down, d, w)
                   : dali_debayer_row<T, false, false>(up, s, down, d, w);
    memcpy(d, d + 3, 3 * sizeof(T));
    memcpy(d + (w - 1) * 3, d + (w - 2) * 3, 3 * sizeof(T));
  }
  const size_t row = static_cast<size_t>(w * 3) * sizeof(T);
  memcpy(dst, dst + w * 3, row);
  memcpy(dst + (h - 1) * w * 3, dst + (h - 2) * w * 3, row);
}

#endif  // DALI_DEBAYER_H_
