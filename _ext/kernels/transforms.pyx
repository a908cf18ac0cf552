# cython: boundscheck=False, wraparound=False, cdivision=True
"""The products of affine matrices of fn.transforms.*, a whole batch in one nogil call.

`compose_batch` multiplies, part by part (a sample, or a frame of a sequence), the factors it
is given: input transforms (a batch of n x (n+1) float32 samples, or such an array) and the
operators' float64 homogeneous matrices (one for every part, or one per part), and stores the
top n rows as float32 into the output batch.  The loop and its arithmetic are in transforms.h.
"""
cimport numpy as cnp

from libc.stdint cimport int64_t

from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport job_array

cnp.import_array()


cdef extern from "transforms.h" nogil:
    ctypedef struct dali_tf_factor:
        const char* const* at
        int f64

    int DALI_TF_MAX_DIM

    void dali_tf_compose(float* out, int64_t parts, int n, const dali_tf_factor* f, int count,
                         int reverse)


cdef int _set_factor(dali_tf_factor* f, const char** at, object src, Py_ssize_t parts, int n,
                     list keep) except -1:
    """Points `f` at the matrix of every part of `src` (through `at`, room for `parts`
    pointers): a BatchStorage of float32 samples of n * (n+1) elements (one per part), or a
    C-contiguous array, float32 (parts, n, n+1) or float64 (1 or parts, n+1, n+1)."""
    cdef Py_ssize_t i, k, step, count, nd
    cdef BatchStorage st
    cdef cnp.ndarray a
    cdef const char* base
    cdef const char** src_at
    cdef const int64_t* shapes
    cdef const int64_t* offsets
    f.at = at
    if type(src) is BatchStorage:
        st = <BatchStorage>src
        if (<cnp.dtype>st.dtype).type_num != cnp.NPY_FLOAT32 or st.num_samples != parts:
            raise ValueError(f"expected {parts} float32 matrices, got {st.num_samples} "
                             f"{st.dtype} samples")
        a = cnp.PyArray_GETCONTIGUOUS(st.shapes)
        shapes = <const int64_t*>cnp.PyArray_DATA(a)
        nd = st.ndim
        for i in range(parts):
            count = 1
            for k in range(nd):
                count *= shapes[i * nd + k]
            if count != n * (n + 1):
                raise ValueError(f"sample {i} has {count} elements, not {n} x {n + 1}")
        f.f64 = 0
        if st.base is None:
            src_at = sample_data(st, keep)
            for i in range(parts):
                at[i] = src_at[i]
            return 0
        a = cnp.PyArray_GETCONTIGUOUS(st.offsets)
        offsets = <const int64_t*>cnp.PyArray_DATA(a)
        for i in range(parts):
            at[i] = st.data + offsets[i]
        return 0
    a = <cnp.ndarray?>src
    if not cnp.PyArray_IS_C_CONTIGUOUS(a) or a.ndim != 3:
        raise ValueError("expected a C-contiguous array of matrices")
    if a.descr.type_num == cnp.NPY_FLOAT32 and a.shape[0] == parts and a.shape[1] == n and \
            a.shape[2] == n + 1:
        f.f64 = 0
        step = n * (n + 1) * 4
    elif a.descr.type_num == cnp.NPY_FLOAT64 and a.shape[0] in (1, parts) and \
            a.shape[1] == n + 1 and a.shape[2] == n + 1:
        f.f64 = 1
        step = (n + 1) * (n + 1) * 8 if a.shape[0] == parts else 0
    else:
        raise ValueError(f"expected float32 ({parts}, {n}, {n + 1}) or float64 (1 or {parts}, "
                         f"{n + 1}, {n + 1}) matrices, got {a.dtype} {src.shape}")
    keep.append(a)
    base = <const char*>cnp.PyArray_DATA(a)
    for i in range(parts):
        at[i] = base + i * step
    return 0


def compose_batch(BatchStorage out, list factors, int ndim, bint reverse):
    """Fill `out` (contiguous float32, parts * ndim * (ndim + 1) elements) with the top `ndim`
    rows of the product of `factors` per part: `F0`, then `Fi @ acc` (or `acc @ Fi` with
    `reverse`) for each next factor (see the module docstring for what a factor is)."""
    cdef Py_ssize_t c, parts, count = len(factors)
    cdef int n = ndim
    cdef list keep = []
    if not 1 <= n < DALI_TF_MAX_DIM or count < 1:
        raise ValueError(f"expected 1 to {DALI_TF_MAX_DIM - 1} dimensions and a factor, got "
                         f"{n} and {count}")
    if out.base is None or (<cnp.dtype>out.dtype).type_num != cnp.NPY_FLOAT32 or \
            out.nbytes % (4 * n * (n + 1)):
        raise ValueError("the output must be a contiguous float32 batch of matrices")
    parts = out.nbytes // (4 * n * (n + 1))
    cdef dali_tf_factor* f = <dali_tf_factor*>job_array(count, sizeof(dali_tf_factor), keep)
    cdef const char** at = <const char**>job_array(count * parts, sizeof(char*), keep)
    for c in range(count):
        _set_factor(&f[c], at + c * parts, factors[c], parts, n, keep)
    cdef float* dst = <float*>out.data
    with nogil:
        dali_tf_compose(dst, parts, n, f, <int>count, reverse)
