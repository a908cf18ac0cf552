"""PyTorch plugin: DALI 2.4's iterators (`DALIGenericIterator`, `DALIClassificationIterator`,
`DALIRaggedIterator`), `feed_ndarray`, `to_torch_type` and `fn.torch_python_function`.

The iterators return one dict per pipeline, output name -> torch tensor, with the epoch, shard
and last-batch semantics of `dali.plugin.base_iterator`.  Tensors reach torch without a copy
(`torch.from_numpy` over the batch's buffer, which the tensor keeps alive, so it stays valid
after the next batch), as DALI's iterators do with the dynamic executor; DALI copies with the
other executors, which makes no difference a user can see on the CPU.

Beyond DALI: `state_dict()` / `load_state_dict()` (torchdata's StatefulDataLoader convention)
on top of the pipelines' checkpoints.
"""

from __future__ import annotations

try:
    import torch
except ImportError as e:                  # pragma: no cover - depends on the environment
    raise ImportError("dali.plugin.pytorch needs PyTorch: pip install torch") from e

import numpy as np

from dali import types
from dali.plugin.base_iterator import LastBatchPolicy, _DaliBaseIterator
from dali.plugin.pytorch import fn  # noqa: F401  (dali.plugin.pytorch.fn.torch_python_function)

__all__ = ["DALIGenericIterator", "DALIClassificationIterator", "DALIRaggedIterator",
           "LastBatchPolicy", "feed_ndarray", "shard_info", "to_torch_type"]

to_torch_type = {
    types.DALIDataType.FLOAT: torch.float32,
    types.DALIDataType.FLOAT64: torch.float64,
    types.DALIDataType.FLOAT16: torch.float16,
    types.DALIDataType.UINT8: torch.uint8,
    types.DALIDataType.INT8: torch.int8,
    types.DALIDataType.BOOL: torch.bool,
    types.DALIDataType.INT16: torch.int16,
    types.DALIDataType.INT32: torch.int32,
    types.DALIDataType.INT64: torch.int64,
}


def feed_ndarray(dali_tensor, arr, cuda_stream=None):
    """Copy a TensorCPU or TensorListCPU into the CPU torch tensor `arr`, or a TensorGPU or
    TensorListGPU into a CUDA one (same type and shape); returns `arr`.  `cuda_stream` is
    accepted: the copy runs on the pipeline's stream and is waited for."""
    dali_type = to_torch_type[dali_tensor.dtype]
    if dali_type != arr.dtype:
        raise AssertionError("The element type of DALI Tensor/TensorList doesn't match the "
                             f"element type of the target PyTorch Tensor: {dali_type} vs "
                             f"{arr.dtype}")
    shape = list(dali_tensor.shape()) if not callable(getattr(dali_tensor, "as_tensor", None)) \
        else list(dali_tensor.as_tensor().shape())
    if shape != list(arr.size()):
        raise AssertionError(f"Shapes do not match: DALI tensor has size {shape}, but PyTorch "
                             f"Tensor has size {list(arr.size())}")
    from dali._gpu import tensors as gpu_tensors

    on_gpu = isinstance(dali_tensor, (gpu_tensors.TensorGPU, gpu_tensors.TensorListGPU))
    if (arr.device.type != "cpu") != on_gpu:
        raise RuntimeError(f"feed_ndarray: the DALI tensor is on the {'GPU' if on_gpu else 'CPU'}"
                           f" but the target is a {arr.device.type} tensor")
    dali_tensor.copy_to_external(arr.data_ptr())
    return arr


def shard_info():
    """`(shard_id, num_shards)` for this process's pipeline (an addition to DALI's API): the
    rank and world size of `torch.distributed` when it is initialised, else those `torchrun`
    sets in the environment (RANK, WORLD_SIZE), else (0, 1).  Pass them to the reader:
    `fn.readers.file(..., shard_id=shard_id, num_shards=num_shards)`."""
    import os

    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        return int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    return 0, 1


def _torch(tensor):
    """A torch tensor over a TensorCPU's buffer, or a TensorGPU's device memory (through
    DLPack), kept alive by the tensor."""
    if hasattr(tensor, "__cuda_array_interface__"):
        return torch.from_dlpack(tensor)
    return torch.from_numpy(np.asarray(tensor))


def _trim(value, n):
    return value[0:n]


class DALIGenericIterator(_DaliBaseIterator):
    """Iterator over one or more pipelines returning, per pipeline, a dict of torch tensors
    keyed by `output_map` (one name per pipeline output).  The other parameters are those of
    `dali.plugin.base_iterator._DaliBaseIterator`; `dynamic_shape` is deprecated in DALI and
    has no effect there either."""

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, auto_reset=False,
                 fill_last_batch=None, dynamic_shape=False, last_batch_padded=False,
                 last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True):
        if len(set(output_map)) != len(output_map):
            raise AssertionError("output_map names should be distinct")
        self.output_map = output_map
        self._output_categories = set(output_map)
        super().__init__(pipelines, size, reader_name, auto_reset, fill_last_batch,
                         last_batch_padded, last_batch_policy, prepare_first_batch)
        self._prepare()

    def _convert(self, j, tl):
        return _torch(tl.as_tensor())

    def _batch(self):
        outputs = self._get_outputs()
        batches = []
        for outs in outputs:
            if len(outs) != len(self.output_map):
                raise AssertionError(f"output_map has {len(self.output_map)} names but the "
                                     f"pipeline has {len(outs)} outputs")
            batches.append({name: self._convert(j, tl)
                            for j, (name, tl) in enumerate(zip(self.output_map, outs,
                                                               strict=True))})
        self._schedule_runs()
        self._advance_and_check_drop_last()
        return self._trimmed(batches, _trim)

    def load_state_dict(self, state):
        """Continue from `state` (from `state_dict()` of an iterator over the same pipeline
        definitions, with `enable_checkpointing=True`): the pipelines take back their
        checkpoints in place (batches already prefetched are dropped) and the iterator its
        position."""
        checkpoints = state["dali_checkpoints"]
        if len(checkpoints) != len(self._pipes):
            raise ValueError(f"load_state_dict: the state has {len(checkpoints)} pipeline "
                             f"checkpoints, the iterator {len(self._pipes)} pipelines")
        for p, cp in zip(self._pipes, checkpoints, strict=True):
            p._restore_in_place(cp)
        self._restore_if_restored()
        self._ever_scheduled = self._ever_consumed = False
        self._prepare()


class DALIClassificationIterator(DALIGenericIterator):
    """`DALIGenericIterator` with `output_map=["data", "label"]`."""

    def __init__(self, pipelines, size=-1, reader_name=None, auto_reset=False,
                 fill_last_batch=None, dynamic_shape=False, last_batch_padded=False,
                 last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True):
        super().__init__(pipelines, ["data", "label"], size, reader_name=reader_name,
                         auto_reset=auto_reset, fill_last_batch=fill_last_batch,
                         dynamic_shape=dynamic_shape, last_batch_padded=last_batch_padded,
                         last_batch_policy=last_batch_policy,
                         prepare_first_batch=prepare_first_batch)


class DALIRaggedIterator(DALIGenericIterator):
    """Like `DALIGenericIterator`, for outputs whose samples differ in shape: `output_types`
    has one tag per output, DENSE_TAG (one tensor), SPARSE_LIST_TAG (a list of per-sample
    tensors) or SPARSE_COO_TAG (a sparse COO tensor of the samples' first dimension, samples
    on the rows)."""

    DENSE_TAG = "dense"
    SPARSE_LIST_TAG = "sparse_list"
    SPARSE_COO_TAG = "sparse_coo"

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, output_types=None,
                 auto_reset=False, fill_last_batch=None, dynamic_shape=False,
                 last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL,
                 prepare_first_batch=True):
        tags = {self.DENSE_TAG, self.SPARSE_LIST_TAG, self.SPARSE_COO_TAG}
        if output_types is not None and not set(output_types) <= tags:
            raise AssertionError("Only DENSE_TAG, SPARSE_LIST_TAG and SPARSE_COO_TAG are "
                                 "allowed")
        self._outputs_types = output_types
        super().__init__(pipelines, output_map, size, reader_name=reader_name,
                         auto_reset=auto_reset, fill_last_batch=fill_last_batch,
                         dynamic_shape=dynamic_shape, last_batch_padded=last_batch_padded,
                         last_batch_policy=last_batch_policy,
                         prepare_first_batch=prepare_first_batch)

    def _convert(self, j, tl):
        tag = self.DENSE_TAG if self._outputs_types is None else self._outputs_types[j]
        if tag == self.DENSE_TAG:
            return _torch(tl.as_tensor())
        samples = [_torch(t) for t in tl]
        if tag == self.SPARSE_LIST_TAG:
            return samples
        rows = [(i, k) for i, s in enumerate(samples) for k in range(s.shape[0])]
        indices = torch.tensor(rows, dtype=torch.int64).reshape(-1, 2).T
        return torch.sparse_coo_tensor(indices, torch.hstack(samples), check_invariants=True)

