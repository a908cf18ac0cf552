/* C helpers of buffer_pool.pyx: mmap's flags where the platform lacks MAP_POPULATE, and a
   push onto a free list that reports failure instead of throwing (release runs without the
   GIL and must not leave the pool's lock held). */
#ifndef DALI_BUFFER_POOL_H
#define DALI_BUFFER_POOL_H

#include <sys/mman.h>
#include <vector>

#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif

static inline bool dali_push_block(std::vector<void*>& blocks, void* ptr) noexcept {
    try {
        blocks.push_back(ptr);
        return true;
    } catch (...) {
        return false;
    }
}

#endif
