"""Intensity operators: lookup tables, histogram equalisation, JPEG artefacts, CLAHE, debayering."""

from bench.opcase import OpCase, unary

INVERT = list(range(256))

CASE_LIST = [
    OpCase("lookup_table", "lookup_table",
           lambda fn, types, x, size: fn.lookup_table(
               x, keys=INVERT, values=[255.0 - k for k in INVERT], dtype=types.UINT8)),
    unary("equalize"),
    unary("jpeg_compression_distortion", quality=30),
    unary("clahe", tiles_x=4, tiles_y=4, clip_limit=2.0),
]
