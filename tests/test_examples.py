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
