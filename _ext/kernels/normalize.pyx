"""The passes of fn.normalize over a batch, one nogil call.

Every sample is collapsed to alternating groups of reduced and kept dimensions (extents of 1
dropped); its parameters (one value per combination of kept indices, C order) lie at
`poff[i]` in the batch's `mean`, `inv` and `sums` arrays.  The innermost unit of work is
either a row of the innermost reduced group (one parameter) or a plane (reduced extent R) x
(kept extent K) whose rows share the parameters p..p+K-1; an odometer walks the outer groups.
The passes, chosen by `flags`:

* SUM: sums[p] = sum of x;  MEAN (implies SUM): then mean[p] = float32(sums[p] / count);
* SQ: sums[p] = sum of (x - mean[p])**2;  INV (implies SQ): then inv[p] = scale / sqrt(var),
  var = sums[p] / (count - ddof) + eps, 0 where var <= 0 or count <= ddof without eps;
* OUT: dst = (x - mean[p]) * inv[p] + shift, in float32 as DALI computes it, converted to
  dst's type (integers round half away from zero and saturate, see convert.pxd).

A sample's passes run back to back while it is in cache.  Sums are double, accumulated in a
fixed order (eight partial sums along a row; a block of whole rows of a plane elementwise), so
the loops vectorize and the results do not depend on the CPU or on the thread.  Work items are
runs of consecutive samples of about GROUP elements (a tiny sample is not worth a job), run on
the pool largest first.
"""
cimport numpy as cnp
import numpy as np

from libc.math cimport sqrt
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.string cimport memset

from dali._ext.kernels.convert cimport store
from dali._ext.kernels.fused_types cimport numeric_out_t, numeric_t
from dali._ext.kernels.odometer cimport next_index
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_ELEMENT = 1.0    # the cost estimate (per element and pass) the pool gets

cdef enum:
    MAX_DIMS = 16
    BLOCK = 64           # elements of a plane's block: whole rows, parameters repeated
    GROUP = 1 << 15      # elements of a work item made of several samples

SUM, MEAN, SQ, INV, OUT = 1, 3, 4, 12, 16
cdef enum:
    F_SUM = 1
    F_MEAN = 2
    F_SQ = 4
    F_INV = 8
    F_OUT = 16


cdef struct Geo:
    # one sample, collapsed: `outer` groups walked by the odometer, then a row of `n` reduced
    # elements (K == 0) or a plane of R rows of K kept elements
    int outer
    Py_ssize_t ext[MAX_DIMS]
    Py_ssize_t pstr[MAX_DIMS]
    Py_ssize_t units, n, R, K, size, nparams


cdef void _geometry(const int64_t* shape, int ndim, const uint8_t* reduced,
                    Geo* g) noexcept nogil:
    cdef Py_ssize_t ext[MAX_DIMS]
    cdef bint red[MAX_DIMS]
    cdef int nd = 0, d
    cdef Py_ssize_t stride = 1
    for d in range(ndim):
        if shape[d] == 1:
            continue
        if nd and red[nd - 1] == (reduced[d] != 0):
            ext[nd - 1] *= shape[d]
        else:
            ext[nd] = shape[d]
            red[nd] = reduced[d] != 0
            nd += 1
    if nd == 0:
        ext[0], red[0], nd = 1, True, 1
    g.size = 1
    for d in range(nd - 1, -1, -1):
        g.size *= ext[d]
        g.ext[d] = ext[d]
        g.pstr[d] = 0 if red[d] else stride
        if not red[d]:
            stride *= ext[d]
    g.nparams = stride
    if red[nd - 1]:
        g.outer, g.n, g.K, g.R = nd - 1, ext[nd - 1], 0, 0
    else:
        g.outer = nd - 2 if nd >= 2 else 0
        g.K = ext[nd - 1]
        g.R = ext[nd - 2] if nd >= 2 else 1
        g.n = g.R * g.K
    g.units = 1
    for d in range(g.outer):
        g.units *= ext[d]


cdef inline Py_ssize_t _param(const Py_ssize_t* idx, const Geo* g) noexcept nogil:
    cdef Py_ssize_t p = 0
    cdef int d
    for d in range(g.outer):
        p += idx[d] * g.pstr[d]
    return p


cdef inline double _sum_row(const numeric_t* s, Py_ssize_t n, const float* mean) noexcept nogil:
    """Sum of s[0:n] (or of squared deviations from *mean) in eight partial sums."""
    cdef double a[8]
    cdef double v, m
    cdef Py_ssize_t j = 0
    cdef int lane
    for lane in range(8):
        a[lane] = 0
    if mean == NULL:
        while j + 8 <= n:
            for lane in range(8):
                a[lane] += <double>s[j + lane]
            j += 8
        for lane in range(n - j):
            a[lane] += <double>s[j + lane]
    else:
        m = mean[0]
        while j + 8 <= n:
            for lane in range(8):
                v = <double>s[j + lane] - m
                a[lane] += v * v
            j += 8
        for lane in range(n - j):
            v = <double>s[j + lane] - m
            a[lane] += v * v
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))


cdef void _sum_plane(const numeric_t* s, Py_ssize_t R, Py_ssize_t K, double* acc,
                     const float* mean) noexcept nogil:
    """acc[k] += sum over the R rows of s[r*K + k] (or of its squared deviation from mean[k]);
    short rows are added a block of whole rows at a time, elementwise."""
    cdef double blk[BLOCK]
    cdef double mrep[BLOCK]
    cdef double v
    cdef Py_ssize_t U, B, r = 0, e, k, rest, _row
    if K > BLOCK:
        for _row in range(R):
            if mean == NULL:
                for k in range(K):
                    acc[k] += <double>s[k]
            else:
                for k in range(K):
                    v = <double>s[k] - mean[k]
                    acc[k] += v * v
            s += K
        return
    U = BLOCK // K
    B = U * K
    for e in range(B):
        blk[e] = 0
        mrep[e] = 0 if mean == NULL else mean[e % K]
    while r + U <= R:
        if mean == NULL:
            for e in range(B):
                blk[e] += <double>s[e]
        else:
            for e in range(B):
                v = <double>s[e] - mrep[e]
                blk[e] += v * v
        s += B
        r += U
    rest = (R - r) * K
    for e in range(rest):
        if mean == NULL:
            blk[e] += <double>s[e]
        else:
            v = <double>s[e] - mrep[e]
            blk[e] += v * v
    for r in range(U):
        for k in range(K):
            acc[k] += blk[r * K + k]


cdef void _stats(const numeric_t* s, const Geo* g, double* sums,
                 const float* mean) noexcept nogil:
    """sums[p] = sum of x (mean NULL) or of (x - mean[p])**2 over the sample."""
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef Py_ssize_t _unit, p
    cdef int d
    cdef const float* m = NULL
    memset(sums, 0, g.nparams * sizeof(double))
    for d in range(g.outer):
        idx[d] = 0
    for _unit in range(g.units):
        p = _param(idx, g)
        if mean != NULL:
            m = mean + p
        if g.K == 0:
            sums[p] += _sum_row(s, g.n, m)
        else:
            _sum_plane(s, g.R, g.K, sums + p, m)
        s += g.n
        next_index(idx, g.outer, g.ext)


cdef void _normalize(const numeric_t* s, numeric_out_t* o, const Geo* g, const float* mean,
                     const float* inv, float shift) noexcept nogil:
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef float mrep[BLOCK]
    cdef float frep[BLOCK]
    cdef Py_ssize_t _unit, p, e, r, U, B, k
    cdef int d
    cdef float m, f
    for d in range(g.outer):
        idx[d] = 0
    for _unit in range(g.units):
        p = _param(idx, g)
        if g.K == 0:
            m, f = mean[p], inv[p]
            for e in range(g.n):
                store(&o[e], (<float>s[e] - m) * f + shift)
        elif g.K > BLOCK:
            for r in range(g.R):
                for k in range(g.K):
                    store(&o[r * g.K + k], (<float>s[r * g.K + k] - mean[p + k]) * inv[p + k]
                          + shift)
        else:
            U = BLOCK // g.K
            B = U * g.K
            for e in range(B):
                mrep[e] = mean[p + e % g.K]
                frep[e] = inv[p + e % g.K]
            r = 0
            while r < g.n:
                if B > g.n - r:
                    B = g.n - r
                for e in range(B):
                    store(&o[r + e], (<float>s[r + e] - mrep[e]) * frep[e] + shift)
                r += B
        s += g.n
        o += g.n
        next_index(idx, g.outer, g.ext)


cdef struct Ctx:
    # the batch: per-sample addresses, shapes and parameter offsets, the arrays and flags
    const int64_t* src
    const int64_t* dst
    const int64_t* shapes
    const int64_t* poff
    const uint8_t* reduced
    int ndim, sk, dk, flags, ddof
    double* sums
    float* mean
    float* inv
    float scale, shift, eps


cdef struct Job:
    Ctx* ctx
    Py_ssize_t first, stop


cdef void _finish_mean(double* sums, float* mean, Py_ssize_t nparams,
                       Py_ssize_t count) noexcept nogil:
    cdef Py_ssize_t p
    for p in range(nparams):
        mean[p] = <float>(sums[p] / count) if count else <float>sums[p]


cdef void _finish_inv(const double* sums, float* inv, Py_ssize_t nparams, Py_ssize_t count,
                      int ddof, float eps, float scale) noexcept nogil:
    cdef Py_ssize_t p
    cdef double var
    for p in range(nparams):
        if count == 0 or (count <= ddof and eps == 0):
            inv[p] = 0
            continue
        var = (sums[p] / (count - ddof) if count > ddof else 0.0) + <double>eps
        inv[p] = <float>(<double>scale / sqrt(var)) if var > 0 else 0


cdef void _stats_any(const char* s, int sk, const Geo* g, double* sums,
                     const float* mean) noexcept nogil:
    if sk == cnp.NPY_INT8:
        _stats(<const int8_t*>s, g, sums, mean)
    elif sk == cnp.NPY_UINT8:
        _stats(<const uint8_t*>s, g, sums, mean)
    elif sk == cnp.NPY_INT16:
        _stats(<const int16_t*>s, g, sums, mean)
    elif sk == cnp.NPY_UINT16:
        _stats(<const uint16_t*>s, g, sums, mean)
    elif sk == cnp.NPY_INT32:
        _stats(<const int32_t*>s, g, sums, mean)
    elif sk == cnp.NPY_UINT32:
        _stats(<const uint32_t*>s, g, sums, mean)
    else:
        _stats(<const float*>s, g, sums, mean)


cdef void _normalize_out(const numeric_t* s, char* o, int dk, const Geo* g, const float* mean,
                         const float* inv, float shift) noexcept nogil:
    if dk == cnp.NPY_INT8:
        _normalize(s, <int8_t*>o, g, mean, inv, shift)
    elif dk == cnp.NPY_UINT8:
        _normalize(s, <uint8_t*>o, g, mean, inv, shift)
    elif dk == cnp.NPY_INT16:
        _normalize(s, <int16_t*>o, g, mean, inv, shift)
    elif dk == cnp.NPY_UINT16:
        _normalize(s, <uint16_t*>o, g, mean, inv, shift)
    elif dk == cnp.NPY_INT32:
        _normalize(s, <int32_t*>o, g, mean, inv, shift)
    elif dk == cnp.NPY_UINT32:
        _normalize(s, <uint32_t*>o, g, mean, inv, shift)
    else:
        _normalize(s, <float*>o, g, mean, inv, shift)


cdef void _normalize_any(const char* s, int sk, char* o, int dk, const Geo* g,
                         const float* mean, const float* inv, float shift) noexcept nogil:
    if sk == cnp.NPY_INT8:
        _normalize_out(<const int8_t*>s, o, dk, g, mean, inv, shift)
    elif sk == cnp.NPY_UINT8:
        _normalize_out(<const uint8_t*>s, o, dk, g, mean, inv, shift)
    elif sk == cnp.NPY_INT16:
        _normalize_out(<const int16_t*>s, o, dk, g, mean, inv, shift)
    elif sk == cnp.NPY_UINT16:
        _normalize_out(<const uint16_t*>s, o, dk, g, mean, inv, shift)
    elif sk == cnp.NPY_INT32:
        _normalize_out(<const int32_t*>s, o, dk, g, mean, inv, shift)
    elif sk == cnp.NPY_UINT32:
        _normalize_out(<const uint32_t*>s, o, dk, g, mean, inv, shift)
    else:
        _normalize_out(<const float*>s, o, dk, g, mean, inv, shift)


cdef void _sample(const Ctx* c, Py_ssize_t i) noexcept nogil:
    """Every pass `c.flags` asks for, on sample i."""
    cdef Geo g
    cdef Py_ssize_t p0 = c.poff[i], count
    cdef const char* s = <const char*><size_t>c.src[i]
    _geometry(c.shapes + i * c.ndim, c.ndim, c.reduced, &g)
    count = g.size // g.nparams if g.nparams else 0
    if c.flags & F_SUM:
        if g.size:
            _stats_any(s, c.sk, &g, c.sums + p0, NULL)
        else:
            memset(c.sums + p0, 0, g.nparams * sizeof(double))
        if c.flags & F_MEAN:
            _finish_mean(c.sums + p0, c.mean + p0, g.nparams, count)
    if c.flags & F_SQ:
        if g.size:
            _stats_any(s, c.sk, &g, c.sums + p0, c.mean + p0)
        else:
            memset(c.sums + p0, 0, g.nparams * sizeof(double))
        if c.flags & F_INV:
            _finish_inv(c.sums + p0, c.inv + p0, g.nparams, count, c.ddof, c.eps, c.scale)
    if c.flags & F_OUT and g.size:
        _normalize_any(s, c.sk, <char*><size_t>c.dst[i], c.dk, &g, c.mean + p0, c.inv + p0,
                       c.shift)


cdef void _run_job(void* jobs, int64_t k) noexcept nogil:
    cdef Job* j = (<Job*>jobs) + k
    cdef Py_ssize_t i
    for i in range(j.first, j.stop):
        _sample(j.ctx, i)


TYPES = frozenset(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                        np.uint32, np.float32))


cdef cnp.ndarray _addresses(BatchStorage st, list keep):
    """Start address of every sample (C-contiguous copies of per-sample ones that are not)."""
    cdef Py_ssize_t n = st.num_samples, i
    cdef cnp.ndarray out = np.empty(n, np.int64)
    cdef int64_t* a = <int64_t*>cnp.PyArray_DATA(out)
    cdef const int64_t[::1] offs
    cdef cnp.ndarray s
    if st.base is not None:
        offs = st.offsets
        for i in range(n):
            a[i] = <int64_t><size_t>st.data + offs[i]
        return out
    for i, s in enumerate(st.samples()):
        if not s.flags.c_contiguous:
            s = np.ascontiguousarray(s)
            keep.append(s)
        a[i] = <int64_t><size_t>cnp.PyArray_DATA(s)
    return out


cdef bint _same_shapes(BatchStorage a, BatchStorage b):
    """Whether the samples of `a` and `b` have the same shapes (a typed loop: np.array_equal
    costs microseconds)."""
    if a.shapes is b.shapes:
        return True
    if a.num_samples != b.num_samples or a.ndim != b.ndim:
        return False
    cdef const int64_t[:, ::1] x = a.shapes
    cdef const int64_t[:, ::1] y = b.shapes
    cdef Py_ssize_t i, d
    for i in range(a.num_samples):
        for d in range(a.ndim):
            if x[i, d] != y[i, d]:
                return False
    return True


cdef int64_t _offsets(BatchStorage src, reduced, int64_t* o, const int64_t* check) except -2:
    """The parameter offsets of `param_offsets` into `o`, or, with `check`, whether `check`
    holds them (1 or 0)."""
    cdef Py_ssize_t n = src.num_samples, i, d
    cdef int64_t count, at = 0
    cdef int ndim = src.ndim
    cdef const int64_t[:, ::1] shapes = src.shapes
    cdef bint kept[MAX_DIMS]
    if len(reduced) != ndim or ndim > MAX_DIMS:
        raise ValueError(f"samples need at most {MAX_DIMS} dimensions and `reduced` one flag "
                         "each")
    for d in range(ndim):
        kept[d] = not reduced[d]
    for i in range(n + 1):
        if check != NULL and check[i] != at:
            return 0
        if o != NULL:
            o[i] = at
        if i == n:
            break
        count = 1
        for d in range(ndim):
            if kept[d]:
                count *= shapes[i, d]
        at += count
    return 1


def param_offsets(BatchStorage src, reduced):
    """num_samples + 1 offsets of the samples' parameters in the batch's parameter arrays: a
    sample has the product of its kept extents (`reduced`: a bool per dimension)."""
    cdef cnp.ndarray out = np.empty(src.num_samples + 1, np.int64)
    _offsets(src, reduced, <int64_t*>cnp.PyArray_DATA(out), NULL)
    return out


def normalize_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, reduced,
                    const int64_t[::1] poff, int flags, mean=None, inv=None, sums=None,
                    float scale=1, float shift=0, float eps=0, int ddof=0):
    """The passes of `flags` (SUM, MEAN, SQ, INV, OUT, or'ed) over every sample of `src`, on
    `pool` (the caller when None) without the GIL.

    `reduced`: a bool per dimension of the samples; `poff`: num_samples + 1 offsets of each
    sample's parameters in `mean`, `inv` (float32) and `sums` (float64), which must hold
    poff[-1] values each where a pass reads or writes them; `dst` (same shapes as `src`) is
    written by OUT.  Everything is checked before anything runs.
    """
    cdef Py_ssize_t n = src.num_samples, i, k, total, elements, start, size
    cdef Ctx ctx
    cdef float[::1] m = None
    cdef float[::1] f = None
    cdef double[::1] acc = None
    cdef const int64_t[:, ::1] shapes
    keep = []
    if src.dtype not in TYPES:
        raise TypeError(f"unsupported type {src.dtype}")
    if len(reduced) != src.ndim or not 1 <= src.ndim <= MAX_DIMS:
        raise ValueError(f"samples need 1 to {MAX_DIMS} dimensions and `reduced` one flag each")
    if poff.shape[0] != n + 1:
        raise ValueError("poff needs num_samples + 1 offsets")
    total = poff[n]
    if flags & F_SUM or flags & F_SQ:
        acc = sums
        if acc is None or acc.shape[0] < total:
            raise ValueError(f"sums needs {total} values")
    if flags & (F_MEAN | F_SQ | F_OUT):
        m = mean
        if m is None or m.shape[0] < total:
            raise ValueError(f"mean needs {total} values")
    if flags & (F_INV | F_OUT):
        f = inv
        if f is None or f.shape[0] < total:
            raise ValueError(f"inv needs {total} values")
    if flags & F_OUT:
        if dst.dtype not in TYPES:
            raise TypeError(f"unsupported output type {dst.dtype}")
        if not _same_shapes(dst, src):
            raise ValueError("src and dst must have the same shapes")
        ctx.dk = dst.dtype.num
        dst_at = _addresses(dst, keep)
        ctx.dst = <const int64_t*>cnp.PyArray_DATA(dst_at)
    red = np.asarray([bool(r) for r in reduced], np.uint8)
    if not _offsets(src, reduced, NULL, &poff[0]):
        raise ValueError("poff does not match the samples' parameter counts")
    shapes = src.shapes
    src_at = _addresses(src, keep)
    ctx.src = <const int64_t*>cnp.PyArray_DATA(src_at)
    ctx.shapes = &shapes[0, 0] if n and src.ndim else NULL
    ctx.poff = &poff[0]
    ctx.reduced = <const uint8_t*>cnp.PyArray_DATA(red)
    ctx.ndim, ctx.flags, ctx.ddof = src.ndim, flags, ddof
    ctx.sk = src.dtype.num
    ctx.sums = &acc[0] if acc is not None and acc.shape[0] else NULL
    ctx.mean = &m[0] if m is not None and m.shape[0] else NULL
    ctx.inv = &f[0] if f is not None and f.shape[0] else NULL
    ctx.scale, ctx.shift, ctx.eps = scale, shift, eps
    # Work items: runs of consecutive samples of about GROUP elements.
    cdef Job* jobs = <Job*>job_array(n, sizeof(Job), keep)
    costs = np.empty(n, np.int64)
    cdef int64_t[::1] cost = costs
    cdef int passes = (flags & F_SUM != 0) + (flags & F_SQ != 0) + (flags & F_OUT != 0)
    cdef Py_ssize_t count = 0
    start, elements = 0, 0
    for i in range(n):
        size = 1
        for k in range(src.ndim):
            size *= shapes[i, k]
        elements += size
        if elements >= GROUP or i == n - 1:
            jobs[count].ctx = &ctx
            jobs[count].first, jobs[count].stop = start, i + 1
            cost[count] = max(1, elements) * passes
            count += 1
            start, elements = i + 1, 0
    run_largest_first(pool, _run_job, jobs, costs[:count], _NS_PER_ELEMENT)
