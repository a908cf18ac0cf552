"""dali: NVIDIA DALI's Python API on a Python + Cython core.

Write DALI code with `from dali import pipeline_def, fn, types` instead of `nvidia.dali`; it
runs on the CPU (`device_id=None`); GPU operators are not there yet.
"""

from dali import backend, fn, math, ops, pipeline, plugin_manager, tensors, types
from dali._graph.data_node import DataNode
from dali._pipeline.definition import do_not_convert, pipeline_def
from dali._pipeline.pipeline import Pipeline
from dali.ops.tensor.subscript import newaxis

__version__ = "0.1.0"

__all__ = ["DataNode", "Pipeline", "__version__", "backend", "do_not_convert", "fn", "math",
           "newaxis", "ops", "pipeline", "pipeline_def", "plugin_manager", "tensors", "types"]
