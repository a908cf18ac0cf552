// fn.multi_paste on the GPU: every output element takes the last region of its sample that
// covers it (regions are pasted in order, a later one covers an earlier one, as the CPU kernel
// _ext/kernels/paste.h copies them), or 0 where none does.
//
// The host (dali/ops/image/_multi_paste_gpu.py) describes each output sample with one
// PasteSample (its HWC extents and its range of regions) and each region with one PasteRegion:
// the input batch it reads (`srcs` holds the batches' addresses), its first element there and
// the elements from a source row to the next, and its (y, x) rectangle in the output.
// blockIdx.y is the sample, a grid-stride loop over x covers its elements.  Elements are moved
// without being looked at, so one kernel per element size: multi_paste_1, _2, _4, _8.

struct PasteSample {
  long long dst_offset;            // elements from the start of the output buffer
  long long h, w, c;
  long long first, count;          // the sample's regions: regions[first, first + count)
};

struct PasteRegion {
  long long input;                 // index into srcs
  long long src_offset;            // elements from the input's start to the region's first
  long long src_row;               // elements from a source row to the next
  long long y0, x0, h, w;          // the rectangle in the output sample
};

template <typename T>
__device__ __forceinline__ void dali_multi_paste(const unsigned long long* __restrict__ srcs,
                                                 T* __restrict__ dst,
                                                 const PasteSample* __restrict__ samples,
                                                 const PasteRegion* __restrict__ regions) {
  const PasteSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long w = s.w, nc = s.c, volume = s.h * w * nc;
  T* out = dst + s.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume;
       i += step) {
    const long long p = i / nc, ch = i - p * nc, y = p / w, x = p - y * w;
    T v = 0;
    for (long long r = s.first + s.count - 1; r >= s.first; r--) {
      const PasteRegion& g = regions[r];
      const long long ry = y - g.y0, rx = x - g.x0;
      if (ry >= 0 && ry < g.h && rx >= 0 && rx < g.w) {
        const T* src = (const T*)srcs[g.input];
        v = src[g.src_offset + ry * g.src_row + rx * nc + ch];
        break;
      }
    }
    out[i] = v;
  }
}

#define DALI_MULTI_PASTE_KERNEL(NAME, T)                                                   \
  extern "C" __global__ void NAME(const unsigned long long* srcs, T* dst,                  \
                                  const PasteSample* samples, const PasteRegion* regions) { \
    dali_multi_paste(srcs, dst, samples, regions);                                         \
  }

DALI_MULTI_PASTE_KERNEL(multi_paste_1, unsigned char)
DALI_MULTI_PASTE_KERNEL(multi_paste_2, unsigned short)
DALI_MULTI_PASTE_KERNEL(multi_paste_4, unsigned int)
DALI_MULTI_PASTE_KERNEL(multi_paste_8, unsigned long long)
