"""docs/examples/video_pipeline.py runs and gives normalized CFHW sequences of 16 frames with
their class labels; bench/video.py's graph builds the same pipeline on both backends."""

import importlib.util
import pathlib

import numpy as np
import pytest

pytest.importorskip("av")
EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "docs" / "examples" / \
    "video_pipeline.py"


def test_example(capsys):
    spec = importlib.util.spec_from_file_location("video_pipeline", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    batches = example.main(batch_size=3, iterations=2)
    assert "16 sequences of 16 frames per epoch" in capsys.readouterr().out
    for frames, labels in batches:
        assert frames.shape == (3, 3, 16, 112, 112) and frames.dtype == np.float32
        assert labels.shape == (3, 1) and set(labels.ravel().tolist()) <= {0, 1, 2, 3}
        # ImageNet-normalized pixels of real photos: centred near 0, a few units wide
        assert -3.0 < frames.min() < 0.0 < frames.max() < 3.0
        assert frames.std() > 0.2


@pytest.mark.oracle
def test_bench_graph_matches_real_dali(tmp_path):
    from bench import backends, pipelines, video
    root = video.write_clips(tmp_path, count=4, frames=20)
    outs = []
    for name in backends.NAMES:
        pipe = pipelines.build(backends.load(name), video.graph, batch_size=2, file_root=root)
        outs.append([(np.array(f.as_tensor()), np.array(lbl.as_tensor()))
                     for f, lbl in (pipe.run() for _ in range(2))])
    for (ours_frames, ours_labels), (real_frames, real_labels) in zip(*outs, strict=True):
        assert ours_frames.shape == real_frames.shape == (2, 3, 16, 112, 112)
        assert ours_labels.shape == real_labels.shape == (2, 1)
