"""`python -m dali demo`: the Getting Started pipeline on the photographs shipped in the package.

Reads the images with `fn.readers.file` (shuffled, seeded), decodes them, rotates each by a random
angle, resizes to a common size, prints a short summary of the batch (shapes, labels, angles)
and writes a contact sheet PNG of the augmented outputs.
"""

from __future__ import annotations

import pathlib
import sys
import time

import cv2
import numpy as np

from dali import _ext, fn, pipeline_def, types

IMAGES = pathlib.Path(__file__).parent / "data" / "images"


@pipeline_def
def augmentation_pipeline(image_dir, size):
    jpegs, labels = fn.readers.file(file_root=image_dir, random_shuffle=True, initial_fill=12,
                                    name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    angle = fn.random.uniform(range=(-10.0, 10.0))
    rotated = fn.rotate(images, angle=angle, fill_value=0)
    resized = fn.resize(rotated, size=(size, size), mode="not_larger")
    return resized, labels, angle


def contact_sheet(images, labels, angles, class_names, cell=160, columns=4):
    """One PNG-ready BGR image with every sample centred in a cell, captioned."""
    rows = (len(images) + columns - 1) // columns
    sheet = np.full((rows * (cell + 22), columns * cell, 3), 255, np.uint8)
    for i, (img, label, angle) in enumerate(zip(images, labels, angles, strict=True)):
        r, c = divmod(i, columns)
        h, w = img.shape[:2]
        y0 = r * (cell + 22) + (cell - h) // 2
        x0 = c * cell + (cell - w) // 2
        sheet[y0:y0 + h, x0:x0 + w] = img[:, :, ::-1]
        caption = f"{class_names[label]} {angle:+.1f}deg"
        cv2.putText(sheet, caption, (c * cell + 4, r * (cell + 22) + cell + 15),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.42, (0, 0, 0), 1, cv2.LINE_AA)
    return sheet


def build_warning():
    """What this build of dali lacks that the user should hear about (pip hides build output),
    or None."""
    if _ext.has_libjpeg_turbo():
        return None
    return ("warning: dali was built without libjpeg-turbo, so JPEGs are decoded by OpenCV: "
            "slower, and pixels may differ from DALI's. Install libjpeg-turbo's headers "
            "(libjpeg-turbo8-dev / libjpeg62-turbo-dev) and reinstall dali.")


def main(out="dali_demo.png", batch_size=12, num_threads=2, seed=42):
    """Run the demo; returns the path of the contact sheet."""
    warning = build_warning()
    if warning:
        print(warning, file=sys.stderr)
    class_names = sorted(p.name for p in IMAGES.iterdir() if p.is_dir())
    pipe = augmentation_pipeline(image_dir=str(IMAGES), size=150, batch_size=batch_size,
                                 num_threads=num_threads, device_id=None, seed=seed)
    start = time.perf_counter()
    pipe.build()
    images, labels, angles = pipe.run()
    elapsed = time.perf_counter() - start
    shapes = sorted({tuple(s) for s in images.shape()})
    print(f"a batch of {len(images)} images ({images.at(0).dtype}, layout {images.layout()}), "
          f"{len(shapes)} distinct shapes from {shapes[0]} to {shapes[-1]}")
    print(f"labels: {labels.as_array().ravel().tolist()} "
          f"(classes: {', '.join(class_names)})")
    print(f"angles: {', '.join(f'{float(angles.at(i)):+.1f}' for i in range(len(angles)))}")
    meta = pipe.reader_meta("Reader")
    print(f"reader: epoch of {meta['epoch_size']} files; first sample from "
          f"{pathlib.Path(images[0].source_info()).name}")
    print(f"built and ran one batch in {elapsed * 1000:.0f} ms")
    sheet = contact_sheet([images.at(i) for i in range(len(images))],
                          [int(labels.at(i)[0]) for i in range(len(labels))],
                          [float(angles.at(i)) for i in range(len(angles))], class_names)
    path = pathlib.Path(out)
    if not cv2.imwrite(str(path), sheet):
        raise OSError(f"could not write {path}")
    print(f"contact sheet: {path.resolve()}")
    return path
