"""Pipeline constructor arguments: checked at construction (types and values), output
descriptions (`output_dtype`, `output_ndim`, `output_layout`) checked at build and run."""

import re
import warnings

import numpy as np
import pytest

from dali import Pipeline, fn, pipeline_def, types
from dali.pipeline import OperatorConcurrency, StreamPolicy


def _two_outputs(**kw):
    p = Pipeline(batch_size=2, num_threads=1, **kw)
    with p:
        p.set_outputs(fn.random.uniform(), fn.random.uniform(shape=[2]))
    return p


@pytest.mark.parametrize("value, cls, msg", [
    ("8", TypeError, "`batch_size` must be a positive int. Found type: <class 'str'>."),
    (8.0, TypeError, "`batch_size` must be a positive int. Found type: <class 'float'>."),
    (True, TypeError, "`batch_size` must be a positive int. Found type: <class 'bool'>."),
    (0, ValueError, "Invalid batch size: 0. Please set a positive integer."),
    (-1, ValueError, "Invalid batch size: -1. Please set a positive integer."),
])
def test_batch_size(value, cls, msg):
    with pytest.raises(cls, match=f"^{re.escape(msg)}$"):
        Pipeline(batch_size=value, num_threads=1)
    with pytest.raises(cls, match=f"^{re.escape(msg)}$"):
        pipeline_def(lambda: fn.random.uniform(), batch_size=value, num_threads=1)()


@pytest.mark.parametrize("kw, cls, msg", [
    (dict(num_threads="2"), TypeError,
     "`num_threads` must be a positive int. Found type: <class 'str'>."),
    (dict(num_threads=2.0), TypeError,
     "`num_threads` must be a positive int. Found type: <class 'float'>."),
    (dict(num_threads=0), ValueError,
     "Pipeline created with `num_threads` < 1 can only be used for serialization."),
    (dict(device_id="0"), TypeError, "`device_id` must be a non-negative int (a CUDA device) "
     "or None. Found type: <class 'str'>."),
    (dict(device_id=-1), ValueError, "`device_id` must be a non-negative int (a CUDA device) "
     "or None. Found value: -1."),
    (dict(prefetch_queue_depth="2"), TypeError,
     "Expected prefetch_queue_depth to be either int or Dict[int, int]"),
    (dict(prefetch_queue_depth=2.0), TypeError,
     "Expected prefetch_queue_depth to be either int or Dict[int, int]"),
    (dict(prefetch_queue_depth=0), ValueError, "The prefetch queue depth must be greater than 0."),
    (dict(prefetch_queue_depth={"cpu_size": 0, "gpu_size": 2}), ValueError,
     "The prefetch queue depth must be greater than 0."),
    (dict(prefetch_queue_depth={"cpu_size": 2, "gpu_size": "x"}), TypeError,
     "prefetch_queue_depth[\"gpu_size\"] must be an int. Found type: <class 'str'>."),
    (dict(prefetch_queue_depth={"cpu_size": 2}), KeyError, "'gpu_size'"),
    (dict(seed="1"), TypeError, "`seed` must be an int or None. Found type: <class 'str'>."),
    (dict(seed=1.5), TypeError, "`seed` must be an int or None. Found type: <class 'float'>."),
    (dict(seed=2 ** 64), ValueError,
     "`seed` must be less than 2**64. Found value: 18446744073709551616."),
    (dict(py_num_workers="1"), TypeError,
     "`py_num_workers` must be a non-negative int. Found type: <class 'str'>."),
    (dict(py_num_workers=-1), ValueError,
     "`py_num_workers` must be a non-negative int. Found value: -1."),
    (dict(py_start_method="thread"), ValueError,
     "`py_start_method` must be \"fork\" or \"spawn\". Found value: 'thread'."),
    (dict(exec_pipelined="x"), TypeError, "`exec_pipelined` must be a bool. Found type: "
     "<class 'str'>."),
    (dict(exec_async=1), TypeError, "`exec_async` must be a bool. Found type: <class 'int'>."),
    (dict(exec_dynamic="yes"), TypeError,
     "`exec_dynamic` must be a bool. Found type: <class 'str'>."),
    (dict(enable_memory_stats="x"), TypeError,
     "`enable_memory_stats` must be a bool. Found type: <class 'str'>."),
    (dict(bytes_per_sample=-1), ValueError,
     "`bytes_per_sample` must be a non-negative int. Found value: -1."),
    (dict(bytes_per_sample="x"), TypeError,
     "`bytes_per_sample` must be a non-negative int. Found type: <class 'str'>."),
    (dict(stream_policy="x"), TypeError, "`stream_policy` must be a value of "
     "dali.pipeline.StreamPolicy or None. Found type: <class 'str'>."),
    (dict(concurrency="x"), TypeError, "`concurrency` must be a value of "
     "dali.pipeline.OperatorConcurrency or None. Found type: <class 'str'>."),
])
def test_arguments_checked_at_construction(kw, cls, msg):
    kw = {"batch_size": 2, "num_threads": 1, **kw}
    with pytest.raises(cls, match=f"^{re.escape(msg)}$"):
        Pipeline(**kw)


def test_valid_arguments_are_kept():
    p = Pipeline(batch_size=2, num_threads=1, seed=2 ** 64 - 1, py_num_workers=0,
                 py_start_method="spawn", stream_policy=StreamPolicy.SINGLE,
                 concurrency=OperatorConcurrency.FULL)
    assert (p.seed, p.py_num_workers, p.py_start_method) == (2 ** 64 - 1, 0, "spawn")
    assert (p.stream_policy, p.concurrency) == (StreamPolicy.SINGLE, OperatorConcurrency.FULL)


def test_negative_seed_warns_and_means_none():
    with pytest.warns(UserWarning, match="^The use of negative seed to use automatic seed "
                                         "asignment is deprecated. Use `None` instead.$"):
        p = Pipeline(batch_size=1, num_threads=1, seed=-1)
    assert p.seed is None


@pytest.mark.parametrize("name", ["max_streams", "default_cuda_stream_priority"])
def test_deprecated_arguments_warn(name):
    with pytest.warns(Warning, match=f"^The `{name}` is deprecated and has no effect.$"):
        Pipeline(batch_size=1, num_threads=1, **{name: 1})


def test_missing_batch_size_and_threads_are_build_errors():
    with pytest.raises(ValueError, match="^The batch size must be set.$"):
        Pipeline(num_threads=1).build()
    with pytest.raises(TypeError, match="^`num_threads` must be set to a positive int to build "
                                        "the pipeline$"):
        Pipeline(batch_size=1).build()


def test_device_id_without_cuda_is_a_build_error_after_num_threads():
    p = _two_outputs(device_id=0)
    with pytest.raises(RuntimeError, match=re.escape(
            "You are trying to create a GPU DALI pipeline while CUDA is not available. Please "
            "install CUDA or set `device_id = None` in Pipeline constructor.")):
        p.build()
    with pytest.raises(TypeError, match="num_threads"):
        Pipeline(batch_size=1, device_id=0).build()


# -- output descriptions -------------------------------------------------------------------------

@pytest.mark.parametrize("kw, cls, msg", [
    (dict(output_dtype=np.float32), TypeError, "`output_dtype` must be either: a value from "
     "nvidia.dali.types.DALIDataType, a list of these or None. Found type: <class 'type'>."),
    (dict(output_dtype="float"), TypeError, "`output_dtype` must be either: a value from "
     "nvidia.dali.types.DALIDataType, a list of these or None. Found type: <class 'str'>."),
    (dict(output_dtype=[types.FLOAT, "x"]), TypeError, "`output_dtype` must be either: a value "
     "from nvidia.dali.types.DALIDataType, a list of these or None. Found type <class 'str'> "
     "in the list."),
    (dict(output_dtype=types.NO_TYPE), ValueError,
     "`output_dtype` can't be a types.NO_TYPE. Found value: DALIDataType.NO_TYPE"),
    (dict(output_dtype=[types.NO_TYPE]), ValueError,
     "`output_dtype` can't be a types.NO_TYPE. Found DALIDataType.NO_TYPE in the list."),
    (dict(output_ndim=-1), ValueError, "`output_ndim` must be non-negative. Found value: -1."),
    (dict(output_ndim=[-1]), ValueError,
     "`output_ndim` must be non-negative. Found value -1 in the list."),
    (dict(output_ndim="1"), TypeError, "`output_ndim` must be either: an int, a list of ints or "
     "None. Found type: <class 'str'>."),
    (dict(output_ndim=[0, "x"]), TypeError, "`output_ndim` must be either: an int, a list of "
     "ints or None. Found type <class 'str'> in the list."),
    (dict(output_layout=3), TypeError, "`output_layout` must be either: a string, a list of "
     "strings or None. Found type: <class 'int'>."),
    (dict(output_layout=["a", 3]), TypeError, "`output_layout` must be either: a string, a list "
     "of strings or None. Found type <class 'int'> in the list."),
])
def test_output_descriptions_checked_at_construction(kw, cls, msg):
    with pytest.raises(cls, match=f"^{re.escape(msg)}$"):
        Pipeline(batch_size=1, num_threads=1, **kw)


@pytest.mark.parametrize("kw, dtypes, ndims", [
    ({}, [None, None], [None, None]),
    (dict(output_dtype=types.FLOAT), [types.FLOAT, types.FLOAT], [None, None]),
    (dict(output_dtype=[types.FLOAT, None], output_ndim=[0, 1]), [types.FLOAT, None], [0, 1]),
])
def test_output_dtype_and_ndim_are_methods_per_output(kw, dtypes, ndims):
    p = _two_outputs(**kw)
    assert p.output_dtype() == dtypes and p.output_ndim() == ndims
    assert p.num_outputs == 2
    p.run()


def test_output_description_lengths_checked_at_build():
    p = _two_outputs(output_dtype=[types.FLOAT])
    with pytest.raises(RuntimeError, match=re.escape(
            "Lengths of provided output descriptions do not match. \nExpected num_outputs=2.\n"
            "Received:\noutput_dtype=[<DALIDataType.FLOAT: 9>]\noutput_ndim=[None, None]")):
        p.build()
    with pytest.raises(RuntimeError, match=re.escape("output_ndim=[0]")):
        _two_outputs(output_ndim=[0]).build()


@pytest.mark.parametrize("kw, msg", [
    (dict(output_dtype=[types.FLOAT, types.INT32]),
     "Data type in the output_idx=1 does not match. Expected: int32. Received: float."),
    (dict(output_ndim=0),
     "Number of dimensions in the output_idx=1 does not match. Expected: 0. Received: 1."),
    (dict(output_layout="HWC"),
     "Layout in the output_idx=0 does not match. Expected: HWC. Received: ."),
    (dict(output_layout=["", "XY"]),
     "Layout in the output_idx=1 does not match. Expected: XY. Received: ."),
])
def test_outputs_checked_when_run(kw, msg):
    p = _two_outputs(**kw)
    p.build()
    with pytest.raises(RuntimeError, match=f"^{re.escape(msg)}$"):
        p.run()


@pytest.mark.oracle
@pytest.mark.parametrize("kw", [
    dict(output_dtype=[types.FLOAT, types.INT32]), dict(output_ndim=0),
    dict(output_layout=["", "XY"])])
def test_output_checks_match_dali(kw):
    from nvidia.dali import Pipeline as DPipeline
    from nvidia.dali import fn as dfn
    from nvidia.dali import types as dtypes

    def conv(v):
        if isinstance(v, list):
            return [conv(x) for x in v]
        return dtypes.DALIDataType(int(v)) if isinstance(v, types.DALIDataType) else v

    d = DPipeline(batch_size=2, num_threads=1, **{k: conv(v) for k, v in kw.items()})
    with d:
        d.set_outputs(dfn.random.uniform(), dfn.random.uniform(shape=[2]))
    d.build()
    with pytest.raises(RuntimeError) as want:
        d.run()
    p = _two_outputs(**kw)
    with pytest.raises(RuntimeError) as got:
        p.run()
    assert str(want.value).endswith(str(got.value))


@pytest.mark.oracle
@pytest.mark.parametrize("kw", [
    dict(output_dtype="float"), dict(output_dtype=types.NO_TYPE), dict(output_ndim=-1),
    dict(output_ndim=[0, "x"]), dict(output_layout=3), dict(prefetch_queue_depth="2")])
def test_construction_errors_match_dali(kw):
    from nvidia.dali import Pipeline as DPipeline
    from nvidia.dali import types as dtypes
    dkw = {k: (dtypes.NO_TYPE if v is types.NO_TYPE else v) for k, v in kw.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((TypeError, ValueError)) as want:
            DPipeline(batch_size=1, num_threads=1, **dkw)
    with pytest.raises(type(want.value), match=f"^{re.escape(str(want.value))}$"):
        Pipeline(batch_size=1, num_threads=1, **kw)


def test_numpy_integers_are_integers():
    p = Pipeline(batch_size=np.int64(2), num_threads=np.int32(1), seed=np.uint64(5),
                 prefetch_queue_depth=np.int64(1))
    assert (p.max_batch_size, p.num_threads, p.seed, p.cpu_queue_size) == (2, 1, 5, 1)
    assert type(p.max_batch_size) is int
