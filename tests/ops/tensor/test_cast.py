"""fn.cast and fn.cast_like: rounding, saturation, NaN and bool rules."""

import importlib

import numpy as np
import pytest
from pipeline_utils import run_one as run

from dali import types
from dali._ext.kernels import cast

FLOATS = np.array([-1e30, -70000, -300, -128.5, -2.5, -1.5, -0.5, -0.4, 0, 0.4, 0.5, 1.5, 2.5,
                   127.5, 255.5, 300, 70000, 3e9, 1e19, 2e19, np.inf, -np.inf, np.nan])
NAMES = {np.uint8: types.UINT8, np.int8: types.INT8, np.uint16: types.UINT16,
         np.int16: types.INT16, np.uint32: types.UINT32, np.int32: types.INT32,
         np.uint64: types.UINT64, np.int64: types.INT64, np.float16: types.FLOAT16,
         np.float32: types.FLOAT, np.float64: types.FLOAT64, np.bool_: types.BOOL}


def _round_half_away(x):
    return np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5))


@pytest.mark.parametrize("dst", [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.uint32])
def test_float_to_int_rounds_half_away_and_saturates(dst):
    x = FLOATS[np.isfinite(FLOATS)]
    info = np.iinfo(dst)
    want = np.clip(_round_half_away(x), info.min, info.max).astype(dst)
    (out,), _ = run(lambda fn, t: fn.cast(t, dtype=NAMES[dst]), [x])
    assert out.dtype == dst
    np.testing.assert_array_equal(out, want)


def test_special_values():
    x = np.array([np.inf, -np.inf, np.nan], np.float32)
    got = {d: run(lambda fn, t, d=d: fn.cast(t, dtype=NAMES[d]), [x])[0][0].tolist()
           for d in (np.uint8, np.int8, np.int32, np.int64, np.uint64, np.float16)}
    assert got[np.uint8] == [255, 0, 0]
    assert got[np.int8] == [127, -128, 0]
    assert got[np.int32] == [2 ** 31 - 1, -2 ** 31, -2 ** 31]
    assert got[np.int64] == [2 ** 63 - 1, -2 ** 63, -2 ** 63]
    assert got[np.uint64] == [2 ** 64 - 1, 0, 2 ** 63]
    assert got[np.float16][:2] == [np.inf, -np.inf] and np.isnan(got[np.float16][2])


def test_64_bit_saturation():
    (out,), _ = run(lambda fn, t: fn.cast(t, dtype=types.INT64),
                    [np.array([9.3e18, -9.3e18, 5e18], np.float64)])
    assert out.tolist() == [2 ** 63 - 1, -2 ** 63, 5 * 10 ** 18]
    (out,), _ = run(lambda fn, t: fn.cast(t, dtype=types.INT64),
                    [np.array([2 ** 63, 2 ** 64 - 1, 5], np.uint64)])
    assert out.tolist() == [2 ** 63 - 1, 2 ** 63 - 1, 5]
    (out,), _ = run(lambda fn, t: fn.cast(t, dtype=types.UINT32),
                    [np.array([-2 ** 63, -1, 2 ** 40, 7], np.int64)])
    assert out.tolist() == [0, 0, 2 ** 32 - 1, 7]


def test_bool():
    (out,), _ = run(lambda fn, t: fn.cast(t, dtype=types.BOOL),
                    [np.array([-0.5, -0.4, 0, 0.4, 0.5, np.nan, np.inf], np.float32)])
    assert out.dtype == np.bool_ and out.tolist() == [True, False, False, False, True, True, True]
    (out,), _ = run(lambda fn, t: fn.cast(t, dtype=types.BOOL), [np.array([-7, 0, 3], np.int32)])
    assert out.tolist() == [True, False, True]
    (out,), _ = run(lambda fn, t: fn.cast(t, dtype=types.FLOAT), [np.array([True, False])])
    assert out.dtype == np.float32 and out.tolist() == [1.0, 0.0]


def test_to_float_and_float16_overflow():
    (out,), _ = run(lambda fn, t: fn.cast(t, dtype=types.FLOAT16),
                    [np.array([32767, 65535, -2 ** 40, 3], np.int64)])
    assert out.tolist() == [32768.0, np.inf, -np.inf, 3.0]
    (out,), _ = run(lambda fn, t: fn.cast(t, dtype=types.FLOAT),
                    [np.array([2 ** 24 + 1], np.int32)])
    assert out.tolist() == [2.0 ** 24]


def test_shapes_layout_and_ragged_batches():
    batch = [np.full((2, 3), 1.5, np.float32), np.full((1, 4), -2.5, np.float32),
             np.zeros((0, 2), np.float32)]
    out, layout = run(lambda fn, t: fn.cast(t, dtype=types.INT16), batch, layout="AB")
    assert layout == "AB"
    for o, x in zip(out, batch, strict=True):
        assert o.dtype == np.int16 and o.shape == x.shape
        np.testing.assert_array_equal(o, _round_half_away(x))


def test_cast_like():
    x = [np.array([1.5, -2.5, 300.0], np.float32)]
    like = [np.zeros((7,), np.uint8)]
    out, _ = run(lambda fn, a, b: fn.cast_like(a, b), x, like)
    assert out[0].dtype == np.uint8 and out[0].tolist() == [2, 0, 255]


def test_dtype_is_required_and_must_be_numeric():
    with pytest.raises(RuntimeError, match="required arguments"):
        run(lambda fn, t: fn.cast(t), [np.zeros(2)])
    with pytest.raises(RuntimeError, match="Invalid output type"):
        run(lambda fn, t: fn.cast(t, dtype=types.STRING), [np.zeros(2)])


def test_convert_is_exact_for_every_type_pair():
    """Integer conversions against plain-Python saturation on the types' boundaries."""
    for src in NAMES:
        if src in (np.float16, np.float32, np.float64, np.bool_):
            continue
        info = np.iinfo(src)
        x = np.array([info.min, info.min + 1, 0, 1, info.max - 1, info.max], src)
        for dst in NAMES:
            if np.dtype(dst).kind == "f":
                continue
            got = np.empty(x.shape, dst)
            cast.cast_array(x, got)
            if dst == np.bool_:
                want = [v != 0 for v in x.tolist()]
            else:
                di = np.iinfo(dst)
                want = [min(max(v, di.min), di.max) for v in x.tolist()]
            assert got.dtype == dst and got.tolist() == want, (src, dst)


def _cast_to_all(x, real):
    """`x` cast to every type, with dali or real DALI."""
    pkg = importlib.import_module("nvidia.dali" if real else "dali")

    @pkg.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        t = pkg.fn.external_source(source=lambda: [x])
        return tuple(pkg.fn.cast(t, dtype=NAMES[d]) for d in NAMES)

    p = pipe()
    p.build()
    return [np.array(tl[0]) for tl in p.run()]


def _samples_of(src):
    if np.dtype(src).kind == "f":
        with np.errstate(over="ignore"):
            return FLOATS.astype(src)
    if src == np.bool_:
        return np.array([False, True])
    info = np.iinfo(src)
    cand = [info.min, -1, 0, 1, 127, 128, 255, 256, 32768, 65535, 2 ** 31, 2 ** 32,
            2 ** 63 - 1, info.max]
    return np.array([c for c in cand if info.min <= c <= info.max], src)


@pytest.mark.oracle
@pytest.mark.parametrize("src", list(NAMES))
def test_matches_dali_for_every_type_pair(src):
    x = _samples_of(src)
    for d, ours, theirs in zip(NAMES, _cast_to_all(x, False), _cast_to_all(x, True),
                               strict=True):
        assert ours.dtype == theirs.dtype, (src, d)
        np.testing.assert_array_equal(ours, theirs, err_msg=f"{src} -> {d}")
