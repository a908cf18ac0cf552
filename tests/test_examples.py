"""The runnable examples of docs/examples/ run and do what they say."""

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "docs" / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_small_cnn_sees_every_image_once(capsys):
    pytest.importorskip("torch")
    example = _load("train_small_cnn")
    images = sum(1 for p in example.IMAGES.rglob("*.jpg"))
    assert example.main(batch_size=5, epochs=2) == images
    out = capsys.readouterr().out
    assert out.count(f"{images} images, mean loss") == 2


def test_ssd_pipeline_encodes_the_kept_boxes(capsys):
    np = pytest.importorskip("numpy")
    example = _load("ssd_pipeline")
    result = example.main(batch_size=8, iterations=3)
    num_classes = result["num_classes"]
    assert len(result["batches"]) == 3
    kept = 0
    for images, boxes, labels, crop_labels in result["batches"]:
        assert images.shape == (8, 3, 300, 300) and images.dtype == np.float32
        assert boxes.shape == (8, 8732, 4) and np.isfinite(boxes).all()
        assert labels.shape == (8, 8732)
        assert ((labels >= 0) & (labels <= num_classes)).all()
        for sample_labels, sample_kept in zip(labels, crop_labels, strict=True):
            positive = sample_labels[sample_labels > 0]
            if sample_kept.size:
                kept += 1
                assert positive.size > 0
                assert set(positive.tolist()) <= set(sample_kept.reshape(-1).tolist())
            else:
                assert positive.size == 0
    assert kept > 0
    out = capsys.readouterr().out
    assert out.count("images (8, 3, 300, 300) float32, boxes (8, 8732, 4)") == 3
