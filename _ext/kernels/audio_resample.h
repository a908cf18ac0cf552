// Windowed-sinc resampling of interleaved audio (the kernel of fn.audio_resample and of
// fn.decoders.audio's sample_rate), with DALI's filter and arithmetic: a Hann-windowed sinc of
// `lobes` zero crossings on each side tabulated at 64 points per lobe and interpolated
// linearly; the filter is not widened when downsampling (no anti-aliasing, as DALI).  Output
// positions advance in blocks of 256: each block starts from the exact (double) input
// position and steps by the float ratio inside it, so a work item that starts on a block
// boundary computes the same values as a whole-sample run.  Values are read normalized to
// float (integers to -1..1) and written back with saturation and rounding to nearest.
// Outputs whose window lies inside the input add their taps in vectorized partial sums
// (`dot_taps`), those at the ends in order (`tap_sum`, DALI's order): float results stay
// within about 1e-6 of DALI's.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace dali_audio {

enum Type { U8 = 0, I8, U16, I16, U32, I32, F32 };

const int64_t kBlock = 256;

struct Job {
    const void* in;
    int in_type;
    int64_t n_in;
    int channels;
    void* out;
    int out_type;
    int64_t out_begin, out_end;   // the output positions this item computes
    double scale;                 // input samples per output sample
    const float* lut;             // the tabulated window (lut_size entries)
    const float* phases;          // the same, per phase (phase_table)
    int64_t lut_size;
    float wscale, wcenter;
    int lobes;
};

inline int64_t window_size(int lobes) { return int64_t(lobes) * 64 + 1 + 5; }

// Fills lut[0 .. window_size(lobes)) and the scale and centre that map an offset (in input
// samples) to a position in it; zero outside the window.
inline void make_window(int lobes, float* lut, float* wscale, float* wcenter) {
    int coeffs = lobes * 64 + 1;
    float scale = 2.0f * lobes / (coeffs - 1);
    float scale_envelope = 2.0f / coeffs;
    int center = int((coeffs - 1) * 0.5f);
    std::fill(lut, lut + window_size(lobes), 0.0f);
    for (int i = 0; i < coeffs; i++) {
        float x = (i - center) * scale;
        float y = (i - center) * scale_envelope;
        double sinc = x != 0 ? std::sin(x * M_PI) / (x * M_PI) : 1.0;
        double hann = 0.5 * (1 + std::cos(y * M_PI));
        lut[i + 1] = float(sinc * hann);
    }
    *wcenter = float(center + 1);
    *wscale = 1 / scale;
}

template <typename T> inline float read_norm(T v) {
    if (std::is_floating_point<T>::value) return float(v);
    const float top = float(std::numeric_limits<T>::max());
    if (std::is_signed<T>::value) return float(v) / top;
    return float(v) * (2.0f / top) - 1.0f;
}

template <typename T> inline T write_norm(float v) {
    if (std::is_floating_point<T>::value) return T(v);
    const float top = float(std::numeric_limits<T>::max());
    const float bottom = float(std::numeric_limits<T>::min());
    float s = std::is_signed<T>::value ? v * top : (v * 0.5f + 0.5f) * top;
    if (!(s > bottom)) return std::numeric_limits<T>::min();   // also NaN
    if (s >= top) return std::numeric_limits<T>::max();
    return T(std::nearbyint(s));
}

// One output value of channel c at input position in_pos (relative to in_block): the window's
// taps in order, accumulated in float.
template <typename In>
inline float tap_sum(const Job& job, const In* in, int64_t in_block, float in_pos, int c) {
    const int C = job.channels;
    int64_t xc = int64_t(std::ceil(in_pos));
    int64_t i0 = std::max<int64_t>(xc - job.lobes, -in_block);
    int64_t i1 = std::min<int64_t>(xc + job.lobes, job.n_in - in_block);
    float acc = 0;
    float x = float(i0) - in_pos;
    for (int64_t i = i0; i < i1; i++, x++) {
        // x lies in [-lobes, lobes): fi in [1, lut_size - 5], so truncation is floor and
        // both table entries exist
        float fi = x * job.wscale + job.wcenter;
        int k = int(fi);
        float w = job.lut[k] + (fi - float(k)) * (job.lut[k + 1] - job.lut[k]);
        acc += read_norm<In>(in[(in_block + i) * C + c]) * w;
    }
    return acc;
}

// The table is 32 entries a sample apart (wscale is exactly 32 for every lobe count), so
// the taps of one output share their position between entries: tap t of an output whose
// first tap falls at entry 1 + p + frac (phase p in 0..31) weighs
// lut[1 + p + 32 t] + frac * (lut[2 + p + 32 t] - lut[1 + p + 32 t]).  `phase_table` lays
// those pairs out per phase, contiguous in t: rows of 2 lobes values, phase p's entries in
// row 2 p, its differences in row 2 p + 1.
const int kPhases = 32;

inline int64_t phase_table_size(int lobes) { return int64_t(kPhases) * 2 * 2 * lobes; }

inline void phase_table(int lobes, const float* lut, float* table) {
    const int taps = 2 * lobes;
    for (int p = 0; p < kPhases; p++) {
        float* entry = table + int64_t(2 * p) * taps;
        float* delta = entry + taps;
        for (int t = 0; t < taps; t++) {
            const float* at = lut + 1 + p + int64_t(kPhases) * t;
            entry[t] = at[0];
            delta[t] = at[1] - at[0];
        }
    }
}

const int kLanes = 8;

// Whether float mono inputs take dot_taps' SSE path, where built (tests switch it off to
// compare the paths).
#ifdef __SSE2__
const bool kSseTaps = true;
#else
const bool kSseTaps = false;
#endif
inline bool sse_taps = kSseTaps;

// Switches the SSE path on (where built) or off; returns whether it is on.
inline bool use_sse_taps(bool on) { return sse_taps = on && kSseTaps; }

#ifdef __SSE2__
// dot_taps of a float mono input with the kLanes partial sums in two SSE vectors: the same
// float operations in the same order as the loop below (which GCC vectorizes poorly: its
// partial sums went through the stack), without fused multiply-adds.
inline float dot_taps_sse(const float* src, const float* entry, const float* delta, float frac,
                          int taps) {
    static_assert(kLanes == 8, "two vectors of 4 partial sums");
    const __m128 f = _mm_set1_ps(frac);
    __m128 lo = _mm_setzero_ps(), hi = _mm_setzero_ps();
    int t = 0;
    for (; t + kLanes <= taps; t += kLanes) {
        __m128 w_lo = _mm_add_ps(_mm_loadu_ps(entry + t), _mm_mul_ps(f, _mm_loadu_ps(delta + t)));
        __m128 w_hi = _mm_add_ps(_mm_loadu_ps(entry + t + 4),
                                 _mm_mul_ps(f, _mm_loadu_ps(delta + t + 4)));
        lo = _mm_add_ps(lo, _mm_mul_ps(_mm_loadu_ps(src + t), w_lo));
        hi = _mm_add_ps(hi, _mm_mul_ps(_mm_loadu_ps(src + t + 4), w_hi));
    }
    float acc[kLanes];
    _mm_storeu_ps(acc, lo);
    _mm_storeu_ps(acc + 4, hi);
    for (; t < taps; t++) acc[t % kLanes] += src[t] * (entry[t] + frac * delta[t]);
    float sum = 0;
    for (int l = 0; l < kLanes; l++) sum += acc[l];
    return sum;
}
#endif

// One output value of channel c whose window lies inside the input (first tap at input
// index first): the taps' products summed in kLanes interleaved partial sums (vectorized),
// then added up; within a few float ulps of tap_sum's ordered sum.
template <typename In>
inline float dot_taps(const Job& job, const In* in, int64_t first, float x0, int c) {
    const int C = job.channels;
    const int taps = 2 * job.lobes;
    float fi = x0 * job.wscale + job.wcenter;     // in [1, 33]: 33 only by rounding
    int k = std::min(int(fi), kPhases);
    float frac = fi - float(k);
    const float* entry = job.phases + int64_t(2 * (k - 1)) * taps;
    const float* delta = entry + taps;
    const In* src = in + first * C + c;
#ifdef __SSE2__
    if (std::is_same<In, float>::value && C == 1 && sse_taps)
        return dot_taps_sse(reinterpret_cast<const float*>(src), entry, delta, frac, taps);
#endif
    float acc[kLanes] = {0};
    int t = 0;
    if (C == 1) {             // contiguous taps: the loop the compiler vectorizes
        for (; t + kLanes <= taps; t += kLanes) {
            for (int l = 0; l < kLanes; l++)
                acc[l] += read_norm<In>(src[t + l]) * (entry[t + l] + frac * delta[t + l]);
        }
    }
    for (; t + kLanes <= taps; t += kLanes) {
        for (int l = 0; l < kLanes; l++) {
            float w = entry[t + l] + frac * delta[t + l];
            acc[l] += read_norm<In>(src[int64_t(t + l) * C]) * w;
        }
    }
    for (; t < taps; t++) acc[t % kLanes] += read_norm<In>(src[int64_t(t) * C]) *
                                             (entry[t] + frac * delta[t]);
    float sum = 0;
    for (int l = 0; l < kLanes; l++) sum += acc[l];
    return sum;
}

template <typename In, typename Out>
void resample(const Job& job) {
    const In* in = static_cast<const In*>(job.in);
    Out* out = static_cast<Out*>(job.out);
    const int C = job.channels;
    const float fscale = float(job.scale);
    for (int64_t block = job.out_begin; block < job.out_end; block += kBlock) {
        int64_t block_end = std::min(block + kBlock, job.out_end);
        double in_block_f = block * job.scale;
        int64_t in_block = int64_t(std::floor(in_block_f));
        float in_pos = float(in_block_f - in_block);
        for (int64_t o = block; o < block_end; o++, in_pos += fscale) {
            int64_t i0 = int64_t(std::ceil(in_pos)) - job.lobes;
            bool inside = i0 >= -in_block && i0 + 2 * job.lobes <= job.n_in - in_block;
            for (int c = 0; c < C; c++) {
                float v = inside ? dot_taps(job, in, in_block + i0, float(i0) - in_pos, c)
                                 : tap_sum(job, in, in_block, in_pos, c);
                out[o * C + c] = write_norm<Out>(v);
            }
        }
    }
}

template <typename In>
void run_out(const Job& job) {
    switch (job.out_type) {
        case U8: resample<In, uint8_t>(job); break;
        case I8: resample<In, int8_t>(job); break;
        case U16: resample<In, uint16_t>(job); break;
        case I16: resample<In, int16_t>(job); break;
        case U32: resample<In, uint32_t>(job); break;
        case I32: resample<In, int32_t>(job); break;
        default: resample<In, float>(job); break;
    }
}

inline void run(const Job* job) {
    switch (job->in_type) {
        case U8: run_out<uint8_t>(*job); break;
        case I8: run_out<int8_t>(*job); break;
        case U16: run_out<uint16_t>(*job); break;
        case I16: run_out<int16_t>(*job); break;
        case U32: run_out<uint32_t>(*job); break;
        case I32: run_out<int32_t>(*job); break;
        default: run_out<float>(*job); break;
    }
}

}  // namespace dali_audio
