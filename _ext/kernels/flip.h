// The C loops of the flip kernel (_ext/kernels/flip.pyx): a sample is reduced to "reverse some
// of a few axes" over bytes, then copied by runs (see `dali_flip_collapse`).
#ifndef DALI_EXT_KERNELS_FLIP_H_
#define DALI_EXT_KERNELS_FLIP_H_

#include <stdint.h>
#include <string.h>

#define DALI_FLIP_MAX_DIMS 16

/* One work item: the destination indices [lo, hi) of axis 0 of a collapsed sample. */
typedef struct {
    const char* src;
    char* dst;
    int ndim;                              /* axes left after the unit is taken out, >= 0 */
    int64_t extent[DALI_FLIP_MAX_DIMS];
    int64_t stride[DALI_FLIP_MAX_DIMS];    /* bytes; the same in source and destination */
    uint8_t flip[DALI_FLIP_MAX_DIMS];
    int64_t unit;                          /* bytes copied as one block */
    int64_t lo, hi;
} dali_flip_job;

/* Describe a C-contiguous sample of `ndim` axes (`shape`, `flags[d]` non-zero: reverse axis d)
   and element size `itemsize` in `job` (all but src, dst, lo, hi).  Axes of extent 1 go,
   neighbours that are both reversed or both kept merge into one axis (reversing two adjacent
   axes reverses their flattened product), and a kept innermost axis becomes the unit: a block
   of bytes copied whole.  What is left alternates reversed and kept axes and ends with a
   reversed one, so the innermost loop always reverses units.  Returns the sample's bytes. */
static int64_t dali_flip_collapse(int ndim, const int64_t* shape, const uint8_t* flags,
                                  int64_t itemsize, dali_flip_job* job) {
    int n = 0;
    int64_t volume = itemsize;
    for (int d = 0; d < ndim; d++) {
        int64_t e = shape[d];
        volume *= e;
        if (e == 1) continue;
        uint8_t f = flags[d] != 0;
        if (n > 0 && job->flip[n - 1] == f) {
            job->extent[n - 1] *= e;
        } else {
            job->extent[n] = e;
            job->flip[n] = f;
            n++;
        }
    }
    job->unit = itemsize;
    if (n > 0 && !job->flip[n - 1]) {
        job->unit *= job->extent[n - 1];
        n--;
    }
    int64_t stride = job->unit;
    for (int d = n - 1; d >= 0; d--) {
        job->stride[d] = stride;
        stride *= job->extent[d];
    }
    job->ndim = volume == 0 ? -1 : n;     /* -1: nothing to copy */
    return volume;
}

/* dst[j] = src[n - 1 - j] for n units of U bytes: a constant size lets the compiler move
   each unit with a few plain loads and stores instead of calling memcpy. */
#define DALI_FLIP_REVERSE(U)                                                   \
    static void dali_flip_reverse_##U(const char* s, char* d, int64_t n) {      \
        s += (n - 1) * U;                                                       \
        for (int64_t j = 0; j < n; j++, s -= U, d += U) memcpy(d, s, U);        \
    }
DALI_FLIP_REVERSE(1)
DALI_FLIP_REVERSE(2)
DALI_FLIP_REVERSE(3)
DALI_FLIP_REVERSE(4)
DALI_FLIP_REVERSE(6)
DALI_FLIP_REVERSE(8)
DALI_FLIP_REVERSE(12)
DALI_FLIP_REVERSE(16)
#undef DALI_FLIP_REVERSE

static void dali_flip_reverse(const char* s, char* d, int64_t n, int64_t unit) {
    switch (unit) {
        case 1: dali_flip_reverse_1(s, d, n); return;
        case 2: dali_flip_reverse_2(s, d, n); return;
        case 3: dali_flip_reverse_3(s, d, n); return;
        case 4: dali_flip_reverse_4(s, d, n); return;
        case 6: dali_flip_reverse_6(s, d, n); return;
        case 8: dali_flip_reverse_8(s, d, n); return;
        case 12: dali_flip_reverse_12(s, d, n); return;
        case 16: dali_flip_reverse_16(s, d, n); return;
        default:
            s += (n - 1) * unit;
            for (int64_t j = 0; j < n; j++, s -= unit, d += unit) memcpy(d, s, (size_t)unit);
    }
}

/* Axis k of the job, destination indices [lo, hi); src and dst point at index 0 of axis k. */
static void dali_flip_axis(const dali_flip_job* job, int k, const char* s, char* d,
                           int64_t lo, int64_t hi) {
    int64_t e = job->extent[k], st = job->stride[k];
    if (k == job->ndim - 1) {          /* innermost: always reversed (see collapse) */
        dali_flip_reverse(s + (e - hi) * st, d + lo * st, hi - lo, job->unit);
        return;
    }
    for (int64_t i = lo; i < hi; i++) {
        int64_t from = job->flip[k] ? e - 1 - i : i;
        dali_flip_axis(job, k + 1, s + from * st, d + i * st, 0, job->extent[k + 1]);
    }
}

static void dali_flip_run(const dali_flip_job* job) {
    if (job->ndim < 0) return;
    if (job->ndim == 0) {
        memcpy(job->dst, job->src, (size_t)job->unit);
        return;
    }
    dali_flip_axis(job, 0, job->src, job->dst, job->lo, job->hi);
}

#endif  // DALI_EXT_KERNELS_FLIP_H_
