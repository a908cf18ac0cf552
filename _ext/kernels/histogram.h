// Histogram equalisation of uint8 planes (fn.equalize), as OpenCV's equalizeHist computes it:
// per channel, with `first` the smallest value present and `n` the pixel count, a plane of one
// value is left as it is; otherwise lut[v] = round_half_even(float(cdf(v) - count(first)) *
// (255.f / float(n - count(first)))) and every pixel is mapped through its channel's lut.
#ifndef DALI_HISTOGRAM_H_
#define DALI_HISTOGRAM_H_

#include <math.h>
#include <stdint.h>

// `planes` planes of `pixels` pixels with `channels` interleaved uint8 channels each, back to
// back in src and dst; each channel of each plane is equalised on its own.  `hist` and `lut`
// are scratch space of 256 * channels entries, `hist` zeroed: the table pass clears each count
// it reads (no memset a plane), and fills `lut` only at the values present (the only entries
// the mapping reads), so a plane of few pixels costs a scan of its bins and no libm call
// (rintf is the current rounding mode, half to even, as lrintf: roundss with SSE4.1).
static void dali_equalize_planes(const uint8_t* src, uint8_t* dst, int64_t planes,
                                 int64_t pixels, int64_t channels, int64_t* hist,
                                 uint8_t* lut) {
  const int64_t plane = pixels * channels;
  for (int64_t p = 0; p < planes; p++) {
    const uint8_t* s = src + p * plane;
    uint8_t* d = dst + p * plane;
    if (channels == 1) {
      for (int64_t i = 0; i < pixels; i++) hist[s[i]]++;
    } else if (channels == 3) {
      int64_t* h0 = hist;
      int64_t* h1 = h0 + 256;
      int64_t* h2 = h0 + 512;
      for (int64_t i = 0; i < plane; i += 3) {
        h0[s[i]]++;
        h1[s[i + 1]]++;
        h2[s[i + 2]]++;
      }
    } else {
      for (int64_t i = 0; i < pixels; i++)
        for (int64_t c = 0; c < channels; c++) hist[c * 256 + s[i * channels + c]]++;
    }
    for (int64_t c = 0; c < channels; c++) {
      int64_t* h = hist + c * 256;
      uint8_t* l = lut + c * 256;
      int first = 0;
      while (first < 255 && h[first] == 0) first++;
      const int64_t at_first = h[first];
      h[first] = 0;
      l[first] = static_cast<uint8_t>(at_first == pixels ? first : 0);
      if (at_first == pixels) continue;
      const float scale = 255.f / static_cast<float>(pixels - at_first);
      int64_t sum = 0;
      for (int v = first + 1; v < 256; v++) {
        if ((v & 7) == 0 && v + 8 <= 256 &&
            (h[v] | h[v + 1] | h[v + 2] | h[v + 3] | h[v + 4] | h[v + 5] | h[v + 6] |
             h[v + 7]) == 0) {
          v += 7;                      // eight empty bins at once
          continue;
        }
        if (h[v] == 0) continue;
        sum += h[v];
        h[v] = 0;
        const int r = static_cast<int>(rintf(static_cast<float>(sum) * scale));
        l[v] = static_cast<uint8_t>(r < 0 ? 0 : (r > 255 ? 255 : r));
      }
    }
    if (channels == 1) {
      for (int64_t i = 0; i < pixels; i++) d[i] = lut[s[i]];
    } else if (channels == 3) {
      const uint8_t* l0 = lut;
      const uint8_t* l1 = l0 + 256;
      const uint8_t* l2 = l0 + 512;
      for (int64_t i = 0; i < plane; i += 3) {
        d[i] = l0[s[i]];
        d[i + 1] = l1[s[i + 1]];
        d[i + 2] = l2[s[i + 2]];
      }
    } else {
      for (int64_t i = 0; i < pixels; i++)
        for (int64_t c = 0; c < channels; c++)
          d[i * channels + c] = lut[c * 256 + s[i * channels + c]];
    }
  }
}

#endif  // DALI_HISTOGRAM_H_
