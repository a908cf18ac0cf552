// The C loops of the flip kernel (_ext/kernels/flip.pyx): a window of a sample (the whole
// sample for a flip, a crop window, the in-bounds part of a padded crop) is reduced to "reverse some of a few strided
// axes" over bytes, then copied by runs (see `dali_flip_collapse`).
#ifndef DALI_EXT_KERNELS_FLIP_H_
#define DALI_EXT_KERNELS_FLIP_H_

#include <stdint.h>
#include <string.h>
#if defined(__SSSE3__)
#include <tmmintrin.h>
#endif

#define DALI_FLIP_MAX_DIMS 16

/* One work item: the destination indices [lo, hi) of axis 0 of a collapsed sample. */
typedef struct {
    const char* src;                       /* the window's first element in the source */
    char* dst;
    int ndim;                              /* axes left after the unit is taken out, >= 0 */
    int64_t extent[DALI_FLIP_MAX_DIMS];
    int64_t src_stride[DALI_FLIP_MAX_DIMS];    /* bytes */
    int64_t dst_stride[DALI_FLIP_MAX_DIMS];    /* bytes */
    uint8_t flip[DALI_FLIP_MAX_DIMS];
    int64_t unit;                          /* bytes copied as one block */
    int64_t src_offset;                    /* bytes from the source sample to the window */
    int64_t dst_offset;                    /* bytes from the destination sample to it */
    int64_t lo, hi;
} dali_flip_job;

/* Describe the copy of a window of `shape` from `src_anchor` of a C-contiguous source sample
   of `src_shape` to `dst_anchor` of a C-contiguous destination sample of `dst_shape` (NULL
   anchors: zeros), reversed along the axes d with `flags[d]` non-zero, for elements of
   `itemsize` bytes, in `job` (all but src, dst, lo, hi).  Axes of extent 1 go; an axis merges
   with the (collapsed) axis inside it when both are reversed or both kept and the inner one
   spans whole rows of source and destination (reversing two such axes reverses their
   flattened product); a kept innermost axis that is contiguous on both sides becomes the unit,
   a block of bytes copied whole.  Returns the window's bytes. */
static int64_t dali_flip_collapse(int ndim, const int64_t* shape, const int64_t* src_shape,
                                  const int64_t* src_anchor, const int64_t* dst_shape,
                                  const int64_t* dst_anchor, const uint8_t* flags,
                                  int64_t itemsize, dali_flip_job* job) {
    int64_t ext[DALI_FLIP_MAX_DIMS], sst[DALI_FLIP_MAX_DIMS], dst[DALI_FLIP_MAX_DIMS];
    uint8_t fl[DALI_FLIP_MAX_DIMS];
    int n = 0;                             /* collapsed axes, innermost first in ext.. */
    int64_t volume = itemsize, s_stride = itemsize, d_stride = itemsize;
    int64_t s_offset = 0, d_offset = 0;
    for (int d = ndim - 1; d >= 0; d--) {
        int64_t e = shape[d];
        volume *= e;
        if (src_anchor) s_offset += src_anchor[d] * s_stride;
        if (dst_anchor) d_offset += dst_anchor[d] * d_stride;
        if (e != 1) {
            uint8_t f = flags[d] != 0;
            if (n > 0 && fl[n - 1] == f && sst[n - 1] * ext[n - 1] == s_stride &&
                    dst[n - 1] * ext[n - 1] == d_stride) {
                ext[n - 1] *= e;
            } else {
                ext[n] = e;
                sst[n] = s_stride;
                dst[n] = d_stride;
                fl[n] = f;
                n++;
            }
        }
        s_stride *= src_shape[d];
        d_stride *= dst_shape[d];
    }
    job->unit = itemsize;
    if (n > 0 && !fl[0] && sst[0] == itemsize && dst[0] == itemsize) {
        job->unit *= ext[0];
        for (int k = 1; k < n; k++) {
            ext[k - 1] = ext[k];
            sst[k - 1] = sst[k];
            dst[k - 1] = dst[k];
            fl[k - 1] = fl[k];
        }
        n--;
    }
    for (int k = 0; k < n; k++) {          /* outermost first in the job */
        job->extent[k] = ext[n - 1 - k];
        job->src_stride[k] = sst[n - 1 - k];
        job->dst_stride[k] = dst[n - 1 - k];
        job->flip[k] = fl[n - 1 - k];
    }
    job->src_offset = s_offset;
    job->dst_offset = d_offset;
    job->ndim = volume == 0 ? -1 : n;     /* -1: nothing to copy */
    return volume;
}

/* dst[j * ds] = src[j * ss] for n units of U bytes: a constant size lets the compiler move
   each unit with a few plain loads and stores instead of calling memcpy. */
#define DALI_FLIP_COPY(U)                                                            \
    static void dali_flip_copy_##U(const char* s, int64_t ss, char* d, int64_t ds,   \
                                   int64_t n) {                                      \
        for (int64_t j = 0; j < n; j++, s += ss, d += ds) memcpy(d, s, U);           \
    }
DALI_FLIP_COPY(1)
DALI_FLIP_COPY(2)
DALI_FLIP_COPY(3)
DALI_FLIP_COPY(4)
DALI_FLIP_COPY(6)
DALI_FLIP_COPY(8)
DALI_FLIP_COPY(12)
DALI_FLIP_COPY(16)
#undef DALI_FLIP_COPY

/* d[3j, 3j + 3) = s[-3j, -3j + 3) for j < n: a row of 3-byte units (RGB pixels) reversed.
   With SSSE3, five pixels a load, shuffle and store: the load starts one byte before pixel
   j + 4 (the last byte of pixel j + 5) and the store writes one byte of pixel j + 5, which the
   next step or the tail writes again, so both stay inside the row. */
static void dali_flip_reverse_3(const char* s, char* d, int64_t n) {
    int64_t j = 0;
#if defined(__SSSE3__)
    const __m128i order = _mm_setr_epi8(13, 14, 15, 10, 11, 12, 7, 8, 9, 4, 5, 6, 1, 2, 3,
                                        -128);
    for (; j + 6 <= n; j += 5) {
        __m128i v = _mm_loadu_si128((const __m128i*)(s - 3 * (j + 4) - 1));
        _mm_storeu_si128((__m128i*)(d + 3 * j), _mm_shuffle_epi8(v, order));
    }
#endif
    for (; j < n; j++) memcpy(d + 3 * j, s - 3 * j, 3);
}

static void dali_flip_copy(const char* s, int64_t ss, char* d, int64_t ds, int64_t n,
                           int64_t unit) {
    if (unit == 3 && ss == -3 && ds == 3) {
        dali_flip_reverse_3(s, d, n);
        return;
    }
    switch (unit) {
        case 1: dali_flip_copy_1(s, ss, d, ds, n); return;
        case 2: dali_flip_copy_2(s, ss, d, ds, n); return;
        case 3: dali_flip_copy_3(s, ss, d, ds, n); return;
        case 4: dali_flip_copy_4(s, ss, d, ds, n); return;
        case 6: dali_flip_copy_6(s, ss, d, ds, n); return;
        case 8: dali_flip_copy_8(s, ss, d, ds, n); return;
        case 12: dali_flip_copy_12(s, ss, d, ds, n); return;
        case 16: dali_flip_copy_16(s, ss, d, ds, n); return;
        default:
            for (int64_t j = 0; j < n; j++, s += ss, d += ds) memcpy(d, s, (size_t)unit);
    }
}

/* Axis k of the job, destination indices [lo, hi); src and dst point at index 0 of axis k. */
static void dali_flip_axis(const dali_flip_job* job, int k, const char* s, char* d,
                           int64_t lo, int64_t hi) {
    int64_t e = job->extent[k], ss = job->src_stride[k], ds = job->dst_stride[k];
    if (k == job->ndim - 1) {
        if (job->flip[k])
            dali_flip_copy(s + (e - 1 - lo) * ss, -ss, d + lo * ds, ds, hi - lo, job->unit);
        else
            dali_flip_copy(s + lo * ss, ss, d + lo * ds, ds, hi - lo, job->unit);
        return;
    }
    for (int64_t i = lo; i < hi; i++) {
        int64_t from = job->flip[k] ? e - 1 - i : i;
        dali_flip_axis(job, k + 1, s + from * ss, d + i * ds, 0, job->extent[k + 1]);
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
