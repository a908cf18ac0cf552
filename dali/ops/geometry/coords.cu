// fn.coord_flip and fn.coord_transform on the GPU: one thread per output coordinate, with the
// float32 operations of the CPU operators in the same order.  The host
// (dali/ops/geometry/_coords_gpu.py) describes each part (a sample, or a frame of a sequence
// with per-frame matrices) with one CoordPart; blockIdx.y is the part.
//
// coord_flip: points of `cols` float32 coordinates; column c of a point of a part is
// twice[c] - v where the part flips it (twice = 2 * center in float32), else copied.
//
// coord_transform_<in>_<out>: points of `cols` coordinates become `rows` ones, y[r] =
// (sum_c M[r, c] * x[c], the products added in column order to 0) + T[r], with the part's
// float32 [M | T] (rows x (cols + 1)); integer outputs round half away from zero and saturate
// (NaN -> 0; int32: its minimum).  in/out: u8 i16 u16 i32 f32, the output the input's type or
// f32.

#include "dali_numeric.cuh"

struct CoordPart {
  long long src_offset;            // elements from the start of the input buffer
  long long dst_offset;            // elements from the start of the output buffer
  long long points;
  long long extra;                 // coord_flip: bit c set when column c flips;
                                   // coord_transform: the part's matrix, floats from the start
};

extern "C" __global__ void coord_flip(const float* __restrict__ src, float* __restrict__ dst,
                                      const CoordPart* __restrict__ parts,
                                      const float* __restrict__ twice, int cols) {
  const CoordPart& p = parts[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long volume = p.points * cols;
  const float* t = twice + (long long)blockIdx.y * 3;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume; i += step) {
    const int c = (int)(i % cols);
    const float v = src[p.src_offset + i];
    dst[p.dst_offset + i] = (p.extra >> c) & 1 ? t[c] - v : v;
  }
}

template <typename In, typename Out>
__device__ __forceinline__ void dali_coord_transform(const In* __restrict__ src,
                                                     Out* __restrict__ dst,
                                                     const CoordPart* __restrict__ parts,
                                                     const float* __restrict__ matrices,
                                                     int rows, int cols) {
  const CoordPart& p = parts[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long volume = p.points * rows;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < volume; i += step) {
    const long long point = i / rows;
    const int r = (int)(i - point * rows);
    const float* row = matrices + p.extra + (long long)r * (cols + 1);
    const In* x = src + p.src_offset + point * cols;
    float acc = 0.0f;
    for (int c = 0; c < cols; c++) acc = acc + row[c] * (float)x[c];
    dali_store(acc + row[cols], &dst[p.dst_offset + i]);
  }
}

#define DALI_COORD_TRANSFORM(IN, OUT, TIN, TOUT)                                          \
  extern "C" __global__ void coord_transform_##IN##_##OUT(                              \
      const TIN* src, TOUT* dst, const CoordPart* parts, const float* matrices, int rows, \
      int cols) {                                                                       \
    dali_coord_transform(src, dst, parts, matrices, rows, cols);                        \
  }

DALI_COORD_TRANSFORM(u8, u8, unsigned char, unsigned char)
DALI_COORD_TRANSFORM(u8, f32, unsigned char, float)
DALI_COORD_TRANSFORM(i16, i16, short, short)
DALI_COORD_TRANSFORM(i16, f32, short, float)
DALI_COORD_TRANSFORM(u16, u16, unsigned short, unsigned short)
DALI_COORD_TRANSFORM(u16, f32, unsigned short, float)
DALI_COORD_TRANSFORM(i32, i32, int, int)
DALI_COORD_TRANSFORM(i32, f32, int, float)
DALI_COORD_TRANSFORM(f32, f32, float, float)
