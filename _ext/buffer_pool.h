/* C helpers of buffer_pool.pyx: the mapping of a large block, and a push onto a free list
   that reports failure instead of throwing (release runs without the GIL and must not leave
   the pool's lock held). */
#ifndef DALI_BUFFER_POOL_H
#define DALI_BUFFER_POOL_H

#include <stdint.h>
#include <sys/mman.h>
#include <vector>

/* A large block, mapped on a 2 MiB boundary and asked for transparent huge pages before its
   pages are populated.  Where the system grants huge pages only on request (THP "madvise", a
   common default), 4 KiB pages cost a kernel streaming a batch-sized block 1.5-2x in TLB
   misses against the same loop on a NumPy array (which asks for them).  The alignment maps
   2 MiB more and unmaps the slack at once; if that mapping fails (an address-space limit),
   the exact size is mapped.  Pages are populated at once.  NULL when out of memory. */
static inline void* dali_map_block(size_t capacity) noexcept {
    const size_t huge = (size_t)2 << 20;
    char* p = (char*)MAP_FAILED;
    if (capacity >= huge)
        p = (char*)mmap(NULL, capacity + huge, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != (char*)MAP_FAILED) {
        char* a = (char*)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
        if (a != p) munmap(p, (size_t)(a - p));
        if (a + capacity != p + capacity + huge)
            munmap(a + capacity, (size_t)(p + capacity + huge - (a + capacity)));
        p = a;
    } else {
        p = (char*)mmap(NULL, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
        if (p == (char*)MAP_FAILED) return NULL;
    }
#ifdef MADV_HUGEPAGE
    madvise(p, capacity, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    if (madvise(p, capacity, MADV_POPULATE_WRITE) == 0) return p;
#endif
    for (size_t i = 0; i < capacity; i += 4096) p[i] = 0;  // older kernels: touch every page
    return p;
}

static inline bool dali_push_block(std::vector<void*>& blocks, void* ptr) noexcept {
    try {
        blocks.push_back(ptr);
        return true;
    } catch (...) {
        return false;
    }
}

#endif
