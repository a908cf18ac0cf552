// The C loop of the multi-paste kernel (_ext/kernels/paste.pyx): an output sample is zeroed
// (unless a region covers all of it), then its regions (row blocks of source samples) are copied into it in order, so a later
// region overwrites an earlier one where they overlap.
#ifndef DALI_EXT_KERNELS_PASTE_H_
#define DALI_EXT_KERNELS_PASTE_H_

#include <stdint.h>
#include <string.h>

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
} dali_paste_job;

static void dali_paste_run(const dali_paste_job* job) {
    int covered = 0;                 /* a region spans the whole output: no zeros show */
    for (int64_t r = 0; r < job->count; r++) {
        const dali_paste_region* g = job->regions + r;
        covered |= g->dst_offset == 0 && g->row_bytes == job->dst_row &&
                   g->rows * job->dst_row == job->dst_bytes;
    }
    if (!covered) memset(job->dst, 0, (size_t)job->dst_bytes);
    for (int64_t r = 0; r < job->count; r++) {
        const dali_paste_region* g = job->regions + r;
        const char* s = g->src;
        char* d = job->dst + g->dst_offset;
        for (int64_t y = 0; y < g->rows; y++, s += g->src_row, d += job->dst_row)
            memcpy(d, s, (size_t)g->row_bytes);
    }
}

#endif  // DALI_EXT_KERNELS_PASTE_H_
