// Float32 add, subtract and multiply writing their results with streaming (non-temporal)
// stores: one arithmetic operation (arith.pyx `run`) whose output is larger than the
// last-level cache; and a streaming copy for the results of whole expressions (`copy`).  A plain store first reads every output line into the cache (three passes
// over memory: source, destination, write-back); a streaming store writes the line without
// reading it (two): about a third less time for a memory-bound operation (x * 0.5 on 64 float32
// images of 224x224x3, one thread).  Each value is the IEEE single-precision sum, difference
// or product of its operands, which is what NumPy's loops compute, so results are bit for bit
// theirs.  Builds without SSE2 have no streaming path (`available` is false: the caller keeps
// NumPy's loop).
#pragma once
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace arith_stream {

enum { OFF = 0, ADD = 1, SUBTRACT = 2, MULTIPLY = 3 };

#if defined(__SSE2__)
static const bool available = true;

template <int OP>
static inline float apply(float a, float b) {
    return OP == ADD ? a + b : OP == SUBTRACT ? a - b : a * b;
}

template <int OP>
static inline __m128 apply(__m128 a, __m128 b) {
    return OP == ADD ? _mm_add_ps(a, b) : OP == SUBTRACT ? _mm_sub_ps(a, b) : _mm_mul_ps(a, b);
}

// out[i] = a[i * sa] OP b[i * sb] for i < n, where a stride is 1 (an array) or 0 (one value).
template <int OP>
static void run_t(const float* a, int64_t sa, const float* b, int64_t sb, float* out,
                  int64_t n) {
    int64_t i = 0;
    for (; i < n && (reinterpret_cast<uintptr_t>(out + i) & 15) != 0; i++)
        out[i] = apply<OP>(a[i * sa], b[i * sb]);
    const __m128 one_a = _mm_set1_ps(a[0]), one_b = _mm_set1_ps(b[0]);
    for (; i + 4 <= n; i += 4) {
        const __m128 x = sa ? _mm_loadu_ps(a + i) : one_a;
        const __m128 y = sb ? _mm_loadu_ps(b + i) : one_b;
        _mm_stream_ps(out + i, apply<OP>(x, y));
    }
    for (; i < n; i++) out[i] = apply<OP>(a[i * sa], b[i * sb]);
}

// `op` (ADD, SUBTRACT or MULTIPLY) on n > 0 elements; call fence() before another thread
// reads `out`.
static inline void run(int op, const float* a, int64_t sa, const float* b, int64_t sb,
                       float* out, int64_t n) {
    if (op == ADD)
        run_t<ADD>(a, sa, b, sb, out, n);
    else if (op == SUBTRACT)
        run_t<SUBTRACT>(a, sa, b, sb, out, n);
    else
        run_t<MULTIPLY>(a, sa, b, sb, out, n);
}

// dst[0, nbytes) = src[0, nbytes) with streaming stores (the 16-byte-aligned part): the last
// step of an expression (arith.pyx `run_program`) computed into a cache-resident chunk, moved
// to an output larger than the last-level cache.  Call fence() before another thread reads
// `dst`.
static inline void copy(const char* src, char* dst, int64_t nbytes) {
    int64_t i = 0;
    for (; i < nbytes && (reinterpret_cast<uintptr_t>(dst + i) & 15) != 0; i++) dst[i] = src[i];
    for (; i + 16 <= nbytes; i += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    for (; i < nbytes; i++) dst[i] = src[i];
}

// Orders the streaming stores before the stores that follow (the pool's completion flag).
static inline void fence() { _mm_sfence(); }
#else
static const bool available = false;

static inline void run(int, const float*, int64_t, const float*, int64_t, float*, int64_t) {}

static inline void copy(const char*, char*, int64_t) {}

static inline void fence() {}
#endif

}  // namespace arith_stream
