"""`_conditional.not_` and `_conditional.validate_logical` with device="gpu": as in DALI, their
GPU backends exist only to fail when the pipeline is built, saying that logical expressions
take scalar boolean inputs on the CPU (the CPU backends keep working beside them)."""

import numpy as np
import pytest

from dali import fn, pipeline_def


def _build(graph, **kwargs):
    @pipeline_def(batch_size=2, num_threads=1, device_id=0, prefetch_queue_depth=1, **kwargs)
    def pipe():
        return graph()

    p = pipe()
    p.build()
    return p


def _flags():
    return fn.external_source(source=lambda: [np.bool_(True), np.bool_(False)], batch=True)


def test_not_of_a_gpu_input_fails_at_build(emulated_gpu):
    def graph():
        return not _flags().gpu()

    with pytest.raises(RuntimeError, match=r"Logical expression `not` is restricted to scalar "
                                           r"\(0-d tensors\) inputs, that are placed on CPU. "
                                           r"Got a GPU input in logical expression.\n"):
        _build(graph, enable_conditionals=True)


def test_validate_logical_on_gpu_fails_at_build(emulated_gpu):
    def graph():
        return fn._conditional.validate_logical(_flags().gpu(), expression_name="or",
                                                expression_side="right")

    with pytest.raises(RuntimeError, match=r"Logical expression `or` is restricted to scalar "
                                           r"\(0-d tensors\) inputs of `bool` type, that are "
                                           r"placed on CPU. Got a GPU input as the right "
                                           r"argument in logical expression."):
        _build(graph)


def test_cpu_not_beside_gpu_data_still_runs(emulated_gpu):
    def graph():
        c = _flags()
        return fn._conditional.not_(c), c.gpu()

    negated, flags = _build(graph).run()
    assert [bool(np.asarray(t)) for t in negated] == [False, True]
    assert type(flags).__name__ == "TensorListGPU"
