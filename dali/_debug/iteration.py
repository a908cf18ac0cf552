"""What the operator calls of one debug-mode iteration share.

A fresh `IterationState` is made for every run of the pipeline function, so nothing carries
over from one iteration to the next: the batch size an external source fixed, the condition
stack of `if`s on DataNodes, the outputs `check_parity` captures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class IterationState:
    """One iteration of a debug pipeline.

    Attributes
    ----------
    index : int
        Iterations run before this one since the pipeline was built.
    epoch : int
    first_id : int
        The epoch-relative id of this iteration's first sample (ids key per-sample random
        streams, as in graph mode).
    batch_size : int
        The pipeline's `max_batch_size` until the first external source that is fed, or the
        first batch input of an operator, fixes it (DALI's rule).
    fixed_by : str or None
        The operator that fixed the batch size.
    conditions : dali._autograph.conditional.ConditionStack or None
        With `enable_conditionals=True`, the stack of this iteration's `if`s.
    captured : dict or None
        For `check_parity`: per DebugOp (by `id`), its origin, operator name and outputs.
    """

    index: int
    epoch: int
    first_id: int
    batch_size: int
    fixed_by: str | None = None
    conditions: Any = None
    captured: dict | None = None

    def root_ids(self):
        """The ids of this iteration's samples."""
        return np.arange(self.first_id, self.first_id + self.batch_size, dtype=np.int64)

    def fed(self, size, op_name):
        """An external source `op_name` was fed a batch of `size` samples."""
        if self.fixed_by is None:
            self.batch_size, self.fixed_by = size, op_name
        elif size != self.batch_size:
            raise RuntimeError(
                "Batch size must be uniform across an iteration. External Source operator "
                f"returned batch size: {size}, expected: {self.batch_size}.\nIf you want to "
                "use variable batch size (that is different batch size in each iteration) you "
                "must call all the external source operators at the beginning of your debug "
                "pipeline, before other DALI operators.")

    def batch_input(self, size, where, op_name):
        """Operator `op_name` got a batch of `size` samples (`where`: "Input 0", ...) outside
        any conditional branch."""
        if self.fixed_by is None:
            self.batch_size, self.fixed_by = size, op_name
        elif size != self.batch_size:
            raise RuntimeError(
                f"Batch size must be uniform across an iteration. {where} for operator "
                f"'{op_name}' has batch size = {size}. Expected batch size = "
                f"{self.batch_size} from: '{self.fixed_by}'.")
