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
// FMA, and glibc's correctly rounded function otherwise: the same values either way.  The
// loop is instantiated per number of dimensions, so that the compiler unrolls the products.
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

template <int D>
__attribute__((always_inline))
static inline void dali_tf_load(double* h, const dali_tf_factor* f, int64_t p) {
    if (f->f64) {
        memcpy(h, f->at[p], sizeof(double) * D * D);
        return;
    }
    const float* a = (const float*)f->at[p];
    for (int i = 0; i < (D - 1) * D; i++) h[i] = a[i];
    for (int j = 0; j < D - 1; j++) h[(D - 1) * D + j] = 0.0;
    h[D * D - 1] = 1.0;
}

// Rows [r0, r1) of l @ r, D x D matrices.
template <int D>
__attribute__((always_inline, optimize("fp-contract=off")))
static inline void dali_tf_product(double* prod, const double* l, const double* r, int r0,
                                   int r1) {
    for (int i = r0; i < r1; i++) {
        for (int j = 0; j < D; j++) {
            double s = 0.0;
            for (int k = 0; k < D; k++) s = fma(l[i * D + k], r[k * D + j], s);
            prod[i * D + j] = s;
        }
    }
}

// The loop for n = D - 1 dimensions, unrolled by the compiler.
template <int D>
__attribute__((always_inline))
static inline void dali_tf_compose_d(float* out, int64_t parts, const dali_tf_factor* f,
                                     int count, int reverse) {
    double a[D * D], b[D * D], x[D * D];
    for (int64_t p = 0; p < parts; p++) {
        double* acc = a;
        double* prod = b;
        dali_tf_load<D>(acc, &f[0], p);
        for (int c = 1; c < count; c++) {
            dali_tf_load<D>(x, &f[c], p);
            const double* l = reverse ? acc : x;
            const double* r = reverse ? x : acc;
            dali_tf_product<D>(prod, l, r, 0, D - 1);
            if (c < count - 1)                  // the last product: the rows stored only
                dali_tf_product<D>(prod, l, r, D - 1, D);
            double* t = acc;
            acc = prod;
            prod = t;
        }
        float* o = out + p * (D - 1) * D;
        for (int i = 0; i < (D - 1) * D; i++) o[i] = (float)acc[i];
    }
}

__attribute__((always_inline))
static inline void dali_tf_compose_impl(float* out, int64_t parts, int n,
                                        const dali_tf_factor* f, int count, int reverse) {
    switch (n) {
        case 1: dali_tf_compose_d<2>(out, parts, f, count, reverse); break;
        case 2: dali_tf_compose_d<3>(out, parts, f, count, reverse); break;
        case 3: dali_tf_compose_d<4>(out, parts, f, count, reverse); break;
        case 4: dali_tf_compose_d<5>(out, parts, f, count, reverse); break;
        case 5: dali_tf_compose_d<6>(out, parts, f, count, reverse); break;
        default: dali_tf_compose_d<7>(out, parts, f, count, reverse); break;
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
    __builtin_cpu_init();
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
