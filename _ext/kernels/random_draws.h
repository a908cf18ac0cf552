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

#endif
