# The colour kernels' nogil side (color.pyx): a batch cut into pieces of pixels, grouped into
# work items for the thread pool.
#
# Contract of `color_run_group(batch, g)`: runs the pieces of group g of the `Batch` at
# `batch` (pieces[groups[g].first .. + count]); piece i reads `n` pixels of `cin` elements of
# type `sk` at `src` and writes `n` pixels of `cout` elements of type `dk` at `dst` (numpy type
# numbers: uint8, int16, int32, float32, float16 for LINEAR; uint8 for the conversions), with
# the matrix `mats + param * cout * cin` and offset `offs + param * cout` (LINEAR) or the
# conversion `conversion` (`red`: the red channel, 0 or 2).  `isz`/`osz` are the element sizes:
# pieces that follow each other in memory with the same `param` may run as one.  Reads and
# writes nothing else, takes no lock, never fails and gives the same bits whatever the CPU
# (scalar, SSE4.1 or AVX2 loops): groups whose pieces do not overlap run concurrently.
# Everything is checked by the Python entry points before any group runs.
from libc.stdint cimport int64_t


cdef enum Conversion:
    LINEAR = -1
    SWAP_RB = 0
    TO_GRAY = 1
    GRAY_TO_RGB = 2
    RGB_TO_YCBCR = 3
    YCBCR_TO_RGB = 4
    YCBCR_TO_GRAY = 5
    GRAY_TO_YCBCR = 6


cdef struct Piece:
    # at most TILE pixels of one part of one sample
    const char* src
    char* dst
    Py_ssize_t n
    Py_ssize_t param        # index of the part's matrix and offset (linear)


cdef struct Group:
    # consecutive pieces run as one work item
    Py_ssize_t first, count


cdef struct Batch:
    const Piece* pieces
    const Group* groups
    int sk, dk, cin, cout
    const float* mats       # (parts, cout, cin)
    const float* offs       # (parts, cout)
    int conversion          # LINEAR or a Conversion
    int red
    Py_ssize_t isz, osz     # element sizes


cdef void color_run_group(void* ctx, int64_t g) noexcept nogil
