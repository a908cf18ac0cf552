// The 1-D filters of the resampling engines and the choices both make from them: the pass
// order and the input span of an output window.  The N-D engine (resample.pyx, driven by
// dali/ops/geometry/_resampling.py) and the 2-D HWC batch engine (resample_batch.pyx) both
// build their filters and plans here, so their values agree bit for bit.
#ifndef DALI_EXT_KERNELS_RESAMPLE_FILTER_H_
#define DALI_EXT_KERNELS_RESAMPLE_FILTER_H_

#include <stdint.h>
#include <stdlib.h>

/* The 1-D filters (dali/ops/_resampling.py `axis_filter` documents them).  Float32
   arithmetic operation by operation, as the NumPy formulation it replaces: no fused
   multiply-adds. */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
#include <math.h>
#include <string.h>

/* Support (taps per output) of a non-NN filter; also its step and origin. */
static int dali_rs_filter_shape(int samples, float radius, int n_out, float lo, float hi,
                                int antialias, float* scale_out, float* step_out,
                                float* origin_out) {
    float scale = (hi - lo) / (float)n_out;
    float s = fabsf(scale);
    float r = radius * ((antialias && s > 1.0f) ? s : 1.0f);
    float width = 2.0f * r;
    float step = (float)(samples - 1) / width;
    float anchor = width * 0.5f;
    float origin = lo + 0.5f * scale;
    origin = origin - 0.5f;
    origin = origin - anchor;
    *scale_out = scale;
    *step_out = step;
    *origin_out = origin;
    return (int)ceilf((float)(samples - 1) / step);
}

/* Taps of every output (first tap per output, weights normalized), before folding.
   `table` has `samples` entries and two zeros after them. */
static void dali_rs_filter_taps(const float* table, int samples, int n_out, int support,
                                float scale, float step, float origin, int64_t* first,
                                float* w) {
    for (int i = 0; i < n_out; i++) {
        float f = (float)i * scale;
        f = f + origin;
        float tap0 = ceilf(f);
        float* wi = w + (Py_ssize_t)i * support;
        for (int k = 0; k < support; k++) {
            float tap = tap0 + (float)k;
            float x = (tap - f) * step;
            float x0 = floorf(x);
            float d = x - x0;
            int i0 = (int)(x0 < (float)samples ? x0 : (float)samples);
            float f0 = table[i0], f1 = table[i0 + 1];
            wi[k] = f0 + d * (f1 - f0);
        }
        float total = 0.0f;
        for (int k = 0; k < support; k++) total = total + wi[k];
        if (total == 0.0f) total = 1.0f;
        for (int k = 0; k < support; k++) wi[k] = wi[k] / total;
        first[i] = (int64_t)tap0;
    }
}

/* Nearest neighbour: one tap of weight 1 at floor(lo + (i + 0.5) * scale), clamped. */
static void dali_rs_filter_nn(int n_in, int n_out, float lo, float hi, int32_t* starts) {
    float scale = (hi - lo) / (float)n_out;
    for (int i = 0; i < n_out; i++) {
        float p = ((float)i + 0.5f) * scale;
        p = floorf(lo + p);
        if (p < 0.0f) p = 0.0f;
        if (p > (float)(n_in - 1)) p = (float)(n_in - 1);
        starts[i] = (int32_t)p;
    }
}

/* Fold taps outside [0, n_in) onto the edge positions: `out` (n_out x width, width =
   min(support, n_in)) and `starts` receive the folded filter. */
static void dali_rs_filter_fold(const int64_t* first, const float* w, int n_out,
                                int support, int n_in, int32_t* starts, float* out) {
    int width = support < n_in ? support : n_in;
    for (int i = 0; i < n_out; i++) {
        int64_t st = first[i] > 0 ? first[i] : 0;
        if (st > n_in - width) st = n_in - width;
        starts[i] = (int32_t)st;
        const float* wi = w + (Py_ssize_t)i * support;
        float* oi = out + (Py_ssize_t)i * width;
        if (width == support && st == first[i]) {
            memcpy(oi, wi, sizeof(float) * (size_t)width);
            continue;
        }
        memset(oi, 0, sizeof(float) * (size_t)width);
        for (int k = 0; k < support; k++) {
            int64_t c = first[i] + k;
            c = c > 0 ? c : 0;
            c = c < n_in - 1 ? c : n_in - 1;
            oi[c - st] = oi[c - st] + wi[k];
        }
    }
}

/* Whether a folded filter maps each output to the same input with weight 1 (the first
   largest weight of each row is the tap; no other weight is non-zero). */
static int dali_rs_filter_identity(const int32_t* starts, const float* w, int n_out,
                                   int width, int n_in) {
    if (n_out != n_in) return 0;
    for (int i = 0; i < n_out; i++) {
        const float* wi = w + (Py_ssize_t)i * width;
        int hot = 0;
        for (int k = 1; k < width; k++)
            if (wi[k] > wi[hot]) hot = k;
        if (starts[i] + hot != i || wi[hot] != 1.0f) return 0;
        for (int k = 0; k < width; k++)
            if (k != hot && wi[k] != 0.0f) return 0;
    }
    return 1;
}

/* A kernel lookup table: `samples` values followed by two zeros, and its radius in pixels at
   scale 1 (data is NULL for nearest neighbour). */
typedef struct {
    const float* data;
    int samples;
    float radius;
} dali_rs_table;

/* A folded 1-D filter in one malloc'ed block (at `starts`): output i reads `width` inputs
   from starts[i]. */
typedef struct {
    int32_t* starts;
    float* weights;
    int width;
    int identity;
} dali_rs_filter;

/* The filter resampling [lo, hi) of n_in positions to n_out with table `t` (nearest neighbour
   when `nearest`), as `axis_filter` of resample.pyx builds it; -1 when memory runs out (then
   nothing is allocated).  Its starts, weights and the taps it folds share one block: a batch
   of small images builds two filters an image. */
static int dali_rs_make_filter(const dali_rs_table* t, int nearest, int n_in, int n_out,
                               float lo, float hi, int antialias, dali_rs_filter* f) {
    size_t head = ((size_t)n_out * sizeof(int32_t) + 7) & ~(size_t)7;   /* starts, aligned */
    f->weights = NULL;
    if (nearest) {
        f->width = 1;
        f->starts = (int32_t*)malloc(head + (size_t)n_out * sizeof(float));
        if (f->starts == NULL) return -1;
        f->weights = (float*)((char*)f->starts + head);
        for (int k = 0; k < n_out; k++) f->weights[k] = 1;
        dali_rs_filter_nn(n_in, n_out, lo, hi, f->starts);
    } else {
        float scale, step, origin;
        int support = dali_rs_filter_shape(t->samples, t->radius, n_out, lo, hi, antialias,
                                           &scale, &step, &origin);
        f->width = support < n_in ? support : n_in;
        size_t firsts = (size_t)n_out * sizeof(int64_t);
        size_t raws = (size_t)n_out * (size_t)support * sizeof(float);
        f->starts = (int32_t*)malloc(head + firsts + raws +
                                     (size_t)n_out * (size_t)f->width * sizeof(float));
        if (f->starts == NULL) return -1;
        int64_t* first = (int64_t*)((char*)f->starts + head);
        float* raw = (float*)((char*)first + firsts);
        f->weights = (float*)((char*)raw + raws);
        dali_rs_filter_taps(t->data, t->samples, n_out, support, scale, step, origin, first,
                            raw);
        dali_rs_filter_fold(first, raw, n_out, support, n_in, f->starts, f->weights);
    }
    f->identity = dali_rs_filter_identity(f->starts, f->weights, n_out, f->width, n_in);
    return 0;
}

static void dali_rs_filter_free(dali_rs_filter* f) {
    free(f->starts);
    f->starts = NULL;
    f->weights = NULL;
}

/* Relative cost of a tap along the innermost spatial axis, and per produced value (measured
   from the pass order DALI picks). */
#define DALI_RS_HORIZONTAL_TAP_COST 1.4
#define DALI_RS_VALUE_COST 3.0
#define DALI_RS_MAX_AXES 3

/* The order in which to resample the `n` (<= 3) spatial axes, the identity ones skipped: of
   the orders of the others (in lexicographic order), the first of least estimated cost, the
   sum over passes of the values the pass produces times (taps * tap cost + value cost), taps
   along the last axis costing more.  DALI chooses so; it matters only for float rounding.
   Writes the axes to `order` and returns their number. */
static int dali_rs_pass_order(int n, const int64_t* in_sizes, const int64_t* out_sizes,
                              const int* support, const int* identity, int* order) {
    int axes[DALI_RS_MAX_AXES], m = 0;
    for (int a = 0; a < n; a++)
        if (!identity[a]) axes[m++] = a;
    for (int k = 0; k < m; k++) order[k] = axes[k];
    if (m < 2) return m;
    /* permutations of m <= 3 items in lexicographic order, as positions into `axes` */
    static const int perms2[2][3] = {{0, 1, 0}, {1, 0, 0}};
    static const int perms3[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1},
                                     {2, 1, 0}};
    const int (*perms)[3] = m == 2 ? perms2 : perms3;
    int count = m == 2 ? 2 : 6;
    double best = 0.0;
    for (int p = 0; p < count; p++) {
        int64_t sizes[DALI_RS_MAX_AXES];
        for (int a = 0; a < n; a++) sizes[a] = in_sizes[a];
        double cost = 0.0;
        for (int k = 0; k < m; k++) {
            int a = axes[perms[p][k]];
            sizes[a] = out_sizes[a];
            int64_t values = 1;
            for (int b = 0; b < n; b++) values *= sizes[b];
            double tap = a == n - 1 ? DALI_RS_HORIZONTAL_TAP_COST : 1.0;
            cost += (double)values * (support[a] * tap + DALI_RS_VALUE_COST);
        }
        if (p == 0 || cost < best) {
            best = cost;
            for (int k = 0; k < m; k++) order[k] = axes[perms[p][k]];
        }
    }
    return m;
}

/* The input positions [*first, *last) that outputs [lo, hi) of a filter read.  Window
   starts are monotonic (the region's direction), so the ends of the window decide. */
static void dali_rs_input_span(const int32_t* starts, int width, int identity, int64_t lo,
                               int64_t hi, int64_t* first, int64_t* last) {
    if (identity || hi <= lo) {
        *first = lo;
        *last = hi > lo ? hi : lo;
        return;
    }
    int64_t a = starts[lo], b = starts[hi - 1];
    *first = a < b ? a : b;
    *last = (a > b ? a : b) + width;
}

/* Values DALI's vectorized vertical pass converts per vector (see resample.pyx `store_row`). */
#define DALI_RS_SIMD_WIDTH 16

/* The rounding boundary of a last pass along rows whose output is the columns [x0, x1) of
   rows of `columns` positions of `channels` values: DALI's whole SIMD_WIDTH vectors of the
   full row, seen from the window's row (-1: the window is the whole row). */
static int64_t dali_rs_even_end(int64_t columns, int64_t channels, int64_t x0, int64_t x1) {
    if (x0 == 0 && x1 == columns) return -1;
    int64_t full = columns * channels;
    int64_t end = full - full % DALI_RS_SIMD_WIDTH - x0 * channels;
    return end > 0 ? end : 0;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

#endif  // DALI_EXT_KERNELS_RESAMPLE_FILTER_H_
