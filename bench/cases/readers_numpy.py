""".npy: readers.numpy over the 64 "image" / "small" uint8 samples saved as .npy files in a
temporary directory (one batch is one epoch), read whole, and a region of interest of them
(rows and columns 1/4 to 3/4: "readers.numpy.roi", the bytes of the region only);
decoders.numpy of the same files' bytes ("npy" input kind)."""

import io

import numpy as np

from bench import opcase
from bench.opcase import OpCase, batch, unary


def npy_root(size):
    """A directory of the "u8" samples of `size` as .npy files (made once a process)."""
    def fill(root):
        for i, img in enumerate(batch("u8", size)[0]):
            np.save(root / f"{i:03d}.npy", img)
        return str(root)
    return opcase.scratch_dir(f"dali-bench-npy-{size}-", fill)


@opcase.input_kind("npy")
def _npy_bytes(size, batch_size):
    out = []
    for img in batch("u8", size, batch_size)[0]:
        f = io.BytesIO()
        np.save(f, img)
        out.append(np.frombuffer(f.getvalue(), np.uint8))
    return out, None


CASE_LIST = [
    unary("decoders.numpy", kind="npy"),
    OpCase("readers.numpy", "readers.numpy",
           lambda fn, types, size: fn.readers.numpy(file_root=npy_root(size)), (), "idle"),
    OpCase("readers.numpy.roi", "readers.numpy",
           lambda fn, types, size: fn.readers.numpy(
               file_root=npy_root(size), rel_roi_start=[0.25, 0.25], rel_roi_end=[0.75, 0.75],
               roi_axes=[0, 1]), (), "idle"),
]
