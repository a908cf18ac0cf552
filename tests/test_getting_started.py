"""DALI's "Getting Started" walkthrough (docs/getting_started.md), run unchanged apart from the
import and device_id=None, with values checked against NumPy references and the oracle."""

from __future__ import annotations

import importlib
import pathlib

import numpy as np
import pytest

import dali

IMAGE_DIR = str(pathlib.Path(dali.__file__).parent / "data" / "images")


def walkthrough(pkg):
    """The tutorial's pipelines, written once against `pkg` ("dali" or "nvidia.dali")."""
    mod = importlib.import_module(pkg)
    fn = importlib.import_module(pkg + ".fn")
    pipeline_def = mod.pipeline_def

    @pipeline_def
    def simple_pipeline():
        jpegs, labels = fn.readers.file(file_root=IMAGE_DIR)
        images = fn.decoders.image(jpegs, device="cpu")
        return images, labels

    @pipeline_def
    def shuffled_pipeline():
        jpegs, labels = fn.readers.file(file_root=IMAGE_DIR, random_shuffle=True,
                                        initial_fill=21)
        images = fn.decoders.image(jpegs, device="cpu")
        return images, labels

    @pipeline_def
    def rotated_pipeline():
        jpegs, labels = fn.readers.file(file_root=IMAGE_DIR, random_shuffle=True,
                                        initial_fill=21)
        images = fn.decoders.image(jpegs, device="cpu")
        rotated_images = fn.rotate(images, angle=10.0, fill_value=0)
        return rotated_images, labels

    @pipeline_def
    def random_rotated_pipeline():
        jpegs, labels = fn.readers.file(file_root=IMAGE_DIR, random_shuffle=True,
                                        initial_fill=21)
        images = fn.decoders.image(jpegs, device="cpu")
        angle = fn.random.uniform(range=(-10.0, 10.0))
        rotated_images = fn.rotate(images, angle=angle, fill_value=0)
        return rotated_images, labels, angle

    return simple_pipeline, shuffled_pipeline, rotated_pipeline, random_rotated_pipeline


def run(pipeline, iterations=3, **kwargs):
    pipe = pipeline(batch_size=4, num_threads=2, device_id=None, seed=1234, **kwargs)
    pipe.build()
    return [pipe.run() for _ in range(iterations)]


def files_in_order():
    root = pathlib.Path(IMAGE_DIR)
    classes = sorted(p.name for p in root.iterdir() if p.is_dir())
    return [(p, label) for label, c in enumerate(classes)
            for p in sorted((root / c).iterdir())]


def test_simple_pipeline_reads_and_decodes_every_file_in_order():
    cv2 = pytest.importorskip("cv2")
    simple, *_ = walkthrough("dali")
    batches = run(simple, iterations=3)
    files = files_in_order()
    assert len(files) == 12
    for it, (images, labels) in enumerate(batches):
        assert images.layout() == "HWC" and images.dtype == dali.types.UINT8
        assert labels.is_dense_tensor() and labels.as_array().shape == (4, 1)
        for i in range(4):
            path, label = files[it * 4 + i]
            expected = cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB)
            np.testing.assert_array_equal(images.at(i), expected)
            assert labels.at(i).tolist() == [label]
            assert images[i].source_info() == f"{path.parent.name}/{path.name}"
    printed = repr(batches[0][0])
    assert printed.startswith("TensorListCPU(\n") and "num_samples=4" in printed


def test_shuffled_pipeline_is_reproducible_and_covers_the_data():
    _, shuffled, *_ = walkthrough("dali")
    first = run(shuffled, iterations=3)
    again = run(shuffled, iterations=3)
    infos = [b[0][i].source_info() for b in first for i in range(4)]
    assert sorted(infos) == sorted(f"{p.parent.name}/{p.name}" for p, _ in files_in_order())
    for (a, la), (b, lb) in zip(first, again, strict=True):
        assert [a[i].source_info() for i in range(4)] == [b[i].source_info() for i in range(4)]
        np.testing.assert_array_equal(la.as_array(), lb.as_array())


def test_rotated_pipelines():
    _, shuffled, rotated, random_rotated = walkthrough("dali")
    plain = run(shuffled, iterations=1)[0][0]
    fixed = run(rotated, iterations=1)[0][0]
    for i in range(4):
        h, w, _ = plain.at(i).shape
        rad = np.deg2rad(10.0)
        # the default output is the rotated bounding box, rounded to the parity of the input
        assert fixed.at(i).shape[2] == 3
        assert abs(fixed.at(i).shape[0] - (w * np.sin(rad) + h * np.cos(rad))) <= 2
        assert abs(fixed.at(i).shape[1] - (w * np.cos(rad) + h * np.sin(rad))) <= 2
    images, labels, angles = run(random_rotated, iterations=1)[0]
    a = angles.as_array()
    assert a.dtype == np.float32 and ((a >= -10) & (a < 10)).all() and len(set(a)) == 4
    again = run(random_rotated, iterations=1)[0]
    np.testing.assert_array_equal(again[2].as_array(), a)
    four_threads = random_rotated(batch_size=4, num_threads=4, device_id=None, seed=1234)
    np.testing.assert_array_equal(four_threads.run()[2].as_array(), a)


@pytest.mark.oracle
def test_walkthrough_matches_real_dali():
    """Same files in the same order, identical decoded pixels, rotations within rounding."""
    ours = walkthrough("dali")
    theirs = walkthrough("nvidia.dali")
    for k, (p_ours, p_theirs) in enumerate(zip(ours[:3], theirs[:3], strict=True)):
        for (img_a, lbl_a), (img_b, lbl_b) in zip(run(p_ours), run(p_theirs), strict=True):
            np.testing.assert_array_equal(lbl_a.as_array(), lbl_b.as_array())
            for i in range(4):
                assert img_a[i].source_info() == img_b[i].source_info()
                a, b = img_a.at(i), np.array(img_b[i])
                assert a.shape == b.shape
                if k < 2:
                    np.testing.assert_array_equal(a, b)
                else:   # rotation: DALI's pixel mapping, float rounding may differ by 1
                    assert np.abs(a.astype(int) - b).max() <= 1
