// fn.clahe on the GPU for channels equalised on their own (grayscale images, and RGB ones with
// luma_only=False): the CPU kernel's algorithm (_ext/kernels/clahe.h, OpenCV's CLAHE) in two
// launches.
//
// clahe_luts: one thread per (sample, channel, tile) counts the tile's 256-bin histogram by
// looping over its pixels (the image extended at the bottom and right to a multiple of the
// grid, mirrored without repeating the edge, when the grid does not divide it), clips it at
// int(clip_limit * area / 256.0) (at least 1; none when clip_limit <= 0), spreads the excess
// evenly and the remainder one by one every 256 / remainder bins from bin 0, and writes
// lut[v] = round_half_even(float(cdf(v)) * (255.f / area)) clamped to [0, 255], as floats.
// clahe_map: one thread per element blends the luts of its four nearest tile centres,
// (p11 * xa1 + p12 * xa) * ya1 + (p21 * xa1 + p22 * xa) * ya in float32, rounded half to even.
// Tables of sample i, channel ch, tile t: (first_lut + ch * tiles + t) * 256 floats in.

struct ClaheSample {
  long long src_offset;            // bytes from the start of the input buffer
  long long dst_offset;            // bytes from the start of the output buffer
  long long h, w, c;
  long long first_lut;
};

__device__ __forceinline__ long long dali_clahe_reflect(long long p, long long len) {
  if (len == 1) return 0;
  while (p >= len || p < 0) p = p < 0 ? -p : 2 * (len - 1) - p;
  return p;
}

__device__ __forceinline__ unsigned char dali_clahe_round(float v) {
  if (!(v >= -2147483648.f && v < 2147483648.f)) return 0;    // x86's INT_MIN, clamped
  const int r = (int)rintf(v);
  return (unsigned char)(r < 0 ? 0 : (r > 255 ? 255 : r));
}

// the tile extents of an h x w image cut into tiles_x x tiles_y tiles
__device__ __forceinline__ void dali_clahe_tiles(long long h, long long w, int tiles_x,
                                                 int tiles_y, long long* tile_h,
                                                 long long* tile_w) {
  const bool exact = h % tiles_y == 0 && w % tiles_x == 0;
  *tile_h = (exact ? h : h + tiles_y - h % tiles_y) / tiles_y;
  *tile_w = (exact ? w : w + tiles_x - w % tiles_x) / tiles_x;
}

extern "C" __global__ void clahe_luts(const unsigned char* src, float* luts,
                                      const ClaheSample* samples, int tiles_x, int tiles_y,
                                      float clip_limit) {
  const ClaheSample& s = samples[blockIdx.y];
  if (s.h == 0 || s.w == 0) return;
  const long long ntiles = (long long)tiles_x * tiles_y, units = s.c * ntiles;
  long long tile_h, tile_w;
  dali_clahe_tiles(s.h, s.w, tiles_x, tiles_y, &tile_h, &tile_w);
  const long long area = tile_h * tile_w;
  long long limit = 0;
  if (clip_limit > 0.f) {
    limit = (long long)((double)clip_limit * area / 256.0);
    if (limit < 1) limit = 1;
  }
  const float lut_scale = 255.f / (float)area;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < units; u += step) {
    const long long ch = u / ntiles, t = u - ch * ntiles;
    const long long ty = t / tiles_x, tx = t - ty * tiles_x;
    const unsigned char* in = src + s.src_offset + ch;
    long long hist[256];
    for (int i = 0; i < 256; i++) hist[i] = 0;
    for (long long y = ty * tile_h; y < (ty + 1) * tile_h; y++) {
      const unsigned char* row = in + dali_clahe_reflect(y, s.h) * s.w * s.c;
      for (long long x = tx * tile_w; x < (tx + 1) * tile_w; x++)
        hist[row[dali_clahe_reflect(x, s.w) * s.c]]++;
    }
    if (limit > 0) {
      long long clipped = 0;
      for (int i = 0; i < 256; i++) {
        const long long excess = hist[i] > limit ? hist[i] - limit : 0;
        clipped += excess;
        hist[i] -= excess;
      }
      const long long batch = clipped / 256;
      long long residual = clipped - batch * 256;
      for (int i = 0; i < 256; i++) hist[i] += batch;
      if (residual != 0) {
        const long long stride = 256 / residual > 1 ? 256 / residual : 1;
        for (long long i = 0; i < 256 && residual > 0; i += stride, residual--) hist[i]++;
      }
    }
    float* lut = luts + 256 * (s.first_lut + u);
    long long sum = 0;
    for (int i = 0; i < 256; i++) {
      sum += hist[i];
      lut[i] = (float)dali_clahe_round((float)sum * lut_scale);
    }
  }
}

extern "C" __global__ void clahe_map(const unsigned char* src, unsigned char* dst,
                                     const float* luts, const ClaheSample* samples,
                                     int tiles_x, int tiles_y) {
  const ClaheSample& s = samples[blockIdx.y];
  const long long volume = s.h * s.w * s.c;
  if (volume == 0) return;
  long long tile_h, tile_w;
  dali_clahe_tiles(s.h, s.w, tiles_x, tiles_y, &tile_h, &tile_w);
  const float inv_tw = 1.f / (float)tile_w, inv_th = 1.f / (float)tile_h;
  const long long ntiles = (long long)tiles_x * tiles_y;
  const long long step = (long long)gridDim.x * blockDim.x;
  const unsigned char* in = src + s.src_offset;
  unsigned char* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume; i += step) {
    const long long p = i / s.c, ch = i - p * s.c, y = p / s.w, x = p - y * s.w;
    const float txf = (float)x * inv_tw - 0.5f;
    int tx1 = (int)floorf(txf);
    int tx2 = tx1 + 1;
    const float xa = txf - (float)tx1, xa1 = 1.f - xa;
    tx1 = tx1 > 0 ? tx1 : 0;
    tx2 = tx2 < tiles_x - 1 ? tx2 : tiles_x - 1;
    const float tyf = (float)y * inv_th - 0.5f;
    int ty1 = (int)floorf(tyf);
    int ty2 = ty1 + 1;
    const float ya = tyf - (float)ty1, ya1 = 1.f - ya;
    ty1 = ty1 > 0 ? ty1 : 0;
    ty2 = ty2 < tiles_y - 1 ? ty2 : tiles_y - 1;
    const float* base = luts + 256 * (s.first_lut + ch * ntiles);
    const float* plane1 = base + (long long)ty1 * tiles_x * 256;
    const float* plane2 = base + (long long)ty2 * tiles_x * 256;
    const int v = in[i];
    const float res = (plane1[tx1 * 256 + v] * xa1 + plane1[tx2 * 256 + v] * xa) * ya1 +
                      (plane2[tx1 * 256 + v] * xa1 + plane2[tx2 * 256 + v] * xa) * ya;
    out[i] = dali_clahe_round(res);
  }
}
