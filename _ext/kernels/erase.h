// The C++ side of the erase kernel (_ext/kernels/erase.pyx): copy a sample, then fill boxes
// of it with a value (one, or one per channel).  A box's innermost axes that it spans whole
// merge into one row; the row's fill values are laid out once per box (the channel of each
// element, when the channels are inside the row) and copied to every row of the box.
#ifndef DALI_EXT_KERNELS_ERASE_H_
#define DALI_EXT_KERNELS_ERASE_H_

#include <stdint.h>
#include <string.h>

#include <new>
#include <vector>

namespace dali_erase {

enum { MAX_DIMS = 16 };

struct Job {
  const char* src;
  char* dst;
  int64_t bytes;                   // of the sample
  int ndim;
  const int64_t* shape;            // the sample's
  const int64_t* boxes;            // count boxes of (lo[ndim], hi[ndim]), clipped to shape
  int64_t count;
  int channel_axis;                // -1 without per-channel fill
  const char* fill;                // one value, or shape[channel_axis] values
  int64_t nfill;
  int64_t itemsize;
  int failed;                      // set when the row buffers could not be allocated
};

// Rows of the box along axes [d, g) from `dst` (at the box's first row element for axis d);
// `row` holds the row's values, or for channels on an outer axis, `by_channel` one row each.
static void rows(const Job* job, const int64_t* lo, const int64_t* hi, const int64_t* stride,
                 int d, int g, char* dst, const char* row, int64_t row_bytes,
                 const std::vector<char>& by_channel, int64_t chan) {
  if (d == g) {
    const char* r = row ? row : by_channel.data() + chan * row_bytes;
    memcpy(dst, r, (size_t)row_bytes);
    return;
  }
  for (int64_t j = lo[d]; j < hi[d]; j++)
    rows(job, lo, hi, stride, d + 1, g, dst + (j - lo[d]) * stride[d], row, row_bytes,
         by_channel, d == job->channel_axis ? j : chan);
}

static void run_unchecked(const Job* job) {
  memcpy(job->dst, job->src, (size_t)job->bytes);
  int n = job->ndim;
  int64_t stride[MAX_DIMS], isz = job->itemsize;
  int64_t s = isz;
  for (int d = n - 1; d >= 0; d--) {
    stride[d] = s;
    s *= job->shape[d];
  }
  std::vector<char> row, by_channel;
  for (int64_t b = 0; b < job->count; b++) {
    const int64_t* lo = job->boxes + b * 2 * n;
    const int64_t* hi = lo + n;
    bool empty = false;
    for (int d = 0; d < n; d++) empty |= hi[d] <= lo[d];
    if (empty) continue;
    int g = n - 1;                 // the row: axes g.. (the inner ones whole)
    while (g > 0 && lo[g] == 0 && hi[g] == job->shape[g]) g--;
    int64_t first = lo[g] * stride[g] / isz, len = (hi[g] - lo[g]) * stride[g] / isz;
    int c = job->channel_axis;
    char* dst = job->dst;
    for (int d = 0; d < g; d++) dst += lo[d] * stride[d];
    dst += lo[g] * stride[g];
    row.resize((size_t)(len * isz));
    if (job->nfill == 1 || c < g) {
      // one value per row: lay out a row per fill value
      by_channel.resize((size_t)(job->nfill * len * isz));
      for (int64_t v = 0; v < job->nfill; v++)
        for (int64_t p = 0; p < len; p++)
          memcpy(&by_channel[(size_t)((v * len + p) * isz)], job->fill + v * isz, (size_t)isz);
      rows(job, lo, hi, stride, 0, g, dst, job->nfill == 1 ? by_channel.data() : nullptr,
           len * isz, by_channel, 0);
    } else {
      int64_t div = stride[c] / isz, count = job->shape[c];
      for (int64_t p = 0; p < len; p++)
        memcpy(&row[(size_t)(p * isz)], job->fill + (((first + p) / div) % count) * isz,
               (size_t)isz);
      rows(job, lo, hi, stride, 0, g, dst, row.data(), len * isz, by_channel, 0);
    }
  }
}

// `run_unchecked`, with an allocation failure recorded in the job (a C++ exception must not
// cross the Cython frames and the thread pool that call it).
static void run(Job* job) {
  try {
    run_unchecked(job);
  } catch (const std::bad_alloc&) {
    job->failed = 1;
  }
}

}  // namespace dali_erase

#endif  // DALI_EXT_KERNELS_ERASE_H_
