/* The crop window search of fn.random_bbox_crop, one sample per call (boxes.pyx runs the
 * samples of a batch on the pool).
 *
 * A sample's draws are uniform [0, 1) numbers with 32 random bits from its Philox stream:
 * draw j is word j % 4 of block j / 4 with counter (sample id low, sample id high, stream,
 * j / 4), divided by 2^32 (one block makes 4 draws: the draws cost less than the windows).
 * A round takes one draw (the outcome: a threshold, or "no crop" as the last option) and then
 * 2 * ndim draws per attempt (ndim for the size, ndim for the anchor), whether or not the
 * attempt is rejected early, so the sequence is fixed by the seed.
 *
 * Window of an attempt, relative to the image:
 * - fixed size (`crop_size` in pixels of `in_size`): anchor = first + min(floor(u * (span +
 *   1)), span) pixels, where first = min(0, size - crop) and span = |size - crop|;
 * - otherwise the x size is smin + u0 * (smax - smin); the others follow from an aspect ratio
 *   drawn uniformly in the (x, d) range, in pixels of `in_size` (all 1 when not given):
 *   size_d = size_x * px_x / (ratio * px_d).  Rejected when a size leaves [smin, smax] or (3-D)
 *   y/z leaves its range; the anchor is u1 * (1 - size).
 * A window is valid when the boxes' overlap (IoU or intersection / box area) reaches the
 * threshold for every box (`all_boxes`) or for one, and at least one box survives (centre in
 * the window, or intersection / box area >= prune when prune >= 0, with some intersection).
 * A sample without boxes takes any window.
 */
#ifndef DALI_EXT_KERNELS_BOXES_H_
#define DALI_EXT_KERNELS_BOXES_H_

#include <math.h>
#include <stdint.h>

#include "philox_blocks.h"

enum { DALI_BOX_FOUND = 0, DALI_BOX_NO_CROP = 1, DALI_BOX_BEST = 2, DALI_BOX_GAVE_UP = 3 };

typedef struct {
    const float* lo;            /* every box's start corner, (boxes, ndim) */
    const float* hi;            /* and end corner */
    int ndim;
    uint64_t key;
    uint32_t stream;
    const double* thresholds;
    int n_thresholds;
    int no_crop;                /* "no crop" is one more outcome */
    int num_attempts;
    int64_t limit;              /* attempts in all */
    int keep_best;              /* track the best window (for when the attempts run out) */
    int iou;                    /* IoU, else intersection / box area */
    int all_boxes;
    double prune;               /* < 0: centre inside */
    double smin, smax;
    double aspect[6];           /* (min, max) of x/y, x/z, y/z */
    int fixed;
} dali_box_params;

typedef struct {
    const dali_box_params* p;
    int64_t sample_id;
    int64_t first, count;       /* the sample's boxes */
    double in_size[3];          /* pixels (1 when not given) */
    double crop_size[3];        /* fixed window size in pixels */
    float crop_lo[3], crop_hi[3];
    double anchor[3];           /* fixed size: the anchor in pixels */
    int status;
    double best;
} dali_box_job;

enum { DALI_BOX_RNG_BLOCKS = 8 };   /* Philox blocks made at a time (SIMD, philox_blocks.h) */

typedef struct {
    uint64_t key;
    uint32_t c0, c1, stream;
    int64_t base;               /* draw index of v[0] (-1: nothing made yet) */
    int64_t pos;                /* draw index of the next draw */
    double v[4 * DALI_BOX_RNG_BLOCKS];
} dali_box_rng;

static inline double dali_box_u01(dali_box_rng* r) {
    if (r->base < 0 || r->pos >= r->base + 4 * DALI_BOX_RNG_BLOCKS) {
        uint32_t w[4 * DALI_BOX_RNG_BLOCKS];
        r->base = r->pos - r->pos % 4;
        dali_philox_blocks(r->key, r->c0, r->c1, r->stream, (uint32_t)(r->base / 4),
                           DALI_BOX_RNG_BLOCKS, w);
        for (int k = 0; k < 4 * DALI_BOX_RNG_BLOCKS; k++)
            r->v[k] = (double)w[k] * (1.0 / 4294967296.0);
    }
    return r->v[r->pos++ - r->base];
}

#define DALI_BOX_SLACK 1e-6

/* The largest min(q / w, w / q) over w in [wmin, wmax] for the smallest of quantities q in
 * [qmin, qmax] (their worst ratio to w): w at sqrt(qmin * qmax), clamped to the range. */
static double dali_box_spread(double qmin, double qmax, double wmin, double wmax) {
    double w = sqrt(qmin * qmax);
    w = w < wmin ? wmin : (w > wmax ? wmax : w);
    double r = qmin / w < w / qmax ? qmin / w : w / qmax;
    return r < 1.0 ? r : 1.0;
}

/* The largest IoU any allowed window can have with every box of the sample.  IoU is at most
 * min(areas) / max(areas), and along each axis at most min(extents) / max(extents) (the
 * intersection is at most the smaller extent times the other axes' box extents, the union at
 * least the larger area); a window's extents lie in [min(smin, 1), min(smax, 1)] (or are
 * fixed), widened by DALI_BOX_SLACK for their rounding to float corners. */
static double dali_box_iou_bound(const dali_box_job* j) {
    const dali_box_params* p = j->p;
    int nd = p->ndim;
    double bound = 1.0, wmin_area = 1.0, wmax_area = 1.0;
    if (j->count == 0)
        return 1.0;
    for (int d = 0; d <= nd; d++) {             /* each axis, then the areas (d == nd) */
        double qmin = INFINITY, qmax = 0.0, wmin, wmax;
        for (int64_t b = j->first; b < j->first + j->count; b++) {
            double q = 1.0;
            for (int k = d < nd ? d : 0; k < (d < nd ? d + 1 : nd); k++)
                q *= (double)p->hi[b * nd + k] - (double)p->lo[b * nd + k];
            qmin = q < qmin ? q : qmin;
            qmax = q > qmax ? q : qmax;
        }
        if (d < nd) {
            wmin = p->fixed ? j->crop_size[d] / j->in_size[d] : (p->smin < 1.0 ? p->smin : 1.0);
            wmax = (p->fixed ? wmin : (p->smax < 1.0 ? p->smax : 1.0)) + DALI_BOX_SLACK;
            wmin = wmin > DALI_BOX_SLACK ? wmin - DALI_BOX_SLACK : 0.0;
            wmin_area *= wmin;
            wmax_area *= wmax;
        } else {
            wmin = wmin_area;
            wmax = wmax_area;
        }
        if (wmin > 0 && qmax > 0) {
            double r = dali_box_spread(qmin, qmax, wmin, wmax);
            bound = r < bound ? r : bound;
        }
    }
    return bound;
}

/* The window of one attempt from its 2 * ndim draws; 0 when its aspect ratio is rejected. */
static int dali_box_window(const dali_box_job* j, const double* u, float* lo, float* hi,
                           double* anchor) {
    const dali_box_params* p = j->p;
    int nd = p->ndim;
    if (p->fixed) {
        for (int d = 0; d < nd; d++) {
            double size = j->in_size[d], crop = j->crop_size[d];
            double first = size < crop ? size - crop : 0.0, span = fabs(size - crop);
            double a = first + fmin(floor(u[nd + d] * (span + 1.0)), span);
            anchor[d] = a;
            lo[d] = (float)(a / size);
            hi[d] = (float)((a + crop) / size);
        }
        return 1;
    }
    double shape[3];
    shape[0] = p->smin + u[0] * (p->smax - p->smin);
    int ok = 1;
    for (int d = 1; d < nd; d++) {
        double rmin = p->aspect[2 * (d - 1)], rmax = p->aspect[2 * (d - 1) + 1];
        double ratio = rmin + u[d] * (rmax - rmin);
        double den = ratio * j->in_size[d];
        shape[d] = shape[0] * j->in_size[0] / (den > 1e-30 ? den : 1e-30);
    }
    for (int d = 0; d < nd; d++)
        ok &= shape[d] >= p->smin && shape[d] <= p->smax;
    if (nd == 3) {
        double den = shape[2] * j->in_size[2];
        double ratio = shape[1] * j->in_size[1] / (den > 1e-30 ? den : 1e-30);
        ok &= ratio >= p->aspect[4] * (1 - 1e-6) && ratio <= p->aspect[5] * (1 + 1e-6);
    }
    if (!ok)
        return 0;
    for (int d = 0; d < nd; d++) {
        float s = (float)(shape[d] < 1.0 ? shape[d] : 1.0);     /* fmin, inlined */
        lo[d] = (float)(u[nd + d] * (double)(1.0f - s));
        hi[d] = lo[d] + s;
    }
    return 1;
}

/* Whether the window is valid; `score` gets the smallest (all_boxes) or largest overlap, over
 * every box when `full` (else it may stop at the first box that decides). */
static int dali_box_check(const dali_box_job* j, const float* wlo, const float* whi,
                          double threshold, int full, double* score) {
    const dali_box_params* p = j->p;
    int nd = p->ndim;
    if (j->count == 0) {
        *score = 1.0;
        return 1;
    }
    double warea = 1.0;
    for (int d = 0; d < nd; d++)
        warea *= (double)whi[d] - (double)wlo[d];
    double s = p->all_boxes ? INFINITY : -INFINITY;
    int passed = p->all_boxes, kept = 0;
    for (int64_t b = j->first; b < j->first + j->count; b++) {
        const float* lo = p->lo + b * nd;
        const float* hi = p->hi + b * nd;
        double inter = 1.0, area = 1.0;
        int centre = 1;
        for (int d = 0; d < nd; d++) {
            double a = lo[d] > wlo[d] ? lo[d] : wlo[d];
            double e = hi[d] < whi[d] ? hi[d] : whi[d];
            inter *= e > a ? e - a : 0.0;
            area *= hi[d] > lo[d] ? (double)hi[d] - (double)lo[d] : 0.0;
            float c = (lo[d] + hi[d]) * 0.5f;
            centre &= c >= wlo[d] && c <= whi[d];
        }
        /* the fraction of the box inside, only where it is used (a division per box) */
        double frac = !p->iou || p->prune >= 0 ? (area > 0 ? inter / area : 0.0) : 0.0;
        double m;
        if (p->iou) {
            double uni = area + warea - inter;
            m = uni > 0 ? inter / uni : 0.0;
        } else {
            m = frac;
        }
        kept |= p->prune < 0 ? centre : (frac >= p->prune && inter > 0);
        if (p->all_boxes) {
            if (m < s)
                s = m;
            if (m < threshold) {
                passed = 0;
                if (!full)
                    break;
            }
        } else {
            if (m > s)
                s = m;
            if (m >= threshold)
                passed = 1;
            if (passed && kept && !full)
                break;
        }
    }
    *score = s;
    return passed && kept;
}

static void dali_box_search(dali_box_job* j) {
    const dali_box_params* p = j->p;
    int nd = p->ndim;
    dali_box_rng r;
    r.key = p->key;
    r.c0 = (uint32_t)j->sample_id;
    r.c1 = (uint32_t)((uint64_t)j->sample_id >> 32);
    r.stream = p->stream;
    r.base = -1;
    r.pos = 0;
    /* A threshold no window can reach for every box (IoU) fails its round whatever the draws:
     * the round's draws are skipped (the sequence stays the same). */
    double reach = p->iou && p->all_boxes && !p->keep_best ? dali_box_iou_bound(j) : 2.0;
    int n_options = p->n_thresholds + (p->no_crop ? 1 : 0);
    int64_t used = 0;
    float wlo[3], whi[3];
    double anchor[3] = {0.0, 0.0, 0.0}, u[6], score;
    j->best = -INFINITY;
    for (int d = 0; d < nd; d++) {
        j->crop_lo[d] = 0.0f;
        j->crop_hi[d] = 1.0f;
        j->anchor[d] = 0.0;
    }
    while (used < p->limit) {
        int option = (int)(dali_box_u01(&r) * n_options);
        if (option >= n_options)
            option = n_options - 1;
        if (option == p->n_thresholds) {
            for (int d = 0; d < nd; d++) {
                j->crop_lo[d] = 0.0f;
                j->crop_hi[d] = 1.0f;
            }
            j->status = DALI_BOX_NO_CROP;
            return;
        }
        double threshold = p->thresholds[option];
        if (threshold > reach * (1 + 1e-9)) {
            int64_t n = p->limit - used < p->num_attempts ? p->limit - used : p->num_attempts;
            used += n;
            r.pos += 2 * nd * n;
            continue;
        }
        for (int a = 0; a < p->num_attempts && used < p->limit; a++, used++) {
            for (int k = 0; k < 2 * nd; k++)
                u[k] = dali_box_u01(&r);
            if (!dali_box_window(j, u, wlo, whi, anchor))
                continue;
            int valid = dali_box_check(j, wlo, whi, threshold, p->keep_best, &score);
            if (p->keep_best && score > j->best) {
                j->best = score;
                for (int d = 0; d < nd; d++) {
                    j->crop_lo[d] = wlo[d];
                    j->crop_hi[d] = whi[d];
                    j->anchor[d] = anchor[d];
                }
            }
            if (valid) {
                for (int d = 0; d < nd; d++) {
                    j->crop_lo[d] = wlo[d];
                    j->crop_hi[d] = whi[d];
                    j->anchor[d] = anchor[d];
                }
                j->status = DALI_BOX_FOUND;
                return;
            }
        }
    }
    j->status = p->keep_best ? DALI_BOX_BEST : DALI_BOX_GAVE_UP;
}

/* ---- the boxes of a crop (dali/ops/detection/_boxes.py `crop`) ------------------------------
 * Box b of sample i against the sample's window [wlo, whi]: it survives when its centre
 * (lo + hi) * 0.5 lies in the window (every axis, ends included) or, with `prune_given`, when
 * intersection / area >= prune with some intersection (products over the axes in order, 0 for
 * an empty box), and always in a `nocrop` sample; its corners are clamped to the window and
 * made relative to it, (clamp(x) - wlo) / (whi - wlo).  All in float32, the operations NumPy
 * makes for the same expressions, so the results are its bits. */
static void dali_box_crop(const float* lo, const float* hi, int nd, const int64_t* counts,
                          int64_t n, const float* crop_lo, const float* crop_hi,
                          const uint8_t* nocrop, int prune_given, float prune, float* new_lo,
                          float* new_hi, uint8_t* keep, int64_t* kept) {
    int64_t b = 0;
    for (int64_t i = 0; i < n; i++) {
        const float* wlo = crop_lo + i * nd;
        const float* whi = crop_hi + i * nd;
        kept[i] = 0;
        for (int64_t k = 0; k < counts[i]; k++, b++) {
            const float* l = lo + b * nd;
            const float* h = hi + b * nd;
            int in = 1;
            if (prune_given) {
                float inter = 1.0f, area = 1.0f;
                for (int d = 0; d < nd; d++) {
                    float a = l[d] > wlo[d] ? l[d] : wlo[d];
                    float e = (h[d] < whi[d] ? h[d] : whi[d]) - a;
                    float z = h[d] - l[d];
                    inter *= e > 0.0f ? e : 0.0f;
                    area *= z > 0.0f ? z : 0.0f;
                }
                float frac = area > 0.0f ? inter / area : 0.0f;
                in = frac >= prune && inter > 0.0f;
            } else {
                for (int d = 0; d < nd; d++) {
                    float c = (l[d] + h[d]) * 0.5f;
                    in &= c >= wlo[d] && c <= whi[d];
                }
            }
            keep[b] = (uint8_t)(in || nocrop[i]);
            kept[i] += keep[b];
            for (int d = 0; d < nd; d++) {
                float size = whi[d] - wlo[d];
                float x = l[d] > wlo[d] ? l[d] : wlo[d];
                float y = h[d] > wlo[d] ? h[d] : wlo[d];
                new_lo[b * nd + d] = ((x < whi[d] ? x : whi[d]) - wlo[d]) / size;
                new_hi[b * nd + d] = ((y < whi[d] ? y : whi[d]) - wlo[d]) / size;
            }
        }
    }
}

/* ---- fn.box_encoder: SSD matching of a sample's boxes to the anchors ----------------------
 * IoU in float32.  For every box, the anchor with the highest IoU (the last one on ties) is
 * forced to it (IoU taken as 2); every anchor takes the box with the highest IoU (the last one
 * on ties) and is matched when that IoU exceeds `criteria`.  A matched anchor gets the box as
 * (cx, cy, w, h), or with `offset` the normalised offsets ((cx_b - cx_a) / w_a - mean) / std,
 * (log(w_b / w_a) - mean) / std (the (cx, cy, w, h) of boxes and anchors multiplied by
 * `scale`), and the box's label; the others get the anchor as (cx, cy, w, h), or zeros with
 * `offset`, and label 0. */
typedef struct {
    const float* anchors;       /* (M, 4) ltrb */
    const float* centers;       /* (M, 4) the anchors as (cx, cy, w, h) (times `scale` with
                                 * `offset`) */
    int64_t num_anchors;
    float criteria;
    int offset;
    float scale;
    float means[4], stds[4];
} dali_encode_params;

typedef struct {
    const dali_encode_params* p;
    const float* boxes;         /* (N, 4) ltrb */
    const int32_t* labels;      /* one per box, `label_stride` apart */
    int64_t label_stride;
    int64_t count;
    float* out_boxes;           /* (M, 4) */
    int32_t* out_labels;        /* (M,) */
    float* scratch;             /* 7 * count floats */
    int64_t* forced;            /* count */
} dali_encode_job;

/* The output row of anchor m: box n matched (n >= 0), or unmatched. */
static inline void dali_encode_write(const dali_encode_job* j, int64_t m, int64_t n) {
    const dali_encode_params* p = j->p;
    float* out = j->out_boxes + 4 * m;
    const float* a = p->centers + 4 * m;
    if (n < 0) {
        for (int k = 0; k < 4; k++)
            out[k] = p->offset ? 0.0f : a[k];
        j->out_labels[m] = 0;
        return;
    }
    const float* box = j->boxes + 4 * n;
    float c[4] = {0.5f * (box[0] + box[2]), 0.5f * (box[1] + box[3]), box[2] - box[0],
                  box[3] - box[1]};
    if (p->offset) {
        for (int k = 0; k < 4; k++)
            c[k] *= p->scale;
        out[0] = ((c[0] - a[0]) / a[2] - p->means[0]) / p->stds[0];
        out[1] = ((c[1] - a[1]) / a[3] - p->means[1]) / p->stds[1];
        out[2] = (logf(c[2] / a[2]) - p->means[2]) / p->stds[2];
        out[3] = (logf(c[3] / a[3]) - p->means[3]) / p->stds[3];
    } else {
        for (int k = 0; k < 4; k++)
            out[k] = c[k];
    }
    j->out_labels[m] = j->labels[n * j->label_stride];
}

/* Anchors outer, boxes inner (the boxes, as columns in `scratch`, stay in L1 and their IoUs
 * with one anchor vectorize); each box's best anchor is tracked on the way and forced at the
 * end, in box order (a later box forcing the same anchor wins, as in DALI). */
static void dali_encode_run(const dali_encode_job* j) {
    const dali_encode_params* p = j->p;
    int64_t n_count = j->count;
    float* bl = j->scratch;
    float* bt = bl + n_count;
    float* br = bt + n_count;
    float* bb = br + n_count;
    float* barea = bb + n_count;
    float* iou = barea + n_count;
    float* top = iou + n_count;
    int64_t* forced = j->forced;
    for (int64_t n = 0; n < n_count; n++) {
        const float* box = j->boxes + 4 * n;
        bl[n] = box[0];
        bt[n] = box[1];
        br[n] = box[2];
        bb[n] = box[3];
        barea[n] = (box[2] - box[0]) * (box[3] - box[1]);
        top[n] = -1.0f;
        forced[n] = 0;
    }
    for (int64_t m = 0; m < p->num_anchors; m++) {
        const float* a = p->anchors + 4 * m;
        float a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        float aarea = (a2 - a0) * (a3 - a1);
        for (int64_t n = 0; n < n_count; n++) {
            float w = (br[n] < a2 ? br[n] : a2) - (bl[n] > a0 ? bl[n] : a0);
            float h = (bb[n] < a3 ? bb[n] : a3) - (bt[n] > a1 ? bt[n] : a1);
            float inter = (w > 0.0f ? w : 0.0f) * (h > 0.0f ? h : 0.0f);
            float uni = barea[n] + aarea - inter;
            iou[n] = inter > 0.0f && uni > 0.0f ? inter / uni : 0.0f;
        }
        float best = -1.0f;
        int64_t pick = -1;
        for (int64_t n = 0; n < n_count; n++) {
            float v = iou[n];
            if (v >= best) {
                best = v;
                pick = n;
            }
            if (v >= top[n]) {
                top[n] = v;
                forced[n] = m;
            }
        }
        dali_encode_write(j, m, pick >= 0 && best > p->criteria ? pick : -1);
    }
    if (p->num_anchors > 0)
        for (int64_t n = 0; n < n_count; n++)
            dali_encode_write(j, forced[n], n);
}

/* ---- fn.bbox_rotate: boxes of one sample rotated onto the output canvas -------------------
 * In float64: corners about the image centre (pixels), rotated (x' = c x + s y,
 * y' = -s x + c y), their bounding box ("expand"), or the box's own size (swapped for an odd
 * number of quarter turns, "fixed") or the mean of both ("halfway") about the same centre, on
 * the canvas centre, clipped to it; `keep` is 0 when less than `threshold` of the area is left.
 */
enum { DALI_ROT_EXPAND = 0, DALI_ROT_HALFWAY = 1, DALI_ROT_FIXED = 2 };

/* libm's fmin and fmax as comparisons the compiler inlines (a call each cost more than the rest
 * of a box): the other operand when one is NaN, and the second on ties (+0 and -0), as glibc's
 * x86-64 minsd / maxsd versions return. */
static inline double dali_rot_min(double a, double b) { return (a < b || b != b) ? a : b; }
static inline double dali_rot_max(double a, double b) { return (a > b || b != b) ? a : b; }

typedef struct {
    const float* src;           /* (count, 4) boxes, xyXY or xyWH */
    float* dst;                 /* (count, 4) in the same layout */
    uint8_t* keep;              /* (count,) */
    int64_t count;
    double c, s;                /* cosine and sine of the angle */
    double h, w, out_h, out_w;  /* image and canvas sizes in pixels */
    int swap;                   /* odd number of quarter turns */
} dali_rot_job;

static void dali_rot_run(const dali_rot_job* j, int xywh, int normalized, int mode,
                         double threshold) {
    double c = j->c, s = j->s;
    for (int64_t b = 0; b < j->count; b++) {
        const float* in = j->src + 4 * b;
        double x0 = in[0], y0 = in[1];
        double x1 = xywh ? x0 + (double)in[2] : in[2], y1 = xywh ? y0 + (double)in[3] : in[3];
        if (normalized) {
            x0 *= j->w;
            x1 *= j->w;
            y0 *= j->h;
            y1 *= j->h;
        }
        x0 -= j->w / 2;
        x1 -= j->w / 2;
        y0 -= j->h / 2;
        y1 -= j->h / 2;
        double a0 = c * x0, a1 = c * x1, b0 = s * y0, b1 = s * y1;
        double d0 = -s * x0, d1 = -s * x1, e0 = c * y0, e1 = c * y1;
        double lo[2] = {dali_rot_min(a0, a1) + dali_rot_min(b0, b1),
                        dali_rot_min(d0, d1) + dali_rot_min(e0, e1)};
        double hi[2] = {dali_rot_max(a0, a1) + dali_rot_max(b0, b1),
                        dali_rot_max(d0, d1) + dali_rot_max(e0, e1)};
        if (mode != DALI_ROT_EXPAND) {
            double own[2] = {x1 - x0, y1 - y0};
            if (j->swap) {
                double t = own[0];
                own[0] = own[1];
                own[1] = t;
            }
            for (int k = 0; k < 2; k++) {
                double centre = (lo[k] + hi[k]) / 2;
                double half = (mode == DALI_ROT_FIXED ? own[k] : (own[k] + hi[k] - lo[k]) / 2) / 2;
                lo[k] = centre - half;
                hi[k] = centre + half;
            }
        }
        double size[2] = {j->out_w, j->out_h};
        double area = 1.0, left = 1.0;
        for (int k = 0; k < 2; k++) {
            lo[k] += size[k] / 2;
            hi[k] += size[k] / 2;
            area *= hi[k] - lo[k];
            lo[k] = dali_rot_min(dali_rot_max(lo[k], 0.0), size[k]);
            hi[k] = dali_rot_min(dali_rot_max(hi[k], 0.0), size[k]);
            left *= hi[k] - lo[k];
            if (normalized) {
                lo[k] /= size[k];
                hi[k] /= size[k];
            }
        }
        j->keep[b] = left >= threshold * area;
        float* out = j->dst + 4 * b;
        out[0] = (float)lo[0];
        out[1] = (float)lo[1];
        out[2] = (float)(xywh ? hi[0] - lo[0] : hi[0]);
        out[3] = (float)(xywh ? hi[1] - lo[1] : hi[1]);
    }
}

#endif  /* DALI_EXT_KERNELS_BOXES_H_ */
