# cython: boundscheck=False, wraparound=False, cdivision=True
"""Spectrograms and power spectra of a batch of float32 signals (fn.spectrogram,
fn.power_spectrum) on the real FFT of fft.h, whose plans (`RealFFT`) the operators keep.

Work items are ranges of the batch's windows, numbered across its signals (spectrogram: short
signals share blocks of windows transformed together), or of a sample's signals (power
spectrum), of about `_ITEM_FLOPS` estimated operations; all run in one nogil call on the pool,
largest first.  Source signals are read where they are (`sample_data`), contiguous or not.
The loops are in spectral.h.
"""
cimport numpy as cnp
import numpy as np

from libc.math cimport log2
from libc.stdint cimport int64_t

from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef double _NS_PER_FLOP = 0.5           # the cost estimate the pool gets
cdef double _ITEM_FLOPS = 4e6            # work items of about this size (or whole samples)


cdef extern from "fft.h" namespace "dali_fft" nogil:
    cdef cppclass RealPlan:
        RealPlan(int64_t n) except +
        int64_t n


cdef extern from "spectral.h" nogil:
    ctypedef struct dali_spectrogram_args:
        const RealPlan* plan
        const float* window
        int64_t window_length, step, offset
        int reflect, power, time_major

    ctypedef struct dali_spectrogram_signal:
        const float* x
        float* out
        int64_t n, windows

    ctypedef struct dali_spectrogram_job:
        const dali_spectrogram_signal* signals
        const int64_t* signal
        const int64_t* index
        int64_t lo, hi

    ctypedef struct dali_power_spectrum_job:
        const RealPlan* plan
        const float* const* x
        float* out
        int64_t len, inner, per_sample, lo, hi
        int power

    int dali_spectrogram_run(const dali_spectrogram_args* a, const dali_spectrogram_job* j)
    int dali_power_spectrum_run(const dali_power_spectrum_job* j)


cdef class RealFFT:
    """The plan of real FFTs of length `n` (>= 1): its factors and twiddle factors."""
    cdef RealPlan* plan

    def __cinit__(self, int64_t n):
        if n < 1:
            raise ValueError(f"the FFT length must be positive, got {n}")
        self.plan = new RealPlan(n)

    def __dealloc__(self):
        del self.plan

    @property
    def n(self):
        return self.plan.n


cdef struct SpecJob:
    dali_spectrogram_args* args
    dali_spectrogram_job job
    int failed                     # its FFT scratch could not be allocated


cdef void _run_spectrogram(void* ctx, int64_t i) noexcept nogil:
    cdef SpecJob* j = (<SpecJob*>ctx) + i
    j.failed = dali_spectrogram_run(j.args, &j.job) != 0


cdef struct PowerJob:
    dali_power_spectrum_job job
    int failed                     # its FFT scratch could not be allocated


cdef void _run_power(void* ctx, int64_t i) noexcept nogil:
    cdef PowerJob* j = (<PowerJob*>ctx) + i
    j.failed = dali_power_spectrum_run(&j.job) != 0


cdef int64_t _per_thread(int64_t chunk, int64_t total, ThreadPool pool) noexcept:
    """`chunk` (units per work item), lowered so that `total` units make at least one item per
    thread of `pool` (in multiples of a transform block, DALI_SPECTRAL_MAX_BLOCK): a batch of
    short signals is otherwise one item on one thread."""
    if pool is None or pool.num_threads < 2:
        return chunk
    cdef int64_t share = (total + pool.num_threads - 1) // pool.num_threads
    return max(1, min(chunk, (share + 15) // 16 * 16))


cdef double _fft_flops(int64_t n) noexcept nogil:
    return 2.5 * n * log2(n + 1.0) + n


cdef inline int64_t _num_windows(int64_t n, int64_t window_length, int64_t step,
                                 bint center) noexcept nogil:
    if center:
        return n // step + 1
    return <int64_t>((n - window_length) / <double>step) + 1


def num_windows(int64_t n, int64_t window_length, int64_t step, bint center):
    """How many windows a signal of `n` samples gives (DALI's rule; C division)."""
    return _num_windows(n, window_length, step, center)


def _lengths(BatchStorage b):
    return np.prod(np.asarray(b.shapes, np.int64).reshape(b.num_samples, b.ndim), axis=1,
                   dtype=np.int64)


def spectrogram_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, RealFFT fft,
                      window, int64_t step, bint center, bint reflect, int power,
                      bint time_major):
    """The spectrogram of every signal of `src` (float32, its elements in order) into `dst`.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src : BatchStorage
        float32 signals, each of at least one sample and long enough for one window (see
        `num_windows`).
    dst : BatchStorage
        Contiguous float32, sample i of shape (fft.n // 2 + 1, W_i) or (W_i, fft.n // 2 + 1)
        with `time_major`, W_i = num_windows(len(src[i]), len(window), step, center).
    fft : RealFFT
        The plan of the FFT size (at least len(window)).
    window : array_like
        The window function's values (window_length of them).
    step : int
        Samples between windows (> 0).
    center, reflect : bool
        Windows centred at multiples of `step` (else starting there), and the signal mirrored
        outside its ends for them (else zeros).
    power : int
        1 (magnitude) or 2 (power).
    time_major : bool
        Output (windows, bins) instead of (bins, windows).
    """
    if not dst.is_contiguous:
        raise ValueError("spectrogram_batch needs a contiguous destination")
    if src.dtype != np.float32 or dst.dtype != np.float32:
        raise TypeError("spectrogram_batch reads and writes float32")
    cdef Py_ssize_t n = src.num_samples, i, k, count = 0
    if dst.num_samples != n:
        raise ValueError(f"{n} source samples but {dst.num_samples} destination samples")
    win = np.ascontiguousarray(window, np.float32).reshape(-1)
    cdef int64_t wl = win.shape[0], bins = fft.n // 2 + 1
    if wl < 1 or wl > fft.n or step < 1 or power not in (1, 2):
        raise ValueError("bad window, step or power")
    if dst.ndim != 2:
        raise ValueError("the destination shapes do not match the spectrograms")
    if n == 0:
        return
    lengths = _lengths(src)
    windows = np.empty(n, np.int64)
    cdef const int64_t[::1] m = lengths
    cdef int64_t[::1] w = windows
    cdef const int64_t[:, ::1] dst_shapes = np.asarray(dst.shapes, np.int64).reshape(n, 2)
    cdef int64_t total = 0, t
    for i in range(n):
        w[i] = _num_windows(m[i], wl, step, center)
        if m[i] < 1 or w[i] < 1:
            raise ValueError("every signal needs at least one sample and one window")
        if (dst_shapes[i, 0] != (w[i] if time_major else bins) or
                dst_shapes[i, 1] != (bins if time_major else w[i])):
            raise ValueError("the destination shapes do not match the spectrograms")
        total += w[i]
    cdef double per_window = _fft_flops(fft.n) + wl
    cdef int64_t chunk = _per_thread(max(16, <int64_t>(_ITEM_FLOPS / per_window) // 16 * 16),
                                     total, pool)
    # every window of the batch: its signal and its index there
    signal_of = np.empty(total, np.int64)
    index_of = np.empty(total, np.int64)
    cdef int64_t[::1] signal_view = signal_of
    cdef int64_t[::1] index_view = index_of
    k = 0
    for i in range(n):
        for t in range(w[i]):
            signal_view[k] = i
            index_view[k] = t
            k += 1
    count = (total + chunk - 1) // chunk
    keep = [win, fft, signal_of, index_of]
    cdef dali_spectrogram_args* args = <dali_spectrogram_args*>job_array(
        1, sizeof(dali_spectrogram_args), keep)
    cdef const float[::1] wv = win
    args.plan = fft.plan
    args.window = &wv[0]
    args.window_length = wl
    args.step = step
    args.offset = -(wl // 2) if center else 0
    args.reflect = center and reflect
    args.power = power
    args.time_major = time_major
    cdef dali_spectrogram_signal* signals = <dali_spectrogram_signal*>job_array(
        n, sizeof(dali_spectrogram_signal), keep)
    cdef SpecJob* jobs = <SpecJob*>job_array(count, sizeof(SpecJob), keep)
    sizes = np.empty(count, np.int64)
    cdef int64_t[::1] size_view = sizes
    cdef const char** data = sample_data(src, keep)
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets, np.int64)
    with nogil:
        for i in range(n):
            signals[i].x = <const float*>data[i]
            signals[i].out = <float*>(dst.data + doff[i])
            signals[i].n = m[i]
            signals[i].windows = w[i]
        for k in range(count):
            jobs[k].args = args
            jobs[k].job.signals = signals
            jobs[k].job.signal = &signal_view[0]
            jobs[k].job.index = &index_view[0]
            jobs[k].job.lo = k * chunk
            jobs[k].job.hi = min(total, (k + 1) * chunk)
            size_view[k] = jobs[k].job.hi - jobs[k].job.lo
    run_largest_first(pool, _run_spectrogram, jobs, sizes, _NS_PER_FLOP * per_window)
    for k in range(count):
        if jobs[k].failed:
            raise MemoryError("cannot allocate the FFT scratch of a work item")


def power_spectrum_batch(ThreadPool pool, BatchStorage src, BatchStorage dst, ffts, int axis,
                         int power):
    """|FFT|^power of every sample of `src` (float32) along `axis` into `dst`.

    Parameters
    ----------
    pool : ThreadPool or None
        Where the work items run (None: on the caller).
    src : BatchStorage
        float32 samples.
    dst : BatchStorage
        Contiguous float32: sample i is src[i]'s shape with extent ffts[i].n // 2 + 1 on
        `axis`.
    ffts : sequence of RealFFT
        The plan of every sample (its FFT size): the first `n` elements along the axis are
        transformed, zero-padded to `n`.
    axis : int
        The transformed axis (0 <= axis < ndim).
    power : int
        1 (magnitude) or 2 (power).
    """
    if not dst.is_contiguous:
        raise ValueError("power_spectrum_batch needs a contiguous destination")
    if src.dtype != np.float32 or dst.dtype != np.float32:
        raise TypeError("power_spectrum_batch reads and writes float32")
    cdef Py_ssize_t n = src.num_samples, nd = src.ndim, i, d, k, count = 0
    if dst.num_samples != n or len(ffts) != n or dst.ndim != nd:
        raise ValueError("the source, destination and plans must match")
    if not 0 <= axis < nd or power not in (1, 2):
        raise ValueError("bad axis or power")
    if n == 0:
        return
    keep = [list(ffts)]
    cdef const RealPlan** plans = <const RealPlan**>job_array(n, sizeof(RealPlan*), keep)
    cdef RealFFT fft
    for i, fft in enumerate(keep[0]):
        plans[i] = fft.plan
    cdef const int64_t[:, ::1] sshape = np.ascontiguousarray(src.shapes, np.int64).reshape(n, nd)
    cdef const int64_t[:, ::1] dshape = np.ascontiguousarray(dst.shapes, np.int64).reshape(n, nd)
    cdef const char** data = sample_data(src, keep)
    cdef const int64_t[::1] doff = np.ascontiguousarray(dst.offsets, np.int64)
    arrays = np.empty((4, n), np.int64)
    cdef int64_t[:, ::1] a = arrays
    cdef int64_t[::1] length = a[0], total = a[1], inner = a[2], chunk = a[3]
    costs = np.empty(n, np.float64)
    cdef double[::1] cost = costs
    cdef int64_t volume, out_volume, size, want
    # samples of one shape and plan (the usual batch), their outputs back to back: their
    # signals are numbered across them, so short samples share the blocks transformed together
    cdef bint joined = True, bad = False
    with nogil:
        for i in range(n):
            size = plans[i].n
            volume = out_volume = inner[i] = 1
            for d in range(nd):
                want = size // 2 + 1 if d == axis else sshape[i, d]
                bad = bad or dshape[i, d] != want
                joined = joined and sshape[i, d] == sshape[0, d]
                volume *= sshape[i, d]
                out_volume *= want
                if d > axis:
                    inner[i] *= sshape[i, d]
            length[i] = sshape[i, axis]
            total[i] = volume // max(length[i], 1)
            cost[i] = 2.5 * size * log2(size + 1.0) + 2 * size    # _fft_flops + loading
            chunk[i] = max(1, <int64_t>(_ITEM_FLOPS / cost[i]))
            joined = (joined and plans[i] == plans[0]
                      and doff[i] == doff[0] + i * out_volume * 4)
    if bad:
        raise ValueError("the destination shapes do not match the spectra")
    cdef Py_ssize_t units = n
    cdef int64_t per_sample = total[0]
    if n > 1 and joined:
        units = 1
        total[0] *= n
    if units == 1:
        chunk[0] = _per_thread(chunk[0], total[0], pool)
    for i in range(units):
        count += (total[i] + chunk[i] - 1) // chunk[i]
    cdef PowerJob* jobs = <PowerJob*>job_array(count, sizeof(PowerJob), keep)
    sizes = np.empty(count, np.int64)
    cdef int64_t[::1] size_view = sizes
    cdef int64_t lo
    k = 0
    with nogil:
        for i in range(units):
            lo = 0
            while lo < total[i]:
                jobs[k].job.plan = plans[i]
                jobs[k].job.x = <const float* const*>&data[i]
                jobs[k].job.out = <float*>(dst.data + doff[i])
                jobs[k].job.len = length[i]
                jobs[k].job.inner = inner[i]
                jobs[k].job.per_sample = per_sample if units == 1 else total[i]
                jobs[k].job.lo = lo
                jobs[k].job.hi = min(total[i], lo + chunk[i])
                jobs[k].job.power = power
                size_view[k] = <int64_t>((jobs[k].job.hi - lo) * cost[i])
                lo = jobs[k].job.hi
                k += 1
    run_largest_first(pool, _run_power, jobs, sizes, _NS_PER_FLOP)
    for k in range(count):
        if jobs[k].failed:
            raise MemoryError("cannot allocate the FFT scratch of a work item")
