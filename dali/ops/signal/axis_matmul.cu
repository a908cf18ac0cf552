// fn.mel_filter_bank and fn.mfcc on the GPU: a banded matrix applied along one axis of float32
// samples (a mel filter bank, a DCT matrix), a
// sample seen as (outer, nin, inner) becoming (outer, nout, inner) with
//   out[o, m, i] = sum over k in [lo[m], hi[m]) of w[m, k] in[o, k, i],
// one thread per output element, the sums in the CPU kernel's order (_ext/kernels/axis_matmul.h)
// so that the results are the CPU's bit for bit.  That order depends on the CPU's work item
// holding the element: items of fewer than 16 columns sum k in four interleaved partial sums
// ((p0 + p1) + (p2 + p3)), the others in one running sum from 0.  So the host
// (dali/ops/signal/_axis_matmul_gpu.py) describes every CPU work item with one AxisPiece
// (its outer rows, its columns, whether it sums in four parts) and blockIdx.y is the piece.

struct AxisPiece {
  long long src_offset;            // floats from the start of the input buffer
  long long dst_offset;            // floats from the start of the output buffer
  long long nin, nout, inner;      // the matrix's columns and rows, elements after the axis
  long long o0, o1;                // the piece's outer rows
  long long i0, i1;                // the piece's columns
  long long w_offset;              // the matrix: floats from the start of `weights`
  long long band_offset;           // its rows' bands: entries from the start of `lo` and `hi`
  long long partial;               // 1: four partial sums
};

extern "C" __global__ void axis_matmul(const float* __restrict__ src, float* __restrict__ dst,
                                       const float* __restrict__ weights,
                                       const long long* __restrict__ lo,
                                       const long long* __restrict__ hi,
                                       const AxisPiece* __restrict__ pieces) {
  const AxisPiece& p = pieces[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long width = p.i1 - p.i0;
  const long long count = (p.o1 - p.o0) * p.nout * width;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += step) {
    const long long i = p.i0 + e % width;
    const long long r = (e / width) % p.nout;
    const long long o = p.o0 + e / (width * p.nout);
    const float* in = src + p.src_offset + o * p.nin * p.inner;
    const float* w = weights + p.w_offset + r * p.nin;
    const long long k0 = lo[p.band_offset + r], k1 = hi[p.band_offset + r];
    float y;
    if (p.partial) {
      float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      long long k = k0;
      for (; k + 4 <= k1; k += 4)
        for (int b = 0; b < 4; b++) part[b] = part[b] + w[k + b] * in[(k + b) * p.inner + i];
      for (; k < k1; k++) part[0] = part[0] + w[k] * in[k * p.inner + i];
      y = (part[0] + part[1]) + (part[2] + part[3]);
    } else {
      y = 0.0f;
      for (long long k = k0; k < k1; k++) y = y + w[k] * in[k * p.inner + i];
    }
    dst[p.dst_offset + (o * p.nout + r) * p.inner + i] = y;
  }
}
