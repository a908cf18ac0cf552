"""The decode path the image decoders share: headers first, then the decode of a window.

1. `inspect` reads every sample's header (one call into the libjpeg-turbo kernel for the whole
   batch; Python header parsing only for other formats) and routes each sample: JPEGs (gray,
   color or CMYK) go to the kernel (`dali._ext.kernels.jpeg`), everything else to OpenCV
   (`cv2.imdecode`).  Knowing the sizes, an operator's `infer` can return the output shapes, so
   the executor leases the output before any pixel is decoded.
2. `decode` decodes each sample's window (the whole image, or a crop) straight into the output.
   Kernel samples run on the pipeline's thread pool as one nogil job per batch, largest images
   first, decoding only the rows and iMCU columns of the window; OpenCV samples (which release
   the GIL while decoding) run on the same pool, one Python call each, then are cropped and
   copied.  Conversions that need a second pass (YCbCr, a data type other than uint8) go
   through a uint8 staging batch.

Errors are collected per sample: every header is read and every window decoded before one is
reported, and the error (a RuntimeError, DALI's type) is about the first failing sample, with
every failing sample of the batch in its detail; the executor adds their files.  A broken header
is found in `infer`, before the other samples are decoded, so then the samples with good
headers are decoded one at a time (into scratch memory, on this error path only) to find out
whether an earlier one fails too.  The decoded pixels equal
DALI's CPU decoder for baseline and progressive JPEGs (libjpeg-turbo, accurate integer IDCT,
fancy upsampling) and for the other formats (OpenCV's codecs, as DALI uses them).
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass

import cv2
import numpy as np

from dali._executor import errors as _errors
from dali._ext.buffer_pool import BufferPool
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali._types import DALIImageType as Image
from dali.ops.decoders import _convert, _formats

try:
    from dali._ext.kernels import jpeg
except ImportError:                      # built without libjpeg-turbo: OpenCV decodes JPEGs
    jpeg = None

KERNEL, OPENCV = 1, 0
_DTYPES = {T.UINT8: np.dtype(np.uint8), T.INT8: np.dtype(np.int8), T.UINT16: np.dtype(np.uint16),
           T.INT16: np.dtype(np.int16), T.UINT32: np.dtype(np.uint32),
           T.INT32: np.dtype(np.int32), T.FLOAT: np.dtype(np.float32)}
# Route of a header read by the kernel, by its JPEG components (0: not read by the kernel; 5 and
# above: more than libjpeg-turbo decodes to RGB or gray).
_ROUTE_OF_COMPONENTS = np.array([OPENCV, KERNEL, OPENCV, KERNEL, KERNEL, OPENCV], np.int8)
_SERIAL = ThreadPool(1)                  # for workspaces without a pool
# Output types decode scaling (`dali.ops._regions.Delivery`) applies to: those the kernel
# writes directly.
SCALED_TYPES = (Image.RGB, Image.BGR, Image.GRAY)
# OpenCV decodes to BGR; its RGB flag garbles 16-bit TIFFs (OpenCV 5.0), so RGB is swapped here.
_COLOR_FLAGS = {Image.RGB: cv2.IMREAD_COLOR, Image.BGR: cv2.IMREAD_COLOR,
                Image.YCbCr: cv2.IMREAD_COLOR, Image.GRAY: cv2.IMREAD_GRAYSCALE,
                Image.ANY_DATA: cv2.IMREAD_UNCHANGED}


def mixed_only(name, type_, default, what):
    """An argument tuning DALI's nvJPEG decoder (its ``mixed`` backend), accepted without
    effect: dali's mixed backend decodes on the CPU and uploads."""
    return Arg(name, type_, default, doc=what,
               ignored="tunes DALI's nvJPEG decoder; dali's mixed backend decodes on the CPU "
                       "and uploads")


def decoder_args():
    """The arguments every image decoder has."""
    return [
        on_error_arg(),
        Arg("output_type", T.IMAGE_TYPE, Image.RGB,
            doc="Color space of the output: RGB, BGR, GRAY (one channel), YCbCr (ITU-R BT.601, "
                "computed from the decoded RGB) or ANY_DATA (the image's own channels: gray, "
                "RGB or RGBA; gray+alpha PNGs give two channels)."),
        Arg("dtype", T.DATA_TYPE, T.UINT8,
            doc="Output data type: uint8, int8, uint16, int16, uint32, int32 or float. Values "
                "are scaled to the type's dynamic range (float: 0..1); 16-bit images keep "
                "their precision."),
        Arg("adjust_orientation", T.BOOL, True,
            doc="Apply the EXIF orientation (JPEG, PNG, WebP, TIFF) to the decoded image."),
        Arg("use_fast_idct", T.BOOL, False,
            doc="Use libjpeg-turbo's fast integer IDCT for JPEGs (slightly less accurate)."),
        Arg("jpeg_fancy_upsampling", T.BOOL, False,
            doc="Make the ``mixed`` backend upsample chroma like the CPU one; the CPU decoder "
                "always uses libjpeg-turbo's fancy upsampling."),
        mixed_only("affine", T.BOOL, True, "Pin decoder threads to CPU cores."),
        mixed_only("device_memory_padding", T.INT32, 16777216,
                    "Padding of nvJPEG's device allocations, in bytes."),
        mixed_only("device_memory_padding_jpeg2k", T.INT32, 0,
                    "Padding of nvJPEG2k's device allocations, in bytes."),
        mixed_only("host_memory_padding", T.INT32, 8388608,
                    "Padding of nvJPEG's pinned host allocations, in bytes."),
        mixed_only("host_memory_padding_jpeg2k", T.INT32, 0,
                    "Padding of nvJPEG2k's pinned host allocations, in bytes."),
        mixed_only("hw_decoder_load", T.FLOAT, 0.65,
                    "Fraction of the images sent to the hardware JPEG decoder."),
        mixed_only("hybrid_huffman_threshold", T.INT64, 1000000,
                    "Images with more pixels than this use nvJPEG's hybrid Huffman decoder."),
        mixed_only("preallocate_height_hint", T.INT32, 0,
                    "Image height hint for preallocating the hardware decoder's memory."),
        mixed_only("preallocate_width_hint", T.INT32, 0,
                    "Image width hint for preallocating the hardware decoder's memory."),
        *(Arg(name, T.BOOL, False, ignored="deprecated in DALI, where it has no effect either",
              deprecated=f"The argument `{name}` is now deprecated and its usage is "
                         "discouraged.")
          for name in ("memory_stats", "split_stages", "use_chunk_allocator")),
    ]


def on_error_arg():
    return Arg("on_error", T.STRING, "raise",
               doc='An image that cannot be decoded: "raise" (the error, as DALI does) or "skip" '
                   "(the decoder's input must be a reader's first output: the reader checks "
                   "each image it reads by decoding it, on its own thread, and replaces the "
                   "bad ones by the next samples, listed in its `reader_meta()[\"skipped\"]`; "
                   "each image is decoded twice). Not in DALI 2.4.")


def undecodable(spec, samples, output_type, adjust_orientation=True):
    """{index: reason} of the 1-D uint8 encoded `samples` that a decoder of `spec` cannot
    decode (bad header, above the pixel limit, or failing when decoded whole, on the calling
    thread into scratch memory)."""
    return check_decoding(spec, samples, output_type, adjust_orientation)[0]


def check_decoding(spec, samples, output_type, adjust_orientation=True):
    """(`undecodable(...)`, the (n, 3) int64 output shapes of the samples it leaves out):
    height, width and channels, the channels that only decoding tells (ANY_DATA through
    OpenCV) those of the decoded image."""
    batch, failures = _read_headers(samples, output_type, adjust_orientation)
    bad = {i: f"{spec.display_name}: not a valid image: {message}" for i, message in failures}
    limit = max_pixels()
    for i in np.flatnonzero(batch.stored[:, 0] * batch.stored[:, 1] > limit).tolist():
        bad[i] = f"{spec.display_name}: the image has more than {limit} pixels"
    shapes = np.stack([batch.height, batch.width, batch.channels], axis=1)
    good = [i for i in range(len(batch)) if i not in bad]
    if good:
        one = batch.subset(good)
        try:
            images = decode(_Serial(spec), one, whole_images(one), None, np.dtype(np.uint8))
        except _errors.SampleError as e:
            bad.update({good[k]: f"{spec.display_name}: {message}" for k, message in e.failures})
        else:
            for k in np.flatnonzero(one.channels < 0).tolist():
                shapes[good[k]] = images[k].shape
    return bad, shapes


@dataclass
class _Serial:
    """What `decode` needs of a workspace, to decode on the calling thread."""

    spec: object
    thread_pool: object = None


def check_args(op):
    """Build-time checks of the decoder arguments."""
    if op.args["use_fast_idct"] and jpeg is None:
        raise NotImplementedError(
            f"{op.spec.display_name}: argument `use_fast_idct` needs dali's libjpeg-turbo "
            "kernel, which this build lacks (libjpeg-turbo was not found when dali was built)")


# ---------------------------------------------------------------------------------------------
# Headers
# ---------------------------------------------------------------------------------------------

@dataclass
class Batch:
    """What `inspect` learned about a batch of encoded images.

    Attributes
    ----------
    samples : list of 1-D uint8 arrays
    route : int8 array
        KERNEL or OPENCV per sample.
    stored : (n, 2) int64 array
        Height and width of the stored images.
    height, width : int64 arrays
        Size of the decoded (displayed) images.
    orientation : int64 array
        EXIF orientation applied (1 when `adjust_orientation` is off).
    channels : int64 array
        Output channels; -1 where only decoding tells (ANY_DATA through OpenCV).
    source_channels : int64 array
        The images' own channels (JPEG components, or `Header.channels`).
    headers : list of Header or None
        The parsed header of samples read in Python (not kernel JPEGs).
    """

    samples: list
    route: np.ndarray
    stored: np.ndarray
    height: np.ndarray
    width: np.ndarray
    orientation: np.ndarray
    channels: np.ndarray
    source_channels: np.ndarray
    headers: list
    output_type: Image
    adjust_orientation: bool

    def __len__(self):
        return len(self.samples)

    def subset(self, idx):
        """The Batch of samples `idx` (a list of indices)."""
        return Batch([self.samples[i] for i in idx], self.route[idx], self.stored[idx],
                     self.height[idx], self.width[idx], self.orientation[idx],
                     self.channels[idx], self.source_channels[idx],
                     [self.headers[i] for i in idx], self.output_type, self.adjust_orientation)


def encoded_samples(op, ws):
    """The input samples as 1-D uint8 arrays; only byte data is accepted."""
    storage = ws.input_storage(0)
    dtype = storage.dtype
    if dtype.itemsize != 1 or dtype.kind not in "ui":
        raise op.error(f"the input must be encoded images stored as uint8 bytes, got "
                       f"{dtype.name} data", RuntimeError)
    if dtype == np.uint8 and storage.ndim == 1 and storage.is_contiguous:
        return list(storage.samples())       # views of one block: already 1-D contiguous
    return [np.ascontiguousarray(s).view(np.uint8).reshape(-1) for s in storage.samples()]


def inspect(op, ws, output_type, adjust_orientation=True, probe=True) -> Batch:
    """Read the headers of the workspace's encoded images (see the module docstring).

    A bad header, or an image above the pixel limit, is a RuntimeError about the first failing
    sample; with `probe`, the samples with good headers are decoded to find failures among
    them too (`peek_image_shape`, which does not decode, passes False)."""
    batch, failures = _read_headers(encoded_samples(op, ws), output_type, adjust_orientation)
    failures = {i: f"not a valid image: {message}" for i, message in failures}
    limit = max_pixels()
    large = batch.stored[:, 0] * batch.stored[:, 1] > limit
    for i in np.flatnonzero(large).tolist() if large.any() else ():
        h, w = batch.stored[i].tolist()
        failures[i] = (f"the image declares {h} x {w} pixels, more than the limit of {limit} "
                       f"(set the environment variable {MAX_PIXELS_VAR} to allow larger images)")
    if failures:
        if probe:
            good = [i for i in range(len(batch)) if i not in failures]
            failures.update(_probe(ws, batch, good))
        raise sample_errors(op.spec, failures)
    return batch


def sample_errors(spec, failures):
    """The SampleError of a batch whose samples {index: message} failed: about the first, with
    all of them in its detail."""
    listed = sorted(failures.items())
    first, message = listed[0]
    return _errors.SampleError(first, f"{spec.display_name}: {message}", RuntimeError, listed)


def _probe(ws, batch, idx):
    """{index: message} of the samples `idx` (good headers) that fail to decode, decoded whole
    one at a time into scratch memory."""
    failed = {}
    for i in idx:
        one = batch.subset([i])
        try:
            decode(ws, one, whole_images(one), None, np.dtype(np.uint8))
        except _errors.SampleError as e:
            failed[i] = e.failures[0][1]
    return failed


MAX_PIXELS_VAR = "DALI_MAX_IMAGE_PIXELS"
DEFAULT_MAX_PIXELS = 1 << 28                 # about 16k x 16k


def max_pixels() -> int:
    """The largest image (in pixels) the decoders accept: `DALI_MAX_IMAGE_PIXELS`, else 2**28.
    A header can declare any size; this refuses decompression bombs before any allocation."""
    value = os.environ.get(MAX_PIXELS_VAR)
    if value is None:
        return DEFAULT_MAX_PIXELS
    try:
        limit = int(value)
    except ValueError:
        raise ValueError(f"{MAX_PIXELS_VAR}={value!r} is not a number of pixels") from None
    if limit < 1:
        raise ValueError(f"{MAX_PIXELS_VAR}={value!r} must be at least 1")
    return limit


def check_output_size(op, shapes, dtype):
    """Refuse a batch whose decoded output could not fit in this machine's memory, or in what
    the process's address-space limit (RLIMIT_AS) leaves, before the output is leased: the
    block the buffer pool would map for it (rounded up to a size class, and a class more from
    1 MiB on) must fit under the limit."""
    if shapes is None or not len(shapes):
        return
    sizes = np.asarray(shapes, dtype=np.float64).prod(axis=1) * dtype.itemsize  # no overflow
    total = float(sizes.sum())
    machine, left = physical_memory(), address_space_left()
    need = f"{total:.0f} bytes"
    if total > machine:
        where = f"this machine's {machine} bytes of memory"
    elif left is None:
        return
    else:
        where = f"the {left} bytes the process's address-space limit (RLIMIT_AS) leaves"
        mapped = BufferPool.mapped_for(int(total))
        if total <= left < mapped:
            need += f" (a {mapped}-byte block of the buffer pool)"
        elif total <= left:
            return
    i = int(np.argmax(sizes))
    raise _errors.SampleError(
        i, f"{op.spec.display_name}: the decoded batch would take {need}, more than {where} "
           f"(the largest image, this one, is {' x '.join(map(str, shapes[i]))})", MemoryError)


def physical_memory() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def address_space_left():
    """Bytes the process may still map under its RLIMIT_AS, or None without a limit (or where
    the mapped size cannot be read: Linux's /proc/self/statm)."""
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm") as f:
            mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None
    return max(0, limit - mapped)



class SampleHeaderError(ValueError):
    """The header of one sample of a batch is broken (or it is no image).

    Attributes
    ----------
    index : int
        The first sample with a broken header.
    failures : list of (int, str)
        Every sample with a broken header, and why.
    """

    def __init__(self, index, message, failures=()):
        super().__init__(message)
        self.index = index
        self.failures = list(failures)


def read_headers(samples, output_type, adjust_orientation=True) -> Batch:
    """`Batch` of 1-D uint8 encoded `samples`; raises SampleHeaderError."""
    batch, failures = _read_headers(samples, output_type, adjust_orientation)
    if failures:
        raise SampleHeaderError(failures[0][0], failures[0][1], failures)
    return batch


def _read_headers(samples, output_type, adjust_orientation):
    """The `Batch` of `samples` and the [(index, message)] of those whose header is broken
    (they stand in the batch as 0 x 0 images)."""
    n = len(samples)
    info = (jpeg.info_batch(samples) if jpeg is not None else np.zeros((n, 5), np.int32))
    info = info.astype(np.int64)             # columns: stored h, w, components, orientation
    components = info[:, 2]
    route = _ROUTE_OF_COMPONENTS[np.where(info[:, 4] == 1, np.minimum(components, 5), 0)]
    stored = info[:, :2]
    orientation = info[:, 3]
    source_channels = components
    headers = [None] * n
    failures = []
    for i in np.flatnonzero(route == OPENCV).tolist() if not route.all() else ():
        try:
            if info[i, 4] == -1:
                raise _formats.HeaderError(_jpeg_error(samples[i]))
            h = _formats.read_header(samples[i])
        except _formats.HeaderError as e:
            failures.append((i, str(e)))
            stored[i] = 0, 0
            orientation[i] = source_channels[i] = 1
            continue
        headers[i] = h
        stored[i] = h.height, h.width
        orientation[i] = h.orientation
        source_channels[i] = h.channels
    if not adjust_orientation:
        orientation[:] = 1
    if output_type in (Image.RGB, Image.BGR, Image.YCbCr):
        channels = np.full(n, 3, np.int64)
    elif output_type == Image.GRAY:
        channels = np.full(n, 1, np.int64)
    else:
        channels = np.where(route == KERNEL, np.where(source_channels == 1, 1, 3), -1)
    turned = orientation >= 5
    if turned.any():
        height = np.where(turned, stored[:, 1], stored[:, 0])
        width = np.where(turned, stored[:, 0], stored[:, 1])
    else:
        height, width = stored[:, 0].copy(), stored[:, 1].copy()
    return Batch(samples, route, stored, height, width, orientation, channels, source_channels,
                 headers, Image(output_type), adjust_orientation), failures


def _jpeg_error(data):
    try:
        jpeg.info(data)
    except jpeg.JpegError as e:
        return str(e)
    return "broken JPEG header"


def output_shapes(batch, windows=None):
    """Per-sample output shapes (h, w, c) of the windows (whole images by default), an int64
    array (n, 3), or None when some channel count is only known after decoding."""
    if (batch.channels < 0).any():
        return None
    shapes = np.empty((len(batch), 3), np.int64)
    if windows is None:
        shapes[:, 0] = batch.height
        shapes[:, 1] = batch.width
    else:
        shapes[:, :2] = np.asarray(windows)[:, 2:4]
    shapes[:, 2] = batch.channels
    return shapes


def output_dtype(op):
    """The numpy type of the `dtype` argument; DALI refuses others when the pipeline runs."""
    dtype = op.args["dtype"]
    if dtype not in _DTYPES:
        raise op.error(f"unsupported output type: {getattr(dtype, 'name', dtype)} (supported: "
                       "uint8, int8, uint16, int16, uint32, int32, float)", RuntimeError)
    return _DTYPES[dtype]


# ---------------------------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------------------------

class DecodeError(RuntimeError):
    """A sample could not be decoded."""


def whole_images(batch):
    """(n, 4) windows (y, x, h, w) covering the whole images."""
    n = len(batch)
    return np.stack([np.zeros(n, np.int64), np.zeros(n, np.int64), batch.height, batch.width],
                    axis=1)


def decode(ws, batch, windows, outputs, dtype, fast_idct=False, scales=None):
    """Decode window (y, x, h, w) of every sample (displayed coordinates) into `outputs`.

    Parameters
    ----------
    windows : (n, 4) int array
    outputs : BatchStorage or None
        The output the executor leased (shapes from `output_shapes`), or None when the shapes
        are only known after decoding.
    dtype : numpy dtype of the output
    scales : int array (n,) or None
        Decode sample i reduced 1/scales[i] (1, 2, 4 or 8; window in the reduced image's
        coordinates): only upright kernel samples, into uint8 outputs of `SCALED_TYPES`.
        The reduced ones drop the high frequencies that their reduced IDCT barely reads
        (`jpeg.decode_batch`'s `approximate`; docs/large_images.md).

    Returns
    -------
    `outputs`, filled, or a list of arrays when `outputs` is None.
    """
    n = len(batch)
    windows = np.asarray(windows, dtype=np.int64).reshape(n, 4)
    finished = outputs.samples() if outputs is not None else [None] * n
    direct = dtype == np.uint8 and batch.output_type != Image.YCbCr
    if direct or outputs is None:
        staged = list(finished)
    else:
        staged = BatchStorage.allocate(np.uint8, output_shapes(batch, windows)).samples()
    pool = ws.thread_pool or _SERIAL
    upright = (batch.route == KERNEL) & (batch.orientation == 1)
    errors = _decode_kernel(pool, batch, np.flatnonzero(upright), windows, staged, fast_idct,
                            scales)
    others = np.flatnonzero(~upright)
    area = windows[:, 2] * windows[:, 3]
    order = np.argsort(-area[others], kind="stable").astype(np.int64)

    def other(j):
        i = int(others[j])
        try:
            image = _decode_other(batch, i, windows[i], fast_idct)
            if direct:
                image = _convert.to_uint8(image)
                if staged[i] is None:
                    staged[i] = np.ascontiguousarray(image)
                else:
                    staged[i][...] = image
            else:
                finished[i] = _finish(batch, image, finished[i], dtype)
        except (DecodeError, ValueError, cv2.error) as e:
            return i, str(e)
        return None

    if len(others):
        for failure in pool.map(other, len(others), order=order):
            if failure is not None:
                errors.append(failure)
    if errors:
        raise sample_errors(ws.spec, {i: f"cannot decode the image: {message}"
                                    for i, message in errors})
    if direct:
        return outputs if outputs is not None else staged
    kernel = np.flatnonzero(upright)

    def finish(k):
        i = kernel[k]
        finished[i] = _finish(batch, staged[i], finished[i], dtype)

    if len(kernel):
        pool.map(finish, len(kernel), order=np.argsort(-area[kernel], kind="stable"))
    return outputs if outputs is not None else finished


def _kernel_color(output_type, channels):
    """The kernel's colour for output `channels` (an int or an array of them)."""
    if output_type == Image.BGR:
        return np.full(np.shape(channels), jpeg.BGR)
    if output_type == Image.GRAY:
        return np.full(np.shape(channels), jpeg.GRAY)
    if output_type == Image.ANY_DATA:
        return np.where(np.equal(channels, 1), jpeg.GRAY, jpeg.RGB)
    return np.full(np.shape(channels), jpeg.RGB)


def _decode_kernel(pool, batch, idx, windows, targets, fast_idct, scales=None):
    """Decode the windows of upright kernel samples `idx` into `targets` (allocated where
    None), reduced by `scales` (per sample of the batch; None: all 1, exact; given, the reduced
    ones drop the high frequencies their reduced IDCT barely reads: `jpeg.decode_batch`'s
    `approximate`); returns [(sample, message)] of failures."""
    errors = []
    if not len(idx):
        return errors
    if batch.output_type == Image.ANY_DATA:
        colors = _kernel_color(batch.output_type, batch.channels[idx])
        groups = [(color, idx[colors == color]) for color in np.unique(colors).tolist()]
    else:                                    # one colour for the whole batch
        groups = [(int(_kernel_color(batch.output_type, 3)), idx)]
    for color, group in groups:
        channels = 1 if color == jpeg.GRAY else 3
        group_list = group.tolist()
        outs = [targets[i] for i in group_list]
        if any(out is None for out in outs):
            for k, i in enumerate(group_list):
                if targets[i] is None:
                    targets[i] = np.empty((windows[i, 2], windows[i, 3], channels), np.uint8)
                outs[k] = targets[i]
        regions = np.empty((len(group), 5), np.int32)
        regions[:, 0] = windows[group, 1]
        regions[:, 1] = windows[group, 0]
        regions[:, 2] = windows[group, 3]
        regions[:, 3] = windows[group, 2]
        regions[:, 4] = 1 if scales is None else scales[group]
        failures = jpeg.decode_batch(pool, [batch.samples[i] for i in group_list], regions,
                                     outs, int(color), fast_idct, scales is not None)
        errors += [(int(group[k]), message) for k, message in failures]
    return errors


def _decode_other(batch, i, window, fast_idct):
    """Window (y, x, h, w) of sample i decoded by OpenCV, or by the kernel for a turned JPEG:
    uint8 (or uint16) HWC with the output's channels (RGB for YCbCr)."""
    y, x, h, w = (int(v) for v in window)
    o = int(batch.orientation[i])
    if batch.route[i] == KERNEL:
        hs, ws_ = (int(v) for v in batch.stored[i])
        sy, sx, sh, sw = _convert.stored_window(o, hs, ws_, y, x, h, w)
        return _convert.orient(_kernel_roi(batch, i, sx, sy, sw, sh, fast_idct), o)
    image = _opencv(batch, i)
    if image.shape[:2] != (batch.height[i], batch.width[i]):
        raise DecodeError(f"the decoded image is {image.shape[1]}x{image.shape[0]} but its "
                          f"header says {batch.width[i]}x{batch.height[i]}")
    return image[y:y + h, x:x + w]


def _kernel_roi(batch, i, x, y, w, h, fast_idct):
    """Window (x, y, w, h) of kernel sample i's stored image: uint8 HWC."""
    color = int(_kernel_color(batch.output_type, int(batch.channels[i])))
    try:
        return jpeg.decode_roi(batch.samples[i], x, y, w, h, color, 1, None, fast_idct)
    except jpeg.JpegError as e:
        raise DecodeError(str(e)) from None


def _opencv(batch, i):
    """Sample i decoded whole by OpenCV, oriented, HWC."""
    output_type = batch.output_type
    header = batch.headers[i]
    if output_type == Image.ANY_DATA:
        flags = cv2.IMREAD_UNCHANGED
    else:
        flags = _COLOR_FLAGS[output_type] | cv2.IMREAD_ANYDEPTH
    if not batch.adjust_orientation and flags != cv2.IMREAD_UNCHANGED:
        flags |= cv2.IMREAD_IGNORE_ORIENTATION
    image = cv2.imdecode(batch.samples[i], flags)
    if image is None:
        raise DecodeError(f"OpenCV could not decode the {header.format.upper()} data")
    if image.ndim == 2:
        image = image[:, :, None]
    if output_type in (Image.RGB, Image.YCbCr):
        image = image[:, :, ::-1]
    if output_type == Image.ANY_DATA:
        image = _any_data(image, header)
        if header.format != "tiff":          # OpenCV turns TIFFs itself
            image = _convert.orient(image, int(batch.orientation[i]))
    return image


def _any_data(image, header):
    """OpenCV's unchanged decode (BGR order) as the image's own channels, in RGB order."""
    c = image.shape[2]
    if c == 3:
        image = image[:, :, ::-1]
    elif c == 4:
        image = image[:, :, [2, 1, 0, 3]]
        if header.channels == 3:             # palette transparency is not a channel
            image = image[:, :, :3]
        elif header.channels == 2:           # gray + alpha
            image = image[:, :, [0, 3]]
    return image


def _finish(batch, image, dst, dtype):
    """Convert decoded `image` (uint8 or uint16) to the output color space and type, into `dst`
    (allocated when None)."""
    if dst is None:
        dst = np.empty(image.shape, dtype)
    if batch.output_type == Image.YCbCr:
        _convert.rgb_to_ycbcr(image, dst)
    else:
        _convert.convert(image, dst)
    return dst

