// Vector loops for float32/float64 -> int8, uint8, int16, uint16, int32 (included by cast.h).
//
// Each lane goes through float_to_int's steps in its order, the selects written as compare
// masks and blends:
//
//   c = v != v ? 0 : v;  c = c < lo ? lo : c;  c = c > below_hi ? below_hi : c;
//   t = trunc(c);  r = c - t;  out = t + (r >= 0.5) - (r <= -0.5);
//   out = v >= hi ? max : out;  out = v != v ? nan_as : out;
//
// float32 keeps t and out as int32 lanes (cvttps: c lies in [lo, below_hi], inside int32);
// float64 keeps them as doubles (every value is an integer below 2^31 in magnitude, so the
// double arithmetic is exact) and converts the result once.  The int32 lanes are then narrowed
// with saturating packs, which change nothing as every value lies in D's range.  So every
// path gives the scalar loop's result bit for bit; `simd_level` picks one: 0 scalar,
// 1 SSE4.1, 2 AVX2 (the CPU's best at start-up; `dali_cast_set_simd` lowers it for tests).
#ifndef DALI_EXT_KERNELS_CAST_SIMD_H_
#define DALI_EXT_KERNELS_CAST_SIMD_H_

#include <stdint.h>

#include <limits>
#include <type_traits>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE4_1__)
#define DALI_CAST_SIMD 1
#include <immintrin.h>
#endif

namespace dali_cast {

template <typename D>
constexpr bool simd_target() {
  return std::is_same<D, int8_t>::value || std::is_same<D, uint8_t>::value ||
         std::is_same<D, int16_t>::value || std::is_same<D, uint16_t>::value ||
         std::is_same<D, int32_t>::value;
}

#ifdef DALI_CAST_SIMD

static int detect_simd() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? 2 : 1;
}

static int simd_level = detect_simd();

template <typename D, typename S>
constexpr bool has_simd() {
  return simd_target<D>() && (std::is_same<S, float>::value || std::is_same<S, double>::value);
}

// float_to_int's constants for D, in F.
template <typename D, typename F>
struct limits {
  static constexpr F hi = (F)std::numeric_limits<D>::max();
  static constexpr F lo = (F)std::numeric_limits<D>::min();
  static constexpr F below_hi = hi * ((F)1 - std::numeric_limits<F>::epsilon() / 2);
  static constexpr int32_t max = std::numeric_limits<D>::max();
  static constexpr int32_t nan = nan_as<D>();
};

// ---- SSE4.1 ----

template <typename D>
static inline __m128i f32x4(__m128 v) {
  using L = limits<D, float>;
  __m128 nan = _mm_cmpunord_ps(v, v);
  __m128 c = _mm_andnot_ps(nan, v);
  c = _mm_blendv_ps(c, _mm_set1_ps(L::lo), _mm_cmplt_ps(c, _mm_set1_ps(L::lo)));
  c = _mm_blendv_ps(c, _mm_set1_ps(L::below_hi), _mm_cmpgt_ps(c, _mm_set1_ps(L::below_hi)));
  __m128i t = _mm_cvttps_epi32(c);
  __m128 r = _mm_sub_ps(c, _mm_cvtepi32_ps(t));
  __m128i up = _mm_castps_si128(_mm_cmpge_ps(r, _mm_set1_ps(0.5f)));     // -1 where true
  __m128i down = _mm_castps_si128(_mm_cmple_ps(r, _mm_set1_ps(-0.5f)));
  __m128i out = _mm_add_epi32(_mm_sub_epi32(t, up), down);
  out = _mm_blendv_epi8(out, _mm_set1_epi32(L::max),
                        _mm_castps_si128(_mm_cmpge_ps(v, _mm_set1_ps(L::hi))));
  return _mm_blendv_epi8(out, _mm_set1_epi32(L::nan), _mm_castps_si128(nan));
}

// Two doubles; the result in the low two int32 lanes.
template <typename D>
static inline __m128i f64x2(__m128d v) {
  using L = limits<D, double>;
  __m128d nan = _mm_cmpunord_pd(v, v);
  __m128d c = _mm_andnot_pd(nan, v);
  c = _mm_blendv_pd(c, _mm_set1_pd(L::lo), _mm_cmplt_pd(c, _mm_set1_pd(L::lo)));
  c = _mm_blendv_pd(c, _mm_set1_pd(L::below_hi), _mm_cmpgt_pd(c, _mm_set1_pd(L::below_hi)));
  __m128d t = _mm_round_pd(c, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  __m128d r = _mm_sub_pd(c, t);
  __m128d one = _mm_set1_pd(1.0);
  __m128d out = _mm_add_pd(t, _mm_and_pd(_mm_cmpge_pd(r, _mm_set1_pd(0.5)), one));
  out = _mm_sub_pd(out, _mm_and_pd(_mm_cmple_pd(r, _mm_set1_pd(-0.5)), one));
  out = _mm_blendv_pd(out, _mm_set1_pd((double)L::max), _mm_cmpge_pd(v, _mm_set1_pd(L::hi)));
  out = _mm_blendv_pd(out, _mm_set1_pd((double)L::nan), nan);
  return _mm_cvttpd_epi32(out);
}

// Sixteen int32 lanes (in range for D) stored as D.
template <typename D>
static inline void store16(D* d, __m128i a, __m128i b, __m128i c, __m128i e) {
  if constexpr (std::is_same<D, uint8_t>::value) {
    _mm_storeu_si128((__m128i*)d, _mm_packus_epi16(_mm_packus_epi32(a, b),
                                                   _mm_packus_epi32(c, e)));
  } else if constexpr (std::is_same<D, int8_t>::value) {
    _mm_storeu_si128((__m128i*)d, _mm_packs_epi16(_mm_packs_epi32(a, b),
                                                  _mm_packs_epi32(c, e)));
  } else if constexpr (std::is_same<D, uint16_t>::value) {
    _mm_storeu_si128((__m128i*)d, _mm_packus_epi32(a, b));
    _mm_storeu_si128((__m128i*)(d + 8), _mm_packus_epi32(c, e));
  } else if constexpr (std::is_same<D, int16_t>::value) {
    _mm_storeu_si128((__m128i*)d, _mm_packs_epi32(a, b));
    _mm_storeu_si128((__m128i*)(d + 8), _mm_packs_epi32(c, e));
  } else {
    _mm_storeu_si128((__m128i*)d, a);
    _mm_storeu_si128((__m128i*)(d + 4), b);
    _mm_storeu_si128((__m128i*)(d + 8), c);
    _mm_storeu_si128((__m128i*)(d + 12), e);
  }
}

template <typename D, typename S>
static inline __m128i sse4(const S* s) {
  if constexpr (std::is_same<S, float>::value) {
    return f32x4<D>(_mm_loadu_ps(s));
  } else {
    return _mm_unpacklo_epi64(f64x2<D>(_mm_loadu_pd(s)), f64x2<D>(_mm_loadu_pd(s + 2)));
  }
}

// Converts the first multiple of 16 elements; returns how many.
template <typename D, typename S>
static int64_t cast_sse41(const S* s, D* d, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    store16(d + i, sse4<D>(s + i), sse4<D>(s + i + 4), sse4<D>(s + i + 8),
            sse4<D>(s + i + 12));
  return i;
}

// ---- AVX2: the same operations, eight lanes ----

template <typename D>
__attribute__((target("avx2"))) static inline __m256i f32x8(__m256 v) {
  using L = limits<D, float>;
  __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  __m256 c = _mm256_andnot_ps(nan, v);
  c = _mm256_blendv_ps(c, _mm256_set1_ps(L::lo),
                       _mm256_cmp_ps(c, _mm256_set1_ps(L::lo), _CMP_LT_OS));
  c = _mm256_blendv_ps(c, _mm256_set1_ps(L::below_hi),
                       _mm256_cmp_ps(c, _mm256_set1_ps(L::below_hi), _CMP_GT_OS));
  __m256i t = _mm256_cvttps_epi32(c);
  __m256 r = _mm256_sub_ps(c, _mm256_cvtepi32_ps(t));
  __m256i up = _mm256_castps_si256(_mm256_cmp_ps(r, _mm256_set1_ps(0.5f), _CMP_GE_OS));
  __m256i down = _mm256_castps_si256(_mm256_cmp_ps(r, _mm256_set1_ps(-0.5f), _CMP_LE_OS));
  __m256i out = _mm256_add_epi32(_mm256_sub_epi32(t, up), down);
  out = _mm256_blendv_epi8(
      out, _mm256_set1_epi32(L::max),
      _mm256_castps_si256(_mm256_cmp_ps(v, _mm256_set1_ps(L::hi), _CMP_GE_OS)));
  return _mm256_blendv_epi8(out, _mm256_set1_epi32(L::nan), _mm256_castps_si256(nan));
}

template <typename D>
__attribute__((target("avx2"))) static inline __m128i f64x4(__m256d v) {
  using L = limits<D, double>;
  __m256d nan = _mm256_cmp_pd(v, v, _CMP_UNORD_Q);
  __m256d c = _mm256_andnot_pd(nan, v);
  c = _mm256_blendv_pd(c, _mm256_set1_pd(L::lo),
                       _mm256_cmp_pd(c, _mm256_set1_pd(L::lo), _CMP_LT_OS));
  c = _mm256_blendv_pd(c, _mm256_set1_pd(L::below_hi),
                       _mm256_cmp_pd(c, _mm256_set1_pd(L::below_hi), _CMP_GT_OS));
  __m256d t = _mm256_round_pd(c, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_sub_pd(c, t);
  __m256d one = _mm256_set1_pd(1.0);
  __m256d out = _mm256_add_pd(
      t, _mm256_and_pd(_mm256_cmp_pd(r, _mm256_set1_pd(0.5), _CMP_GE_OS), one));
  out = _mm256_sub_pd(
      out, _mm256_and_pd(_mm256_cmp_pd(r, _mm256_set1_pd(-0.5), _CMP_LE_OS), one));
  out = _mm256_blendv_pd(out, _mm256_set1_pd((double)L::max),
                         _mm256_cmp_pd(v, _mm256_set1_pd(L::hi), _CMP_GE_OS));
  out = _mm256_blendv_pd(out, _mm256_set1_pd((double)L::nan), nan);
  return _mm256_cvttpd_epi32(out);
}

// Thirty-two int32 lanes stored as D.  The packs work within 128-bit halves; the permutes put
// the lanes back in order.
template <typename D>
__attribute__((target("avx2"))) static inline void store32(D* d, __m256i a, __m256i b,
                                                           __m256i c, __m256i e) {
  if constexpr (sizeof(D) == 1) {
    __m256i ab, ce, all;
    if constexpr (std::is_same<D, uint8_t>::value) {
      ab = _mm256_packus_epi32(a, b);
      ce = _mm256_packus_epi32(c, e);
      all = _mm256_packus_epi16(ab, ce);
    } else {
      ab = _mm256_packs_epi32(a, b);
      ce = _mm256_packs_epi32(c, e);
      all = _mm256_packs_epi16(ab, ce);
    }
    all = _mm256_permutevar8x32_epi32(all, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256((__m256i*)d, all);
  } else if constexpr (sizeof(D) == 2) {
    __m256i ab, ce;
    if constexpr (std::is_same<D, uint16_t>::value) {
      ab = _mm256_packus_epi32(a, b);
      ce = _mm256_packus_epi32(c, e);
    } else {
      ab = _mm256_packs_epi32(a, b);
      ce = _mm256_packs_epi32(c, e);
    }
    _mm256_storeu_si256((__m256i*)d, _mm256_permute4x64_epi64(ab, 0xd8));
    _mm256_storeu_si256((__m256i*)(d + 16), _mm256_permute4x64_epi64(ce, 0xd8));
  } else {
    _mm256_storeu_si256((__m256i*)d, a);
    _mm256_storeu_si256((__m256i*)(d + 8), b);
    _mm256_storeu_si256((__m256i*)(d + 16), c);
    _mm256_storeu_si256((__m256i*)(d + 24), e);
  }
}

template <typename D, typename S>
__attribute__((target("avx2"))) static inline __m256i avx2x8(const S* s) {
  if constexpr (std::is_same<S, float>::value) {
    return f32x8<D>(_mm256_loadu_ps(s));
  } else {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(f64x4<D>(_mm256_loadu_pd(s))),
                                   f64x4<D>(_mm256_loadu_pd(s + 4)), 1);
  }
}

template <typename D, typename S>
__attribute__((target("avx2"))) static int64_t cast_avx2(const S* s, D* d, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    store32(d + i, avx2x8<D>(s + i), avx2x8<D>(s + i + 8), avx2x8<D>(s + i + 16),
            avx2x8<D>(s + i + 24));
  return i;
}

// How many leading elements the vector loop of the current level converted.
template <typename D, typename S>
static inline int64_t simd_cast(const S* s, D* d, int64_t n) {
  if (simd_level >= 2)
    return cast_avx2<D, S>(s, d, n);
  if (simd_level >= 1)
    return cast_sse41<D, S>(s, d, n);
  return 0;
}

#else  // no SSE4.1: the scalar loop does everything

static int simd_level = 0;
static inline int detect_simd() { return 0; }

template <typename D, typename S>
constexpr bool has_simd() { return false; }

template <typename D, typename S>
static inline int64_t simd_cast(const S*, D*, int64_t) { return 0; }

#endif

}  // namespace dali_cast

// The vector level in use (0 scalar, 1 SSE4.1, 2 AVX2); `level` >= 0 sets it, capped at what
// the build and the CPU have.
static inline int dali_cast_simd(int level) {
  if (level >= 0) {
    int best = dali_cast::detect_simd();
    dali_cast::simd_level = level < best ? level : best;
  }
  return dali_cast::simd_level;
}

#endif  // DALI_EXT_KERNELS_CAST_SIMD_H_
