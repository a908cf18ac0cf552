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
#ifndef DALI_DEBAYER_H_
#define DALI_DEBAYER_H_

#include <stdint.h>
#include <string.h>

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

template <typename T, bool kRedRow, bool kColourFirst>
static void dali_debayer_row(const T* up, const T* s, const T* down, T* d, int64_t w) {
  int64_t x = 1;
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
