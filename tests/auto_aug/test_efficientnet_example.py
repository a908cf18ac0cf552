"""docs/examples/efficientnet_pipeline.py runs with each automatic augmentation and gives
normalized 224x224 CHW batches; the augmentation changes the images, not the labels."""

import importlib.util
import pathlib

import numpy as np
import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "examples" / \
    "efficientnet_pipeline.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("efficientnet_pipeline", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_batches(example, capsys):
    plain = example.main(batch_size=8, iterations=2, augmentation="disabled")
    num_classes = len([d for d in example.IMAGES.iterdir() if d.is_dir()])
    for augmentation in ("trivialaugment", "autoaugment"):
        batches = example.main(batch_size=8, iterations=2, augmentation=augmentation)
        changed = 0
        for (images, labels), (ref_images, ref_labels) in zip(batches, plain, strict=True):
            assert images.shape == (8, 3, 224, 224) and images.dtype == np.float32
            assert np.isfinite(images).all() and -3 < images.mean() < 3
            np.testing.assert_array_equal(labels, ref_labels)
            assert ((labels >= 0) & (labels < num_classes)).all()
            changed += int((np.abs(images - ref_images).max(axis=(1, 2, 3)) > 0).sum())
        assert changed >= 8   # identity is one of 14 choices, and policies may skip a sample
    assert capsys.readouterr().out.count("images (8, 3, 224, 224) float32") == 6
