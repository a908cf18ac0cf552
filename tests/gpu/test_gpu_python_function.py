"""python_function and dl_tensor_python_function with device="gpu": the function gets the
device's arrays (CuPy on a GPU; numpy on the emulated device), returns arrays on the device,
and the outputs equal the CPU operators' (the plugins' torch_python_function and jax_function:
tests/plugin/test_gpu_functions.py)."""

import numpy as np
import pytest
from gpu_function_cases import BATCHES, assert_same_on_gpu, device_array_type

from dali import fn, pipeline_def
from dali._executor.errors import PipelineError


@pytest.mark.parametrize("batch_processing", [False, True])
def test_python_function_on_gpu_gets_device_arrays(emulated_gpu, batch_processing):
    seen = []

    def f(x):
        seen.extend(x if batch_processing else [x])
        if batch_processing:
            return [s * 2 + 1 for s in x], [s[:1].astype("float32") for s in x]
        return x * 2 + 1, x[:1].astype("float32")

    assert_same_on_gpu(lambda x, device: fn.python_function(
        x, function=f, num_outputs=2, batch_processing=batch_processing, device=device))
    kinds = {type(s) for s in seen}
    assert device_array_type(emulated_gpu) in kinds


def test_python_function_on_gpu_layouts_and_pass_through(emulated_gpu):
    it = iter(BATCHES)

    @pipeline_def(batch_size=3, num_threads=1, device_id=0)
    def pipe():
        x = fn.external_source(source=lambda: next(it), layout="HW").gpu()
        return tuple(fn.python_function(x, function=lambda s: (s, s.T), num_outputs=2,
                                        output_layouts=["HW", "WH"], device="gpu"))

    p = pipe()
    p.build()
    same, turned = p.run()
    assert (same.layout(), turned.layout()) == ("HW", "WH")
    for i, sample in enumerate(BATCHES[0]):
        np.testing.assert_array_equal(np.array(same.as_cpu()[i]), sample)
        np.testing.assert_array_equal(np.array(turned.as_cpu()[i]), sample.T)


def test_python_function_on_gpu_refuses_what_is_not_a_device_array(emulated_gpu):
    it = iter(BATCHES)

    @pipeline_def(batch_size=3, num_threads=1, device_id=0)
    def pipe():
        x = fn.external_source(source=lambda: next(it)).gpu()
        return fn.python_function(x, function=lambda s: [1, 2], device="gpu")

    p = pipe()
    p.build()
    with pytest.raises(PipelineError, match="output 0 of the function is a list; on the GPU it "
                                            "must return arrays on device 0"):
        p.run()


def test_dl_tensor_python_function_on_gpu(emulated_gpu):
    dlpack = pytest.importorskip("torch.utils.dlpack")

    def f(xs):
        return [dlpack.to_dlpack(dlpack.from_dlpack(c) * 3) for c in xs]

    assert_same_on_gpu(lambda x, device: (fn.dl_tensor_python_function(
        x, function=f, device=device),))
