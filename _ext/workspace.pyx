"""Storage of `dali._executor.workspace.Workspace` (see workspace.pxd)."""
import numpy as np


cdef class WorkspaceBase:
    """Inputs, arguments and outputs of one operator run (see the Python subclass)."""

    def __init__(self, op, batch_size, inputs, arg_inputs, iteration=0, epoch=0,
                 sample_ids=None, thread_pool=None, source_info=None, stream=None,
                 input_ids=None):
        self.op = op
        self.spec = op.spec
        self.batch_size = batch_size
        self.inputs = inputs
        self.arg_inputs = arg_inputs
        self.outputs = []
        self.iteration = iteration
        self.epoch = epoch
        self.sample_ids = (np.arange(batch_size, dtype=np.int64) if sample_ids is None
                           else sample_ids)
        self.thread_pool = thread_pool
        self.stream = stream
        self._source_info = source_info
        self.input_ids = input_ids
