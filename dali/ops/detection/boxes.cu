// fn.bb_flip and fn.box_encoder on the GPU, with the float32 operations of the CPU operators
// (dali/ops/detection/bb_flip.py, _ext/kernels/boxes.h) in the same order.
//
// bb_flip: one thread per box.
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

// box_encoder: SSD matching of every sample's ltrb boxes to the anchors, in two launches.
// box_encoder_force: one thread per box finds the anchor it overlaps most (the last one on
// ties), into `forced`.  box_encoder: one thread per anchor finds the box it overlaps most (the
// last one on ties), matched when that IoU exceeds `criteria`; a box that forced this anchor
// wins instead (the last such box, as the CPU kernel forces them in box order).  A matched
// anchor gets the box as (cx, cy, w, h), or with `offset` the normalised offsets
// ((c_box * scale - c_anchor) / wh_anchor - mean) / std and (log(wh_box * scale / wh_anchor) -
// mean) / std, and the box's label; the others get the anchor's (cx, cy, w, h) (`centers`,
// zeros with `offset`) and label 0.  `params` holds criteria, scale, means[4], stds[4].
// IoU in float32, exactly as the CPU computes it; logf is CUDA's (within 1 ulp of the CPU's).

struct EncSample {
  long long boxes_offset;          // floats from the start of the boxes buffer
  long long labels_offset;         // int32 from the start of the labels buffer
  long long label_stride;          // a box's label is labels[n * label_stride]
  long long count;                 // boxes
  long long forced_offset;         // elements of `forced`
  long long out_boxes_offset;      // floats from the start of the encoded boxes
  long long out_labels_offset;     // int32 from the start of the encoded labels
};

__device__ __forceinline__ float dali_iou(const float* box, const float* a) {
  const float barea = (box[2] - box[0]) * (box[3] - box[1]);
  const float aarea = (a[2] - a[0]) * (a[3] - a[1]);
  const float w = (box[2] < a[2] ? box[2] : a[2]) - (box[0] > a[0] ? box[0] : a[0]);
  const float h = (box[3] < a[3] ? box[3] : a[3]) - (box[1] > a[1] ? box[1] : a[1]);
  const float inter = (w > 0.0f ? w : 0.0f) * (h > 0.0f ? h : 0.0f);
  const float uni = barea + aarea - inter;
  return inter > 0.0f && uni > 0.0f ? inter / uni : 0.0f;
}

extern "C" __global__ void box_encoder_force(const float* __restrict__ boxes,
                                             const float* __restrict__ anchors,
                                             long long* __restrict__ forced,
                                             const EncSample* __restrict__ samples,
                                             long long num_anchors) {
  const EncSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x; n < s.count; n += step) {
    const float* box = boxes + s.boxes_offset + 4 * n;
    float top = -1.0f;
    long long pick = 0;
    for (long long m = 0; m < num_anchors; m++) {
      const float v = dali_iou(box, anchors + 4 * m);
      if (v >= top) {
        top = v;
        pick = m;
      }
    }
    forced[s.forced_offset + n] = pick;
  }
}

extern "C" __global__ void box_encoder(const float* __restrict__ boxes,
                                       const int* __restrict__ labels,
                                       const float* __restrict__ anchors,
                                       const float* __restrict__ centers,
                                       const long long* __restrict__ forced,
                                       float* __restrict__ out_boxes,
                                       int* __restrict__ out_labels,
                                       const EncSample* __restrict__ samples,
                                       const float* __restrict__ params, long long num_anchors,
                                       int offset) {
  const EncSample& s = samples[blockIdx.y];
  const long long step = (long long)gridDim.x * blockDim.x;
  const float* in = boxes + s.boxes_offset;
  const float criteria = params[0], scale = params[1];
  const float* means = params + 2;
  const float* stds = params + 6;
  for (long long m = (long long)blockIdx.x * blockDim.x + threadIdx.x; m < num_anchors;
       m += step) {
    float best = -1.0f;
    long long pick = -1;
    for (long long n = 0; n < s.count; n++) {
      const float v = dali_iou(in + 4 * n, anchors + 4 * m);
      if (v >= best) {
        best = v;
        pick = n;
      }
    }
    long long match = pick >= 0 && best > criteria ? pick : -1;
    for (long long n = s.count - 1; n >= 0; n--) {
      if (forced[s.forced_offset + n] == m) {
        match = n;
        break;
      }
    }
    float* out = out_boxes + s.out_boxes_offset + 4 * m;
    const float* a = centers + 4 * m;
    if (match < 0) {
      for (int k = 0; k < 4; k++) out[k] = offset ? 0.0f : a[k];
      out_labels[s.out_labels_offset + m] = 0;
      continue;
    }
    const float* box = in + 4 * match;
    float c[4] = {0.5f * (box[0] + box[2]), 0.5f * (box[1] + box[3]), box[2] - box[0],
                  box[3] - box[1]};
    if (offset) {
      for (int k = 0; k < 4; k++) c[k] *= scale;
      out[0] = ((c[0] - a[0]) / a[2] - means[0]) / stds[0];
      out[1] = ((c[1] - a[1]) / a[3] - means[1]) / stds[1];
      out[2] = (logf(c[2] / a[2]) - means[2]) / stds[2];
      out[3] = (logf(c[3] / a[3]) - means[3]) / stds[3];
    } else {
      for (int k = 0; k < 4; k++) out[k] = c[k];
    }
    out_labels[s.out_labels_offset + m] = labels[s.labels_offset + match * s.label_stride];
  }
}
