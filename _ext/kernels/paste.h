// The C loop of the multi-paste kernel (_ext/kernels/paste.pyx): an output sample is zeroed
// (unless a region covers all of it), then its regions (row blocks of source samples) are
// copied into it in order, so a later region overwrites an earlier one where they overlap.
// A region whose rows are whole rows of both samples is one copy.  A job marked `stream`
// writes with streaming (non-temporal) stores (gather.h's copy, and a zeroing loop here), which
// neither read the output's lines into the cache first nor keep them there: for a batch larger
// than a good share of the last-level cache, whose lines would be read from memory only to be
// overwritten, and would push the pipeline's other batches (the sources) out of the cache.
#ifndef DALI_EXT_KERNELS_PASTE_H_
#define DALI_EXT_KERNELS_PASTE_H_

#include <stdint.h>
#include <string.h>

#include "gather.h"

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
    int stream;             /* write with streaming stores */
} dali_paste_job;

/* Zero `n` bytes at `d` with streaming stores where the CPU has them (memset elsewhere); the
   copies' counterpart is gather.h's dali_gather_stream. */
static void dali_paste_stream_zero(char* d, int64_t n) {
#if defined(__SSE2__)
    int64_t head = (int64_t)((16 - ((uintptr_t)d & 15)) & 15);
    if (head > n) head = n;
    memset(d, 0, (size_t)head);
    int64_t i = head;
    const __m128i z = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16) _mm_stream_si128((__m128i*)(d + i), z);
    memset(d + i, 0, (size_t)(n - i));
#else
    memset(d, 0, (size_t)n);
#endif
}

/* memcpy (s == NULL: memset 0), with streaming stores when `stream`. */
static void dali_paste_copy(int stream, char* d, const char* s, int64_t n) {
    if (stream && s)
        dali_gather_stream(d, s, n);
    else if (stream)
        dali_paste_stream_zero(d, n);
    else if (s)
        memcpy(d, s, (size_t)n);
    else
        memset(d, 0, (size_t)n);
}

static void dali_paste_run(const dali_paste_job* job) {
    int covered = 0;                 /* a region spans the whole output: no zeros show */
    for (int64_t r = 0; r < job->count; r++) {
        const dali_paste_region* g = job->regions + r;
        covered |= g->dst_offset == 0 && g->row_bytes == job->dst_row &&
                   g->rows * job->dst_row == job->dst_bytes;
    }
    if (!covered) dali_paste_copy(job->stream, job->dst, NULL, job->dst_bytes);
    for (int64_t r = 0; r < job->count; r++) {
        const dali_paste_region* g = job->regions + r;
        const char* s = g->src;
        char* d = job->dst + g->dst_offset;
        if (g->row_bytes == g->src_row && g->row_bytes == job->dst_row) {
            dali_paste_copy(job->stream, d, s, g->rows * g->row_bytes);
            continue;
        }
        for (int64_t y = 0; y < g->rows; y++, s += g->src_row, d += job->dst_row)
            dali_paste_copy(job->stream, d, s, g->row_bytes);
    }
    if (job->stream) dali_gather_fence();
}

#endif  // DALI_EXT_KERNELS_PASTE_H_
