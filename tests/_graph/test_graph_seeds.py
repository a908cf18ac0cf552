"""Operator seeds (dali._graph.seeds): one rule for graph and debug mode."""

import numpy as np
import pytest

from dali import fn
from dali._ext import rng
from dali._graph import seeds
from dali.pipeline import experimental

BS = 3


def test_seeds_are_the_seed_seq_words_in_order():
    s = seeds.OperatorSeeds(17)
    got = [s.seed(None, k) for k in range(5)]
    assert got == rng.derive_seeds(17, 5).tolist()


def test_explicit_seeds_and_relations_take_no_word():
    s = seeds.OperatorSeeds(3)
    words = rng.derive_seeds(3, 3).tolist()
    assert s.seed(None, "a") == words[0]
    assert s.seed(42, "b") == 42
    assert s.seed(-1, "c") == words[1]          # a negative seed means "not given"
    assert s.seed(None, "a") == words[0]        # same relation: same seed
    assert s.seed(None, "d") == words[2]


def test_words_are_reused_cyclically():
    s = seeds.OperatorSeeds(9)
    got = [s.seed(None, k) for k in range(rng.MAX_SEEDS + 2)]
    assert got[rng.MAX_SEEDS:] == got[:2]


def images():
    return fn.external_source(
        source=lambda info: np.full((4 + info.idx_in_batch, 5, 3), info.idx_in_epoch % 251,
                                    np.uint8), batch=False, layout="HWC")


def body():
    # Random operators called in the graph's topological order (outputs depth-first).
    img = images()
    twin = fn.copy(img)
    crops = fn.random_resized_crop([img, twin], size=(6, 4))       # two instances, one seed
    mirror = fn.random.coin_flip()
    angle = fn.random.uniform(range=[-30, 30])
    rotated = fn.rotate(crops[0], angle=angle, fill_value=0)
    flipped = fn.flip([crops[0], rotated], horizontal=mirror)
    pinned = fn.random.normal(shape=[2], seed=1234)
    return (*crops, *flipped, angle, pinned, fn.random.uniform(range=[0, 1], shape=[3]))


def make(debug, seed=11):
    p = experimental.pipeline_def(body, debug=debug)(
        batch_size=BS, num_threads=2, device_id=None, seed=seed, exec_async=False,
        exec_pipelined=False)
    p.build()
    return p


def seeded(ops):
    return [(op.spec.schema.name, op.spec.seed) for op in ops if op.spec.seed is not None]


def test_debug_mode_gives_the_graph_seeds_when_the_order_is_the_same():
    graph, debug = make(False), make(True)
    graph_outs = [graph.run() for _ in range(2)]
    debug_outs = [debug.run() for _ in range(2)]
    graph_seeds = seeded(graph._executor.ops)        # topological order
    debug_seeds = seeded(debug._executor.by_name.values())     # call order
    assert debug_seeds == graph_seeds
    crops = [s for name, s in graph_seeds if name == "random_resized_crop"]
    assert len(crops) == 2 and crops[0] == crops[1]
    assert ("random.normal", 1234) in graph_seeds
    for outs_g, outs_d in zip(graph_outs, debug_outs, strict=True):
        for a, b in zip(outs_g, outs_d, strict=True):
            for x, y in zip(a, b, strict=True):
                np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize("debug", [False, True])
def test_seeds_follow_the_pipeline_seed(debug):
    def seeds_of(seed):
        p = make(debug, seed)
        p.run()
        return seeded(p._executor.by_name.values())

    assert seeds_of(5) == seeds_of(5)
    assert seeds_of(5) != seeds_of(6)
