/* The noise of fn.noise.gaussian, fn.noise.salt_and_pepper and fn.noise.shot, written straight
 * into the output sample from counter-based random draws (random_draws.h: Philox4x32-10 block
 * b of stream s of a sample has counter (sample id low, high, s, b); draw q takes half q % 2 of
 * block q / 2), so the values depend on the key, the sample id and the element only, never on
 * the number of threads or on how a sample is cut into jobs.
 *
 * A job is a range [first, first + count) of "pixels" of one sample (first even), where pixel q
 * covers the `nc` elements ((q / inner) * nc + c) * inner + q % inner, c < nc: nc = 1 for
 * elementwise noise; the channels of a pixel for salt-and-pepper without per_channel
 * (inner = 1 for channel-last, the plane size for channel-first).
 *   GAUSSIAN  out = in + (float)(mean + stddev * z), z standard normal (Box-Muller of block
 *             q / 2 of stream 0, as random_draws.h), in float32
 *   SALT      u = uniform q of stream 0, v = uniform q of stream 1: u < prob replaces the
 *             pixel by salt (v < salt_vs_pepper) or pepper (given as the output type's value)
 *   SHOT      out = poisson(max(0, in / factor)) * factor (float32; factor 0 gives 0):
 *             lambda < 10 by inversion of uniform q of stream 0; else PTRS (Hoermann 1993)
 *             with round 0 on uniforms q of streams 0 and 1 and round r on streams 2r, 2r + 1
 * Integer outputs round half away from zero and saturate (random_draws.h's dali_draw_int). */
#ifndef DALI_EXT_KERNELS_NOISE_H_
#define DALI_EXT_KERNELS_NOISE_H_

#include <math.h>
#include <stdint.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"   /* random_draws.h's batch runners */
#include "random_draws.h"
#pragma GCC diagnostic pop

enum { DALI_NOISE_GAUSSIAN = 0, DALI_NOISE_SALT, DALI_NOISE_SHOT };

typedef struct {
    const char* src;    /* the sample's first element */
    char* dst;
    int64_t first, count;   /* pixels */
    int64_t nc, inner;
    int64_t sample_id;
    double a, b, c, d;  /* mean, stddev | prob, salt_vs_pepper, salt, pepper | factor */
} DaliNoiseJob;

typedef struct {
    uint64_t key;
    int mode, dtype;    /* DALI_DT_* of random_draws.h, same for input and output */
    double lo, hi;      /* integer clamp range */
    int64_t itemsize;
} DaliNoiseBatch;

static inline double dali_noise_load(int dtype, const char* p, int64_t i) {
    switch (dtype) {
    case DALI_DT_F32: return ((const float*)p)[i];
    case DALI_DT_U8: return ((const uint8_t*)p)[i];
    case DALI_DT_I8: return ((const int8_t*)p)[i];
    case DALI_DT_U16: return ((const uint16_t*)p)[i];
    case DALI_DT_I16: return ((const int16_t*)p)[i];
    case DALI_DT_U32: return ((const uint32_t*)p)[i];
    case DALI_DT_I32: return ((const int32_t*)p)[i];
    case DALI_DT_U64: return (double)((const uint64_t*)p)[i];
    default: return (double)((const int64_t*)p)[i];
    }
}

/* Store v (a float32 result widened) converted to the type; `raw` stores v as a value already
   of the type (the salt and pepper values), cast without rounding. */
static inline void dali_noise_store(const DaliNoiseBatch* bt, char* p, int64_t i, double v,
                                    int raw) {
    if (bt->dtype == DALI_DT_F32) {
        ((float*)p)[i] = (float)v;
        return;
    }
    if (!raw)
        v = v == v ? dali_draw_int(v, bt->lo, bt->hi) : 0.0;
    switch (bt->dtype) {
    case DALI_DT_U8: ((uint8_t*)p)[i] = (uint8_t)v; break;
    case DALI_DT_I8: ((int8_t*)p)[i] = (int8_t)v; break;
    case DALI_DT_U16: ((uint16_t*)p)[i] = (uint16_t)v; break;
    case DALI_DT_I16: ((int16_t*)p)[i] = (int16_t)v; break;
    case DALI_DT_U32: ((uint32_t*)p)[i] = (uint32_t)v; break;
    case DALI_DT_I32: ((int32_t*)p)[i] = (int32_t)v; break;
    case DALI_DT_U64: ((uint64_t*)p)[i] = v >= 18446744073709551615.0 ? UINT64_MAX
                                                                       : (uint64_t)v; break;
    default: ((int64_t*)p)[i] = v >= 9223372036854775807.0 ? INT64_MAX : (int64_t)v; break;
    }
}

/* Poisson(lam) for pixel q: inversion below 10, else PTRS. */
static double dali_noise_poisson(uint64_t key, int64_t sid, int64_t q, double lam, double u0,
                                 double u1) {
    if (!(lam > 0))
        return 0.0;
    if (lam < 10) {
        double p = exp(-lam), s = p;
        int k = 0;
        while (u0 > s && k < 1000) {
            k++;
            p *= lam / k;
            s += p;
        }
        return k;
    }
    double slam = sqrt(lam), loglam = log(lam);
    double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (int r = 0; r < 64; r++) {
        double U, V;
        if (r == 0) {
            U = u0 - 0.5;
            V = u1;
        } else {
            double x[2], y[2];
            dali_draw_pair(key, sid, (uint32_t)(2 * r), (uint32_t)(q / 2), 0, x);
            dali_draw_pair(key, sid, (uint32_t)(2 * r + 1), (uint32_t)(q / 2), 0, y);
            U = x[q & 1] - 0.5;
            V = y[q & 1];
        }
        double us = 0.5 - fabs(U);
        double k = floor((2 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr)
            return k;
        if (k < 0 || (us < 0.013 && V > us))
            continue;
        if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1))
            return k;
    }
    return floor(lam);      /* not reached in practice: 64 rejections in a row */
}

/* Salt and pepper on pixels q0 .. q0 + m of job j (draws w0, w1 of streams 0 and 1 from block
   q0 / 2): every element is written, the pixel's replacement or its source value chosen
   without a branch (a replacement at probability prob is a branch the CPU mispredicts). */
template <typename T>
static void dali_noise_salt_typed(const DaliNoiseBatch* bt, const DaliNoiseJob* j,
                                  const uint32_t* w0, const uint32_t* w1, int64_t q0,
                                  int64_t m) {
    const T* __restrict__ src = (const T*)j->src;
    T* __restrict__ dst = (T*)j->dst;
    T salt, pepper;             /* the values as dali_noise_store casts them */
    dali_noise_store(bt, (char*)&salt, 0, j->c, 1);
    dali_noise_store(bt, (char*)&pepper, 0, j->d, 1);
    const double prob = j->a, svp = j->b;
    const int64_t nc = j->nc, inner = j->inner;
    int64_t o = q0 / inner, x = q0 % inner;     /* pixel q0 + k is at o * nc * inner + x */
    for (int64_t k = 0; k < m; k++) {
        const int64_t e = o * nc * inner + x;
        if (++x == inner) {
            x = 0;
            o++;
        }
        const bool replace = dali_draw_u01(w0[2 * k], w0[2 * k + 1]) < prob;
        const T value = dali_draw_u01(w1[2 * k], w1[2 * k + 1]) < svp ? salt : pepper;
        for (int64_t c = 0; c < nc; c++) {
            const int64_t i = e + c * inner;
            const T in = src[i];    /* read unconditionally: the select needs no branch */
            dst[i] = replace ? value : in;
        }
    }
}

static void dali_noise_salt(const DaliNoiseBatch* bt, const DaliNoiseJob* j,
                            const uint32_t* w0, const uint32_t* w1, int64_t q0, int64_t m) {
    switch (bt->dtype) {
    case DALI_DT_F32: dali_noise_salt_typed<float>(bt, j, w0, w1, q0, m); break;
    case DALI_DT_U8: dali_noise_salt_typed<uint8_t>(bt, j, w0, w1, q0, m); break;
    case DALI_DT_I8: dali_noise_salt_typed<int8_t>(bt, j, w0, w1, q0, m); break;
    case DALI_DT_U16: dali_noise_salt_typed<uint16_t>(bt, j, w0, w1, q0, m); break;
    case DALI_DT_I16: dali_noise_salt_typed<int16_t>(bt, j, w0, w1, q0, m); break;
    case DALI_DT_U32: dali_noise_salt_typed<uint32_t>(bt, j, w0, w1, q0, m); break;
    case DALI_DT_I32: dali_noise_salt_typed<int32_t>(bt, j, w0, w1, q0, m); break;
    case DALI_DT_U64: dali_noise_salt_typed<uint64_t>(bt, j, w0, w1, q0, m); break;
    default: dali_noise_salt_typed<int64_t>(bt, j, w0, w1, q0, m); break;
    }
}

static void dali_noise_run(const DaliNoiseBatch* bt, const DaliNoiseJob* j) {
    uint32_t w0[4 * DALI_DRAW_BLOCKS], w1[4 * DALI_DRAW_BLOCKS];
    const int64_t sid = j->sample_id, nc = j->nc, inner = j->inner;
    const uint32_t lo_id = (uint32_t)sid, hi_id = (uint32_t)(sid >> 32);
    int64_t done = 0;
    while (done < j->count) {
        int64_t m = j->count - done;
        if (m > 2 * DALI_DRAW_BLOCKS) m = 2 * DALI_DRAW_BLOCKS;
        int64_t nb = (m + 1) / 2, q0 = j->first + done;
        dali_philox_blocks(bt->key, lo_id, hi_id, 0, (uint32_t)(q0 / 2), nb, w0);
        if (bt->mode != DALI_NOISE_GAUSSIAN)
            dali_philox_blocks(bt->key, lo_id, hi_id, 1, (uint32_t)(q0 / 2), nb, w1);
        /* pixel q0 + k is at element o * nc * inner + x: o, x stepped, not divided per pixel */
        int64_t o = q0 / inner, x = q0 % inner;
        if (bt->mode == DALI_NOISE_GAUSSIAN) {
            for (int64_t k = 0; k < m; k += 2) {    /* both normals of block k / 2 */
                const uint32_t* b = w0 + 2 * k;
                double u1 = 1.0 - dali_draw_u01(b[0], b[1]);
                double u2 = dali_draw_u01(b[2], b[3]);
                double rad = sqrt(-2.0 * log(u1));
                double z[2] = {rad * cos(6.283185307179586 * u2),
                               rad * sin(6.283185307179586 * u2)};
                for (int64_t h = 0; h < 2 && k + h < m; h++) {
                    int64_t i = o * nc * inner + x;
                    float noise = (float)(j->a + j->b * z[h]);
                    float in = (float)dali_noise_load(bt->dtype, j->src, i);
                    dali_noise_store(bt, j->dst, i, (double)(in + noise), 0);
                    if (++x == inner) {
                        x = 0;
                        o++;
                    }
                }
            }
            done += m;
            continue;
        }
        if (bt->mode == DALI_NOISE_SALT) {
            dali_noise_salt(bt, j, w0, w1, q0, m);
            done += m;
            continue;
        }
        for (int64_t k = 0; k < m; k++) {
            int64_t q = q0 + k, e = o * nc * inner + x;
            if (++x == inner) {
                x = 0;
                o++;
            }
            double u = dali_draw_u01(w0[2 * k], w0[2 * k + 1]);
            double v = dali_draw_u01(w1[2 * k], w1[2 * k + 1]);
            for (int64_t c = 0; c < nc; c++) {    /* shot */
                int64_t i = e + c * inner;
                float f = (float)j->a, in = (float)dali_noise_load(bt->dtype, j->src, i);
                float lam = f == 0.0f ? 0.0f : in / f;
                lam = lam > 0.0f ? lam : 0.0f;
                float k_ = (float)dali_noise_poisson(bt->key, sid, q, lam, u, v);
                dali_noise_store(bt, j->dst, i, (double)(k_ * f), 0);
            }
        }
        done += m;
    }
}

#endif
