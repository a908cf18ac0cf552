// fn.erase on the GPU: every output sample is its input sample with boxes set to the fill
// value (one, or one per index of the channel axis); one thread per output element.
//
// The host (dali/ops/image/_erase_gpu.py) describes each sample with one EraseSample: its
// extents and its boxes, rows box_start .. box_start + box_count of `boxes` (lo[DIMS] then
// hi[DIMS], exclusive, in the sample's coordinates; anywhere).  An element lying in any box
// (lo <= index < hi along every axis) takes fill[fill_offset + c], c its index along
// channel_axis (0 when channel_axis < 0), others are copied.  Values are moved, not
// computed: erase_1, erase_2, erase_4, erase_8 by element size.  blockIdx.y is the sample, a
// grid-stride loop over x covers its elements.

#define DALI_ERASE_DIMS 8

struct EraseSample {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long volume;
  long long ndim;                  // 1..DALI_ERASE_DIMS
  long long channel_axis;          // the axis whose index picks the fill value, or -1
  long long fill_offset;           // this sample's first value in `fill`
  long long box_start, box_count;  // its rows of `boxes`
  long long extent[DALI_ERASE_DIMS];
};

template <typename T>
__device__ __forceinline__ void dali_erase(const T* __restrict__ src, T* __restrict__ dst,
                                           const EraseSample* __restrict__ samples,
                                           const long long* __restrict__ boxes,
                                           const T* __restrict__ fill) {
  const EraseSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const int ndim = (int)s.ndim;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s.volume;
       i += step) {
    long long index[DALI_ERASE_DIMS];
    long long rest = i;
    for (int d = ndim - 1; d >= 0; d--) {
      const long long q = rest / s.extent[d];
      index[d] = rest - q * s.extent[d];
      rest = q;
    }
    bool erased = false;
    for (long long b = 0; b < s.box_count && !erased; b++) {
      const long long* lo = boxes + (s.box_start + b) * 2 * DALI_ERASE_DIMS;
      const long long* hi = lo + DALI_ERASE_DIMS;
      bool inside = true;
      for (int d = 0; d < ndim; d++) inside = inside && lo[d] <= index[d] && index[d] < hi[d];
      erased = inside;
    }
    const long long c = s.channel_axis >= 0 ? index[s.channel_axis] : 0;
    dst[s.dst_offset + i] = erased ? fill[s.fill_offset + c] : src[s.src_offset + i];
  }
}

extern "C" __global__ void erase_1(const unsigned char* src, unsigned char* dst,
                                   const EraseSample* samples, const long long* boxes,
                                   const unsigned char* fill) {
  dali_erase(src, dst, samples, boxes, fill);
}

extern "C" __global__ void erase_2(const unsigned short* src, unsigned short* dst,
                                   const EraseSample* samples, const long long* boxes,
                                   const unsigned short* fill) {
  dali_erase(src, dst, samples, boxes, fill);
}

extern "C" __global__ void erase_4(const unsigned int* src, unsigned int* dst,
                                   const EraseSample* samples, const long long* boxes,
                                   const unsigned int* fill) {
  dali_erase(src, dst, samples, boxes, fill);
}

extern "C" __global__ void erase_8(const unsigned long long* src, unsigned long long* dst,
                                   const EraseSample* samples, const long long* boxes,
                                   const unsigned long long* fill) {
  dali_erase(src, dst, samples, boxes, fill);
}
