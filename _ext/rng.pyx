"""Philox4x32-10 and the per-sample streams random operators draw from.

Counter layout: (sample id low, sample id high, stream, block).  `key` is the operator's seed
mixed with the epoch; `sample id` is the sample's index in the epoch; `stream` tells apart the
independent draws one operator makes per sample (e.g. the crop's scale and its aspect ratio);
`block` numbers the 4-word outputs of one stream.  A double uses two words (53 bits).
"""
cimport numpy as cnp
import numpy as np

from libc.math cimport cos, log, sin, sqrt
from libc.stdint cimport int64_t, uint32_t, uint64_t

cnp.import_array()

cdef uint32_t M0 = 0xD2511F53u
cdef uint32_t M1 = 0xCD9E8D57u
cdef uint32_t W0 = 0x9E3779B9u
cdef uint32_t W1 = 0xBB67AE85u


cdef Philox4 philox4x32_10(uint64_t key, uint32_t c0, uint32_t c1, uint32_t c2,
                           uint32_t c3) noexcept nogil:
    cdef uint32_t k0 = <uint32_t>key
    cdef uint32_t k1 = <uint32_t>(key >> 32)
    cdef uint64_t p0, p1
    cdef Philox4 r
    cdef int _round
    for _round in range(10):
        p0 = <uint64_t>M0 * c0
        p1 = <uint64_t>M1 * c2
        c0, c1, c2, c3 = (<uint32_t>(p1 >> 32)) ^ c1 ^ k0, <uint32_t>p1, \
                         (<uint32_t>(p0 >> 32)) ^ c3 ^ k1, <uint32_t>p0
        k0 += W0
        k1 += W1
    r.v[0] = c0
    r.v[1] = c1
    r.v[2] = c2
    r.v[3] = c3
    return r


cdef double u01_double(uint32_t hi, uint32_t lo) noexcept nogil:
    """Uniform in [0, 1) with 53 random bits."""
    cdef uint64_t bits = ((<uint64_t>hi << 32) | lo) >> 11
    return bits * (1.0 / 9007199254740992.0)


def mix_key(uint64_t seed, uint64_t epoch):
    """The Philox key of an operator seed in a given epoch (splitmix64 of both)."""
    cdef uint64_t z = seed * 0x9E3779B97F4A7C15ULL + epoch + 0x632BE59BD9B4E019ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint32_t _seq_t(uint32_t x) noexcept nogil:
    return x ^ (x >> 27)


def seed_seq(seeds, Py_ssize_t n):
    """The `n` 32-bit words C++'s `std::seed_seq(seeds).generate` produces (the algorithm is
    fixed by the C++ standard, [rand.util.seedseq]); `seeds` are truncated to 32 bits."""
    cdef list vals = [int(v) & 0xFFFFFFFF for v in seeds]
    cdef Py_ssize_t s = len(vals), m, k, t, p, q
    cdef cnp.ndarray[cnp.uint32_t] out = np.full(n, 0x8b8b8b8b, np.uint32)
    cdef uint32_t[::1] b = out
    cdef uint32_t r1, r2
    if n == 0:
        return out
    t = 11 if n >= 623 else 7 if n >= 68 else 5 if n >= 39 else 3 if n >= 7 else (n - 1) // 2
    p = (n - t) // 2
    q = p + t
    m = max(s + 1, n)
    for k in range(m):
        r1 = 1664525u * _seq_t(b[k % n] ^ b[(k + p) % n] ^ b[(k - 1 + n) % n])
        if k == 0:
            r2 = r1 + <uint32_t>s
        elif k <= s:
            r2 = r1 + <uint32_t>(k % n) + <uint32_t>vals[k - 1]
        else:
            r2 = r1 + <uint32_t>(k % n)
        b[(k + p) % n] += r1
        b[(k + q) % n] += r2
        b[k % n] = r2
    for k in range(m, m + n):
        r1 = 1566083941u * _seq_t(b[k % n] + b[(k + p) % n] + b[(k - 1 + n) % n])
        r2 = r1 - <uint32_t>(k % n)
        b[(k + p) % n] ^= r1
        b[(k + q) % n] ^= r2
        b[k % n] = r2
    return out


MAX_SEEDS = 1024


def derive_seeds(int64_t pipeline_seed, Py_ssize_t count):
    """`count` operator seeds derived from a pipeline seed as DALI does: the words of
    `std::seed_seq{pipeline_seed}` (MAX_SEEDS of them, reused cyclically), in operator order."""
    words = seed_seq([pipeline_seed], MAX_SEEDS).astype(np.int64)
    return words[np.arange(count) % MAX_SEEDS]


cdef inline void _pair(Philox4 r, bint normal, double* a, double* b) noexcept nogil:
    """The two doubles of one Philox block: uniform [0, 1), or standard normal (Box-Muller)."""
    cdef double u1, u2, rad
    if normal:
        u1 = 1.0 - u01_double(r.v[0], r.v[1])     # (0, 1]: log is finite
        u2 = u01_double(r.v[2], r.v[3])
        rad = sqrt(-2.0 * log(u1))
        a[0] = rad * cos(6.283185307179586 * u2)
        b[0] = rad * sin(6.283185307179586 * u2)
    else:
        a[0] = u01_double(r.v[0], r.v[1])
        b[0] = u01_double(r.v[2], r.v[3])


cdef _draws(uint64_t key, const int64_t[:] sample_ids, const int64_t[:] counts,
            uint32_t stream, bint normal):
    """Concatenated per-sample doubles, `counts[i]` for sample i: two per Philox block (block
    j // 2 of the sample's stream gives draws j and j + 1)."""
    cdef Py_ssize_t n = sample_ids.shape[0]
    cdef int64_t total = 0
    cdef Py_ssize_t i
    for i in range(n):
        total += counts[i]
    cdef cnp.ndarray[double] out = np.empty(total, np.float64)
    cdef double[::1] o = out
    cdef int64_t pos = 0, j, sid
    cdef double a, b
    cdef Philox4 r
    with nogil:
        for i in range(n):
            sid = sample_ids[i]
            j = 0
            while j < counts[i]:
                r = philox4x32_10(key, <uint32_t>sid, <uint32_t>(sid >> 32), stream,
                                  <uint32_t>(j // 2))
                _pair(r, normal, &a, &b)
                o[pos + j] = a
                if j + 1 < counts[i]:
                    o[pos + j + 1] = b
                j += 2
            pos += counts[i]
    return out


def uniform(uint64_t key, const int64_t[:] sample_ids, const int64_t[:] counts,
            uint32_t stream=0):
    """Concatenated per-sample uniform [0, 1) doubles: `counts[i]` of them for sample i."""
    return _draws(key, sample_ids, counts, stream, False)


def normal(uint64_t key, const int64_t[:] sample_ids, const int64_t[:] counts,
           uint32_t stream=0):
    """Concatenated per-sample standard normal doubles (Box-Muller on one Philox block each)."""
    return _draws(key, sample_ids, counts, stream, True)


def philox(uint64_t key, counter):
    """One Philox4x32-10 block as four ints (for tests and the GPU twin)."""
    cdef Philox4 r = philox4x32_10(key, counter[0], counter[1], counter[2], counter[3])
    return (r.v[0], r.v[1], r.v[2], r.v[3])
