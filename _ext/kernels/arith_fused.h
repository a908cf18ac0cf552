/* x * y + z in one pass, for arith.pyx's two-step programs (a multiply whose result an add
 * reads): what NumPy's multiply and add loops give one after the other, without the scratch
 * chunk between them.  The product is rounded to T before the sum (two roundings, as the two
 * loops do): the loops are built with fp-contract=off, so that no build (DALI_MARCH=native
 * included) turns the two into one fused multiply-add.  Each operand is
 * either flat (element i) or one value (element 0); `product_first` says whether the product
 * is the add's first operand, as the program states it. */
#ifndef DALI_EXT_KERNELS_ARITH_FUSED_H_
#define DALI_EXT_KERNELS_ARITH_FUSED_H_

#include <stdint.h>

namespace arith_fused {

typedef void (*loop_fn)(const char*, const char*, const char*, char*, int64_t);

#define ARITH_FUSED_LOOP(NAME, ATTR)                                                  \
    template <typename T, bool FX, bool FY, bool FZ, bool PRODUCT_FIRST>             \
    ATTR static void NAME(const char* x, const char* y, const char* z, char* out,    \
                          int64_t n) {                                                \
        const T* px = (const T*)x;                                                    \
        const T* py = (const T*)y;                                                    \
        const T* pz = (const T*)z;                                                    \
        T* po = (T*)out;                                                              \
        for (int64_t i = 0; i < n; i++) {                                             \
            T p = px[FX ? i : 0] * py[FY ? i : 0];                                    \
            po[i] = PRODUCT_FIRST ? p + pz[FZ ? i : 0] : pz[FZ ? i : 0] + p;          \
        }                                                                             \
    }

ARITH_FUSED_LOOP(loop_base, __attribute__((optimize("fp-contract=off"))))
#if defined(__x86_64__) && defined(__GNUC__)
ARITH_FUSED_LOOP(loop_avx2, __attribute__((target("avx2"), optimize("fp-contract=off"))))
#endif
#undef ARITH_FUSED_LOOP

/* The 16 variants of one loop for T, indexed by fx | fy << 1 | fz << 2 | product_first << 3. */
#define ARITH_FUSED_TABLE(LOOP, T)                                                    \
    {LOOP<T, 0, 0, 0, 0>, LOOP<T, 1, 0, 0, 0>, LOOP<T, 0, 1, 0, 0>, LOOP<T, 1, 1, 0, 0>, \
     LOOP<T, 0, 0, 1, 0>, LOOP<T, 1, 0, 1, 0>, LOOP<T, 0, 1, 1, 0>, LOOP<T, 1, 1, 1, 0>, \
     LOOP<T, 0, 0, 0, 1>, LOOP<T, 1, 0, 0, 1>, LOOP<T, 0, 1, 0, 1>, LOOP<T, 1, 1, 0, 1>, \
     LOOP<T, 0, 0, 1, 1>, LOOP<T, 1, 0, 1, 1>, LOOP<T, 0, 1, 1, 1>, LOOP<T, 1, 1, 1, 1>}

static const loop_fn base_loops[2][16] = {ARITH_FUSED_TABLE(loop_base, float),
                                          ARITH_FUSED_TABLE(loop_base, double)};
#if defined(__x86_64__) && defined(__GNUC__)
static const loop_fn avx2_loops[2][16] = {ARITH_FUSED_TABLE(loop_avx2, float),
                                          ARITH_FUSED_TABLE(loop_avx2, double)};
#endif
#undef ARITH_FUSED_TABLE

/* Whether mul_add takes the AVX2 loops: set by detect() (the CPU has AVX2), switched off by
 * tests to compare both paths. */
static bool avx2 = false;

static inline void detect() {
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2");
#endif
}

/* out[i] = x[i] * y[i] + z[i] (or z[i] + x[i] * y[i]) for i < n, T float (is_double 0) or
 * double; a step of 0 marks an operand of one value. */
static inline void mul_add(bool is_double, const char* x, int64_t x_step, const char* y,
                           int64_t y_step, const char* z, int64_t z_step, bool product_first,
                           char* out, int64_t n) {
    int k = (x_step != 0) | (y_step != 0) << 1 | (z_step != 0) << 2 | product_first << 3;
#if defined(__x86_64__) && defined(__GNUC__)
    if (avx2) {
        avx2_loops[is_double][k](x, y, z, out, n);
        return;
    }
#endif
    base_loops[is_double][k](x, y, z, out, n);
}

}  // namespace arith_fused

#endif
