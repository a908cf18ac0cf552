"""fn.reductions.sum: its own behaviours (the NumPy and DALI checks are
in test_reductions.py)."""

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError


@pytest.mark.parametrize("dtype, want, want_type", [
    ("UINT8", [4, 2760 % 256], np.uint8), ("UINT64", [260, 2760], np.uint64),
    ("FLOAT", [260, 2760], np.float32)])
def test_dtype_chooses_the_accumulation_type(dtype, want, want_type):
    batch = [np.array([250, 10], np.uint8), (np.arange(24) * 10).astype(np.uint8)]
    out, _ = run_layouts(lambda fn, x: fn.reductions.sum(x, dtype=getattr(types, dtype)),
                         [batch])
    assert [o.item() for o in out] == want and out[0].dtype == want_type


@pytest.mark.parametrize("in_type, dtype, names", [
    (np.uint8, "INT8", "uint8, int8"), (np.int16, "INT32", "int16, int32"),
    (np.float32, "FLOAT64", "float, double"), (np.int8, "UINT64", "int8, uint64")])
def test_unsupported_dtype(in_type, dtype, names):
    with pytest.raises(PipelineError, match=f"Unsupported types: {names}"):
        run_layouts(lambda fn, x: fn.reductions.sum(x, dtype=getattr(types, dtype)),
                    [[np.zeros(3, in_type)]])


@pytest.mark.parametrize("kwargs, layout, data, exc, match", [
    ({"axes": [3]}, "HWC", np.zeros((2, 2, 2), np.uint8), "IndexError",
     r"Axis index out of range: 3 not in range \[-3,2\]"),
    ({"axes": [-4]}, "HWC", np.zeros((2, 2, 2), np.uint8), "IndexError",
     r"Axis index out of range: -4 not in range \[-3,2\]"),
    ({"axes": [0, -3]}, "HWC", np.zeros((2, 2, 2), np.uint8), "ValueError",
     "Duplicate axis index 0"),
    ({"axis_names": "F"}, "HWC", np.zeros((2, 2, 2), np.uint8), "RuntimeError",
     "Axis 'F' is not present in the input layout"),
    ({}, None, np.zeros(2, np.float16), "RuntimeError", "Unsupported input type: float16"),
    ({}, None, np.zeros(2, np.float64), "RuntimeError", "Unsupported input type: double"),
    ({}, None, np.zeros(2, np.bool_), "RuntimeError", "Unsupported input type: bool")])
def test_run_errors(kwargs, layout, data, exc, match):
    with pytest.raises(PipelineError, match=match) as e:
        run_layouts(lambda fn, x: fn.reductions.sum(x, **kwargs), [[data]], [layout])
    assert "fn.reductions.sum" in str(e.value)
    assert type(e.value.__cause__).__name__ == exc


def test_axes_with_axis_names_fails_at_build():
    with pytest.raises(RuntimeError, match="`axes` and `axis_names` are mutually exclusive"):
        run_layouts(lambda fn, x: fn.reductions.sum(x, axes=[0], axis_names="H"),
                    [[np.zeros((2, 2), np.uint8)]], ["HW"])


@pytest.mark.parametrize("kwargs, want_shape, want_layout", [
    ({}, (), ""), ({"keep_dims": True}, (1, 1, 1), "HWC"), ({"axes": []}, (2, 3, 4), "HWC"),
    ({"axis_names": "HC"}, (3,), "W"), ({"axes": [-1], "keep_dims": True}, (2, 3, 1), "HWC")])
def test_shapes_and_layouts(kwargs, want_shape, want_layout):
    out, layout = run_layouts(lambda fn, x: fn.reductions.sum(x, **kwargs),
                              [[np.ones((2, 3, 4), np.float32)]], ["HWC"])
    assert out[0].shape == want_shape and layout == want_layout
    assert out[0].sum() == 24


def test_shapes_changing_between_iterations():
    its = [[[np.ones((2, 3, 4), np.uint8)] * 2], [[np.ones((5, 1, 4), np.uint8)] * 2],
           [[np.ones((2, 3, 4), np.uint8)] * 2]]
    outs = run_op(lambda fn, x: fn.reductions.sum(x, axes=[0, 1]), its, iterations=3)
    for it, (out,) in zip(its, outs, strict=True):
        for o, x in zip(out, it[0], strict=True):
            np.testing.assert_array_equal(o, x.sum(axis=(0, 1)))
