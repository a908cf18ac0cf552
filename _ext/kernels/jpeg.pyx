"""JPEG decoding of a region of interest, at full or 1/2, 1/4, 1/8 scale (libjpeg-turbo).

Built only where libjpeg-turbo's headers are available (setup.py checks); decoders fall back
to OpenCV otherwise.  `decode_roi` releases the GIL for the whole decode.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport uint8_t
from libc.stdlib cimport free, malloc

cnp.import_array()

cdef extern from "jpeg_codec.h" nogil:
    int dali_jpeg_info(const uint8_t* data, size_t size, int* width, int* height,
                       int* components, char* err, size_t errlen)
    int dali_jpeg_decode_roi(const uint8_t* data, size_t size, int scale, int x, int y, int w,
                             int h, int channels, uint8_t* out, long out_stride, uint8_t* row,
                             char* err, size_t errlen)


class JpegError(ValueError):
    """libjpeg could not read the data."""


def info(const uint8_t[::1] data):
    """(height, width, components) of a JPEG, from its header."""
    cdef int w = 0, h = 0, c = 0, rc
    cdef char err[200]
    with nogil:
        rc = dali_jpeg_info(&data[0], data.shape[0], &w, &h, &c, err, 200)
    if rc != 0:
        raise JpegError(err.decode(errors="replace"))
    return h, w, c


def scaled_size(int size, int scale):
    """Extent of a dimension decoded at 1/scale (libjpeg rounds up)."""
    return (size + scale - 1) // scale


def decode_roi(const uint8_t[::1] data, int x, int y, int w, int h, int channels=3,
               int scale=1, uint8_t[:, :, ::1] out=None):
    """Decode rows y..y+h, columns x..x+w of the image scaled by 1/scale (coordinates in the
    scaled image) into an (h, w, channels) uint8 array (`out` if given)."""
    if channels not in (1, 3):
        raise ValueError("channels must be 1 or 3")
    if scale not in (1, 2, 4, 8):
        raise ValueError("scale must be 1, 2, 4 or 8")
    if out is None:
        out = np.empty((h, w, channels), np.uint8)
    elif out.shape[0] != h or out.shape[1] != w or out.shape[2] != channels:
        raise ValueError("out has the wrong shape")
    cdef char err[200]
    cdef int rc
    cdef uint8_t* row = <uint8_t*>malloc((x + w + 96) * channels + 64)
    if row == NULL:
        raise MemoryError()
    try:
        with nogil:
            rc = dali_jpeg_decode_roi(&data[0], data.shape[0], scale, x, y, w, h, channels,
                                      &out[0, 0, 0], out.strides[0], row, err, 200)
    finally:
        free(row)
    if rc != 0:
        raise JpegError(err.decode(errors="replace"))
    return np.asarray(out)
