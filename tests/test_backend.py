"""`dali.backend`, `dali.plugin_manager` and the submodules `import dali` makes reachable."""

import warnings

import numpy as np
import pytest

import dali
from dali import _gpu, backend, fn, ops, pipeline_def, plugin_manager, tensors, types


def test_submodules_are_attributes():
    for name in ("pipeline", "fn", "types", "tensors", "backend", "plugin_manager", "ops"):
        assert hasattr(dali, name), name
    assert dali.pipeline.Pipeline is dali.Pipeline


def test_backend_tensor_types_and_queries():
    assert backend.TensorCPU is tensors.TensorCPU
    assert backend.TensorListCPU is tensors.TensorListCPU
    assert backend.TensorGPU is tensors.TensorGPU
    assert backend.TensorListGPU is tensors.TensorListGPU
    assert backend.GetCUDADeviceCount() == _gpu.device_count()
    assert backend.ReleaseUnusedMemory() is None
    with pytest.raises(AttributeError, match="has no attribute 'TensorXPU'"):
        _ = backend.TensorXPU
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        backend.PreallocatePinnedMemory(1024)
    with pytest.raises(ValueError, match=r"^Shrink threshold must be between 0 \(never shrink\) "
                                         r"and 1 \(always shrink\).$"):
        backend.SetHostBufferShrinkThreshold(2)


def test_plugin_manager_refuses_cpp_plugins(tmp_path):
    missing = str(tmp_path / "missing.so")
    with pytest.raises(RuntimeError, match=f"^Failed to load library {missing}: {missing}: "
                                           "cannot open shared object file"):
        plugin_manager.load_library(missing)
    lib = tmp_path / "libplugin.so"
    lib.write_bytes(b"")
    with pytest.raises(RuntimeError, match="dali cannot load DALI C\\+\\+ plugins"):
        plugin_manager.load_directory(str(tmp_path))
    plugin_manager.load_directory(str(tmp_path / "nothing"))


_SEED = "The argument \"seed\" should not be used with operators that don't use random numbers."


def test_seed_on_an_operator_without_randomness_warns_and_is_ignored():
    def body():
        return fn.cast(types.Constant(np.float32(1.5)), dtype=types.INT32, seed=3)

    with pytest.warns(DeprecationWarning, match=f"^{_SEED}$"):
        p = pipeline_def(body, batch_size=2, num_threads=1, device_id=None)()
    assert p.run()[0].as_array().tolist() == [2, 2]
    with pytest.warns(DeprecationWarning, match=f"^{_SEED}$"):
        ops.Cast(dtype=types.INT32, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn.random.uniform  # noqa: B018 (random operators take seed= without a warning)
