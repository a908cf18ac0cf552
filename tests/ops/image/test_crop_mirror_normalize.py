"""fn.crop_mirror_normalize: the fused crop, mirror, normalize, pad, transpose and cast."""

import functools
import importlib
import json
import pathlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from pipeline_utils import run_one, run_op

from dali import types
from dali._executor.errors import PipelineError
from dali._ext.kernels import cmn

RNG = np.random.default_rng(3)
IMGS = [RNG.integers(0, 256, (20, 30, 3), dtype=np.uint8),
        RNG.integers(0, 256, (17, 9, 3), dtype=np.uint8)]
MEAN = [123.675, 116.28, 103.53]
STD = [58.395, 57.12, 57.375]
GOLDEN = pathlib.Path(__file__).parents[2] / "goldens" / "geometry.npz"
F32 = np.float32


run = functools.partial(run_one, layout="HWC")


def _anchor(extent, crop, pos):
    a = float(F32(pos)) * (extent - crop)
    return int(np.trunc(a + np.copysign(0.5, a)))


def reference(x, crop=None, pos=(0.5, 0.5), mirror=False, mean=(0.0,), std=(1.0,), scale=1.0,
              shift=0.0, dtype=np.float32, layout="CHW", pad_output=False):
    """HWC image -> normalized output, with DALI's float32 arithmetic."""
    h, w, c = x.shape
    if crop is not None:
        y0, x0 = _anchor(h, crop[0], pos[1]), _anchor(w, crop[1], pos[0])
        x = x[y0:y0 + crop[0], x0:x0 + crop[1]]
    if mirror:
        x = x[:, ::-1]
    mean = np.broadcast_to(np.asarray(mean, F32), (c,))
    std = np.broadcast_to(np.asarray(std, F32), (c,))
    mul = F32(scale) / std
    adjusted = (mean.astype(np.float64) - np.float64(F32(shift)) * std / np.float64(F32(scale)))
    y = (x.astype(F32) - adjusted.astype(F32)) * mul
    if pad_output and c & (c - 1):
        y = np.concatenate([y, np.zeros(y.shape[:2] + ((1 << c.bit_length()) - c,), F32)], -1)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        y = np.clip(np.where(y >= 0, np.floor(y + 0.5), np.ceil(y - 0.5)), info.min, info.max)
    y = y.astype(dtype)
    return y.transpose(2, 0, 1) if layout == "CHW" else y


@pytest.mark.parametrize("kwargs", [
    {}, {"mean": MEAN, "std": STD}, {"crop": (5, 7), "mean": MEAN, "std": STD, "mirror": 1},
    {"crop": (5, 7), "pos": (0.3, 0.9), "scale": 2.5, "shift": 3.0, "mean": MEAN, "std": STD},
    {"mean": [10.0], "std": [3.0], "layout": "HWC"},
    {"pad_output": True, "mean": MEAN, "std": STD, "layout": "HWC"},
    {"pad_output": True, "crop": (4, 4)},
    {"dtype": np.uint8, "mean": [128.0], "scale": 0.5, "shift": 7.5},
    {"dtype": np.int8, "mean": [128.5], "std": [0.9]},
    {"dtype": np.float16, "mean": MEAN, "std": STD, "scale": 64.0}])
def test_against_numpy(kwargs):
    kwargs = dict(kwargs)
    names = {np.uint8: types.UINT8, np.int8: types.INT8, np.float16: types.FLOAT16}
    args = {k: v for k, v in kwargs.items() if k not in ("pos", "layout", "dtype")}
    if "pos" in kwargs:
        args["crop_pos_x"], args["crop_pos_y"] = kwargs["pos"]
    if "layout" in kwargs:
        args["output_layout"] = kwargs["layout"]
    if "dtype" in kwargs:
        args["dtype"] = names[kwargs["dtype"]]
    out, lay = run(lambda fn, x: fn.crop_mirror_normalize(x, **args), IMGS)
    assert lay == kwargs.get("layout", "CHW")
    for o, x in zip(out, IMGS, strict=True):
        want = reference(x, **kwargs)
        assert o.dtype == want.dtype
        np.testing.assert_array_equal(o, want)


def test_chw_input_and_other_layouts():
    chw = [np.ascontiguousarray(x.transpose(2, 0, 1)) for x in IMGS]
    out, lay = run(lambda fn, x: fn.crop_mirror_normalize(x, output_layout="HWC", mirror=1),
                   chw, layout="CHW")
    assert lay == "HWC"
    for o, x in zip(out, IMGS, strict=True):
        np.testing.assert_array_equal(o, x[:, ::-1].astype(F32))
    out, lay = run(lambda fn, x: fn.crop_mirror_normalize(x, output_layout="WHC"), IMGS)
    assert lay == "WHC"
    np.testing.assert_array_equal(out[0], IMGS[0].transpose(1, 0, 2).astype(F32))


def test_sequences_and_volumes():
    seq = np.stack([IMGS[0], IMGS[0] // 2])
    out, lay = run(lambda fn, x: fn.crop_mirror_normalize(x, output_layout="FCHW", mirror=1,
                                                          crop=(4, 6)), [seq], layout="FHWC")
    assert lay == "FCHW"
    np.testing.assert_array_equal(out[0], seq[:, 8:12, 12:18][:, :, ::-1].transpose(0, 3, 1, 2)
                                  .astype(F32))
    out, lay = run(lambda fn, x: fn.crop_mirror_normalize(x, output_layout="CDHW", mirror=1),
                   [seq], layout="DHWC")
    np.testing.assert_array_equal(out[0], seq[:, :, ::-1].transpose(3, 0, 1, 2).astype(F32))


def test_per_sample_arguments():
    mirror = [np.int32(1), np.int32(0)]
    mean = [np.array([1.0, 2.0, 3.0], F32), np.array([5.0], F32)]
    std = [np.array([2.0], F32), np.array([4.0, 5.0, 6.0], F32)]
    out, _ = run(lambda fn, x, m, a, s: fn.crop_mirror_normalize(x, mirror=m, mean=a, std=s),
                 IMGS, mirror, mean, std)
    np.testing.assert_array_equal(out[0], reference(IMGS[0], mirror=True, mean=mean[0],
                                                    std=std[0]))
    np.testing.assert_array_equal(out[1], reference(IMGS[1], mean=mean[1], std=std[1]))


def test_out_of_bounds_padding():
    x = (np.arange(2 * 3 * 3).reshape(2, 3, 3) * 10).astype(np.uint8)
    (o,), _ = run(lambda fn, t: fn.crop_mirror_normalize(
        t, crop=(4, 5), out_of_bounds_policy="pad", fill_values=[1, 2, 3], mean=[1.0],
        std=[2.0], output_layout="HWC"), [x])
    assert (o[0] == [1, 2, 3]).all() and (o[:, 0] == [1, 2, 3]).all()
    np.testing.assert_array_equal(o[1:3, 1:4], (x.astype(F32) - 1) * F32(0.5))
    # With the "pad" policy the padded channels hold the fill value everywhere (as in DALI).
    (o,), _ = run(lambda fn, t: fn.crop_mirror_normalize(
        t, crop=(4, 5), out_of_bounds_policy="pad", fill_values=[7], pad_output=True,
        output_layout="HWC", mirror=1), [x])
    assert o.shape == (4, 5, 4) and (o[..., 3] == 7).all() and (o[0] == 7).all()
    np.testing.assert_array_equal(o[1:3, 1:4, :3], x[:, ::-1].astype(F32))
    (o,), _ = run(lambda fn, t: fn.crop_mirror_normalize(
        t, crop=(4, 5), out_of_bounds_policy="trim_to_shape", pad_output=True,
        output_layout="HWC"), [x])
    assert o.shape == (2, 3, 4) and (o[..., 3] == 0).all()


def test_empty_sample():
    (o,), lay = run(lambda fn, t: fn.crop_mirror_normalize(t), [np.zeros((0, 5, 3), np.uint8)])
    assert o.shape == (3, 0, 5) and lay == "CHW"


@pytest.mark.parametrize("kwargs, layout, x, match", [
    ({"mean": [1.0, 2.0]}, "HWC", IMGS, "per-channel arguments"),
    ({"output_layout": "HW"}, "HWC", IMGS, "not a permutation"),
    ({}, "FHWC", [np.zeros((2, 3, 4, 3), np.uint8)], "not a permutation"),
    ({"dtype": types.INT16}, "HWC", IMGS, "Not supported output type"),
    ({}, "HWC", [np.zeros((3, 4, 3), np.int8)], "Not supported input type"),
    ({"crop": (30, 3)}, "HWC", IMGS, "out of bounds")])
def test_bad_input_fails_at_run(kwargs, layout, x, match):
    with pytest.raises(PipelineError, match=match):
        run(lambda fn, t: fn.crop_mirror_normalize(t, **kwargs), x, layout=layout)


def test_bad_policy_fails_at_build():
    with pytest.raises(RuntimeError, match="out_of_bounds_policy"):
        run(lambda fn, t: fn.crop_mirror_normalize(t, out_of_bounds_policy="x"), IMGS)


def test_kernel_from_several_threads():
    """The nogil kernel gives the same results when run concurrently."""
    x = RNG.integers(0, 256, (64, 64, 3), dtype=np.uint8)
    mean, mul = np.array(MEAN, F32), F32(1) / np.array(STD, F32)
    want = np.empty((3, 64, 64), F32)
    cmn.normalize(x, want.transpose(1, 2, 0), 2, mean, mul)

    def job(_):
        out = np.empty((3, 64, 64), F32)
        cmn.normalize(x, out.transpose(1, 2, 0), 2, mean, mul)
        return out

    with ThreadPoolExecutor(4) as pool:
        for out in pool.map(job, range(16)):
            np.testing.assert_array_equal(out, want)


def test_golden():
    """Outputs recorded from real DALI by tests/goldens/make_geometry.py."""
    g = np.load(GOLDEN)
    images = [g["cmn_input_0"], g["cmn_input_1"]]
    for k, case in enumerate(json.loads(str(g["cmn_cases"]))):
        kwargs = {key: getattr(types, v) if key == "dtype" else v for key, v in case.items()}
        out, _ = run(lambda fn, x, kw=kwargs: fn.crop_mirror_normalize(x, **kw), images)
        for i, o in enumerate(out):
            want = g[f"cmn_{k}_{i}"]
            assert o.dtype == want.dtype and o.shape == want.shape, (k, i)
            np.testing.assert_array_equal(o, want, err_msg=f"case {k}, sample {i}")


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"crop": (5, 7), "crop_pos_x": 0.3, "crop_pos_y": 0.9, "output_layout": "HWC",
     "scale": 2.5, "shift": 3.0, "mean": MEAN, "std": STD},
    {"crop": (25, 40), "out_of_bounds_policy": "pad", "fill_values": [1, 2, 3], "mirror": 1},
    {"pad_output": True, "output_layout": "HWC", "mean": MEAN, "std": STD},
    {"dtype": "INT8", "mean": [128.5], "std": [0.9]},
    {"output_layout": "WHC", "crop": (8, 8), "dtype": "UINT8", "shift": -0.5}])
def test_matches_dali(kwargs):
    def build(fn, x, mod):
        args = dict(kwargs)
        if "dtype" in args:
            args["dtype"] = getattr(mod, args["dtype"])
        return fn.crop_mirror_normalize(x, **args)
    real_types = importlib.import_module("nvidia.dali.types")
    ours = run(lambda fn, x: build(fn, x, types), IMGS)
    theirs = run(lambda fn, x: build(fn, x, real_types), IMGS, real=True)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0], strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_batches_of_repeated_shapes_equal_fresh_runs():
    """The windows' geometry remembered per list of windows and the constant mean/mul per
    channel count give what a fresh pipeline gives when shapes and channel counts repeat,
    change and come back."""
    rng = np.random.default_rng(3)
    three = [rng.integers(0, 256, (8, 8, 3), dtype=np.uint8) for _ in range(4)]
    four = [rng.integers(0, 256, (9, 7, 4), dtype=np.uint8) for _ in range(4)]

    def build(fn, x):
        return fn.crop_mirror_normalize(x, crop=(4, 5), mean=[10.0], std=[3.0], mirror=1,
                                        output_layout="CHW")

    fresh = [run_op(build, [b], layouts=["HWC"])[0] for b in (three, four)]
    runs = run_op(build, [[three], [four], [three], [four]], iterations=4, layouts=["HWC"])
    for k, (out,) in enumerate(runs):
        want = fresh[k % 2]
        assert [o.shape for o in out] == [w.shape for w in want]
        for o, w in zip(out, want, strict=True):
            np.testing.assert_array_equal(o, w)
    np.testing.assert_allclose(fresh[0][0], (three[0][2:6, 2:7][:, ::-1].transpose(2, 0, 1)
                                              - 10.0) / 3.0, rtol=1e-6)
