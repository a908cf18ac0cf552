"""experimental.readers.fits over the 64 "image" / "small" uint8 samples written as FITS files
(an empty primary HDU, the sample as a float32 image extension: big-endian data converted on
read) in a temporary directory (one batch is one epoch).  Real DALI's FITS reader needs CUDA
here (its pipeline fails with a CUDA driver error), so its side is n/a."""

import numpy as np

from bench import opcase
from bench.opcase import OpCase, batch


def _card(key, value):
    text = ("T" if value is True else f"'{value}'" if isinstance(value, str) else str(value))
    return f"{key:<8}= {text:>20}".ljust(80)


def _fits(image):
    """The bytes of a FITS file: an empty primary HDU, then `image` as a float32 IMAGE."""
    head = _card("SIMPLE", True) + _card("BITPIX", 8) + _card("NAXIS", 0) + "END".ljust(80)
    ext = (_card("XTENSION", "IMAGE") + _card("BITPIX", -32) + _card("NAXIS", image.ndim)
           + "".join(_card(f"NAXIS{k + 1}", n) for k, n in enumerate(image.shape[::-1]))
           + _card("PCOUNT", 0) + _card("GCOUNT", 1) + "END".ljust(80))
    data = image.astype(">f4").tobytes()
    return b"".join(t.encode() + b" " * (-len(t) % 2880) for t in (head, ext)) + data + \
        b"\0" * (-len(data) % 2880)


def fits_root(size):
    """A directory of the "u8" samples of `size` as FITS files (made once a process)."""
    def fill(root):
        for i, img in enumerate(batch("u8", size)[0]):
            (root / f"{i:03d}.fits").write_bytes(_fits(np.asarray(img)))
        return str(root)
    return opcase.scratch_dir(f"dali-bench-fits-{size}-", fill)


CASE_LIST = [
    OpCase("experimental.readers.fits", "experimental.readers.fits",
           lambda fn, types, size: fn.experimental.readers.fits(file_root=fits_root(size)), (),
           "idle"),
]
