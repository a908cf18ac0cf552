"""The plugins' torch_python_function and jax_function with device="gpu" (torch CUDA tensors
and JAX arrays on the pipeline's device; CPU ones on the emulated device): the outputs equal
the CPU operators'.  Here, after the tests that fork workers (JAX must not be imported before
os.fork)."""

import numpy as np
import pytest
from gpu_function_cases import assert_same_on_gpu, device_array_type


def test_torch_python_function_on_gpu(emulated_gpu):
    torch = pytest.importorskip("torch")
    from dali.plugin.pytorch import fn as tfn

    seen = []

    def f(t):
        seen.append(t.device.type)
        return t.to(torch.float32).flip(0) / 2

    assert_same_on_gpu(lambda x, device: (tfn.torch_python_function(
        x, function=f, device=device),))
    assert ("cpu" if device_array_type(emulated_gpu) is np.ndarray else "cuda") in seen


def test_jax_function_on_gpu(emulated_gpu):
    pytest.importorskip("jax")
    from dali.plugin.jax import fn as jfn

    batches = [[np.arange(6, dtype=np.float32).reshape(2, 3) + i for i in range(3)]] * 2
    assert_same_on_gpu(lambda x, device: (jfn.jax_function(
        lambda b: (b * 2 - 1).T.T, device=device)(x),), batches)
