"""bench/efficientnet.py: the graph builds and runs for each policy, measure_efficientnet and
table report it (on the bundled photos, dali only; real DALI runs it in `python -m
bench.efficientnet`)."""

import pathlib

import numpy as np
import pytest

import dali
from bench import backends, efficientnet, pipelines

IMAGES = pathlib.Path(dali.__file__).parent / "data" / "images"


@pytest.mark.parametrize("policy", list(efficientnet.POLICIES))
def test_graph(policy):
    ours = backends.load(backends.OURS)
    efficientnet.import_policy(ours, policy)
    pipe = pipelines.build(ours, efficientnet.graph, conditionals=True, batch_size=4,
                           root=str(IMAGES), policy=policy)
    images, labels = pipe.run()
    assert np.array(images.as_tensor()).shape == (4, 3, 224, 224)
    assert len(labels) == 4


def test_unknown_policy():
    with pytest.raises(ValueError, match="unknown policy 'randaugment'"):
        pipelines.build(backends.load(backends.OURS), efficientnet.graph, conditionals=True,
                        batch_size=4, root=str(IMAGES), policy="randaugment")


def test_measure_and_table():
    lines = []
    res = efficientnet.measure_efficientnet([backends.load(backends.OURS)], IMAGES,
                                            ["trivialaugment"], repeats=1, iterations=1,
                                            warmup=0, log=lines.append)
    assert len(res["trivialaugment"]["dali"]) == 1 and len(lines) == 1
    table = efficientnet.table(res).splitlines()
    assert len(table) == 3 and table[2].startswith("| EfficientNet training (TrivialAugment")
