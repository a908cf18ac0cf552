// Products of affine transforms, the loop of fn.transforms.* (_ext/kernels/transforms.pyx).
//
// Every part of a batch (a sample, or a frame of a sequence) has `count` factors F0, F1, ...,
// each an n x (n+1) float32 affine matrix [A | t] (taken as the homogeneous matrix with the
// last row 0 .. 0 1) or an (n+1) x (n+1) float64 homogeneous matrix.  The product is
// acc = F0, then acc = Fi @ acc (Fi applied after acc), or acc @ Fi with `reverse`, in float64;
// the top n rows of the last product are stored as float32.
//
// Each element of a product is what NumPy's matmul gets from OpenBLAS's GEMM kernels for these
// homogeneous matrices: the n+1 terms in order, accumulated from +0.0 by fused multiply-adds,
// the homogeneous rows' zeros and ones included (an infinity times one of those zeros gives a
// NaN, as it does there).  `fma` is an instruction in dali_tf_compose_fma, built for CPUs with
// FMA, and glibc's correctly rounded function otherwise: the same values either way.
#ifndef DALI_EXT_KERNELS_TRANSFORMS_H_
#define DALI_EXT_KERNELS_TRANSFORMS_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#define DALI_TF_MAX_DIM 7        // n + 1 for n = 6, the most dimensions a transform has

typedef struct {
    const char* const* at;       // per part: the first byte of the part's matrix
    int f64;                     // 1: (n+1) x (n+1) float64, 0: n x (n+1) float32
} dali_tf_factor;

static inline void dali_tf_load(double* h, const dali_tf_factor* f, int64_t p, int n) {
    int d = n + 1;
    if (f->f64) {
        memcpy(h, f->at[p], sizeof(double) * d * d);
        return;
    }
    const float* a = (const float*)f->at[p];
    for (int i = 0; i < n * d; i++) h[i] = a[i];
    for (int j = 0; j < n; j++) h[n * d + j] = 0.0;
    h[n * d + n] = 1.0;
}

__attribute__((always_inline, optimize("fp-contract=off")))
static inline void dali_tf_compose_impl(float* out, int64_t parts, int n,
                                        const dali_tf_factor* f, int count, int reverse) {
    int d = n + 1;
    double acc[DALI_TF_MAX_DIM * DALI_TF_MAX_DIM], x[DALI_TF_MAX_DIM * DALI_TF_MAX_DIM];
    double prod[DALI_TF_MAX_DIM * DALI_TF_MAX_DIM];
    for (int64_t p = 0; p < parts; p++) {
        dali_tf_load(acc, &f[0], p, n);
        for (int c = 1; c < count; c++) {
            dali_tf_load(x, &f[c], p, n);
            const double* l = reverse ? acc : x;
            const double* r = reverse ? x : acc;
            int rows = c == count - 1 ? n : d;      // the last product: the rows stored only
            for (int i = 0; i < rows; i++) {
                for (int j = 0; j < d; j++) {
                    double s = 0.0;
                    for (int k = 0; k < d; k++) s = fma(l[i * d + k], r[k * d + j], s);
                    prod[i * d + j] = s;
                }
            }
            memcpy(acc, prod, sizeof(double) * rows * d);
        }
        float* o = out + p * n * d;
        for (int i = 0; i < n * d; i++) o[i] = (float)acc[i];
    }
}

static void dali_tf_compose_plain(float* out, int64_t parts, int n, const dali_tf_factor* f,
                                  int count, int reverse) {
    dali_tf_compose_impl(out, parts, n, f, count, reverse);
}

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("fma")))
static void dali_tf_compose_fma(float* out, int64_t parts, int n, const dali_tf_factor* f,
                                int count, int reverse) {
    dali_tf_compose_impl(out, parts, n, f, count, reverse);
}

static inline void dali_tf_compose(float* out, int64_t parts, int n, const dali_tf_factor* f,
                                   int count, int reverse) {
    if (__builtin_cpu_supports("fma"))
        dali_tf_compose_fma(out, parts, n, f, count, reverse);
    else
        dali_tf_compose_plain(out, parts, n, f, count, reverse);
}
#else
static inline void dali_tf_compose(float* out, int64_t parts, int n, const dali_tf_factor* f,
                                   int count, int reverse) {
    dali_tf_compose_plain(out, parts, n, f, count, reverse);
}
#endif

#endif  // DALI_EXT_KERNELS_TRANSFORMS_H_
