"""Seeds in debug mode: operators with an explicit `seed=` give exactly the outputs of graph mode;
without one, seeds follow graph mode's rule in call order (dali._graph.seeds), so pipelines whose
random operators are called in graph order give graph mode's outputs too."""

import numpy as np
import pytest

from dali import fn, types
from dali.pipeline import experimental

BS = 4
_rs = np.random.RandomState(0)
IMAGES = [_rs.randint(0, 256, (_rs.randint(20, 41), _rs.randint(20, 41), 3), dtype=np.uint8)
          for _ in range(7)]


def images():
    return fn.external_source(source=lambda info: IMAGES[info.idx_in_epoch % len(IMAGES)],
                              batch=False, layout="HWC")


def random_ops(seeded):
    s = (lambda k: {"seed": k}) if seeded else (lambda k: {})
    return (fn.random.uniform(range=[-3, 5], shape=[3], **s(1)),
            fn.random.uniform(values=[0.5, 1.5, 7.0], **s(2)),
            fn.random.uniform(range=[0, 10], dtype=types.INT32, **s(3)),
            fn.random.normal(mean=1.0, stddev=2.0, shape=[2, 2], **s(4)),
            fn.random.coin_flip(probability=0.3, **s(5)))


def augmentations(seeded):
    s = (lambda k: {"seed": k}) if seeded else (lambda k: {})
    img = images()
    angle = fn.random.uniform(range=[-45, 45], **s(11))
    rotated = fn.rotate(img, angle=angle, fill_value=7)
    crop = fn.random_resized_crop(img, size=(24, 20), **s(12))
    small = fn.resize(img, resize_x=33, resize_y=27)
    normalized = fn.crop_mirror_normalize(
        small, crop=(16, 16), crop_pos_x=fn.random.uniform(range=[0, 1], **s(13)),
        mirror=fn.random.coin_flip(**s(14)), mean=[10.0, 20.0, 30.0], std=[50.0, 60.0, 70.0],
        dtype=types.FLOAT)
    return angle, rotated, crop, small, normalized


def arithmetic(seeded):
    s = (lambda k: {"seed": k}) if seeded else (lambda k: {})
    u = fn.random.uniform(range=[0, 1], shape=[5], **s(21))
    n = fn.random.normal(shape=[5], **s(22))
    mixed = (u * 3 - n) / (abs(n) + 1.0)
    return mixed, fn.python_function(mixed, u, function=lambda a, b: np.maximum(a, b) * 2)


def conditional(seeded):
    s = (lambda k: {"seed": k}) if seeded else (lambda k: {})
    img = images()
    if fn.random.coin_flip(**s(31)):
        img = fn.rotate(img, angle=fn.random.uniform(range=[-30, 30], **s(32)))
    elif fn.random.uniform(range=[0, 1], **s(33)) > 0.5:
        img = fn.flip(img, horizontal=1)
    else:
        img = fn.random_resized_crop(img, size=(10, 12), **s(34))
    return (img,)


PIPELINES = {"random_ops": random_ops, "augmentations": augmentations,
             "arithmetic": arithmetic, "conditional": conditional}


def make(body, debug, seed, seeded):
    def defined():
        return body(seeded)

    factory = experimental.pipeline_def(defined, debug=debug, enable_conditionals=True)
    p = factory(batch_size=BS, num_threads=2, device_id=None, seed=seed,
                exec_async=False, exec_pipelined=False)
    p.build()
    return p


def collect(p, iterations=3):
    return [[[np.asarray(t) for t in tl] for tl in p.run()] for _ in range(iterations)]


def assert_same(a, b):
    for it_a, it_b in zip(a, b, strict=True):
        for out_a, out_b in zip(it_a, it_b, strict=True):
            for x, y in zip(out_a, out_b, strict=True):
                assert x.dtype == y.dtype
                np.testing.assert_array_equal(x, y)


def differs(a, b):
    return any(x.shape != y.shape or not np.array_equal(x, y)
               for it_a, it_b in zip(a, b, strict=True)
               for out_a, out_b in zip(it_a, it_b, strict=True)
               for x, y in zip(out_a, out_b, strict=True))


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_explicit_seeds_give_graph_mode_outputs(name):
    body = PIPELINES[name]
    graph = collect(make(body, False, seed=1, seeded=True))
    debug = collect(make(body, True, seed=2, seeded=True))
    assert_same(graph, debug)


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_without_seeds_debug_mode_follows_the_pipeline_seed(name):
    body = PIPELINES[name]
    first = collect(make(body, True, seed=42, seeded=False))
    assert_same(first, collect(make(body, True, seed=42, seeded=False)))
    assert differs(first, collect(make(body, True, seed=43, seeded=False)))


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_without_seeds_debug_mode_gives_graph_mode_outputs(name):
    # Every pipeline here calls its random operators in the graph's topological order.
    body = PIPELINES[name]
    assert_same(collect(make(body, False, seed=7, seeded=False)),
                collect(make(body, True, seed=7, seeded=False)))


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_check_parity_gives_unseeded_operators_the_graph_seeds(name):
    report = make(PIPELINES[name], False, seed=5, seeded=False).check_parity(iterations=2)
    assert report.ok, str(report)
    assert report.iterations == 2 and report.operators > 3


def input_sets(seeded):
    s = (lambda k: {"seed": k}) if seeded else (lambda k: {})
    img = images()
    twin = fn.copy(img)
    crops = fn.random_resized_crop([img, twin], size=(12, 14), **s(41))
    flipped = fn.flip([img, twin], horizontal=fn.random.coin_flip(**s(42)))
    return (*crops, *flipped)


@pytest.mark.parametrize("seeded", [True, False])
def test_multiple_input_sets_share_a_seed_in_both_modes(seeded):
    graph = collect(make(input_sets, False, seed=1, seeded=seeded))
    debug_pipe = make(input_sets, True, seed=1, seeded=seeded)
    debug = collect(debug_pipe)
    for outs in graph + debug:
        for a, b in zip(outs[0], outs[1], strict=True):   # the two crops of one image
            np.testing.assert_array_equal(a, b)
    assert_same(graph, debug)
    if not seeded:
        report = make(input_sets, False, seed=1, seeded=False).check_parity(iterations=2)
        assert report.ok, str(report)
