"""FITS image data to native values, for experimental.readers.fits: each sample's big-endian
stored elements (any BITPIX) converted to the output type as BZERO + BSCALE * stored (fits.h),
samples cut into work items of at most `_CHUNK` elements, run in one nogil call on the pool;
and Rice-compressed images decompressed into stored elements (`rice_batch`, one work item per
image).
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef int64_t _CHUNK = 1 << 20            # elements of a work item at most
cdef double _NS_PER_ELEMENT = 0.5        # the cost estimate the pool gets

_OUT_CODES = {np.dtype(t): k for k, t in enumerate(
    (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
     np.float32, np.float64))}


cdef struct Item:
    const uint8_t* src
    uint8_t* dst
    int64_t n
    int bitpix
    int out
    int integral
    uint64_t izero
    double scale
    double zero


cdef void _run_item(void* ctx, int64_t i) noexcept nogil:
    cdef Item* it = (<Item*>ctx) + i
    convert(it.bitpix, it.out, it.src, it.dst, it.n, it.integral, it.izero, it.scale,
            it.zero)


def convert_batch(ThreadPool pool, list raws, list outs, bitpix, integral, scale, zero):
    """outs[i][...] = BZERO + BSCALE * raws[i] for every sample i: `raws[i]` a C-contiguous
    uint8 array of the sample's stored (big-endian) elements of BITPIX `bitpix[i]`, `outs[i]`
    a C-contiguous writable array of as many elements, of a numeric type (the same memory as
    raws[i] only when the element sizes are equal); `integral[i]`: computed exactly as stored
    + int(zero[i]) (integer outputs), else in double precision.  `pool` None: on the caller.
    """
    cdef Py_ssize_t n = len(raws), i, k, count = 0
    cdef int64_t elements, start, size, isize
    cdef cnp.ndarray raw, out
    cdef list keep = []
    if len(outs) != n or len(bitpix) != n or len(integral) != n or len(scale) != n or \
            len(zero) != n:
        raise ValueError("one output, BITPIX, integral flag, BSCALE and BZERO per sample")
    for i in range(n):
        raw, out = raws[i], outs[i]
        if out.dtype not in _OUT_CODES or not out.flags.c_contiguous or \
                not out.flags.writeable:
            raise ValueError(f"output {i} must be a writable C-contiguous numeric array")
        if bitpix[i] not in (8, 16, 32, 64, -32, -64):
            raise ValueError(f"sample {i}: bad BITPIX {bitpix[i]}")
        if raw.dtype != np.uint8 or not raw.flags.c_contiguous or \
                raw.size != out.size * (abs(bitpix[i]) // 8):
            raise ValueError(f"sample {i}: the stored data must be a C-contiguous uint8 array "
                             "of the output's elements")
        count += (out.size + _CHUNK - 1) // _CHUNK
    cdef Item* items = <Item*>job_array(count, sizeof(Item), keep)
    sizes = np.empty(count, np.int64)
    k = 0
    for i in range(n):
        raw, out = raws[i], outs[i]
        elements = out.size
        isize = abs(bitpix[i]) // 8
        start = 0
        while start < elements:
            size = min(_CHUNK, elements - start)
            items[k].src = <const uint8_t*>cnp.PyArray_DATA(raw) + start * isize
            items[k].dst = <uint8_t*>cnp.PyArray_DATA(out) + start * cnp.PyArray_ITEMSIZE(out)
            items[k].n = size
            items[k].bitpix = bitpix[i]
            items[k].out = _OUT_CODES[out.dtype]
            items[k].integral = bool(integral[i])
            items[k].izero = <uint64_t>(int(zero[i]) % (1 << 64)) if integral[i] else 0
            items[k].scale = scale[i]
            items[k].zero = zero[i]
            sizes[k] = size
            k += 1
            start += size
    run_largest_first(pool, _run_item, items, sizes, _NS_PER_ELEMENT)


cdef struct RiceItem:
    const uint8_t* table
    int64_t rows
    int64_t row_width
    int64_t column
    bint wide
    const uint8_t* heap
    int64_t heap_len
    int ndim
    const int64_t* shape
    const int64_t* ztile
    int block
    int bytepix
    uint8_t* image
    uint32_t* scratch
    int64_t failed


cdef void _run_rice(void* ctx, int64_t i) noexcept nogil:
    cdef RiceItem* it = (<RiceItem*>ctx) + i
    it.failed = rice_image(it.table, it.rows, it.row_width, it.column, it.wide, it.heap,
                           it.heap_len, it.ndim, it.shape, it.ztile, it.block, it.bytepix,
                           it.image, it.scratch)


def rice_batch(ThreadPool pool, list datas, list images, list tiles, list shapes):
    """Decompress Rice-compressed images: `datas[i]` the data of sample i's compressed HDU (a
    C-contiguous uint8 array: its table, then its heap), `tiles[i]` its `_fits.Tiles`,
    `shapes[i]` the image's shape (fastest axis first); `images[i]` receives its stored
    (big-endian) elements (a C-contiguous writable uint8 array of the image's bytes).  Returns
    None, or (sample, tile) for the first tile (from 1) that cannot be decoded."""
    cdef Py_ssize_t n = len(datas), i
    cdef list keep = []
    cdef cnp.ndarray data, image, shape, ztile, scratch
    cdef int64_t heap_at
    if len(images) != n or len(tiles) != n or len(shapes) != n:
        raise ValueError("one image, table description and shape per compressed sample")
    cdef RiceItem* items = <RiceItem*>job_array(n, sizeof(RiceItem), keep)
    sizes = np.empty(n, np.int64)
    for i in range(n):
        data, image, t = datas[i], images[i], tiles[i]
        shape = np.ascontiguousarray(shapes[i], np.int64)
        ztile = np.ascontiguousarray(t.ztile, np.int64)
        ndim = shape.shape[0]
        if data.dtype != np.uint8 or not data.flags.c_contiguous or image.dtype != np.uint8 \
                or not image.flags.c_contiguous or not image.flags.writeable:
            raise ValueError(f"sample {i}: C-contiguous uint8 data and image expected")
        if ndim > 16 or ztile.shape[0] != ndim or t.bytepix not in (1, 2, 4) or \
                image.size != int(np.prod(shape)) * t.bytepix or t.rows * t.row_width > \
                min(t.heap, data.size) or t.column + (16 if t.wide else 8) > t.row_width:
            raise ValueError(f"sample {i}: the table, tiles or image do not fit")
        scratch = np.empty(max(int(np.prod(np.minimum(ztile, np.maximum(shape, 1)))), 1),
                           np.uint32)
        keep += [data, image, shape, ztile, scratch]
        items[i].table = <const uint8_t*>cnp.PyArray_DATA(data)
        items[i].rows = t.rows
        items[i].row_width = t.row_width
        items[i].column = t.column
        items[i].wide = t.wide
        heap_at = t.heap
        items[i].heap = <const uint8_t*>cnp.PyArray_DATA(data) + heap_at
        items[i].heap_len = data.size - heap_at
        items[i].ndim = ndim
        items[i].shape = <const int64_t*>cnp.PyArray_DATA(shape)
        items[i].ztile = <const int64_t*>cnp.PyArray_DATA(ztile)
        items[i].block = t.blocksize
        items[i].bytepix = t.bytepix
        items[i].image = <uint8_t*>cnp.PyArray_DATA(image)
        items[i].scratch = <uint32_t*>cnp.PyArray_DATA(scratch)
        items[i].failed = 0
        sizes[i] = image.size
    run_largest_first(pool, _run_rice, items, sizes, _NS_PER_ELEMENT * 8)
    for i in range(n):
        if items[i].failed:
            return i, items[i].failed
    return None
