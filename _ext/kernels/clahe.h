// Contrast limited adaptive histogram equalisation of one uint8 channel (fn.clahe), computed
// as OpenCV's CLAHE does it for 8-bit images, which is what DALI's CPU operator runs:
//
// - the image is cut into tiles_x x tiles_y tiles; when its size is not a multiple of the
//   grid in both directions, it is first extended at the bottom and right by
//   (tiles - size % tiles) rows and columns (both directions, even one that divides), mirrored
//   without repeating the edge (BORDER_REFLECT_101), and the tiles cover the extended image;
// - each tile's 256-bin histogram is clipped at int(clip_limit * tile_area / 256) (at least
//   1; no clipping when clip_limit <= 0), the excess spread evenly and the remainder one by
//   one every 256 / remainder bins from bin 0; lut[v] = round(float(cdf(v)) * (255.f / area));
// - every pixel of the original image blends the luts of its four nearest tile centres
//   bilinearly, in float, and is rounded half to even.
//
// Speed, same values: histograms of large tiles count alternate pixels into four partial
// histograms; the luts of a small image are worked out only at the values it has (the cdf of
// the clipped histogram summed from its parts); the blend reads the luts as floats and runs
// four pixels at a time with SSE4.1 where the build has it (the same float operations in the
// same order in every lane).
#ifndef DALI_CLAHE_H_
#define DALI_CLAHE_H_

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE4_1__
#include <smmintrin.h>
#elif defined(__SSE__)
#include <xmmintrin.h>
#endif

// OpenCV's borderInterpolate for BORDER_REFLECT_101 (p >= 0).
static inline int64_t dali_clahe_reflect(int64_t p, int64_t len) {
  if (len == 1) return 0;
  while (p >= len || p < 0) p = p < 0 ? -p : 2 * (len - 1) - p;
  return p;
}

// lrintf (the current rounding mode: half to even), inline: cvtss2si where SSE is there (the
// blend of two luts lies in [0, 255], inside int32's range, where both agree).
static inline uint8_t dali_clahe_round(float v) {
#ifdef __SSE__
  const int r = _mm_cvtss_si32(_mm_set_ss(v));
#else
  const long r = lrintf(v);
#endif
  return static_cast<uint8_t>(r < 0 ? 0 : (r > 255 ? 255 : r));
}

// hist[v] += the count of v among the n bytes p[0], p[px], p[2 px], ...: four histograms
// of alternate pixels, so that repeated values do not wait on each other's increments.
static inline void dali_clahe_count(const uint8_t* p, int64_t px, int64_t n, int64_t* hist,
                                    uint32_t (*part)[256]) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    part[0][p[i * px]]++;
    part[1][p[(i + 1) * px]]++;
    part[2][p[(i + 2) * px]]++;
    part[3][p[(i + 3) * px]]++;
  }
  for (; i < n; i++) hist[p[i * px]]++;
}

// Channels of at most this many pixels list their distinct values first (`values`): their
// tiles' luts are then worked out at those values only, which are all the blend reads.
enum { DALI_CLAHE_FEW_PIXELS = 4096 };

// The lut of one tile, as floats, from its histogram (clipped here), at the values v of
// `values` (all 256 where n == 256; ascending): round(cdf(v) * lut_scale) clamped to [0, 255].
// Where n < 256 only those bins of `hist` may be non-zero, and the cdf of the clipped
// histogram is summed from its parts: the clipped bins, `batch` a bin and the residual's
// ones at 0, step, 2 step, ...
static void dali_clahe_lut(int64_t* hist, const uint8_t* values, int n, int64_t limit,
                           float lut_scale, float* fl) {
  int64_t batch = 0, bumps = 0, step = 1;
  if (limit > 0) {
    int64_t clipped = 0;
    for (int j = 0; j < n; j++) {   // branch-free: the excess of a bin, or 0
      const int v = n == 256 ? j : values[j];
      const int64_t excess = hist[v] > limit ? hist[v] - limit : 0;
      clipped += excess;
      hist[v] -= excess;
    }
    batch = clipped / 256;
    const int64_t residual = clipped - batch * 256;
    if (residual != 0) {
      step = 256 / residual > 1 ? 256 / residual : 1;
      bumps = 255 / step + 1 < residual ? 255 / step + 1 : residual;
    }
  }
  if (n < 256) {
    int64_t sum = 0;
    for (int j = 0; j < n; j++) {
      const int v = values[j];
      sum += hist[v];
      const int64_t b = v / step + 1;
      const int64_t cdf = sum + batch * (v + 1) + (b < bumps ? b : bumps);
      fl[v] = dali_clahe_round(static_cast<float>(cdf) * lut_scale);
    }
    return;
  }
  for (int i = 0; i < 256; i++) hist[i] += batch;
  for (int64_t i = 0, k = 0; k < bumps; i += step, k++) hist[i]++;
  int64_t sum = 0;
  for (int i = 0; i < 256; i++) {   // the cdf, then its rounded scaled values
    sum += hist[i];
    fl[i] = static_cast<float>(sum);
  }
  int i = 0;
#ifdef __SSE4_1__
  const __m128 scale = _mm_set1_ps(lut_scale);
  for (; i < 256; i += 4) {
    __m128i r = _mm_cvtps_epi32(_mm_mul_ps(_mm_loadu_ps(fl + i), scale));
    r = _mm_min_epi32(_mm_max_epi32(r, _mm_setzero_si128()), _mm_set1_epi32(255));
    _mm_storeu_ps(fl + i, _mm_cvtepi32_ps(r));
  }
#endif
  for (; i < 256; i++) fl[i] = dali_clahe_round(fl[i] * lut_scale);
}

// One channel: pixel (y, x) at src[y * src_row + x * src_px], written to dst likewise (dst
// may be src).  0 on success, -1 when out of memory.
static int dali_clahe_channel(const uint8_t* src, int64_t src_row, int64_t src_px,
                              uint8_t* dst, int64_t dst_row, int64_t dst_px, int64_t h,
                              int64_t w, int tiles_x, int tiles_y, float clip_limit) {
  const bool exact = h % tiles_y == 0 && w % tiles_x == 0;
  const int64_t ext_h = exact ? h : h + tiles_y - h % tiles_y;
  const int64_t ext_w = exact ? w : w + tiles_x - w % tiles_x;
  const int64_t tile_h = ext_h / tiles_y, tile_w = ext_w / tiles_x;
  const int64_t area = tile_h * tile_w;
  const int64_t ntiles = static_cast<int64_t>(tiles_x) * tiles_y;
  int64_t* col = static_cast<int64_t*>(malloc(ext_w * sizeof(int64_t)));  // source columns
  float* xw = static_cast<float*>(
      malloc(w * 2 * sizeof(float) + w * 2 * sizeof(int) + ntiles * 256 * sizeof(float)));
  if (col == nullptr || xw == nullptr) {
    free(col);
    free(xw);
    return -1;
  }
  // the luts (as floats, for the blend), after the blend's column tables
  float* flut = reinterpret_cast<float*>(reinterpret_cast<int*>(xw + 2 * w) + 2 * w);
  for (int64_t x = 0; x < ext_w; x++) col[x] = dali_clahe_reflect(x, w) * src_px;
  int64_t limit = 0;
  if (clip_limit > 0.f) {
    limit = static_cast<int64_t>(static_cast<double>(clip_limit) * area / 256.0);
    if (limit < 1) limit = 1;
  }
  const float lut_scale = 255.f / static_cast<float>(area);
  int64_t hist[256];
  uint32_t part[4][256];
  uint8_t values[256];
  int nvalues = 256;
  memset(hist, 0, sizeof(hist));
  if (h * w <= DALI_CLAHE_FEW_PIXELS) {
    bool seen[256] = {};
    for (int64_t y = 0; y < h; y++)
      for (int64_t x = 0; x < w; x++) seen[src[y * src_row + x * src_px]] = true;
    nvalues = 0;
    for (int v = 0; v < 256; v++)
      if (seen[v]) values[nvalues++] = static_cast<uint8_t>(v);
  }
  const bool split = area >= 1024;   // partial histograms pay for their clearing from here
  for (int ty = 0; ty < tiles_y; ty++) {
    for (int tx = 0; tx < tiles_x; tx++) {
      if (nvalues == 256)
        memset(hist, 0, sizeof(hist));
      else
        for (int j = 0; j < nvalues; j++) hist[values[j]] = 0;
      if (split) memset(part, 0, sizeof(part));
      const int64_t x0 = tx * tile_w, x1 = (tx + 1) * tile_w;
      const int64_t inside = x1 < w ? x1 : (x0 > w ? x0 : w);  // columns [x0, inside) unmirrored
      for (int64_t y = ty * tile_h; y < (ty + 1) * tile_h; y++) {
        const uint8_t* row = src + dali_clahe_reflect(y, h) * src_row;
        if (split) {
          dali_clahe_count(row + x0 * src_px, src_px, inside - x0, hist, part);
        } else {
          for (int64_t x = x0; x < inside; x++) hist[row[x * src_px]]++;
        }
        for (int64_t x = inside; x < x1; x++) hist[row[col[x]]]++;  // mirrored columns
      }
      if (split)
        for (int i = 0; i < 256; i++) hist[i] += part[0][i] + part[1][i] + part[2][i] + part[3][i];
      dali_clahe_lut(hist, values, nvalues, limit, lut_scale,
                     flut + (static_cast<int64_t>(ty) * tiles_x + tx) * 256);
    }
  }
  const float inv_tw = 1.f / static_cast<float>(tile_w);
  const float inv_th = 1.f / static_cast<float>(tile_h);
  float* xa = xw;
  float* xa1 = xw + w;
  int* ind1 = reinterpret_cast<int*>(xw + 2 * w);
  int* ind2 = ind1 + w;
  for (int64_t x = 0; x < w; x++) {
    const float txf = static_cast<float>(x) * inv_tw - 0.5f;
    int tx1 = static_cast<int>(floorf(txf));
    int tx2 = tx1 + 1;
    xa[x] = txf - static_cast<float>(tx1);
    xa1[x] = 1.f - xa[x];
    tx1 = tx1 > 0 ? tx1 : 0;
    tx2 = tx2 < tiles_x - 1 ? tx2 : tiles_x - 1;
    ind1[x] = tx1 * 256;
    ind2[x] = tx2 * 256;
  }
  for (int64_t y = 0; y < h; y++) {
    const float tyf = static_cast<float>(y) * inv_th - 0.5f;
    int ty1 = static_cast<int>(floorf(tyf));
    int ty2 = ty1 + 1;
    const float ya = tyf - static_cast<float>(ty1), ya1 = 1.f - ya;
    ty1 = ty1 > 0 ? ty1 : 0;
    ty2 = ty2 < tiles_y - 1 ? ty2 : tiles_y - 1;
    const float* plane1 = flut + static_cast<int64_t>(ty1) * tiles_x * 256;
    const float* plane2 = flut + static_cast<int64_t>(ty2) * tiles_x * 256;
    const uint8_t* s = src + y * src_row;
    uint8_t* d = dst + y * dst_row;
    int64_t x = 0;
#ifdef __SSE4_1__
    // four pixels at a time: the same float operations lane by lane, then rounded (cvtps2dq:
    // half to even) and saturated by the packs as dali_clahe_round does
    const __m128 ya_v = _mm_set1_ps(ya), ya1_v = _mm_set1_ps(ya1);
    for (; x + 4 <= w; x += 4) {
      const int v0 = s[x * src_px], v1 = s[(x + 1) * src_px], v2 = s[(x + 2) * src_px],
                v3 = s[(x + 3) * src_px];
      const int* i1 = ind1 + x;
      const int* i2 = ind2 + x;
      const __m128 a1 = _mm_loadu_ps(xa1 + x), a = _mm_loadu_ps(xa + x);
      const __m128 p11 = _mm_setr_ps(plane1[i1[0] + v0], plane1[i1[1] + v1], plane1[i1[2] + v2],
                                     plane1[i1[3] + v3]);
      const __m128 p12 = _mm_setr_ps(plane1[i2[0] + v0], plane1[i2[1] + v1], plane1[i2[2] + v2],
                                     plane1[i2[3] + v3]);
      const __m128 p21 = _mm_setr_ps(plane2[i1[0] + v0], plane2[i1[1] + v1], plane2[i1[2] + v2],
                                     plane2[i1[3] + v3]);
      const __m128 p22 = _mm_setr_ps(plane2[i2[0] + v0], plane2[i2[1] + v1], plane2[i2[2] + v2],
                                     plane2[i2[3] + v3]);
      const __m128 res = _mm_add_ps(
          _mm_mul_ps(_mm_add_ps(_mm_mul_ps(p11, a1), _mm_mul_ps(p12, a)), ya1_v),
          _mm_mul_ps(_mm_add_ps(_mm_mul_ps(p21, a1), _mm_mul_ps(p22, a)), ya_v));
      const __m128i r = _mm_cvtps_epi32(res);
      const int packed = _mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(r, r), r));
      d[x * dst_px] = static_cast<uint8_t>(packed);
      d[(x + 1) * dst_px] = static_cast<uint8_t>(packed >> 8);
      d[(x + 2) * dst_px] = static_cast<uint8_t>(packed >> 16);
      d[(x + 3) * dst_px] = static_cast<uint8_t>(packed >> 24);
    }
#endif
    for (; x < w; x++) {
      const int v = s[x * src_px];
      const float res = (plane1[ind1[x] + v] * xa1[x] + plane1[ind2[x] + v] * xa[x]) * ya1 +
                        (plane2[ind1[x] + v] * xa1[x] + plane2[ind2[x] + v] * xa[x]) * ya;
      d[x * dst_px] = dali_clahe_round(res);
    }
  }
  free(col);
  free(xw);
  return 0;
}

#endif  // DALI_CLAHE_H_
