// fn.equalize on the GPU: the CPU kernel's rule (_ext/kernels/histogram.h, OpenCV's
// equalizeHist) for each channel of each plane of uint8 samples, in two launches:
//
// equalize_luts: one thread per (plane, channel) of a sample (blockIdx.y the sample, a
// grid-stride loop over them) counts its histogram by looping over the plane's pixels and
// writes its 256-entry table to `luts`: with `first` the smallest value present and n the
// pixel count, a channel of one value maps to itself; otherwise lut[v] = 0 up to `first`, then
// round_half_even(float(cdf(v) - count(first)) * (255.f / float(n - count(first)))) clamped to
// [0, 255].  equalize_map: one thread per element maps it through its table.
//
// A sample is `planes` planes of `pixels` pixels with `channels` interleaved channels; its
// tables start at table `first_lut` (plane p, channel c: table first_lut + p * channels + c).

struct EqualizeSample {
  long long src_offset;            // bytes from the start of the input buffer
  long long dst_offset;            // bytes from the start of the output buffer
  long long planes, pixels, channels;
  long long first_lut;
};

extern "C" __global__ void equalize_luts(const unsigned char* src, unsigned char* luts,
                                         const EqualizeSample* samples) {
  const EqualizeSample& s = samples[blockIdx.y];
  const long long units = s.planes * s.channels, plane = s.pixels * s.channels;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < units; u += step) {
    const long long p = u / s.channels, c = u - p * s.channels;
    const unsigned char* in = src + s.src_offset + p * plane + c;
    unsigned char* lut = luts + 256 * (s.first_lut + u);
    long long hist[256];
    for (int v = 0; v < 256; v++) hist[v] = 0;
    for (long long i = 0; i < s.pixels; i++) hist[in[i * s.channels]]++;
    int first = 0;
    while (first < 255 && hist[first] == 0) first++;
    if (hist[first] == s.pixels) {
      for (int v = 0; v < 256; v++) lut[v] = (unsigned char)first;
      continue;
    }
    const float scale = 255.f / (float)(s.pixels - hist[first]);
    long long sum = 0;
    for (int v = 0; v <= first; v++) lut[v] = 0;
    for (int v = first + 1; v < 256; v++) {
      sum += hist[v];
      const int r = (int)rintf((float)sum * scale);
      lut[v] = (unsigned char)(r < 0 ? 0 : (r > 255 ? 255 : r));
    }
  }
}

extern "C" __global__ void equalize_map(const unsigned char* src, unsigned char* dst,
                                        const unsigned char* luts,
                                        const EqualizeSample* samples) {
  const EqualizeSample& s = samples[blockIdx.y];
  const long long plane = s.pixels * s.channels, volume = s.planes * plane;
  const long long step = (long long)gridDim.x * blockDim.x;
  const unsigned char* in = src + s.src_offset;
  unsigned char* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume; i += step) {
    const long long p = i / plane, c = (i - p * plane) % s.channels;
    out[i] = luts[256 * (s.first_lut + p * s.channels + c) + in[i]];
  }
}
