"""fn.noise.salt_and_pepper: proportions over seeds, per-pixel vs per-channel, default and
given values per type, layouts and errors."""

import numpy as np
import pytest
from pipeline_utils import run_op

from dali._executor.errors import PipelineError


@pytest.mark.parametrize("seed", range(6))
def test_proportions(seed):
    rng = np.random.default_rng(seed)
    prob, svp = float(rng.uniform(0.05, 0.9)), float(rng.uniform(0.1, 0.9))
    x = np.full((120, 100, 1), 100, np.uint8)     # no layout: the last axis is channels
    out, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=prob, salt_vs_pepper=svp),
                  [[x]], seed=seed)
    o = out[0]
    n = o.size
    for frac, p in (((o == 255).mean(), prob * svp), ((o == 0).mean(), prob * (1 - svp)),
                    ((o == 100).mean(), 1 - prob)):
        assert abs(frac - p) < 5 * np.sqrt(p * (1 - p) / n) + 1e-9
    assert set(np.unique(o)) <= {0, 100, 255}


@pytest.mark.parametrize("layout,shape,axis", [("HWC", (30, 40, 3), 2), ("", (30, 40, 3), 2),
                                               ("CHW", (3, 30, 40), 0),
                                               ("FHWC", (2, 20, 30, 3), 3)])
def test_channels_share_a_draw(layout, shape, axis):
    x = np.full(shape, 7, np.float32)
    out, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=0.5), [[x]], layouts=[layout])
    o = out[0]
    first = np.take(o, [0], axis=axis)
    assert (o == first).all() and set(np.unique(o)) == {-1.0, 1.0, 7.0}
    per, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=0.5, per_channel=True), [[x]],
                  layouts=[layout])
    assert not (per[0] == np.take(per[0], [0], axis=axis)).all()


def test_the_remembered_plan_follows_the_batch_shapes():
    # with constant arguments a batch's parameters and channel groups are kept for the next
    # batch of the same shapes: the groups must change with the channel counts
    channels = [(3, 3), (3, 5), (3, 3), (1, 4)]
    its = [[[np.full((30, 40, c), 7, np.float32) for c in cs]] for cs in channels]
    outs = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=0.5), its, iterations=4,
                  layouts=["HWC"])
    for cs, (out,) in zip(channels, outs, strict=True):
        for c, o in zip(cs, out, strict=True):
            assert o.shape == (30, 40, c)
            assert (o == o[:, :, :1]).all() and set(np.unique(o)) == {-1.0, 1.0, 7.0}


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32,
                                   np.uint64, np.int64])
def test_default_values_are_the_type_limits(dtype):
    x = np.full((400, 1), 3, dtype)
    out, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=1.0), [[x]])
    info = np.iinfo(dtype)
    assert set(np.unique(out[0]).tolist()) == {info.min, info.max}
    assert out[0].dtype == dtype


def test_given_values_cast_like_cpp():
    x = np.full((64, 1), 2, np.uint8)
    out, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=1.0, salt_val=300.0,
                                                         pepper_val=-1.0), [[x]])
    assert set(np.unique(out[0]).tolist()) == {44, 255}       # wraps as static_cast does
    out, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=1.0, salt_val=2.7,
                                                         pepper_val=2.7), [[x]])
    np.testing.assert_array_equal(out[0], 2)                  # truncates


def test_prob_zero_copies_and_threads_do_not_matter():
    x = (np.arange(3000, dtype=np.int64) * 1234567890123).reshape(-1, 1)
    out, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=0.0), [[x]])
    np.testing.assert_array_equal(out[0], x)
    a, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=0.3), [[x]], seed=9)
    b, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=0.3), [[x]], seed=9,
                num_threads=4)
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("kw,layout,match", [
    ({"prob": 1.5}, "HWC", r"Noise probability should be a value within \[0.0, 1.0\]. Got: 1.5"),
    ({"salt_vs_pepper": -0.1}, "HWC", "Salt-vs-pepper probability should be a value within"),
    ({}, "HWX", "'C' should be the first or the last dimension in the layout"),
])
def test_errors(kw, layout, match):
    """Messages as DALI's."""
    with pytest.raises(PipelineError, match=match) as e:
        run_op(lambda fn, x: fn.noise.salt_and_pepper(x, **kw), [[np.zeros((4, 4, 3), np.uint8)]],
               layouts=[layout])
    assert "salt_and_pepper" in str(e.value)


def test_a_sample_without_layout_is_channel_last():
    """As in DALI: a 2-D sample without a layout has rows of "channels" that share a draw,
    a 1-D one is a single pixel."""
    out, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=0.5),
                  [[np.full((10, 20), 3, np.uint8)]])
    assert (out[0] == out[0][:, :1]).all() and len(np.unique(out[0])) > 1
    out, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=1.0),
                  [[np.full(50, 3, np.uint8)] * 8])
    assert all(len(np.unique(o)) == 1 for o in out) and len({int(o[0]) for o in out}) == 2


@pytest.mark.oracle
def test_oracle_proportions_match():
    x = np.full((200, 200, 3), 100, np.uint8)
    ours, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=0.2), [[x]], layouts=["HWC"])
    real, = run_op(lambda fn, x: fn.noise.salt_and_pepper(x, prob=0.2), [[x]], layouts=["HWC"],
                   real=True)
    for v in (0, 100, 255):
        assert abs((ours[0] == v).mean() - (real[0] == v).mean()) < 0.02
