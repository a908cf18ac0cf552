// fn.spectrogram on the GPU: one thread per (window, frequency bin) computes that bin's
// discrete Fourier transform of the windowed frame directly, in double, from the host's
// twiddle table (cos and sin of 2 pi r / nfft, r = 0 .. nfft - 1, computed by numpy), then
// stores |X| or |X|^2 in float.  The frame is the CPU kernel's (_ext/kernels/spectral.h):
// window t starts at `offset + t * step` (offset -(window_length / 2) for centred windows),
// samples outside the signal mirrored without repeating the ends (reflect) or 0, each sample
// multiplied by the window function in float, zero-padded to nfft.  Not bit for bit the CPU's
// float FFT: within 1e-5 B for power 1, 2e-5 B^2 for power 2, B the sample's largest |x|
// times the sum of |w| (a bound of every bin's magnitude; the host helper's docstring).
// blockIdx.y is the sample; output "ft" (bins x windows) or "tf" (windows x bins).

struct SpecSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long n;                     // samples of the signal
  long long windows;               // windows of the signal
};

__device__ __forceinline__ long long dali_spec_reflect101(long long i, long long n) {
  if (n == 1) return 0;
  long long period = 2 * (n - 1);
  i = i < 0 ? -i : i;
  if (i >= period) i %= period;
  return i < n ? i : period - i;
}

extern "C" __global__ void spectrogram(const float* __restrict__ src, float* __restrict__ dst,
                                       const SpecSample* __restrict__ samples,
                                       const float* __restrict__ window,
                                       const double* __restrict__ twiddles, long long nfft,
                                       long long window_length, long long step,
                                       long long offset, int reflect, int power,
                                       int time_major) {
  const SpecSample& s = samples[blockIdx.y];
  const long long bins = nfft / 2 + 1;
  const long long total = s.windows * bins;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const float* x = src + s.src_offset;
  float* y = dst + s.dst_offset;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
    long long t = time_major ? e / bins : e % s.windows;
    long long k = time_major ? e % bins : e / s.windows;
    long long start = offset + t * step;
    double re = 0.0, im = 0.0;
    long long r = 0;                       // j * k modulo nfft
    for (long long j = 0; j < window_length; j++) {
      long long i = start + j;
      float v = 0.0f;
      if (i >= 0 && i < s.n) v = x[i];
      else if (reflect) v = x[dali_spec_reflect101(i, s.n)];
      double p = (double)(v * window[j]);
      re += p * twiddles[2 * r];
      im -= p * twiddles[2 * r + 1];
      r += k;
      if (r >= nfft) r -= nfft;
    }
    double m = re * re + im * im;
    y[e] = power == 1 ? (float)sqrt(m) : (float)m;
  }
}
