"""Per-frame arguments of the affine warps on sequences (FHWC): fn.rotate's `angle` and
fn.warp_affine's `matrix` (argument or second input) given with `fn.per_frame`; images (HWC)
with a per-frame matrix input become sequences.

Every frame of a sequence must equal the same operator on that frame alone (an HWC image) with
the frame's value, into the sample's output size; the sizes fn.rotate gives a sequence and the
values are checked against outputs recorded from real DALI (tests/goldens/warp_sequences.npz,
made by tests/goldens/make_warp_sequences.py) and against real DALI itself (oracle).
"""

import json
import pathlib

import numpy as np
import pytest
from layout_utils import run_layouts
from warp_utils import assert_close

from dali import types
from dali._executor.errors import PipelineError
from dali.ops.geometry import rotate

GOLDEN = pathlib.Path(__file__).parents[2] / "goldens" / "warp_sequences.npz"


def random_batch(seed, dtype=np.uint8, single=0.2):
    """Random FHWC sequences, per-frame angles and 2x3 matrices (some samples given one value
    for all their frames, with probability `single`)."""
    rng = np.random.default_rng(seed)
    seqs, angles, mats = [], [], []
    for _ in range(int(rng.integers(1, 4))):
        f, h, w = rng.integers(1, 5), *rng.integers(2, 24, 2)
        x = rng.integers(0, 256, (f, h, w, int(rng.choice([1, 3]))))
        seqs.append(x.astype(dtype) if dtype == np.uint8 else (x / 3 - 7).astype(dtype))
        k = 1 if rng.random() < single else f
        angles.append(rng.uniform(-200, 200, k).astype(np.float32))
        m = np.tile(np.array([[1, 0, 0], [0, 1, 0]], np.float32), (k, 1, 1))
        m += rng.uniform(-0.4, 0.4, (k, 2, 3)).astype(np.float32)
        m[:, :, 2] = rng.uniform(-4, 4, (k, 2))
        mats.append(m)
    return seqs, angles, mats


def per_frame_run(build, seqs, values, real=False):
    return run_layouts(lambda fn, x, v: build(fn, x, fn.per_frame(v)), [seqs, values],
                       ["FHWC", None], real=real)


def frame_by_frame(build, seq, values, **kwargs):
    """`build` on every frame of `seq` alone (HWC) with its own value."""
    values = np.broadcast_to(values, (len(seq), *np.shape(values)[1:]))
    out, _ = run_layouts(lambda fn, x, v: build(fn, x, v, **kwargs),
                         [list(seq), [np.ascontiguousarray(v) for v in values]], ["HWC", None])
    return np.stack(out)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kwargs", [{}, {"keep_size": True}, {"fill_value": 7.0},
                                    {"interp_type": types.INTERP_NN, "size": [9, 14]}])
def test_rotate_equals_frame_by_frame(seed, kwargs):
    seqs, angles, _ = random_batch(seed)
    out, layout = per_frame_run(lambda fn, x, a: fn.rotate(x, angle=a, **kwargs), seqs, angles)
    assert layout == "FHWC"
    for o, seq, a in zip(out, seqs, angles, strict=True):
        assert o.shape[0] == len(seq) and o.shape[3] == seq.shape[3]
        if "size" not in kwargs and not kwargs.get("keep_size"):
            hw = np.array(seq.shape[1:3])[None]
            want_hw = rotate.sequence_sizes(np.repeat(hw, len(seq), axis=0),
                                            np.broadcast_to(a, len(seq)).astype(np.float64),
                                            np.array([len(seq)]))[0]
            assert o.shape[1:3] == tuple(want_hw)
        kw = dict(kwargs, size=list(o.shape[1:3]))
        kw.pop("keep_size", None)
        want = frame_by_frame(lambda fn, x, v, **k: fn.rotate(x, angle=v, **k), seq, a, **kw)
        np.testing.assert_array_equal(o, want)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kwargs", [{}, {"inverse_map": False, "fill_value": 3.0},
                                    {"interp_type": types.INTERP_NN, "size": [8, 5]}])
def test_warp_affine_equals_frame_by_frame(seed, kwargs):
    seqs, _, mats = random_batch(seed, np.float32 if seed % 2 else np.uint8)
    out, layout = per_frame_run(lambda fn, x, m: fn.warp_affine(x, matrix=m, **kwargs), seqs,
                                mats)
    assert layout == "FHWC"
    for o, seq, m in zip(out, seqs, mats, strict=True):
        want = frame_by_frame(lambda fn, x, v, **k: fn.warp_affine(x, matrix=v, **k), seq, m,
                              **kwargs)
        np.testing.assert_array_equal(o, want)


def test_warp_affine_matrix_as_per_frame_input():
    seqs, _, mats = random_batch(3, single=0)
    out, _ = run_layouts(lambda fn, x, m: fn.warp_affine(x, fn.per_frame(m), fill_value=1),
                         [seqs, mats], ["FHWC", None])
    want, _ = per_frame_run(lambda fn, x, m: fn.warp_affine(x, matrix=m, fill_value=1), seqs,
                            mats)
    for a, b in zip(out, want, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kwargs", [{}, {"inverse_map": False, "fill_value": 4.0},
                                    {"size": [7, 9], "interp_type": types.INTERP_NN}])
def test_images_with_per_frame_matrix_input_become_sequences(kwargs):
    """An HWC image warped by a per-frame matrix input gives a sequence of one frame per
    matrix, each the warp of the image by that matrix (DALI repeats the image per frame)."""
    seqs, _, mats = random_batch(5, single=0)
    images = [s[0] for s in seqs]
    out, layout = run_layouts(lambda fn, x, m: fn.warp_affine(x, fn.per_frame(m), **kwargs),
                              [images, mats], ["HWC", None])
    assert layout == "FHWC"
    for o, image, m in zip(out, images, mats, strict=True):
        want = frame_by_frame(lambda fn, x, v, **k: fn.warp_affine(x, matrix=v, **k),
                              [image] * len(m), m, **kwargs)
        np.testing.assert_array_equal(o, want)


def test_one_value_serves_every_frame():
    seqs, angles, _ = random_batch(4, single=0)
    first = [a[:1] for a in angles]
    out, _ = per_frame_run(lambda fn, x, a: fn.rotate(x, angle=a), seqs, first)
    want, _ = run_layouts(lambda fn, x, a: fn.rotate(x, angle=a), [seqs, [a[0] for a in first]],
                          ["FHWC", None])
    for a, b in zip(out, want, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("hw, angles, out", [
    ((23, 8), [0, 60], (24, 24)),          # frames asking for other parities: even extents
    ((23, 8), [0, 80], (24, 26)),
    ((23, 8), [20, 40], (25, 22)),         # the same parities: the largest frame's size
    ((23, 8), [60, 80], (20, 25)),
    ((24, 3), [-7.4, 165.1, -65.8], (26, 25)),    # two frames against one
    ((7, 24), [-86.5, 28.9, 153.8, 122.4], (26, 26)),
    ((10, 14), [10, 50, 90], (18, 18)),
])
def test_sequence_sizes(hw, angles, out):
    """The sizes real DALI 2.4 gives these sequences."""
    n = len(angles)
    got = rotate.sequence_sizes(np.tile(hw, (n, 1)), np.array(angles, np.float32)
                                .astype(np.float64), np.array([n]))
    assert tuple(got[0]) == out


def test_golden():
    g = np.load(GOLDEN)
    cases = json.loads(str(g["cases"]))
    inputs = {}
    for key in g.files:
        if key.startswith("input_"):
            name, i = key[len("input_"):].rsplit("_", 1)
            inputs.setdefault(name, {})[int(i)] = g[key]
    inputs = {k: [v[i] for i in sorted(v)] for k, v in inputs.items()}
    for k, case in enumerate(cases):
        args = {key: getattr(types, v) if key == "interp_type" else v
                for key, v in case["args"].items()}

        def build(fn, x, v, case=case, args=args):
            v = fn.per_frame(v)
            if case["op"] == "rotate":
                return fn.rotate(x, angle=v, **args)
            if case.get("positional"):
                return fn.warp_affine(x, v, **args)
            return fn.warp_affine(x, matrix=v, **args)

        out, _ = run_layouts(build, [inputs[case["input"]], inputs[case["param"]]],
                             ["FHWC", None])
        for i, o in enumerate(out):
            assert_close(o, g[f"out_{k}_{i}"], off=0.005)


SEQ = [np.zeros((3, 6, 7, 3), np.uint8), np.zeros((2, 5, 4, 3), np.uint8)]


@pytest.mark.parametrize("build, values, layout, match", [
    (lambda fn, x, v: fn.rotate(x, angle=fn.per_frame(v)),
     [np.zeros(4, np.float32), np.zeros(2, np.float32)], "FHWC",
     "The sample 0 of tensor argument `angle` contains 4 per-frame parameters, but there are 3 "
     "frames"),
    (lambda fn, x, v: fn.rotate(x, angle=fn.per_frame(v)),
     [np.zeros(3, np.float32), np.zeros(0, np.float32)], "FHWC",
     "The sample 1 of tensor argument `angle` contains 0 per-frame"),
    (lambda fn, x, v: fn.rotate(x, angle=fn.per_frame(v)),
     [np.zeros(3, np.float32), np.zeros(2, np.float32)], "HWC",
     "Unexpected number of elements in argument `angle`: 5; expected: 2"),
    (lambda fn, x, v: fn.rotate(x, angle=fn.per_frame(v)),
     [np.zeros((3, 2), np.float32), np.zeros((2, 2), np.float32)], "FHWC",
     "per-frame `angle` must hold one angle per frame"),
    (lambda fn, x, v: fn.warp_affine(x, matrix=fn.per_frame(v)),
     [np.zeros((3, 6), np.float32), np.zeros((2, 6), np.float32)], "FHWC",
     r"per-frame `matrix` must hold a 2x3 matrix per frame \(shape \(-1, 2, 3\)"),
    (lambda fn, x, v: fn.warp_affine(x, matrix=fn.per_frame(v)),
     [np.zeros((2, 2, 3), np.float32), np.zeros((2, 2, 3), np.float32)], "FHWC",
     "The sample 0 of tensor argument `matrix` contains 2 per-frame parameters, but there are 3"),
    (lambda fn, x, v: fn.warp_affine(x, fn.per_frame(v)),
     [np.zeros((1, 2, 3), np.float32), np.zeros((2, 2, 3), np.float32)], "FHWC",
     "The input 0 and the input 1 have different number of frames for sample 0, respectively: "
     "3 and 1"),
    (lambda fn, x, v: fn.warp_affine(x, matrix=fn.per_frame(v), inverse_map=False),
     [np.ones((3, 2, 3), np.float32), np.zeros((1, 2, 3), np.float32)], "FHWC",
     "singular"),
])
def test_errors(build, values, layout, match):
    x = SEQ if layout == "FHWC" else [s[0] for s in SEQ]
    with pytest.raises(PipelineError, match=match):
        run_layouts(build, [x, values], [layout, None])


def test_sequence_without_frames_is_refused():
    x = [np.zeros((0, 6, 7, 3), np.uint8), SEQ[1]]
    with pytest.raises(PipelineError, match="Samples with no frames are not allowed"):
        run_layouts(lambda fn, s, v: fn.rotate(s, angle=fn.per_frame(v)),
                    [x, [np.zeros(1, np.float32), np.zeros(2, np.float32)]], ["FHWC", None])
    with pytest.raises(PipelineError, match="Samples with no frames are not allowed"):
        run_layouts(lambda fn, s, v: fn.warp_affine(s, fn.per_frame(v)),
                    [[s[0] for s in SEQ], [np.zeros((0, 2, 3), np.float32),
                                           np.ones((2, 2, 3), np.float32)]], ["HWC", None])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(8))
def test_rotate_matches_dali(seed):
    pytest.importorskip("nvidia.dali")
    seqs, angles, _ = random_batch(100 + seed, np.float32 if seed % 3 == 2 else np.uint8)
    fill = 5.0 if seed % 2 else None

    def build(fn, x, a):
        return fn.rotate(x, angle=a, fill_value=fill, keep_size=seed % 4 == 3)
    ours, _ = per_frame_run(build, seqs, angles)
    theirs, _ = per_frame_run(build, seqs, angles, real=True)
    for a, b in zip(ours, theirs, strict=True):
        assert_close(a, b, off=0.005, atol=0.01)


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(6))
def test_warp_affine_matches_dali(seed):
    pytest.importorskip("nvidia.dali")
    positional = seed % 3 == 0
    seqs, _, mats = random_batch(200 + seed, single=0 if positional else 0.2)
    kwargs = {"inverse_map": seed % 2 == 0, "fill_value": 9.0 if seed % 4 else None}
    if seed == 3:               # images and a per-frame matrix input: sequences
        seqs = [s[0] for s in seqs]

    def build(fn, x, m):
        return fn.warp_affine(x, m, **kwargs) if positional else \
            fn.warp_affine(x, matrix=m, **kwargs)
    layout = "HWC" if seed == 3 else "FHWC"
    ours, ours_layout = run_layouts(lambda fn, x, m: build(fn, x, fn.per_frame(m)),
                                    [seqs, mats], [layout, None])
    theirs, their_layout = run_layouts(lambda fn, x, m: build(fn, x, fn.per_frame(m)),
                                       [seqs, mats], [layout, None], real=True)
    assert ours_layout == their_layout == "FHWC"
    for a, b in zip(ours, theirs, strict=True):
        assert_close(a, b, off=0.005)


@pytest.mark.oracle
@pytest.mark.parametrize("values, layout", [
    ([np.zeros(4, np.float32), np.zeros(2, np.float32)], "FHWC"),
    ([np.zeros(3, np.float32), np.zeros(2, np.float32)], "HWC"),
])
def test_dali_refuses_the_same(values, layout):
    pytest.importorskip("nvidia.dali")
    x = SEQ if layout == "FHWC" else [s[0] for s in SEQ]
    with pytest.raises(RuntimeError, match="`angle`"):
        run_layouts(lambda fn, s, v: fn.rotate(s, angle=fn.per_frame(v)), [x, values],
                    [layout, None], real=True)
