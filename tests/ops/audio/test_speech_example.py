"""docs/examples/speech_pipeline.py: the speech pipeline of issue #14 runs on generated files,
returns normalized log-mel features padded to a multiple of 16 frames, visits every manifest
entry once an epoch in real DALI's order; bench/speech.py's graph builds on both backends."""
import importlib.util
import pathlib

import numpy as np
import pytest

from bench import backends, pipelines, speech

pytest.importorskip("soundfile")
EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "docs" / "examples" / \
    "speech_pipeline.py"


def _load():
    spec = importlib.util.spec_from_file_location("speech_pipeline", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _needs_every_stage():
    missing = [s for s in speech.STAGES
               if s not in speech.stages(backends.load(backends.OURS))]
    if missing:
        pytest.skip(f"dali lacks {', '.join(missing)} (being written)")


def test_example_features(capsys):
    _needs_every_stage()
    batches = _load().main(batch_size=8, iterations=3)
    seen = []
    for features, shapes, index in batches:
        assert features.dtype == np.float32 and features.shape[:2] == (8, 64)
        assert features.shape[2] % 16 == 0
        assert (shapes[:, 0] == 64).all() and (shapes[:, 1] <= features.shape[2]).all()
        for f, (_, frames) in zip(features, shapes, strict=True):
            valid = f[:, :frames]
            np.testing.assert_allclose(valid.mean(axis=1), 0, atol=1e-3)
            assert (f[:, frames:] == 0).all()
        seen += index.tolist()
    assert sorted(seen) == list(range(24))
    assert capsys.readouterr().out.count("features (8, 64, ") == 3


def test_bench_graph_order_matches_dali(tmp_path):
    if not backends.available(backends.PEER):
        pytest.skip("needs nvidia.dali")
    manifest = speech.data_set(tmp_path, count=12)
    loaded = [backends.load(n) for n in backends.NAMES]
    upto = tuple(s for s in speech.STAGES if all(s in speech.stages(b) for b in loaded))
    results = []
    for b in loaded:
        pipe = pipelines.build(b, speech.graph, batch_size=4, manifest=manifest, upto=upto)
        results.append([[np.array(t).copy() for t in out] for _ in range(3)
                        for out in [pipe.run()]])
    for ours, theirs in zip(*results, strict=True):
        for a, b in zip(ours[2], theirs[2], strict=True):            # the entries
            assert a.tolist() == b.tolist()
        for a, b in zip(ours[1], theirs[1], strict=True):            # the shapes
            assert a.tolist() == b.tolist()
