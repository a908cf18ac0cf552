/* Draw, transform and convert random numbers straight into an output sample (fn.random.*).
 *
 * Element j of a sample takes double j % 2 of Philox block j / 2 of the sample's stream,
 * counter (sample id low, sample id high, stream, j / 2), exactly as `_draws` of _ext/rng.pyx
 * makes them: uniform u = top 53 bits of (w0:w1) or (w2:w3) times 2^-53; standard normal by
 * Box-Muller of one block (u1 = 1 - u(w0:w1), u2 = u(w2:w3); rad * cos, rad * sin).  Then, in
 * double precision and in the same operation order as the NumPy code it replaces:
 *   DALI_DRAW_UNIFORM  a + u * b, floats kept below `end` (the half-open range)
 *   DALI_DRAW_RINT     rint(a + u * b)                        (integer uniform)
 *   DALI_DRAW_NORMAL   a + b * z
 *   DALI_DRAW_COIN     u < a ? 1 : 0
 *   DALI_DRAW_INDEX    min(int64(u * a), a - 1)               (choice from range(a))
 * and the store: floats cast; bool x != 0; integers rounded half away from zero, clamped to
 * [lo, hi] (given as doubles by the caller) and cast.  A job is a chunk of one sample starting
 * at an even element, so chunks of a sample can run on different threads with the same values.
 * No FMA contraction: the build targets x86-64-v2, which has none. */
#ifndef DALI_EXT_KERNELS_RANDOM_DRAWS_H_
#define DALI_EXT_KERNELS_RANDOM_DRAWS_H_

#include <math.h>
#include <stdint.h>

#include "philox_blocks.h"

enum { DALI_DRAW_UNIFORM = 0, DALI_DRAW_RINT, DALI_DRAW_NORMAL, DALI_DRAW_COIN, DALI_DRAW_INDEX };
enum { DALI_DT_F32 = 0, DALI_DT_F64, DALI_DT_BOOL, DALI_DT_U8, DALI_DT_U16, DALI_DT_U32,
       DALI_DT_U64, DALI_DT_I8, DALI_DT_I16, DALI_DT_I32, DALI_DT_I64 };

typedef struct {
    char* out;          /* the chunk's first element */
    int64_t first;      /* its index in the sample (even) */
    int64_t count;      /* elements in the chunk */
    int64_t sample_id;
    double a, b, end;   /* the sample's parameters */
} DaliDrawJob;

typedef struct {
    uint64_t key;
    uint32_t stream;
    int mode, dtype;
    double lo, hi;      /* integer clamp range */
} DaliDrawBatch;

#define DALI_DRAW_BLOCKS 256

static inline double dali_draw_u01(uint32_t hi, uint32_t lo) {
    uint64_t bits = (((uint64_t)hi << 32) | lo) >> 11;
    return bits * (1.0 / 9007199254740992.0);
}

static inline double dali_draw_int(double x, double lo, double hi) {
    double r = trunc(x + copysign(0.5, x));
    r = r < lo ? lo : r;
    return r > hi ? hi : r;
}

#define DALI_DRAW_STORE_INT(T)                                        \
    for (int64_t k = 0; k < m; k++)                                   \
        ((T*)out)[k] = (T)dali_draw_int(v[k], bt->lo, bt->hi);        \
    break;

static void dali_draw_run(const DaliDrawBatch* bt, const DaliDrawJob* j) {
    uint32_t w[4 * DALI_DRAW_BLOCKS];
    double v[2 * DALI_DRAW_BLOCKS];
    const double a = j->a, b = j->b;
    int64_t done = 0;
    while (done < j->count) {
        int64_t m = j->count - done;
        if (m > 2 * DALI_DRAW_BLOCKS) m = 2 * DALI_DRAW_BLOCKS;
        int64_t nb = (m + 1) / 2;
        dali_philox_blocks(bt->key, (uint32_t)j->sample_id, (uint32_t)(j->sample_id >> 32),
                           bt->stream, (uint32_t)((j->first + done) / 2), nb, w);
        if (bt->mode == DALI_DRAW_NORMAL) {
            for (int64_t k = 0; k < nb; k++) {
                double u1 = 1.0 - dali_draw_u01(w[4 * k], w[4 * k + 1]);
                double u2 = dali_draw_u01(w[4 * k + 2], w[4 * k + 3]);
                double rad = sqrt(-2.0 * log(u1));
                v[2 * k] = a + b * (rad * cos(6.283185307179586 * u2));
                v[2 * k + 1] = a + b * (rad * sin(6.283185307179586 * u2));
            }
        } else {
            for (int64_t k = 0; k < 2 * nb; k++)
                v[k] = dali_draw_u01(w[2 * k], w[2 * k + 1]);
            switch (bt->mode) {
            case DALI_DRAW_UNIFORM:
                for (int64_t k = 0; k < m; k++) v[k] = a + v[k] * b;
                break;
            case DALI_DRAW_RINT:
                for (int64_t k = 0; k < m; k++) v[k] = rint(a + v[k] * b);
                break;
            case DALI_DRAW_COIN:
                for (int64_t k = 0; k < m; k++) v[k] = v[k] < a ? 1.0 : 0.0;
                break;
            default: {
                int64_t last = (int64_t)a - 1;
                for (int64_t k = 0; k < m; k++) {
                    int64_t idx = (int64_t)(v[k] * a);
                    v[k] = (double)(idx < last ? idx : last);
                }
            }
            }
        }
        char* out = j->out;
        switch (bt->dtype) {
        case DALI_DT_F32:
            if (bt->mode == DALI_DRAW_UNIFORM) {
                float e = (float)j->end, below = nextafterf(e, -INFINITY);
                for (int64_t k = 0; k < m; k++) {
                    float x = (float)v[k];
                    ((float*)out)[done + k] = x >= e ? below : x;
                }
            } else {
                for (int64_t k = 0; k < m; k++) ((float*)out)[done + k] = (float)v[k];
            }
            break;
        case DALI_DT_F64:
            if (bt->mode == DALI_DRAW_UNIFORM) {
                double e = j->end, below = nextafter(e, -INFINITY);
                for (int64_t k = 0; k < m; k++)
                    ((double*)out)[done + k] = v[k] >= e ? below : v[k];
            } else {
                for (int64_t k = 0; k < m; k++) ((double*)out)[done + k] = v[k];
            }
            break;
        case DALI_DT_BOOL:
            for (int64_t k = 0; k < m; k++) ((uint8_t*)out)[done + k] = v[k] != 0.0;
            break;
        default:
            switch (bt->dtype) {
            case DALI_DT_U8: out += done; DALI_DRAW_STORE_INT(uint8_t)
            case DALI_DT_U16: out += 2 * done; DALI_DRAW_STORE_INT(uint16_t)
            case DALI_DT_U32: out += 4 * done; DALI_DRAW_STORE_INT(uint32_t)
            case DALI_DT_U64: out += 8 * done; DALI_DRAW_STORE_INT(uint64_t)
            case DALI_DT_I8: out += done; DALI_DRAW_STORE_INT(int8_t)
            case DALI_DT_I16: out += 2 * done; DALI_DRAW_STORE_INT(int16_t)
            case DALI_DT_I32: out += 4 * done; DALI_DRAW_STORE_INT(int32_t)
            default: out += 8 * done; DALI_DRAW_STORE_INT(int64_t)
            }
        }
        done += m;
    }
}

/* Beta(alpha, beta) = 1 / (1 + exp(log Y - log X)), X ~ Gamma(alpha), Y ~ Gamma(beta), with
 * the streams of dali/ops/random/beta.py: log of Gamma(k) for variable `var` (0: X, 1: Y) by
 * Marsaglia-Tsang with d = (k < 1 ? k + 1 : k) - 1/3, c = 1 / sqrt(9 d); round r (< 64) of
 * element j takes normal z = draw j of stream 2 + 4r + 2var and uniform u = draw j of stream
 * 3 + 4r + 2var; v = (1 + c z)^3 (as t * t * t) accepted when v > 0 and log1p(-u) < 0.5 z z + d - d v +
 * d log v, giving log d + log v; k < 1 adds log1p(-u') / k, u' = draw j of stream var.
 * Elements j and j + 1 share Philox blocks, so a pair is drawn together. */
typedef struct {
    char* out;          /* the chunk's first element */
    int64_t first;      /* its index in the sample (even) */
    int64_t count;
    int64_t sample_id;
    double alpha, beta;
    int failed;         /* set when 64 rounds left an element unaccepted */
} DaliBetaJob;

static inline void dali_draw_pair(uint64_t key, int64_t sid, uint32_t stream, uint32_t block,
                                  int normal, double* x) {
    uint32_t w[4];
    dali_philox_one(key, (uint32_t)sid, (uint32_t)(sid >> 32), stream, block, w);
    if (normal) {
        double u1 = 1.0 - dali_draw_u01(w[0], w[1]);
        double u2 = dali_draw_u01(w[2], w[3]);
        double rad = sqrt(-2.0 * log(u1));
        x[0] = rad * cos(6.283185307179586 * u2);
        x[1] = rad * sin(6.283185307179586 * u2);
    } else {
        x[0] = dali_draw_u01(w[0], w[1]);
        x[1] = dali_draw_u01(w[2], w[3]);
    }
}

/* The Marsaglia-Tsang test of one (z, u): writes log d + log v and returns 1 on acceptance.
 * log1p(-u) <= -u for u in [0, 1), and the C library's log1p is within a few ulps of it, so
 * its value is at most -u * (1 - 2^-20): when that bound is below the right side the test
 * accepts without computing log1p (nearly every acceptance), with the same outcome. */
static inline int dali_mt_accept(double z, double u, double d, double c, double log_d,
                                 double* res) {
    double t = 1.0 + c * z;
    double v = t * t * t;
    double log_v = log(v);
    if (!(v > 0)) return 0;
    double rhs = 0.5 * z * z + d - d * v + d * log_v;
    if (-u * (1.0 - 0x1p-20) < rhs || log1p(-u) < rhs) {
        *res = log_d + log_v;
        return 1;
    }
    return 0;
}

/* Rounds 1..63 for element j (round 0 rejected it); 0 when none accepted. */
static int dali_log_gamma_rest(uint64_t key, int64_t sid, int var, double d, double c,
                               double log_d, int64_t j, double* res) {
    for (int r = 1; r < 64; r++) {
        double z[2], u[2];
        dali_draw_pair(key, sid, (uint32_t)(2 + 4 * r + 2 * var), (uint32_t)(j / 2), 1, z);
        dali_draw_pair(key, sid, (uint32_t)(3 + 4 * r + 2 * var), (uint32_t)(j / 2), 0, u);
        if (dali_mt_accept(z[j & 1], u[j & 1], d, c, log_d, res)) return 1;
    }
    return 0;
}

#define DALI_BETA_PAIRS 128

/* log Gamma(k) of elements first .. first + m - 1 (first even) into res; round 0 and the
 * boost uniforms from runs of Philox blocks, the rare rejections one at a time.  The normals
 * of round 0 are made in passes (the radii, then the angles, then the tests), each a run of
 * independent library calls the CPU overlaps.  Built without SLP vectorization: it would load
 * sincos's two results, just stored one by one, as one vector, which store forwarding cannot
 * serve (a stall per pair, a fifth of the time). */
__attribute__((optimize("no-tree-slp-vectorize")))
static int dali_log_gamma_run(uint64_t key, int64_t sid, int var, double k, int64_t first,
                              int64_t m, double* res) {
    uint32_t wz[4 * DALI_BETA_PAIRS], wu[4 * DALI_BETA_PAIRS];
    int boost = k < 1.0;
    double d = (boost ? k + 1.0 : k) - 1.0 / 3.0;
    double c = 1.0 / sqrt(9.0 * d);
    double log_d = log(d);
    int64_t nb = (m + 1) / 2;
    uint32_t a0 = (uint32_t)sid, a1 = (uint32_t)(sid >> 32), b0 = (uint32_t)(first / 2);
    dali_philox_blocks(key, a0, a1, (uint32_t)(2 + 2 * var), b0, nb, wz);
    dali_philox_blocks(key, a0, a1, (uint32_t)(3 + 2 * var), b0, nb, wu);
    double z[2 * DALI_BETA_PAIRS];
    for (int64_t b = 0; b < nb; b++) {
        double u1 = 1.0 - dali_draw_u01(wz[4 * b], wz[4 * b + 1]);
        z[2 * b] = sqrt(-2.0 * log(u1));
    }
    for (int64_t b = 0; b < nb; b++) {
        double u2 = dali_draw_u01(wz[4 * b + 2], wz[4 * b + 3]);
        double rad = z[2 * b];
        z[2 * b] = rad * cos(6.283185307179586 * u2);
        z[2 * b + 1] = rad * sin(6.283185307179586 * u2);
    }
    for (int64_t e = 0; e < m; e++) {
        double u = dali_draw_u01(wu[2 * e], wu[2 * e + 1]);
        if (!dali_mt_accept(z[e], u, d, c, log_d, &res[e]) &&
            !dali_log_gamma_rest(key, sid, var, d, c, log_d, first + e, &res[e]))
            return 0;
    }
    if (boost) {
        dali_philox_blocks(key, a0, a1, (uint32_t)var, b0, nb, wu);
        for (int64_t e = 0; e < m; e++)
            res[e] += log1p(-dali_draw_u01(wu[2 * e], wu[2 * e + 1])) / k;
    }
    return 1;
}

static void dali_beta_run(uint64_t key, int is_double, DaliBetaJob* j) {
    double lx[2 * DALI_BETA_PAIRS], ly[2 * DALI_BETA_PAIRS];
    for (int64_t i = 0; i < j->count; i += 2 * DALI_BETA_PAIRS) {
        int64_t m = j->count - i;
        if (m > 2 * DALI_BETA_PAIRS) m = 2 * DALI_BETA_PAIRS;
        if (!dali_log_gamma_run(key, j->sample_id, 0, j->alpha, j->first + i, m, lx) ||
            !dali_log_gamma_run(key, j->sample_id, 1, j->beta, j->first + i, m, ly)) {
            j->failed = 1;
            return;
        }
        for (int64_t e = 0; e < m; e++) {
            double x = 1.0 / (1.0 + exp(ly[e] - lx[e]));
            if (is_double)
                ((double*)j->out)[i + e] = x;
            else
                ((float*)j->out)[i + e] = (float)x;
        }
    }
}

#endif
