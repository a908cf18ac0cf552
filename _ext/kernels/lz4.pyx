"""LZ4 block decompression of a batch of chunks: the kernel of fn.decoders.inflate (which DALI
runs on the GPU with nvCOMP; here on the host, then uploaded).

`inflate_batch(pool, src, dst, chunks)`: chunk k of `chunks` (rows of input sample, byte offset
and size in it, output sample, byte offset and size in it) is decoded from its input bytes into
its output bytes (lz4.h): the output stops at the chunk's size, and what the chunk does not fill
is zeroed.  Returns each chunk's status (0 decoded, 1 malformed, 2 larger than its output:
truncated) and the number of bytes it wrote.  One work item per chunk, all in one nogil call on
the pool, largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_BYTE = 0.5          # the cost estimate the pool gets (output bytes)


cdef extern from "lz4.h" namespace "dali_lz4" nogil:
    ctypedef struct Job:
        const uint8_t* src
        int64_t src_size
        uint8_t* dst
        int64_t dst_size
        int64_t written
        int status

    void run(Job* job)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    run((<Job*>ctx) + i)


def inflate_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, chunks):
    """Decode the LZ4 blocks `chunks` of `src` into `dst`.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src, dst : BatchStorage
        Contiguous batches (any element types: bytes are read and written).
    chunks : array_like (m, 6) of int
        Per chunk: input sample, byte offset, byte size; output sample, byte offset, byte size.
        Every range must lie inside its sample.

    Returns
    -------
    (status, written) : int32 and int64 arrays of m values.
    """
    if not (src.is_contiguous and dst.is_contiguous):
        raise ValueError("inflate_batch needs contiguous batch storage")
    rows = np.ascontiguousarray(chunks, dtype=np.int64).reshape(-1, 6)
    cdef Py_ssize_t m = rows.shape[0], k
    in_bytes = (np.prod(np.asarray(src.shapes, np.int64).reshape(src.num_samples, -1), axis=1)
                * src.dtype.itemsize)
    out_bytes = (np.prod(np.asarray(dst.shapes, np.int64).reshape(dst.num_samples, -1), axis=1)
                 * dst.dtype.itemsize)
    if m and ((rows[:, 0] < 0).any() or (rows[:, 0] >= src.num_samples).any()
              or (rows[:, 3] < 0).any() or (rows[:, 3] >= dst.num_samples).any()):
        raise ValueError("chunk sample indices out of range")
    if m and ((rows[:, [1, 2, 4, 5]] < 0).any()
              or (rows[:, 1] + rows[:, 2] > in_bytes[rows[:, 0]]).any()
              or (rows[:, 4] + rows[:, 5] > out_bytes[rows[:, 3]]).any()):
        raise ValueError("the chunks must lie inside their samples")
    status = np.zeros(m, np.int32)
    written = np.zeros(m, np.int64)
    if m == 0:
        return status, written
    cdef const int64_t[:, ::1] r = rows
    cdef const int64_t[::1] src_off = src.offsets
    cdef const int64_t[::1] dst_off = dst.offsets
    keep = []
    cdef Job* jobs = <Job*>job_array(m, sizeof(Job), keep)
    with nogil:
        for k in range(m):
            jobs[k].src = <const uint8_t*>src.data + src_off[r[k, 0]] + r[k, 1]
            jobs[k].src_size = r[k, 2]
            jobs[k].dst = <uint8_t*>dst.data + dst_off[r[k, 3]] + r[k, 4]
            jobs[k].dst_size = r[k, 5]
    run_largest_first(pool, _run_job, jobs, rows[:, 5] + rows[:, 2], _NS_PER_BYTE)
    cdef int[::1] st = status
    cdef int64_t[::1] wr = written
    for k in range(m):
        st[k] = jobs[k].status
        wr[k] = jobs[k].written
    return status, written
