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

/* Beta(alpha, beta) = X / (X + Y), X ~ Gamma(alpha), Y ~ Gamma(beta), with the streams of
 * dali/ops/random/beta.py.  Gamma(k) for variable `var` (0: X, 1: Y) by Marsaglia-Tsang with
 * d = (k < 1 ? k + 1 : k) - 1/3, c = 1 / sqrt(9 d): round r (< 64) of element j takes normal
 * z = draw j of stream 2 + 4r + 2var (Box-Muller as above, its sine and cosine from
 * dali_sincos_2pi) and uniform u = draw j of stream 3 + 4r + 2var;
 * v = (1 + c z)^3 (as t * t * t) is accepted when v > 0 and either u > 0.0331 z^4 (the
 * method's squeeze, z^4 as (z z)(z z)) or log1p(-u) < 0.5 z z + d - d v + d log v, giving
 * d v.  When alpha and beta are both at least 1 the result is X / (X + Y) from d v.
 * Otherwise it is computed from logs, 1 / (1 + exp(log Y - log X)), so that small shape
 * parameters (whose gamma draws underflow) stay exact: log X = log d + log v, and k < 1 adds
 * log1p(-u') / k, u' = draw j of stream var; this path makes no use of the squeeze.
 * Elements j and j + 1 share Philox blocks, so a pair is drawn together. */
typedef struct {
    char* out;          /* the chunk's first element */
    int64_t first;      /* its index in the sample (even) */
    int64_t count;
    int64_t sample_id;
    double alpha, beta;
    int failed;         /* set when 64 rounds left an element unaccepted */
} DaliBetaJob;

/* sin and cos of 2 pi u, u in [0, 1), for the normals of the beta draws (the C library's
 * sincos took half of their time): 8 u splits exactly into an octant q and a fraction f, and
 * fdlibm's kernel polynomials (error below 1 ulp on [0, pi/4]) give the sine and cosine of
 * pi/4 f, or of pi/4 (1 - f) in odd octants, which the octant's symmetries map to the result
 * (within 2 ulps of the exact sin and cos of 2 pi u: 1.82 at most over 2e7 random u). */
static inline void dali_sincos_2pi(double u, double* sin_out, double* cos_out) {
    double x = 8.0 * u;
    int q = (int)x;
    double f[2] = {x - q, 0.0};
    f[1] = 1.0 - f[0];
    double a = 0.78539816339744830962 * f[q & 1];
    double z = a * a;
    double rs = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 +
                z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08 +
                z * 1.58969099521155010221e-10)));
    double rc = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 +
                z * (2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07 +
                z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
    double hz = 0.5 * z, w = 1.0 - hz;
    double sc[2];
    sc[0] = a + (z * a) * (-1.66666666666666324348e-01 + z * rs);
    sc[1] = w + (((1.0 - w) - hz) + z * rc);
    /* the octant's symmetries as indices and exact signs, without branches (q is random) */
    int swap = ((q + 1) >> 1) & 1;
    *sin_out = sc[swap] * (double)(1 - 2 * (q >> 2));
    *cos_out = sc[swap ^ 1] * (double)(1 - 2 * (((q + 2) >> 2) & 1));
}

static inline void dali_draw_pair(uint64_t key, int64_t sid, uint32_t stream, uint32_t block,
                                  int normal, double* x) {
    uint32_t w[4];
    dali_philox_one(key, (uint32_t)sid, (uint32_t)(sid >> 32), stream, block, w);
    if (normal) {
        double u1 = 1.0 - dali_draw_u01(w[0], w[1]);
        double u2 = dali_draw_u01(w[2], w[3]);
        double rad = sqrt(-2.0 * log(u1)), sn, cs;
        dali_sincos_2pi(u2, &sn, &cs);
        x[0] = rad * cs;
        x[1] = rad * sn;
    } else {
        x[0] = dali_draw_u01(w[0], w[1]);
        x[1] = dali_draw_u01(w[2], w[3]);
    }
}

/* The Marsaglia-Tsang test of one (z, u): writes d v (`lin`) or log d + log v and returns 1
 * on acceptance.  log1p(-u) <= -u for u in [0, 1), and the C library's log1p is within a few
 * ulps of it, so its value is at most -u * (1 - 2^-20): when that bound is below the right
 * side the test accepts without computing log1p (nearly every acceptance), with the same
 * outcome. */
static inline int dali_mt_accept(double z, double u, double d, double c, double log_d, int lin,
                                 double* res) {
    double t = 1.0 + c * z;
    double v = t * t * t;
    if (!(v > 0)) return 0;
    if (lin && u > 0.0331 * ((z * z) * (z * z))) {
        *res = d * v;
        return 1;
    }
    double log_v = log(v);
    double rhs = 0.5 * z * z + d - d * v + d * log_v;
    if (-u * (1.0 - 0x1p-20) < rhs || log1p(-u) < rhs) {
        *res = lin ? d * v : log_d + log_v;
        return 1;
    }
    return 0;
}

/* Rounds 1..63 for element j (round 0 rejected it); 0 when none accepted. */
static int dali_gamma_rest(uint64_t key, int64_t sid, int var, double d, double c, double log_d,
                           int lin, int64_t j, double* res) {
    for (int r = 1; r < 64; r++) {
        double z[2], u[2];
        dali_draw_pair(key, sid, (uint32_t)(2 + 4 * r + 2 * var), (uint32_t)(j / 2), 1, z);
        dali_draw_pair(key, sid, (uint32_t)(3 + 4 * r + 2 * var), (uint32_t)(j / 2), 0, u);
        if (dali_mt_accept(z[j & 1], u[j & 1], d, c, log_d, lin, res)) return 1;
    }
    return 0;
}

#define DALI_BETA_PAIRS 128

/* Gamma(k) (`lin`, k >= 1) or log Gamma(k) of elements first .. first + m - 1 (first even)
 * into res; round 0 and the boost uniforms from runs of Philox blocks, the rare rejections
 * one at a time.  The normals of round 0 are made in passes (the radii, then the angles, then
 * the tests), each a run of independent calls the CPU overlaps. */
static int dali_gamma_run(uint64_t key, int64_t sid, int var, double k, int lin,
                          int64_t first, int64_t m, double* res) {
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
        double rad = z[2 * b], sn, cs;
        dali_sincos_2pi(u2, &sn, &cs);
        z[2 * b] = rad * cs;
        z[2 * b + 1] = rad * sn;
    }
    for (int64_t e = 0; e < m; e++) {
        double u = dali_draw_u01(wu[2 * e], wu[2 * e + 1]);
        if (!dali_mt_accept(z[e], u, d, c, log_d, lin, &res[e]) &&
            !dali_gamma_rest(key, sid, var, d, c, log_d, lin, first + e, &res[e]))
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
    double gx[2 * DALI_BETA_PAIRS], gy[2 * DALI_BETA_PAIRS];
    const int lin = j->alpha >= 1.0 && j->beta >= 1.0;
    for (int64_t i = 0; i < j->count; i += 2 * DALI_BETA_PAIRS) {
        int64_t m = j->count - i;
        if (m > 2 * DALI_BETA_PAIRS) m = 2 * DALI_BETA_PAIRS;
        if (!dali_gamma_run(key, j->sample_id, 0, j->alpha, lin, j->first + i, m, gx) ||
            !dali_gamma_run(key, j->sample_id, 1, j->beta, lin, j->first + i, m, gy)) {
            j->failed = 1;
            return;
        }
        for (int64_t e = 0; e < m; e++) {
            double x = lin ? gx[e] / (gx[e] + gy[e]) : 1.0 / (1.0 + exp(gy[e] - gx[e]));
            if (is_double)
                ((double*)j->out)[i + e] = x;
            else
                ((float*)j->out)[i + e] = (float)x;
        }
    }
}

#endif
