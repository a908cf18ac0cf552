"""Displacement filters of fn.water and fn.sphere on HWC images (uint8 or float32).

Output pixel (y, x) reads the input at a float32 position p(y, x) (pixel-corner coordinates:
the position (x, y) lies in pixel (floor(x), floor(y))), as DALI's CPU kernel computes it:
* water:  p = (x + ampl_x * sinf(freq_x * y + phase_x), y + ampl_y * cosf(freq_y * x + phase_y));
* sphere: with m = (W / 2, H / 2), d = int(max(m)), t = (x + 0.5, y + 0.5) - m,
          p = m + t * |t| / d;
* remap: p given per pixel by the caller;
* jitter: p = (clamp(x + rx, 0, W), clamp(y + ry, 0, H)) with r = min(floor(u * degree),
  degree - 1) - degree // 2 from uniform doubles u given per pixel and axis.
Nearest neighbour takes the pixel containing p; linear blends the four pixel centres around
p - 0.5 (`a + (b - a) * f`, rows then columns).  Positions outside the image read
`fill` (given already converted to the input type).  Integer outputs round half away from zero
and saturate.  Everything runs without the GIL; `displace_batch` runs a batch of images on a
thread pool in one call, largest first (images whose mask is off are copied);
`displace_storage` does the same on whole batches (`BatchStorage`), without Python per sample.
The nogil contract is in displace.pxd.
"""
cimport numpy as cnp
import numpy as np

from libc.math cimport cosf, sinf
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

from dali._ext.kernels.convert cimport store
from dali._ext.kernels.fused_types cimport image_t
from dali._ext.kernels.interpolation cimport floor_index
from dali._ext.kernels.sample_data cimport sample_data

cnp.import_array()

cdef extern from "philox_blocks.h" nogil:
    void dali_philox_detect()
    int dali_philox_avx2(int enable)

cdef extern from "displace_rows.h" nogil:
    enum: DALI_NN_ROW_MAX
    void dali_sphere_rad(float fy, float mid_x, float mid_y, float d, int64_t n, float* rad)
    void dali_sphere_row(float fy, float mid_x, float mid_y, int64_t w, const float* rad,
                         float* px, float* py)
    void dali_nn_row(const float* px, const float* py, int64_t w, int64_t h, int32_t* xs,
                     int32_t* ys)
    void dali_philox_blocks(uint64_t key, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t first,
                            int64_t n, uint32_t* out)

dali_philox_detect()

cdef double _NS_PER_ELEMENT = 1.0    # the cost estimate (per pixel and channel) the pool gets

cdef enum:
    NN = DISPLACE_NN
    LINEAR = DISPLACE_LINEAR
    WATER = DISPLACE_WATER
    SPHERE = DISPLACE_SPHERE
    REMAP = DISPLACE_REMAP
    COPY = DISPLACE_COPY
    JITTER = DISPLACE_JITTER


cdef inline float _at(const image_t* src, Py_ssize_t h, Py_ssize_t w, Py_ssize_t nc,
                      Py_ssize_t y, Py_ssize_t x, Py_ssize_t c, float fill) noexcept nogil:
    if 0 <= x < w and 0 <= y < h:
        return <float>src[(y * w + x) * nc + c]
    return fill


cdef inline void _water_waves(const float* wave, Py_ssize_t h, Py_ssize_t w,
                              float* out) noexcept nogil:
    # out[y] = ampl_x * sinf(freq_x * y + phase_x) for the h rows, then
    # out[h + x] = ampl_y * cosf(freq_y * x + phase_y) for the w columns
    cdef Py_ssize_t y, x
    for y in range(h):
        out[y] = wave[0] * sinf(wave[1] * <float>y + wave[2])
    for x in range(w):
        out[h + x] = wave[3] * cosf(wave[4] * <float>x + wave[5])


def water_waves(shapes, wave):
    """fn.water's wave terms of a batch as the kernel computes them (libm's sinf and cosf):
    for each (H, W, ...) sample in turn, H row terms then W column terms (float32), for the
    GPU kernel (dali/ops/image/jitter.cu)."""
    if wave is None or len(wave) != 6:
        raise ValueError("water needs the six wave parameters")
    cdef const int64_t[:, ::1] hw = np.ascontiguousarray(
        np.asarray(shapes, np.int64).reshape(len(shapes), -1)[:, :2])
    cdef Py_ssize_t n = hw.shape[0], i, at = 0
    cdef float wv[6]
    for i in range(6):
        wv[i] = wave[i]
    out = np.empty(int(np.sum(hw, dtype=np.int64)) if n else 0, np.float32)
    cdef float[::1] o = out
    with nogil:
        for i in range(n):
            if hw[i, 0] + hw[i, 1]:
                _water_waves(wv, hw[i, 0], hw[i, 1], &o[at])
            at += hw[i, 0] + hw[i, 1]
    return out


cdef void _displace(const image_t* src, image_t* dst, Py_ssize_t h, Py_ssize_t w,
                    Py_ssize_t nc, int mode, const float* wave, const float* map_x,
                    const float* map_y, const DisplaceJob* job, int interp,
                    float fill, float* wave_rows) noexcept nogil:
    # wave_rows: scratch for water, h + w floats, and for sphere, 5 * w (the positions, the
    # radii, NN's pixels)
    cdef Py_ssize_t y, x, c, xi, yi
    cdef float px, py, fx, fy, top, bottom, a, b, fy_, fx_
    cdef float mid_x = w * <float>0.5, mid_y = h * <float>0.5
    cdef int d = <int>(mid_x if mid_x > mid_y else mid_y)
    cdef float half = 0.5
    cdef image_t* out
    cdef image_t fill_value
    store(&fill_value, fill)
    # water's sine term depends on the row only and its cosine term on the column only:
    # computed once each (the same float operations as per pixel)
    cdef float* wave_cols = NULL
    cdef int32_t* jx = NULL
    cdef int32_t* jy = NULL
    if mode == JITTER:
        jx = <int32_t*>(job.words + 4 * (w // 2 + 2))
        jy = jx + w
    if mode == WATER:
        wave_cols = wave_rows + h
        if not job.waves_ready:
            _water_waves(wave, h, w, wave_rows)
    cdef float* rad = wave_rows + 2 * w if mode == SPHERE else NULL
    if mode == SPHERE and interp == NN and w < DALI_NN_ROW_MAX and h < DALI_NN_ROW_MAX:
        # rows y and h - 1 - y share their radii; a row's positions, then the pixels they
        # read (displace_rows.h)
        jx = <int32_t*>(rad + w)
        for y in range((h + 1) // 2):
            dali_sphere_rad(<float>y, mid_x, mid_y, <float>d, (w + 1) // 2, rad)
            for c in range(2 if 2 * y + 1 < h else 1):
                yi = h - 1 - y if c else y
                dali_sphere_row(<float>yi, mid_x, mid_y, w, rad, wave_rows, wave_rows + w)
                dali_nn_row(wave_rows, wave_rows + w, w, h, jx, jx + w)
                _copy_row(src, &dst[yi * w * nc], jx, jx + w, h, w, nc, fill_value)
        return
    for y in range(h):
        for x in range(w):
            fy_ = <float>y
            fx_ = <float>x
            if mode == WATER:
                px = fx_ + wave_rows[y]
                py = fy_ + wave_cols[x]
            elif mode == REMAP:
                px = map_x[y * w + x]
                py = map_y[y * w + x]
            elif mode == JITTER:
                if x == 0:
                    _jitter_row(job, y, jx, jy)
                px = <float>jx[x]
                py = <float>jy[x]
            else:
                if x == 0:
                    dali_sphere_rad(fy_, mid_x, mid_y, <float>d, (w + 1) // 2, rad)
                    dali_sphere_row(fy_, mid_x, mid_y, w, rad, wave_rows, wave_rows + w)
                px = wave_rows[x]
                py = wave_rows[w + x]
            out = &dst[(y * w + x) * nc]
            if interp == NN:
                _copy_pixel(src, out, floor_index(px, w), floor_index(py, h), h, w, nc,
                            fill_value)
            else:
                px = px - half
                py = py - half
                xi = floor_index(px, w)
                yi = floor_index(py, h)
                fx = px - xi
                fy = py - yi
                if xi <= -2 or xi >= w + 1:     # far outside: keep inf * 0 out of the blend
                    fx = 0
                if yi <= -2 or yi >= h + 1:
                    fy = 0
                for c in range(nc):
                    a = _at(src, h, w, nc, yi, xi, c, fill)
                    b = _at(src, h, w, nc, yi, xi + 1, c, fill)
                    top = a + (b - a) * fx
                    a = _at(src, h, w, nc, yi + 1, xi, c, fill)
                    b = _at(src, h, w, nc, yi + 1, xi + 1, c, fill)
                    bottom = a + (b - a) * fx
                    store(&out[c], top + (bottom - top) * fy)


cdef inline Py_ssize_t _jitter_index(Py_ssize_t i, Py_ssize_t n, double u,
                                     int degree) noexcept nogil:
    # i + r - degree // 2 clamped to [0, n], r = min(floor(u * degree), degree - 1)
    cdef int r = <int>(u * degree)          # floor: the product is >= 0
    i += (r if r < degree else degree - 1) - degree // 2
    return 0 if i < 0 else (n if i > n else i)


cdef void _jitter_row(const DisplaceJob* j, Py_ssize_t y, int32_t* xi,
                      int32_t* yi) noexcept nogil:
    # the source column and row of every pixel of row y: draw k of the sample's stream is
    # half of Philox block k // 2 (words 0, 1 for even k, else 2, 3), as rng.uniform draws it
    cdef Py_ssize_t x, w = j.w
    cdef int64_t s, k, first
    cdef const uint32_t* wp
    cdef double u
    cdef int axis
    for axis in range(2):
        s = axis * j.h * w + y * w
        first = s // 2
        dali_philox_blocks(j.key, <uint32_t>j.sample_id, <uint32_t>(j.sample_id >> 32),
                           j.stream, <uint32_t>first, (s + w - 1) // 2 - first + 1, j.words)
        for x in range(w):
            k = s + x
            wp = j.words + 4 * (k // 2 - first) + 2 * (k & 1)
            u = (((<uint64_t>wp[0] << 32) | wp[1]) >> 11) * (1.0 / 9007199254740992.0)
            if axis == 0:
                xi[x] = <int32_t>_jitter_index(x, w, u, j.degree)
            else:
                yi[x] = <int32_t>_jitter_index(y, j.h, u, j.degree)


cdef inline void _copy_pixel(const image_t* src, image_t* out, Py_ssize_t xi, Py_ssize_t yi,
                             Py_ssize_t h, Py_ssize_t w, Py_ssize_t nc,
                             image_t fill_value) noexcept nogil:
    # out = source pixel (yi, xi) (the element itself: store(load(v)) == v), or the fill
    # outside the image
    cdef Py_ssize_t c
    cdef const image_t* pix
    if 0 <= xi < w and 0 <= yi < h:
        pix = &src[(yi * w + xi) * nc]
        if nc == 3:         # the common case, unrolled
            out[0], out[1], out[2] = pix[0], pix[1], pix[2]
        else:
            for c in range(nc):
                out[c] = pix[c]
    else:
        for c in range(nc):
            out[c] = fill_value


cdef void _copy_row(const image_t* src, image_t* out, const int32_t* xs, const int32_t* ys,
                    Py_ssize_t h, Py_ssize_t w, Py_ssize_t nc, image_t fill_value) noexcept nogil:
    # output row pixel x is source pixel (ys[x], xs[x]), or the fill where that is outside
    cdef Py_ssize_t x
    for x in range(w):
        _copy_pixel(src, out + x * nc, xs[x], ys[x], h, w, nc, fill_value)


cdef void _jitter(const image_t* src, image_t* dst, const DisplaceJob* j) noexcept nogil:
    cdef Py_ssize_t h = j.h, w = j.w, nc = j.nc, y
    cdef int32_t* xs = <int32_t*>(j.words + 4 * (w // 2 + 2))
    cdef int32_t* ys = xs + w
    cdef image_t fill_value
    store(&fill_value, j.fill)
    for y in range(h):
        _jitter_row(j, y, xs, ys)
        _copy_row(src, &dst[y * w * nc], xs, ys, h, w, nc, fill_value)


cdef void displace_run(const DisplaceJob* j) noexcept nogil:
    if j.h == 0 or j.w == 0 or j.nc == 0:
        return
    if j.mode == COPY:
        memcpy(j.dst, j.src, j.h * j.w * j.nc * (4 if j.is_float else 1))
    elif j.mode == JITTER and j.interp == NN:
        if j.is_float:
            _jitter(<const float*>j.src, <float*>j.dst, j)
        else:
            _jitter(<const uint8_t*>j.src, <uint8_t*>j.dst, j)
    elif j.is_float:
        _displace(<const float*>j.src, <float*>j.dst, j.h, j.w, j.nc, j.mode, j.wave, j.map_x,
                  j.map_y, j, j.interp, j.fill, j.scratch)
    else:
        _displace(<const uint8_t*>j.src, <uint8_t*>j.dst, j.h, j.w, j.nc, j.mode, j.wave,
                  j.map_x, j.map_y, j, j.interp, j.fill, j.scratch)


cdef void _run_job(void* ctx, int64_t i) noexcept nogil:
    displace_run((<const DisplaceJob*>ctx) + i)


cdef object _describe(cnp.ndarray src, cnp.ndarray dst, str mode, int interp, float fill,
                      wave, positions, DisplaceJob* job):
    """Check one image's arguments and fill `job`; returns what must stay alive while it
    runs."""
    cdef int k
    cdef const float[:, ::1] map_x = None
    cdef const float[:, ::1] map_y = None
    if src.dtype != dst.dtype or src.dtype not in (np.uint8, np.float32):
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if src.ndim != 3 or dst.ndim != 3 or not (src.flags.c_contiguous and dst.flags.c_contiguous):
        raise ValueError("src and dst must be C-contiguous (H, W, C) arrays")
    if (src.shape[0] != dst.shape[0] or src.shape[1] != dst.shape[1]
            or src.shape[2] != dst.shape[2]):
        raise ValueError("src and dst must have the same shape")
    if interp != NN and interp != LINEAR:
        raise ValueError(f"unsupported interpolation {interp}")
    job.map_x = job.map_y = NULL
    cdef float[::1] scratch = None
    if mode == "water":
        job.mode = WATER
        if wave is None or len(wave) != 6:
            raise ValueError("water needs the six wave parameters")
        for k in range(6):
            job.wave[k] = wave[k]
        scratch = np.empty(src.shape[0] + src.shape[1] + 1, np.float32)
        job.scratch = &scratch[0]
        job.waves_ready = False
    elif mode == "sphere":
        job.mode = SPHERE
        scratch = np.empty(5 * src.shape[1] + 1, np.float32)
        job.scratch = &scratch[0]
    elif mode == "copy":
        job.mode = COPY
    elif mode == "remap":
        job.mode = REMAP
        if positions is None:
            raise ValueError("remap needs the positions")
        map_x = np.ascontiguousarray(positions[0], dtype=np.float32)
        map_y = np.ascontiguousarray(positions[1], dtype=np.float32)
        if (map_x.shape[0] != src.shape[0] or map_x.shape[1] != src.shape[1]
                or map_y.shape[0] != src.shape[0] or map_y.shape[1] != src.shape[1]):
            raise ValueError("positions must have the image's height and width")
        if map_x.shape[0] and map_x.shape[1]:
            job.map_x, job.map_y = &map_x[0, 0], &map_y[0, 0]
    else:
        raise ValueError(f"unknown displacement {mode!r}")
    job.src = <const char*>cnp.PyArray_DATA(src)
    job.dst = <char*>cnp.PyArray_DATA(dst)
    job.is_float = src.dtype == np.float32
    job.h, job.w, job.nc = src.shape[0], src.shape[1], src.shape[2]
    job.interp, job.fill = interp, fill
    return map_x, map_y, scratch


def displace(src, dst, str mode, int interp, float fill, wave=None, positions=None):
    """Apply a displacement filter to one HWC image.

    Parameters
    ----------
    src, dst : C-contiguous (H, W, C) uint8 or float32 arrays of the same shape and type
    mode : "water", "sphere", "remap" or "copy" (dst = src)
    interp : 0 (nearest neighbour) or 1 (linear)
    fill : float
        Value read outside the image.
    wave : (ampl_x, freq_x, phase_x, ampl_y, freq_y, phase_y) for "water"
    positions : (x, y) float32 arrays of shape (H, W) for "remap"
    """
    displace_batch(None, [(src, dst, mode, positions)], interp, fill, wave)


def displace_batch(ThreadPool pool, list jobs, int interp, float fill, wave=None):
    """`displace(src, dst, mode, interp, fill, wave, positions)` for every (src, dst, mode,
    positions) of `jobs`, on `pool` (the caller when None, or when the batch is too cheap to
    wake a thread) without the GIL, largest first.  Every job is checked before any runs."""
    cdef Py_ssize_t n = len(jobs), i
    keep = []
    cdef DisplaceJob* cjobs = <DisplaceJob*>job_array(n, sizeof(DisplaceJob), keep)
    for i in range(n):
        src, dst, mode, positions = jobs[i]
        keep.append(_describe(src, dst, mode, interp, fill, wave, positions, &cjobs[i]))
    run_largest_first(pool, _run_job, cjobs,
                      [cjobs[i].h * cjobs[i].w * cjobs[i].nc for i in range(n)],
                      _NS_PER_ELEMENT)


cdef inline Py_ssize_t _jitter_words(Py_ssize_t w) noexcept nogil:
    # a jitter row's scratch: the Philox words of its draws, then its source columns and rows
    return 4 * (w // 2 + 2) + 2 * w


def philox_avx2(enable=None):
    """Whether jitter's Philox blocks take the AVX2 path; `enable` switches it (on only
    where the CPU has AVX2).  For tests."""
    return bool(dali_philox_avx2(-1 if enable is None else int(bool(enable))))


_MODES = {"water": WATER, "sphere": SPHERE, "jitter": JITTER}


cdef bint _same_shapes(a, b, Py_ssize_t n) except -1:
    """Whether two (n, 3) int64 shape arrays are equal (a typed loop: np.array_equal costs
    ~2 us, as much as warping a few small images)."""
    if a is b:
        return True
    cdef const int64_t[:, ::1] x = np.ascontiguousarray(a, dtype=np.int64)
    cdef const int64_t[:, ::1] y = np.ascontiguousarray(b, dtype=np.int64)
    cdef Py_ssize_t i, k
    if x.shape[0] != n or y.shape[0] != n or x.shape[1] != 3 or y.shape[1] != 3:
        return False
    for i in range(n):
        for k in range(3):
            if x[i, k] != y[i, k]:
                return False
    return True


def displace_storage(ThreadPool pool, BatchStorage src, BatchStorage dst, str mode, masks,
                     int interp, float fill, wave=None, int degree=0, uint64_t key=0,
                     sample_ids=None, uint32_t stream=0):
    """`displace` on every sample of a batch of HWC images, in one call without Python per
    sample: sample i gets `mode` where masks[i] is non-zero and is copied otherwise.

    Parameters
    ----------
    pool : ThreadPool or None
    src, dst : BatchStorage
        uint8 or float32 (H, W, C) samples, dst of src's type and shapes (dst contiguous).
    mode : "water", "sphere" or "jitter"
    masks : (num_samples,) int32
    interp, fill, wave : as for `displace`
    degree : int
        jitter's nDegree (>= 1).
    key, sample_ids, stream : for "jitter"
        The draws of `dali._ext.rng.uniform(key, sample_ids, 2 * H * W, stream)` per sample
        (the x offsets of every pixel, then the y offsets), made in the kernel.
    """
    cdef Py_ssize_t n = src.num_samples, i, h, w
    cdef int code = _MODES[mode]
    if dst.num_samples != n or src.dtype != dst.dtype or src.dtype not in (np.uint8,
                                                                           np.float32):
        raise TypeError(f"unsupported types {src.dtype} -> {dst.dtype}")
    if n == 0:
        return
    if src.ndim != 3 or dst.ndim != 3 or not _same_shapes(src.shapes, dst.shapes, n):
        raise ValueError("src and dst must hold (H, W, C) samples of the same shapes")
    if not dst.is_contiguous:
        raise ValueError("dst must be contiguous batch storage")
    if interp != NN and interp != LINEAR:
        raise ValueError(f"unsupported interpolation {interp}")
    cdef const int32_t[::1] m = np.ascontiguousarray(masks, dtype=np.int32)
    if m.shape[0] != n:
        raise ValueError("masks needs one value per sample")
    cdef const int64_t[:, ::1] shapes = np.ascontiguousarray(src.shapes, dtype=np.int64)
    cdef const int64_t[::1] dst_off = dst.offsets
    cdef const int64_t[::1] ids = None
    cdef uint32_t[::1] words = None
    cdef float[::1] scratch = None
    cdef Py_ssize_t total = 0, at = 0
    if code == JITTER:
        if degree < 1:
            raise ValueError(f"degree must be positive, got {degree}")
        ids = np.ascontiguousarray(sample_ids, dtype=np.int64)
        if ids.shape[0] != n:
            raise ValueError("sample_ids needs one value per sample")
        for i in range(n):
            total += _jitter_words(shapes[i, 1])
        words = np.empty(total + 1, np.uint32)
    elif code == WATER:
        if wave is None or len(wave) != 6:
            raise ValueError("water needs the six wave parameters")
        for i in range(n):
            total += shapes[i, 0] + shapes[i, 1]
        scratch = np.empty(total + 1, np.float32)
    elif code == SPHERE:
        for i in range(n):
            total += 5 * shapes[i, 1]
        scratch = np.empty(total + 1, np.float32)
    keep = []
    cdef const char** src_data = sample_data(src, keep)
    cdef DisplaceJob* jobs = <DisplaceJob*>job_array(n, sizeof(DisplaceJob), keep)
    cdef DisplaceJob* j
    cdef bint is_float = src.dtype == np.float32
    cdef float wv[6]
    if code == WATER:
        for i in range(6):
            wv[i] = wave[i]
    sizes = np.empty(n, np.int64)
    cdef int64_t[::1] sz = sizes
    with nogil:
        for i in range(n):
            j = &jobs[i]
            h, w = shapes[i, 0], shapes[i, 1]
            j.src = src_data[i]
            j.dst = dst.data + dst_off[i]
            j.is_float = is_float
            j.h, j.w, j.nc = h, w, shapes[i, 2]
            j.mode = code if m[i] else COPY
            j.interp, j.fill, j.degree = interp, fill, degree
            j.map_x = j.map_y = NULL
            j.words = NULL
            j.scratch = NULL
            if code == JITTER:
                j.key, j.sample_id, j.stream = key, ids[i], stream
                j.words = &words[at]
                at += _jitter_words(w)
            elif code == WATER:
                # a run of samples of one shape shares its wave terms, computed here once
                # (a batch of small images spent a third of its time on them); a sample
                # alone in its shape computes its own in its job
                j.wave = wv
                j.waves_ready = i > 0 and h == shapes[i - 1, 0] and w == shapes[i - 1, 1]
                if j.waves_ready:
                    j.scratch = jobs[i - 1].scratch
                else:
                    j.scratch = &scratch[at]
                    at += h + w
                    if i + 1 < n and h == shapes[i + 1, 0] and w == shapes[i + 1, 1]:
                        _water_waves(wv, h, w, j.scratch)
                        j.waves_ready = True
            elif code == SPHERE:
                j.scratch = &scratch[at]
                at += 5 * w
            sz[i] = h * w * j.nc
    keep.append((words, scratch))
    run_largest_first(pool, _run_job, jobs, sizes, _NS_PER_ELEMENT)
