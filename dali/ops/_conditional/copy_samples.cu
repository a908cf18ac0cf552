// Copies of whole samples on the GPU: `_conditional.split` (a batch into its true and false
// samples), `_conditional.merge` (two branches back into one batch), fn.permute_batch and any
// gather of samples.  A launch copies a list of byte ranges, each from one of two source
// buffers to one of two destination buffers; blockIdx.y is the range, a grid-stride loop over
// x covers its units.  The host (dali/ops/_conditional/_copy_samples_gpu.py) picks the widest
// unit (1, 2, 4, 8 or 16 bytes) dividing every offset and size of the launch: copy_<unit>.

struct CopyRange {
  long long src;                   // which source buffer: 0 or 1
  long long src_offset;            // units from the start of that buffer
  long long dst;                   // which destination buffer: 0 or 1
  long long dst_offset;            // units from the start of that buffer
  long long units;
};

struct alignas(16) dali_unit16 {
  unsigned long long lo, hi;
};

template <typename T>
__device__ __forceinline__ void dali_copy(const T* src0, const T* src1, T* dst0, T* dst1,
                                          const CopyRange* __restrict__ ranges) {
  const CopyRange& r = ranges[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const T* from = (r.src ? src1 : src0) + r.src_offset;
  T* to = (r.dst ? dst1 : dst0) + r.dst_offset;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < r.units; i += step)
    to[i] = from[i];
}

#define DALI_COPY_KERNEL(UNIT, T)                                                          \
  extern "C" __global__ void copy_##UNIT(const T* src0, const T* src1, T* dst0, T* dst1, \
                                         const CopyRange* ranges) {                       \
    dali_copy(src0, src1, dst0, dst1, ranges);                                            \
  }

DALI_COPY_KERNEL(1, unsigned char)
DALI_COPY_KERNEL(2, unsigned short)
DALI_COPY_KERNEL(4, unsigned int)
DALI_COPY_KERNEL(8, unsigned long long)
DALI_COPY_KERNEL(16, dali_unit16)
