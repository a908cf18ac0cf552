"""`DataNode.gpu()` / `.cpu()`."""

import numpy as np
import pytest

from dali import fn, pipeline_def
from dali.ops.tensor import to_device
from dali.pipeline import experimental


def _graph(build):
    seen = {}

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [np.ones(2, np.float32)])
        seen.update(build(x))
        return x

    return pipe(), seen


def test_gpu_keeps_name_and_source_and_cpu_goes_back():
    _, seen = _graph(lambda x: {"x": x, "g": x.gpu(), "c": x.cpu(), "gc": x.gpu().cpu(),
                                "gg": x.gpu().gpu()})
    x, g = seen["x"], seen["g"]
    assert g.device == "gpu" and g.name == x.name and g.source is x.source
    assert g.index == x.index and g is not x
    assert seen["c"] is x and seen["gc"] is x
    assert seen["gg"].device == "gpu"


def test_invalid_device():
    with pytest.raises(ValueError, match='Invalid device "tpu"'):
        _graph(lambda x: {"t": to_device.to_device(x, "tpu")})


def test_gpu_operators_need_a_gpu():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=lambda: [np.ones(2, np.float32)]).gpu() * 2

    p = pipe()                    # defined (arithmetic has a GPU backend in DALI) ...
    with pytest.raises(RuntimeError, match="requires a CUDA-capable GPU"):
        p.build()                 # ... and refused without a GPU
    with pytest.raises(ValueError, match="Named arguments must be on CPU"):
        _graph(lambda x: {"y": x[x.gpu()]})


def test_cpu_in_debug_mode_is_the_node_itself():
    # (.gpu() in debug mode without a GPU backend: tests/_debug/test_debug_mode.py)
    seen = {}

    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.ones(2, np.float32)])
        seen["c"], seen["x"] = x.cpu(), x
        return x + 1

    (out,) = pipe().run()
    assert np.array(out[0]).tolist() == [2.0, 2.0]
    assert seen["c"] is seen["x"]
