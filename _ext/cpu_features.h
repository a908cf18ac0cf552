/* Which x86 instruction-set extensions this CPU has, asked at run time.
 *
 * Compiled into dali._ext.cpu, which is built for the baseline x86-64 instruction set so that it
 * runs on any x86-64 CPU and can refuse the other extensions (built with -march=x86-64-v2 by
 * default) before their code runs and stops the process with an illegal instruction.
 * __builtin_cpu_supports takes only a string literal, hence the table: the names are GCC's and
 * clang's, and setup.py reads this list to know which of the compiler's __<NAME>__ macros it
 * can check (`sse4.1` <- __SSE4_1__).  For AVX and later, libgcc and compiler-rt also ask
 * whether the OS saves the wider registers.
 */
#ifndef DALI_CPU_FEATURES_H
#define DALI_CPU_FEATURES_H

#include <string.h>

#define DALI_CPU_FEATURE_LIST(X) \
    X("sse3") X("ssse3") X("sse4.1") X("sse4.2") X("popcnt") \
    X("avx") X("avx2") X("fma") X("bmi") X("bmi2") \
    X("avx512f") X("avx512vl") X("avx512bw") X("avx512dq") X("avx512cd")

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define DALI_CPU_CHECKS 1
#define DALI_CPU_ASK(name_) if (strcmp(name, name_) == 0) return __builtin_cpu_supports(name_) != 0;

/* 1 if the CPU has `name`, 0 if not, -1 for a name outside the table. */
static inline int dali_cpu_has(const char *name) {
    __builtin_cpu_init();
    DALI_CPU_FEATURE_LIST(DALI_CPU_ASK)
    return -1;
}
#undef DALI_CPU_ASK
#else
#define DALI_CPU_CHECKS 0
static inline int dali_cpu_has(const char *name) { (void)name; return -1; }
#endif

#endif
