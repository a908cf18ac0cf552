# cython: boundscheck=False, wraparound=False, cdivision=True
"""A batch of readers.webdataset read in one call: the components of the samples `ids` (rows of
the index tables the reader keeps: archive, data offset and size of each output's component, -1
for none) gathered, their outputs allocated (1-D uint8, an absent component an empty sample)
and their bytes read without the GIL, in archive order (sample by sample, output by output).

The ranges are read by `files.read_range_list`: an archive is opened once for consecutive
components in it, and components that follow each other in it with small gaps (the tar headers
and padding between the members of a sample, and between consecutive samples) are read with
one `preadv`, the gaps into a scratch sink: a batch of samples stored in order takes one open
and one call instead of one `pread` per component.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

from dali._ext.files cimport RANGE_GAP, Range, read_range_list
from dali._ext.tensor_storage cimport BatchStorage

cnp.import_array()


def read_samples(list paths, ids, archives, offsets, sizes):
    """Read the components of samples `ids` (see the module docstring).

    Parameters
    ----------
    paths : list of bytes
        The archives.
    ids : array_like of int
        The samples: rows of `archives` (N,) int32, `offsets` and `sizes` (N, K) int64 (the
        data offset and size of each output's component of each sample, size -1 where the
        sample has none).

    Returns
    -------
    (outs, failure) : a list of K BatchStorage (1-D uint8, a sample per id) and None, or the
        first component that failed as (index in `ids`, output, errno of the failing call or
        0, bytes got: the archive ends early).
    """
    cdef cnp.ndarray[cnp.int64_t, ndim=1] idx = np.ascontiguousarray(ids, np.int64)
    cdef const int32_t[::1] arch = archives
    cdef const int64_t[:, ::1] offs = offsets
    cdef const int64_t[:, ::1] szs = sizes
    cdef Py_ssize_t n = idx.shape[0], k = offs.shape[1], n_paths = len(paths), i, j, m, s
    if szs.shape[0] != offs.shape[0] or szs.shape[1] != k or arch.shape[0] != offs.shape[0]:
        raise ValueError("the index tables must have a row per sample")
    if n and (idx.min() < 0 or idx.max() >= offs.shape[0]):
        raise ValueError("sample ids out of range")
    cdef const int64_t* ip = <const int64_t*>cnp.PyArray_DATA(idx)
    cdef cnp.ndarray[cnp.int64_t, ndim=2] shapes = np.empty((k, n), np.int64)
    for i in range(n):
        s = ip[i]
        if not 0 <= arch[s] < n_paths:
            raise ValueError(f"sample {s}: archive {arch[s]} out of range")
        for j in range(k):
            if szs[s, j] >= 0 and offs[s, j] < 0:
                raise ValueError(f"sample {s}: negative offset")
            shapes[j, i] = max(szs[s, j], 0)
    cdef list outs = [BatchStorage.allocate(np.uint8, shapes[j].reshape(-1, 1), ndim=1)
                      for j in range(k)]
    cdef list keep = [p if type(p) is bytes else bytes(p) for p in paths]
    cdef bytes b
    cdef Range* rs = <Range*>malloc(max(n * k, 1) * sizeof(Range))
    cdef uint8_t* sink = <uint8_t*>malloc(RANGE_GAP)
    cdef const char** cpaths = <const char**>malloc(max(n_paths, 1) * sizeof(char*))
    cdef BatchStorage out
    cdef const int64_t* out_offs
    if rs == NULL or sink == NULL or cpaths == NULL:
        free(rs)
        free(sink)
        free(cpaths)
        raise MemoryError()
    try:
        for i in range(n_paths):
            b = keep[i]
            cpaths[i] = b
        for j in range(k):                    # sample-major: the archives' order
            out = outs[j]
            out_offs = <const int64_t*>cnp.PyArray_DATA(out.offsets)
            for i in range(n):
                s = ip[i]
                rs[i * k + j].path = cpaths[arch[s]] if szs[s, j] >= 0 else NULL
                rs[i * k + j].offset = offs[s, j]
                rs[i * k + j].size = max(szs[s, j], 0)
                rs[i * k + j].got = 0
                rs[i * k + j].err = 0
                rs[i * k + j].out = <uint8_t*>out.data + out_offs[i]
        with nogil:
            m = read_range_list(rs, n * k, sink)
        if m < 0:
            return outs, None
        return outs, (m // k, m % k, rs[m].err, rs[m].got)
    finally:
        free(rs)
        free(sink)
        free(cpaths)
