"""Data types, enums, layouts and constants (`nvidia.dali.types` equivalent)."""

from dali._types import *  # noqa: F403
from dali._types import (  # noqa: F401
    BatchInfo,
    DALIDataType,
    DALIImageType,
    DALIInterpType,
    PipelineAPIType,
    SampleInfo,
    TensorLayout,
    to_dali_type,
    to_numpy_type,
)
from dali.ops.tensor.constant import Constant, ScalarConstant  # noqa: F401

globals().update(DALIDataType.__members__)
globals().update(DALIImageType.__members__)
globals().update(DALIInterpType.__members__)
