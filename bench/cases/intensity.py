"""Intensity operators: lookup tables, histogram equalisation, JPEG artefacts, CLAHE, debayering."""

from bench import opcase
from bench.opcase import OpCase, unary

INVERT = list(range(256))


@opcase.input_kind("bayer")
def _bayer(size, batch_size):
    """The images as RGGB Bayer mosaics (HW, uint8): each pixel keeps its filter's colour."""
    out = []
    for img in opcase.batch("u8", size, batch_size)[0]:
        mosaic = img[:, :, 1].copy()
        mosaic[0::2, 0::2] = img[0::2, 0::2, 0]
        mosaic[1::2, 1::2] = img[1::2, 1::2, 2]
        out.append(mosaic)
    return out, "HW"

CASE_LIST = [
    OpCase("lookup_table", "lookup_table",
           lambda fn, types, x, size: fn.lookup_table(
               x, keys=INVERT, values=[255.0 - k for k in INVERT], dtype=types.UINT8)),
    unary("equalize"),
    unary("experimental.equalize"),
    unary("jpeg_compression_distortion", quality=30),
    unary("clahe", tiles_x=4, tiles_y=4, clip_limit=2.0),
    unary("debayer", kind="bayer", blue_position=[1, 1]),
    unary("experimental.debayer", kind="bayer", blue_position=[1, 1]),
]
