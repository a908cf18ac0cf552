"""JPEG decoding of a region of interest, at full or 1/2, 1/4, 1/8 scale (libjpeg-turbo).

Built only where libjpeg-turbo's headers are available (setup.py checks); decoders fall back
to OpenCV otherwise.  `decode_roi` decodes one image without the GIL; `decode_batch` decodes
a whole batch on a `ThreadPool`, costliest images first, without taking the GIL at all, and
reports per-image errors afterwards.  `info_batch` reads the headers of a batch in one call.
`round_trip_batch` encodes and decodes images (fn.jpeg_compression_distortion, jpeg_encode.h).
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t

from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef extern from "jpeg_codec.h" nogil:
    int DALI_JPEG_RGB, DALI_JPEG_BGR, DALI_JPEG_GRAY
    int DALI_CODES_EVERY, DALI_CODES_SKIP, DALI_CODES_APPROXIMATE
    int dali_jpeg_info(const uint8_t* data, size_t size, int* width, int* height,
                       int* components, int* orientation, char* err, size_t errlen)
    int dali_jpeg_info_fast(const uint8_t* data, size_t size, int* width, int* height,
                            int* components, int* orientation)
    int dali_jpeg_decode_roi(const uint8_t* data, size_t size, int scale, int x, int y, int w,
                             int h, int color, int fast_idct, int approximate, uint8_t* out,
                             long out_stride, char* err, size_t errlen)
    int dali_jpeg_decode_roi_codes(const uint8_t* data, size_t size, int scale, int x, int y,
                                   int w, int h, int color, int fast_idct, int codes,
                                   uint8_t* out, long out_stride, char* err, size_t errlen)
    int DALI_SKIP_DECODER
    void dali_skip_cache_info(int* entries, long* builds, long* installs)
    void dali_skip_cache_clear()

cdef extern from "jpeg_encode.h" nogil:
    int dali_jpeg_round_trip(const uint8_t* src, int h, int w, long stride, int quality,
                             uint8_t* dst, char* err, size_t errlen)

RGB = DALI_JPEG_RGB
BGR = DALI_JPEG_BGR
GRAY = DALI_JPEG_GRAY
SKIP_DECODER = bool(DALI_SKIP_DECODER)   # built with jpeg_skip.h's decoder (jpegint.h found)

cdef enum:
    ERRLEN = 200


class JpegError(ValueError):
    """libjpeg could not read the data."""


cdef inline bint _is_jpeg(const uint8_t[::1] data) noexcept:
    return data.shape[0] >= 3 and data[0] == 0xFF and data[1] == 0xD8 and data[2] == 0xFF


def info(const uint8_t[::1] data):
    """(height, width, components, orientation) of a JPEG, from its header; orientation is the
    EXIF orientation (1..8, 1 when absent)."""
    cdef int w = 0, h = 0, c = 0, o = 1, rc
    cdef char err[ERRLEN]
    if data.shape[0] == 0:
        raise JpegError("empty data")
    with nogil:
        rc = dali_jpeg_info(&data[0], data.shape[0], &w, &h, &c, &o, err, ERRLEN)
    if rc != 0:
        raise JpegError(err.decode(errors="replace"))
    return h, w, c, o


def info_fast(const uint8_t[::1] data):
    """`info` by the marker walk of `info_batch`, or None for a header it leaves to libjpeg."""
    cdef int w = 0, h = 0, c = 0, o = 1
    if dali_jpeg_info_fast(&data[0] if data.shape[0] else NULL, data.shape[0], &w, &h, &c,
                           &o) != 0:
        return None
    return h, w, c, o


cdef struct Header:
    const uint8_t* data
    size_t size
    int32_t* out                  # height, width, components, orientation, status
    bint fast                     # try dali_jpeg_info_fast before libjpeg


cdef void _header_item(void* ctx, int64_t i) noexcept nogil:
    cdef Header* hd = (<Header*>ctx) + i
    cdef int w = 0, h = 0, c = 0, o = 1
    cdef char err[ERRLEN]
    if hd.data == NULL:
        return
    if hd.fast and dali_jpeg_info_fast(hd.data, hd.size, &w, &h, &c, &o) == 0:
        hd.out[0], hd.out[1], hd.out[2], hd.out[3], hd.out[4] = h, w, c, o, 1
    elif dali_jpeg_info(hd.data, hd.size, &w, &h, &c, &o, err, ERRLEN) != 0:
        hd.out[4] = -1
    else:
        hd.out[0], hd.out[1], hd.out[2], hd.out[3], hd.out[4] = h, w, c, o, 1


def info_batch(list samples, bint fast=True):
    """Headers of a batch of encoded samples (1-D C-contiguous uint8 arrays), read in one
    release of the GIL on the calling thread (waking the pool for them costs the decode that
    follows more than it saves).  Plainly valid headers are read by a marker walk of a few
    tens of nanoseconds (`fast`, the results libjpeg gives), the rest by libjpeg (~2 us each).

    Returns an int32 array of shape (n, 5): height, width, components, orientation and a status
    that is 1 for a JPEG whose header was read, 0 for data that does not start like a JPEG and
    -1 for a JPEG whose header is broken (call `info` for the message).
    """
    cdef Py_ssize_t n = len(samples), i
    cdef cnp.ndarray[int32_t, ndim=2] out = np.zeros((n, 5), np.int32)
    cdef const uint8_t[::1] data
    keep = []
    cdef Header* headers = <Header*>job_array(n, sizeof(Header), keep)
    for i in range(n):
        data = samples[i]
        if _is_jpeg(data):
            headers[i].data = &data[0]
            headers[i].size = data.shape[0]
            headers[i].out = &out[i, 0]
            headers[i].fast = fast
    with nogil:
        for i in range(n):
            _header_item(headers, i)
    return out


def scaled_size(int size, int scale):
    """Extent of a dimension decoded at 1/scale (libjpeg rounds up)."""
    return (size + scale - 1) // scale


cdef int _check_rows(uint8_t[:, :, :] out, int channels) except -1:
    if out.strides[2] != 1 or out.strides[1] != channels or out.strides[0] < 0:
        raise ValueError("out must have contiguous pixels and rows in increasing order")
    return 0


cdef int _check_args(int color, int scale) except -1:
    if color not in (DALI_JPEG_RGB, DALI_JPEG_BGR, DALI_JPEG_GRAY):
        raise ValueError("color must be RGB, BGR or GRAY")
    if scale not in (1, 2, 4, 8):
        raise ValueError("scale must be 1, 2, 4 or 8")
    return 0


def decode_roi(const uint8_t[::1] data, int x, int y, int w, int h, int color=DALI_JPEG_RGB,
               int scale=1, uint8_t[:, :, :] out=None, bint fast_idct=False,
               bint skip_codes=True, bint approximate=False):
    """Decode rows y..y+h, columns x..x+w of the image scaled by 1/scale (coordinates in the
    scaled image) into an (h, w, channels) uint8 array (`out` if given: rows may be apart, as
    in a window of a larger image, pixels contiguous); channels is 3 for RGB and BGR, 1 for
    GRAY.  `skip_codes=False` leaves every Huffman code to libjpeg (jpeg_skip.h), for tests:
    the pixels and errors are the same.  `approximate` (decode scaling, with `skip_codes`)
    drops the high frequencies that a reduced IDCT (scale 2, 4, 8) barely reads, to skip their
    codes: the pixels are close to the exact ones, not equal."""
    _check_args(color, scale)
    cdef int channels = 1 if color == DALI_JPEG_GRAY else 3
    if data.shape[0] == 0:
        raise JpegError("empty data")
    if out is None:
        out = np.empty((h, w, channels), np.uint8)
    elif out.shape[0] != h or out.shape[1] != w or out.shape[2] != channels:
        raise ValueError("out has the wrong shape")
    _check_rows(out, channels)
    if h <= 0 or w <= 0:
        raise JpegError(f"region ({x}, {y}, {w}, {h}) is empty")
    cdef char err[ERRLEN]
    cdef int rc
    cdef int codes = (DALI_CODES_EVERY if not skip_codes else
                      DALI_CODES_APPROXIMATE if approximate else DALI_CODES_SKIP)
    with nogil:
        rc = dali_jpeg_decode_roi_codes(&data[0], data.shape[0], scale, x, y, w, h, color,
                                        fast_idct, codes, &out[0, 0, 0], out.strides[0],
                                        err, ERRLEN)
    if rc != 0:
        raise JpegError(err.decode(errors="replace"))
    return np.asarray(out)


def skip_cache_info():
    """(tables held, tables built, skip decoders installed) so far by the calling thread's cache
    of skip-decoder tables (jpeg_skip.h; `decode_roi` decodes on the calling thread).  For
    tests."""
    cdef int entries
    cdef long builds, installs
    dali_skip_cache_info(&entries, &builds, &installs)
    return entries, builds, installs


def skip_cache_clear():
    """Empty the calling thread's cache of skip-decoder tables.  For tests."""
    dali_skip_cache_clear()


cdef struct Job:
    const uint8_t* data
    size_t size
    int x, y, w, h, scale, color, fast_idct, approximate
    uint8_t* out
    long stride
    int rc
    char err[ERRLEN]


cdef void _decode_item(void* ctx, int64_t i) noexcept nogil:
    cdef Job* job = (<Job*>ctx) + i
    if job.rc == -2:              # nothing to decode (reported by the caller)
        return
    job.rc = dali_jpeg_decode_roi(job.data, job.size, job.scale, job.x, job.y, job.w, job.h,
                                  job.color, job.fast_idct, job.approximate, job.out,
                                  job.stride, job.err, ERRLEN)


cdef double _NS_PER_PIXEL = 4.5      # measured: ~0.9 ms for a 0.2 MP corpus image
cdef int64_t _FIXED_PIXELS = 1000    # ~4.5 us an image whatever its size (setup, headers)
# A region's decode costs what its entropy data down to the region's last row takes to decode
# (libjpeg stops there) and what its pixels take to write (IDCT, upsampling, colour).  Fitted
# on the large-photo corpus's regions (exact and scaled, P2 and P3: 10% rms): the area alone
# ranks a 1/8-scale decode of a whole image, one of the costliest, last.
cdef double _NS_PER_BYTE = 6.5
cdef double _NS_PER_REGION_PIXEL = 1.8
cdef double _NS_PER_IMAGE = 4500.0


cdef int64_t _decode_cost(const uint8_t* data, size_t size, int y, int h, int w,
                          int scale) noexcept nogil:
    """The estimated ns of decoding region rows y..y+h (width w) at 1/scale: the bytes down to
    the region's last row (all of them for a header the marker walk leaves to libjpeg) and the
    pixels written."""
    cdef int width = 0, height = 0, c = 0, o = 1
    cdef double nbytes = <double>size
    cdef int64_t rows
    if dali_jpeg_info_fast(data, size, &width, &height, &c, &o) == 0:
        rows = (height + scale - 1) // scale
        if y + h < rows:
            nbytes *= <double>(y + h) / rows
    return <int64_t>(_NS_PER_BYTE * nbytes + _NS_PER_REGION_PIXEL * w * h + _NS_PER_IMAGE)


def decode_batch(ThreadPool pool, list samples, const int32_t[:, ::1] regions, list outs,
                 int color=DALI_JPEG_RGB, bint fast_idct=False, bint approximate=False):
    """Decode samples[i]'s region into outs[i] for every i, on `pool` (the caller when None)
    without the GIL, costliest first (the bytes decoded and the pixels written: `_decode_cost`).

    Parameters
    ----------
    samples : list of 1-D uint8 arrays
    regions : int32 array (n, 5)
        x, y, w, h and scale of each region (coordinates in the scaled image).
    outs : list of uint8 arrays (h, w, channels), pixels contiguous (rows may be apart)
    approximate : bool
        Regions decoded at scale 2, 4 or 8 drop the high frequencies that the reduced IDCT
        barely reads (`decode_roi`): decode scaling's pixels, close to the exact ones.

    Returns
    -------
    list of (index, message), one per image that failed, by index.
    """
    _check_args(color, 1)
    cdef Py_ssize_t n = len(samples), i
    if regions.shape[0] != n or len(outs) != n:
        raise ValueError("samples, regions and outs must have the same length")
    cdef int channels = 1 if color == DALI_JPEG_GRAY else 3
    keep = []
    cdef Job* jobs = <Job*>job_array(n, sizeof(Job), keep)
    cdef const uint8_t[::1] data
    cdef uint8_t[:, :, :] out
    cdef int64_t[::1] costs = np.full(n, <int64_t>_NS_PER_IMAGE, np.int64)
    for i in range(n):
        data = samples[i]
        out = outs[i]
        if regions[i, 4] not in (1, 2, 4, 8):
            raise ValueError("scale must be 1, 2, 4 or 8")
        if out.shape[0] != regions[i, 3] or out.shape[1] != regions[i, 2] or \
                out.shape[2] != channels:
            raise ValueError(f"output {i} has the wrong shape")
        _check_rows(out, channels)
        if data.shape[0] == 0 or out.shape[0] == 0 or out.shape[1] == 0:
            jobs[i].rc = -2
            continue
        jobs[i].data = &data[0]
        jobs[i].size = data.shape[0]
        jobs[i].x = regions[i, 0]
        jobs[i].y = regions[i, 1]
        jobs[i].w = regions[i, 2]
        jobs[i].h = regions[i, 3]
        jobs[i].scale = regions[i, 4]
        jobs[i].color = color
        jobs[i].fast_idct = fast_idct
        jobs[i].approximate = approximate
        jobs[i].out = &out[0, 0, 0]
        jobs[i].stride = out.strides[0]
        costs[i] = _decode_cost(jobs[i].data, jobs[i].size, jobs[i].y, jobs[i].h, jobs[i].w,
                                jobs[i].scale)
    run_largest_first(pool, _decode_item, jobs, costs, 1.0)
    failures = []
    for i in range(n):
        if jobs[i].rc == -2:
            failures.append((i, "empty data" if len(samples[i]) == 0 else "empty region"))
        elif jobs[i].rc != 0:
            failures.append((i, jobs[i].err.decode(errors="replace")))
    return failures


cdef struct RoundTrip:
    const uint8_t* src
    uint8_t* dst
    int h, w, quality, rc
    char err[ERRLEN]


cdef void _round_trip_item(void* ctx, int64_t i) noexcept nogil:
    cdef RoundTrip* job = (<RoundTrip*>ctx) + i
    job.rc = dali_jpeg_round_trip(job.src, job.h, job.w, <long>job.w * 3, job.quality, job.dst,
                                  job.err, ERRLEN)


def round_trip_batch(ThreadPool pool, list images, list outs, const int32_t[::1] quality):
    """outs[i] = images[i] encoded as a JPEG at quality[i] (1..100) and decoded, for every i,
    on `pool` without the GIL, largest first.  Images and outs are C-contiguous (h, w, 3) uint8
    arrays of the same shapes.  Raises JpegError naming the first image that failed."""
    cdef Py_ssize_t n = len(images), i
    if len(outs) != n or quality.shape[0] != n:
        raise ValueError("images, outs and quality must have the same length")
    keep = []
    cdef RoundTrip* jobs = <RoundTrip*>job_array(n, sizeof(RoundTrip), keep)
    cdef const uint8_t[:, :, ::1] src
    cdef uint8_t[:, :, ::1] dst
    for i in range(n):
        src = images[i]
        dst = outs[i]
        if src.shape[2] != 3 or dst.shape[0] != src.shape[0] or dst.shape[1] != src.shape[1] \
                or dst.shape[2] != 3:
            raise ValueError(f"image {i}: (h, w, 3) images and outputs of the same shape needed")
        if not 1 <= quality[i] <= 100:
            raise ValueError(f"image {i}: quality {quality[i]} is not in [1, 100]")
        if src.shape[0] == 0 or src.shape[1] == 0:
            raise ValueError(f"image {i} is empty")
        jobs[i].src = &src[0, 0, 0]
        jobs[i].dst = &dst[0, 0, 0]
        jobs[i].h = src.shape[0]
        jobs[i].w = src.shape[1]
        jobs[i].quality = quality[i]
    run_largest_first(pool, _round_trip_item, jobs,
                      [<int64_t>jobs[i].h * jobs[i].w + _FIXED_PIXELS for i in range(n)],
                      2 * _NS_PER_PIXEL)
    for i in range(n):
        if jobs[i].rc != 0:
            raise JpegError(f"image {i}: {jobs[i].err.decode(errors='replace')}")
