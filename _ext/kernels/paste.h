// The C loop of the multi-paste kernel (_ext/kernels/paste.pyx): an output sample is zeroed
// (unless a region covers all of it), then its regions (row blocks of source samples) are
// copied into it in order, so a later region overwrites an earlier one where they overlap.
// A region whose rows are whole rows of both samples is one copy.  A job marked `stream`
// writes with streaming (non-temporal) stores, which neither read the output's lines into the
// cache first nor keep them there: for a batch larger than a good share of the last-level
// cache, whose lines would be read from memory only to be overwritten, and would push the
// pipeline's other batches (the sources) out of the cache.  The bytes written are the same.
#ifndef DALI_EXT_KERNELS_PASTE_H_
#define DALI_EXT_KERNELS_PASTE_H_

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct {
    const char* src;        /* the region's first byte in its source sample */
    int64_t src_row;        /* bytes from a source row to the next */
    int64_t dst_offset;     /* bytes from the output sample to the region */
    int64_t rows;
    int64_t row_bytes;      /* bytes copied per row */
} dali_paste_region;

typedef struct {
    char* dst;
    int64_t dst_bytes;
    int64_t dst_row;        /* bytes from an output row to the next */
    const dali_paste_region* regions;
    int64_t count;
    int stream;             /* write with streaming stores (dali_paste_stream) */
} dali_paste_job;

#if defined(__SSE2__)
/* memcpy (s == NULL: memset 0) with streaming stores: the lines written are not read into the
   cache first, nor kept there.  Call _mm_sfence() before another thread reads d. */
static void dali_paste_stream(char* d, const char* s, size_t n) {
    for (; n && ((uintptr_t)d & 15); n--, d++) *d = s ? *s++ : 0;
    __m128i z = _mm_setzero_si128();
    for (; n >= 64; n -= 64, d += 64) {
        __m128i a = z, b = z, c = z, e = z;
        if (s) {
            a = _mm_loadu_si128((const __m128i*)s);
            b = _mm_loadu_si128((const __m128i*)(s + 16));
            c = _mm_loadu_si128((const __m128i*)(s + 32));
            e = _mm_loadu_si128((const __m128i*)(s + 48));
            s += 64;
        }
        _mm_stream_si128((__m128i*)d, a);
        _mm_stream_si128((__m128i*)(d + 16), b);
        _mm_stream_si128((__m128i*)(d + 32), c);
        _mm_stream_si128((__m128i*)(d + 48), e);
    }
    for (; n; n--, d++) *d = s ? *s++ : 0;
}
#endif

static void dali_paste_copy(int stream, char* d, const char* s, size_t n) {
#if defined(__SSE2__)
    if (stream) {
        dali_paste_stream(d, s, n);
        return;
    }
#endif
    if (s)
        memcpy(d, s, n);
    else
        memset(d, 0, n);
}

static void dali_paste_run(const dali_paste_job* job) {
    int covered = 0;                 /* a region spans the whole output: no zeros show */
    for (int64_t r = 0; r < job->count; r++) {
        const dali_paste_region* g = job->regions + r;
        covered |= g->dst_offset == 0 && g->row_bytes == job->dst_row &&
                   g->rows * job->dst_row == job->dst_bytes;
    }
    if (!covered) dali_paste_copy(job->stream, job->dst, NULL, (size_t)job->dst_bytes);
    for (int64_t r = 0; r < job->count; r++) {
        const dali_paste_region* g = job->regions + r;
        const char* s = g->src;
        char* d = job->dst + g->dst_offset;
        if (g->row_bytes == g->src_row && g->row_bytes == job->dst_row) {
            dali_paste_copy(job->stream, d, s, (size_t)(g->rows * g->row_bytes));
            continue;
        }
        for (int64_t y = 0; y < g->rows; y++, s += g->src_row, d += job->dst_row)
            dali_paste_copy(job->stream, d, s, (size_t)g->row_bytes);
    }
#if defined(__SSE2__)
    if (job->stream) _mm_sfence();
#endif
}

#endif  // DALI_EXT_KERNELS_PASTE_H_
