// fn.debayer on the GPU: the CPU kernel's bilinear demosaicing (_ext/kernels/debayer.h,
// OpenCV's COLOR_Bayer*2RGB), one thread per output pixel (its three channels), blockIdx.y the
// image (a sample or a frame), a grid-stride loop over x.
//
// An inner pixel keeps its own colour; a green one takes the other two from its horizontal and
// its vertical neighbours, (a + b + 1) >> 1 each; a red or blue one takes green from its four
// direct neighbours and the opposite colour from its four diagonal ones, (a + b + c + d + 2)
// >> 2.  The first and last columns and rows copy their inner neighbours' values (a corner the
// inner corner's); an image of 2 rows or 2 columns is black.  Red sits at (y, x) with
// y % 2 == red_y and x % 2 == red_x, blue diagonally opposite.
// Kernels: debayer_u8, debayer_u16 (RGB output of the input's type).

struct DebayerImage {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long h, w;
  long long red_y, red_x;
};

template <typename T>
__device__ __forceinline__ void dali_debayer(const T* __restrict__ src, T* __restrict__ dst,
                                             const DebayerImage* __restrict__ images) {
  const DebayerImage& im = images[blockIdx.y];
  const long long h = im.h, w = im.w, pixels = h * w;
  const long long step = (long long)gridDim.x * blockDim.x;
  T* out = dst + im.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < pixels; i += step) {
    T* p = out + 3 * i;
    if (h <= 2 || w <= 2) {
      p[0] = p[1] = p[2] = 0;
      continue;
    }
    long long y = i / w, x = i - y * w;
    y = y < 1 ? 1 : (y > h - 2 ? h - 2 : y);
    x = x < 1 ? 1 : (x > w - 2 ? w - 2 : x);
    const T* s = src + im.src_offset + y * w;
    const T* up = s - w;
    const T* down = s + w;
    const bool red_row = (y & 1) == im.red_y;
    const bool colour = (x & 1) == (red_row ? im.red_x : 1 - im.red_x);
    unsigned a, b, c;
    if (colour) {
      const unsigned own = s[x];
      const unsigned cross = (up[x] + down[x] + s[x - 1] + s[x + 1] + 2u) >> 2;
      const unsigned diag = (up[x - 1] + up[x + 1] + down[x - 1] + down[x + 1] + 2u) >> 2;
      a = red_row ? own : diag;
      b = cross;
      c = red_row ? diag : own;
    } else {
      const unsigned horiz = (s[x - 1] + s[x + 1] + 1u) >> 1;
      const unsigned vert = (up[x] + down[x] + 1u) >> 1;
      a = red_row ? horiz : vert;
      b = s[x];
      c = red_row ? vert : horiz;
    }
    p[0] = (T)a;
    p[1] = (T)b;
    p[2] = (T)c;
  }
}

extern "C" __global__ void debayer_u8(const unsigned char* src, unsigned char* dst,
                                      const DebayerImage* images) {
  dali_debayer(src, dst, images);
}

extern "C" __global__ void debayer_u16(const unsigned short* src, unsigned short* dst,
                                       const DebayerImage* images) {
  dali_debayer(src, dst, images);
}
