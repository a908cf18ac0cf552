"""fn.lookup_table: integer inputs mapped through a table of keys/values with a default."""

import json
import pathlib

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError

IN_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
OUT_TYPES = {types.FLOAT: np.float32, types.UINT8: np.uint8, types.INT16: np.int16,
             types.INT32: np.int32, types.INT64: np.int64, types.FLOAT64: np.float64,
             types.FLOAT16: np.float16, types.BOOL: np.bool_, types.UINT64: np.uint64}


def convert(x, dtype):
    """float32 values in `dtype`, with DALI's rounding (half away from zero) and saturation."""
    x = np.asarray(x, np.float32).astype(np.float64)
    if dtype == np.bool_:
        return np.round(x) != 0
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        r = np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5))
        return np.clip(r, float(info.min), float(info.max)).astype(dtype)
    return np.asarray(x, np.float32).astype(dtype)


def reference(x, keys, values, default, dtype):
    lut = {k: v for k, v in zip(keys, values, strict=True)}    # the last value of a key wins
    flat = [lut.get(int(v), default) if 0 <= int(v) <= max(keys, default=-1) else default
            for v in x.ravel()]
    return convert(np.array(flat, np.float32).reshape(x.shape), dtype)


def _random_input(rng, dtype, shape):
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -300), min(int(info.max), 70000)
    return rng.integers(lo, hi + 1, shape).astype(dtype)


@pytest.mark.parametrize("seed", range(12))
def test_against_numpy(seed):
    rng = np.random.default_rng(seed)
    in_type = IN_TYPES[seed % len(IN_TYPES)]
    dali_type, out_type = list(OUT_TYPES.items())[seed % len(OUT_TYPES)]
    keys = rng.integers(0, 400, rng.integers(1, 40)).tolist()
    values = (rng.normal(size=len(keys)) * 100).round(1).tolist()
    default = float(rng.normal() * 50)
    xs = [_random_input(rng, in_type, tuple(rng.integers(1, 20, 3))) for _ in range(3)]
    (out,) = run_op(lambda fn, x: fn.lookup_table(x, keys=keys, values=values,
                                                  default_value=default, dtype=dali_type), [xs])
    for o, x in zip(out, xs, strict=True):
        assert o.dtype == out_type and o.shape == x.shape
        np.testing.assert_array_equal(o, reference(x, keys, values, default, out_type))


def test_docstring_example():
    x = np.array([1, 4, 1, 0, 100, 2, 3, 4], np.uint8)
    (out,) = run_op(lambda fn, x: fn.lookup_table(
        x, keys=[0, 2, 3, 4, 5, 3], values=[0.2, 0.4, 0.5, 0.6, 0.7, 0.10], default_value=0.99),
        [[x]])
    np.testing.assert_allclose(out[0], [0.99, 0.6, 0.99, 0.2, 0.99, 0.4, 0.10, 0.6], rtol=1e-6)


def test_large_batch_on_threads_and_layout():
    """Samples of several work items each, on 3 threads; the layout passes through."""
    rng = np.random.default_rng(3)
    xs = [rng.integers(0, 256, (300, 400, 3), dtype=np.uint8) for _ in range(4)]
    keys = list(range(0, 256, 3))
    values = [255 - k for k in keys]
    (out,) = run_op(lambda fn, x: fn.lookup_table(x, keys=keys, values=values, default_value=7,
                                                  dtype=types.UINT8),
                    [xs], layouts=["HWC"], num_threads=3)
    for o, x in zip(out, xs, strict=True):
        np.testing.assert_array_equal(o, np.where(x % 3 == 0, 255 - x, 7).astype(np.uint8))


def test_keys_at_the_top_of_the_range():
    x = np.array([65535, 65534, 0, 65536, -5], np.int32)
    (out,) = run_op(lambda fn, x: fn.lookup_table(x, keys=[65535], values=[5.0]), [[x]])
    np.testing.assert_array_equal(out[0], [5, 0, 0, 0, 0])


def test_without_keys_everything_is_the_default():
    """(DALI 2.4 crashes here; we return the default.)"""
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    (out,) = run_op(lambda fn, x: fn.lookup_table(x, default_value=3.5), [[x]])
    np.testing.assert_array_equal(out[0], np.full((2, 3), 3.5, np.float32))


def test_output_dtype_alias():
    x = np.array([0, 1], np.uint8)
    with pytest.warns(DeprecationWarning):
        (out,) = run_op(lambda fn, x: fn.lookup_table(x, keys=[1], values=[2],
                                                      output_dtype=types.INT32), [[x]])
    assert out[0].dtype == np.int32 and out[0].tolist() == [0, 2]


@pytest.mark.parametrize("kwargs, message", [
    ({"keys": [1, 2], "values": [1.0]}, "`keys` size should match `values` size"),
    ({"keys": [-1], "values": [1.0]}, r"`keys` should be in the range \[0, 65535\]"),
    ({"keys": [65536], "values": [1.0]}, r"`keys` should be in the range \[0, 65535\]"),
    ({"keys": [1], "values": [1.0], "dtype": types.STRING}, "Unsupported output type: string"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(RuntimeError, match=f"lookup_table: {message}"):
        run_op(lambda fn, x: fn.lookup_table(x, **kwargs), [[np.zeros(2, np.uint8)]])


@pytest.mark.parametrize("dtype, name", [(np.float32, "float"), (np.bool_, "bool")])
def test_non_integer_input(dtype, name):
    with pytest.raises(PipelineError, match=f"lookup_table: Unsupported input type: {name}"):
        run_op(lambda fn, x: fn.lookup_table(x, keys=[1], values=[1.0]),
               [[np.zeros(2, dtype)]])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(6))
def test_against_dali(seed):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(100 + seed)
    in_type = IN_TYPES[(seed * 3) % len(IN_TYPES)]
    dali_type = list(OUT_TYPES)[seed % len(OUT_TYPES)]
    keys = rng.integers(0, 300, 25).tolist()
    values = (rng.normal(size=25) * 200).tolist()
    xs = [_random_input(rng, in_type, (7, 5, 3)), _random_input(rng, in_type, (2, 9, 1))]

    def build(fn, x):
        return fn.lookup_table(x, keys=keys, values=values, default_value=-12.5, dtype=dali_type)

    ours = run_op(build, [xs], layouts=["HWC"])
    real = run_op(build, [xs], layouts=["HWC"], real=True)
    for o, r in zip(ours[0], real[0], strict=True):
        assert o.dtype == r.dtype
        np.testing.assert_array_equal(o, r)


def _lut_goldens():
    data = np.load(pathlib.Path(__file__).resolve().parents[2] / "goldens" / "intensity.npz")
    names = sorted({k[:-len("_input")] for k in data.files if k.startswith("lut_")
                    and k.endswith("_input")})
    return [(data[f"{n}_input"], json.loads(str(data[f"{n}_args"])), data[f"{n}_output"])
            for n in names]


@pytest.mark.parametrize("x, kwargs, expected", _lut_goldens())
def test_goldens(x, kwargs, expected):
    kwargs = {k: getattr(types, v) if k == "dtype" else v for k, v in kwargs.items()}
    (out,) = run_op(lambda fn, x: fn.lookup_table(x, **kwargs), [[x]])
    assert out[0].dtype == expected.dtype
    np.testing.assert_array_equal(out[0], expected)
