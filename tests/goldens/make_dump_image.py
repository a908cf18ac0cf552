"""Regenerate dump_image.npz with real NVIDIA DALI: the files fn.dump_image writes for a
batch of a gray and two RGB images (random values, fixed seed), as raw bytes per file name.

Run: python tests/goldens/make_dump_image.py  (a few seconds).
"""
import os
import pathlib
import tempfile

import numpy as np
from nvidia.dali import fn, pipeline_def

OUT = pathlib.Path(__file__).resolve().parent / "dump_image.npz"


def images():
    rng = np.random.default_rng(2024)
    return [rng.integers(0, 256, size=s, dtype=np.uint8) for s in [(3, 5, 1), (4, 2, 3),
                                                                   (1, 7, 3)]]


def main():
    batch = images()

    @pipeline_def(batch_size=len(batch), num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: batch, batch=True, layout="HWC")
        return fn.dump_image(x, suffix="golden")

    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        try:
            p = pipe()
            p.build()
            p.run()
            files = {name: np.frombuffer(pathlib.Path(name).read_bytes(), np.uint8)
                     for name in sorted(os.listdir("."))}
        finally:
            os.chdir(cwd)
    np.savez_compressed(OUT, **{f"image_{i}": b for i, b in enumerate(batch)}, **files)
    print(f"wrote {OUT}: {sorted(files)}")


if __name__ == "__main__":
    main()
