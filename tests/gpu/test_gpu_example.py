"""docs/examples/gpu_pipeline.py: without a CUDA device it says so and exits with status 0; on
the emulated device its batches equal those of the same graph on the CPU."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from dali import backend, fn, pipeline_def, types

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "examples" / "gpu_pipeline.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("gpu_pipeline", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_script_exits_0(example):
    out = subprocess.run([sys.executable, str(EXAMPLE), "--batch-size", "2", "--iterations", "1"],
                         capture_output=True, text=True, check=False, timeout=300)
    assert out.returncode == 0, out.stderr
    if backend.GetCUDADeviceCount() == 0:
        assert out.stdout == example.NO_GPU + "\n"
    else:
        assert out.stdout.startswith("batch 0: images (2, 3, 224, 224) float32 (TensorListGPU)")


def test_main_without_a_device_prints_why(example, monkeypatch, capsys):
    monkeypatch.setattr(backend, "GetCUDADeviceCount", lambda: 0)
    assert example.main(batch_size=2, iterations=1) is None
    out = capsys.readouterr().out
    assert out == example.NO_GPU + "\n" and 'pip install "dali[gpu]"' in out


@pipeline_def
def _cpu_pipe(data_dir, example):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.random_resized_crop(images, size=(224, 224))
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=example.MEAN, std=example.STD,
                                      mirror=fn.random.coin_flip())
    return images, labels


def test_batches_on_the_emulated_device_equal_the_cpu_graph(example, emulated_gpu, capsys):
    batches = example.run(batch_size=4, iterations=3, seed=5)
    assert {"resample_u8_f32", "cmn_u8_f32"} <= set(emulated_gpu.launches)
    num_classes = sum(1 for d in example.IMAGES.iterdir() if d.is_dir())
    ref = _cpu_pipe(str(example.IMAGES), example, batch_size=4, num_threads=2, device_id=None,
                    seed=5)
    ref.build()
    for images, labels in batches:
        assert images.shape == (4, 3, 224, 224) and images.dtype == np.float32
        assert labels.shape == (4,) and ((labels >= 0) & (labels < num_classes)).all()
        ref_images, ref_labels = ref.run()
        np.testing.assert_array_equal(images, np.array(ref_images.as_tensor()))
        np.testing.assert_array_equal(labels, np.array(ref_labels.as_tensor()).ravel())
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["batch 0", "batch 1", "batch 2"]
    assert all("images (4, 3, 224, 224) float32 (TensorListGPU), labels [" in line
               for line in lines)
