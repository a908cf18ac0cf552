// Connected components of label maps (fn.segmentation.random_object_bbox): the blobs of
// elements sharing one label other than the background, neighbours along the axes (face
// connectivity: 4 in 2-D, 6 in 3-D), with each blob's label, volume and bounding box.
//
// Union-find over flat indices: every element is joined to its preceding neighbour along each
// axis when both have the same (non-background) label, with path halving, a root being its
// blob's first element; a second pass in memory order resolves every element to its root,
// numbers the roots and accumulates the boxes, so blobs come out in the order of their first
// element.  Any number of dimensions up to DALI_CC_MAX_DIMS; runs without the GIL.
#ifndef DALI_COMPONENTS_H_
#define DALI_COMPONENTS_H_

#include <stdint.h>

#include <new>
#include <vector>

enum { DALI_CC_MAX_DIMS = 8 };

// The blobs of one sample: per blob, label, volume, then ndim starts and ndim ends.
struct dali_cc_result {
  int ndim = 0;
  std::vector<int64_t> rows;
};

static inline int64_t dali_cc_find(int64_t* parent, int64_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

static inline void dali_cc_union(int64_t* parent, int64_t a, int64_t b) {
  a = dali_cc_find(parent, a);
  b = dali_cc_find(parent, b);
  if (a == b) return;
  if (a < b)                              // the root is the blob's first element
    parent[b] = a;
  else
    parent[a] = b;
}

// The blobs of a sample whose axes all have extents above 1 (see dali_cc_label_typed), as rows
// of 2 + 2 * ndim values in `rows`.
template <typename T>
static void dali_cc_blobs(const T* x, int ndim, const int64_t* shape, int64_t background,
                          std::vector<int64_t>& rows) {
  int64_t n = 1;
  int64_t stride[DALI_CC_MAX_DIMS];
  for (int d = ndim - 1; d >= 0; d--) {
    stride[d] = n;
    n *= shape[d];
  }
  std::vector<int64_t> parent(n);
  int64_t coord[DALI_CC_MAX_DIMS] = {0};
  const int last = ndim - 1;
  for (int64_t i = 0; i < n; i++) {
    parent[i] = i;
    const int64_t v = static_cast<int64_t>(x[i]);
    if (v != background) {
      // within a run along the last axis: joined to the previous element, and to a neighbour
      // along another axis only where the previous element's neighbour did not join already
      const bool run = coord[last] > 0 && static_cast<int64_t>(x[i - 1]) == v;
      if (run) parent[i] = parent[i - 1];
      for (int d = 0; d < last; d++) {
        if (coord[d] == 0 || static_cast<int64_t>(x[i - stride[d]]) != v) continue;
        if (run && static_cast<int64_t>(x[i - 1 - stride[d]]) == v) continue;
        dali_cc_union(parent.data(), i - stride[d], i);
      }
    }
    for (int d = last; d >= 0; d--) {   // odometer
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
  const int width = 2 + 2 * ndim;
  int64_t* row = nullptr;               // the blob of the previous element in a run
  for (int d = 0; d < ndim; d++) coord[d] = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t v = static_cast<int64_t>(x[i]);
    if (v != background) {
      // parent[i] < i unless i is a root; the elements before i are resolved already: a
      // root holds -1 - its blob's index, any other element its root
      const int64_t p = parent[i];
      if (coord[last] > 0 && static_cast<int64_t>(x[i - 1]) == v) {
        // the run goes on: same blob, only the end along the last axis can grow
        parent[i] = parent[i - 1] < 0 ? i - 1 : parent[i - 1];
        row[1]++;
        if (coord[last] + 1 > row[2 + ndim + last]) row[2 + ndim + last] = coord[last] + 1;
      } else {
        if (p == i) {                     // a new blob
          parent[i] = -1 - static_cast<int64_t>(rows.size() / width);
          rows.resize(rows.size() + width);
          row = rows.data() + rows.size() - width;
          row[0] = v;
          row[1] = 0;
          for (int d = 0; d < ndim; d++) {
            row[2 + d] = coord[d];
            row[2 + ndim + d] = coord[d] + 1;
          }
        } else {
          const int64_t root = parent[p] < 0 ? p : parent[p];
          parent[i] = root;
          row = rows.data() + (-1 - parent[root]) * width;
        }
        row[1]++;
        for (int d = 0; d < ndim; d++) {
          if (coord[d] < row[2 + d]) row[2 + d] = coord[d];
          if (coord[d] + 1 > row[2 + ndim + d]) row[2 + ndim + d] = coord[d] + 1;
        }
      }
    }
    for (int d = ndim - 1; d >= 0; d--) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
}

// Axes of extent 1 are left out while labelling (so that runs along the last axis of extent
// above 1 are found); the rows get their coordinates (0 to 1) back afterwards.
template <typename T>
static int dali_cc_label_typed(const void* data, int ndim, const int64_t* shape,
                               int64_t background, dali_cc_result* out) {
  try {
    int axes[DALI_CC_MAX_DIMS];
    int64_t compact[DALI_CC_MAX_DIMS];
    int cndim = 0;
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) {
      n *= shape[d];
      if (shape[d] != 1) {
        axes[cndim] = d;
        compact[cndim++] = shape[d];
      }
    }
    out->ndim = ndim;
    out->rows.clear();
    if (n == 0) return 0;
    if (cndim == 0) {                       // a single element
      axes[0] = 0;
      compact[cndim++] = 1;
    }
    std::vector<int64_t> rows;
    dali_cc_blobs(static_cast<const T*>(data), cndim, compact, background, rows);
    const int cw = 2 + 2 * cndim, width = 2 + 2 * ndim;
    const int64_t count = static_cast<int64_t>(rows.size()) / cw;
    out->rows.resize(count * width);
    for (int64_t b = 0; b < count; b++) {
      const int64_t* src = rows.data() + b * cw;
      int64_t* dst = out->rows.data() + b * width;
      dst[0] = src[0];
      dst[1] = src[1];
      for (int d = 0; d < ndim; d++) {
        dst[2 + d] = 0;
        dst[2 + ndim + d] = 1;
      }
      for (int k = 0; k < cndim; k++) {
        dst[2 + axes[k]] = src[2 + k];
        dst[2 + ndim + axes[k]] = src[2 + cndim + k];
      }
    }
    return 0;
  } catch (const std::bad_alloc&) {
    return -1;
  }
}


// Blobs of the sample at `data` (type code 0..6: bool, int8, uint8, int16, uint16, int32,
// uint32) into `out`; 0 on success, -1 when out of memory, -2 for an unknown type.
static int dali_cc_label(int code, const void* data, int ndim, const int64_t* shape,
                         int64_t background, dali_cc_result* out) {
  switch (code) {
    case 0: return dali_cc_label_typed<bool>(data, ndim, shape, background, out);
    case 1: return dali_cc_label_typed<int8_t>(data, ndim, shape, background, out);
    case 2: return dali_cc_label_typed<uint8_t>(data, ndim, shape, background, out);
    case 3: return dali_cc_label_typed<int16_t>(data, ndim, shape, background, out);
    case 4: return dali_cc_label_typed<uint16_t>(data, ndim, shape, background, out);
    case 5: return dali_cc_label_typed<int32_t>(data, ndim, shape, background, out);
    case 6: return dali_cc_label_typed<uint32_t>(data, ndim, shape, background, out);
    default: return -2;
  }
}

static dali_cc_result* dali_cc_new() { return new (std::nothrow) dali_cc_result(); }
static void dali_cc_delete(dali_cc_result* r) { delete r; }
static int64_t dali_cc_size(const dali_cc_result* r) {
  return static_cast<int64_t>(r->rows.size());
}
static const int64_t* dali_cc_data(const dali_cc_result* r) { return r->rows.data(); }

#endif  // DALI_COMPONENTS_H_
