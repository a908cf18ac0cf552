"""`std::shuffle` over an int64 array with `std::mt19937` or `std::mt19937_64`, exactly as
libstdc++ computes it (`std_shuffle.h`): the permutations of real DALI's readers (the fixed
pre-shuffle of `random_shuffle`, the per-epoch shuffles of `shuffle_after_epoch`), in C for
data sets of millions of entries."""
cimport numpy as cnp
from libc.stdint cimport int64_t, uint32_t, uint64_t

cnp.import_array()


cdef extern from "std_shuffle.h" namespace "dali_shuffle" nogil:
    void shuffle_mt19937(int64_t* items, uint64_t n, uint32_t seed)
    void shuffle_mt19937_64(int64_t* items, uint64_t n, uint64_t seed)


def shuffle32(int64_t[::1] items, uint32_t seed):
    """Permute `items` in place as `std::shuffle` with `std::mt19937(seed)` does."""
    with nogil:
        shuffle_mt19937(&items[0] if items.shape[0] else NULL, items.shape[0], seed)


def shuffle64(int64_t[::1] items, uint64_t seed):
    """Permute `items` in place as `std::shuffle` with `std::mt19937_64(seed)` does."""
    with nogil:
        shuffle_mt19937_64(&items[0] if items.shape[0] else NULL, items.shape[0], seed)
