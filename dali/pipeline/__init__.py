"""`dali.pipeline`: Pipeline, pipeline_def, do_not_convert, DataNode, StreamPolicy,
OperatorConcurrency and `experimental`."""

from dali._graph.data_node import DataNode
from dali._pipeline.definition import do_not_convert, pipeline_def
from dali._pipeline.params import OperatorConcurrency, StreamPolicy
from dali._pipeline.pipeline import Pipeline
from dali.pipeline import experimental

__all__ = ["DataNode", "OperatorConcurrency", "Pipeline", "StreamPolicy", "do_not_convert",
           "experimental", "pipeline_def"]
