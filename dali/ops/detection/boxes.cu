// fn.bb_flip on the GPU: one thread per box, with the float32 operations of the CPU operator
// (dali/ops/detection/bb_flip.py) in the same order.
//
// The host (dali/ops/detection/_boxes_gpu.py) describes each sample with one BoxSample: where
// its boxes are in the input and output buffers, how many there are, and its flags.  A box is
// `size` floats (4: 2-D, 6: 3-D), lows then highs (ltrb) or sizes (xywh).  Along axis a, a
// flipped ltrb box gets lo' = 1 - hi, hi' = 1 - lo; an xywh box goes through ltrb as in DALI:
// hi = lo + size, then (flipped or not) lo', and size' = hi' - lo'.  Axis 0 flips with
// `horizontal`, axis 1 with `vertical`, axis 2 (3-D boxes) never.  blockIdx.y is the sample.

struct BoxSample {
  long long src_offset;            // floats from the start of the input buffer
  long long dst_offset;            // floats from the start of the output buffer
  long long boxes;
  long long horizontal, vertical;  // 0 or 1
};

extern "C" __global__ void bb_flip(const float* __restrict__ src, float* __restrict__ dst,
                                   const BoxSample* __restrict__ samples, int size, int ltrb) {
  const BoxSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const int ndim = size / 2;
  for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b < s.boxes; b += step) {
    const float* in = src + s.src_offset + b * size;
    float* out = dst + s.dst_offset + b * size;
    for (int a = 0; a < ndim; a++) {
      const bool flip = a == 0 ? s.horizontal != 0 : (a == 1 ? s.vertical != 0 : false);
      const float lo = in[a], second = in[a + ndim];
      if (ltrb) {
        out[a] = flip ? 1.0f - second : lo;
        out[a + ndim] = flip ? 1.0f - lo : second;
      } else {
        const float hi = lo + second;
        const float new_lo = flip ? 1.0f - hi : lo;
        const float new_hi = flip ? 1.0f - lo : hi;
        out[a] = new_lo;
        out[a + ndim] = new_hi - new_lo;
      }
    }
  }
}
