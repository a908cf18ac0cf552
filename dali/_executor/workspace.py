"""Workspace: what one operator sees during one iteration.

It holds the input batches, resolves arguments per sample (constants broadcast, argument inputs
read and checked), hands out the outputs the executor leased after `infer`, and gives random
operators their per-sample counter-based streams (`_ext/rng`): a sample's draws depend only on
(operator seed, epoch, sample index in the epoch, stream), never on threads or batch splits.
"""

from __future__ import annotations

import numpy as np

from dali import _types
from dali._executor import errors
from dali._ext import rng
from dali._ext import workspace as _ext_workspace


class Workspace(_ext_workspace.WorkspaceBase):
    """Inputs, arguments and outputs of one operator run.

    The fields live in the compiled base class (`_ext/workspace.pxd`), which the executor fills
    without running Python code; this class adds what operators call.

    Attributes
    ----------
    batch_size : int
    inputs : list of TensorListCPU
    arg_inputs : dict of str -> TensorListCPU
    outputs : list
        After `infer`, a `BatchStorage` per output whose shapes were inferred (the operator
        fills it) or None (the operator sets it: a BatchStorage or a list of arrays).
    iteration, epoch : int
    sample_ids : ndarray of int64
        Index of each sample in the current epoch; keys the random streams.
    input_ids : list of ndarray
        The sample ids of each positional input.
    thread_pool : ThreadPool or None
        The pipeline's worker threads.
    out_source_info : list of str or None
        Set by operators that give their outputs their own source info (readers).
    """

    __slots__ = ()

    # -- arguments ----------------------------------------------------------------------------
    def arg_given(self, name) -> bool:
        """Whether the user gave `name` (as a constant or an argument input)."""
        return name in self.spec.given

    def is_arg_input(self, name) -> bool:
        return name in self.arg_inputs

    def scalar(self, name):
        """A constant argument (the user's value or the default); not per sample."""
        if name in self.arg_inputs:
            raise self.op.error(f"argument `{name}` must be a constant here, not a tensor input")
        return self.spec.args[name]

    def arg(self, name) -> list:
        """Per-sample values of an argument: Python scalars for scalar arguments, 1-D numpy
        arrays for vector ones, whether the user gave a constant or an argument input."""
        if self._arg_cache is None:
            self._arg_cache = {}
        cached = self._arg_cache.get(name)
        if cached is not None:
            return cached
        arg = self.spec.schema.arg_map[name]
        n = self.batch_size
        if name in self.arg_inputs:
            tl = self.arg_inputs[name]
            if len(tl) != n:
                raise self.op.error(
                    f"argument input `{name}` has {len(tl)} samples but the batch has {n}")
            samples = tl._storage.samples()
            if arg.is_vector:
                values = [np.asarray(s).reshape(-1) for s in samples]
            else:
                values = []
                for i, s in enumerate(samples):
                    if s.size != 1:
                        raise errors.SampleError(
                            i, f"{self.spec.display_name}: argument `{name}` expects a scalar "
                               f"per sample, got a tensor of shape {s.shape}")
                    values.append(_python_value(arg.type, s.reshape(-1)[0]))
        else:
            v = self.spec.args[name]
            if arg.is_vector and v is not None:
                v = np.asarray(v)
            values = [v] * n
        self._arg_cache[name] = values
        return values

    def arg_array(self, name, dtype=np.float32) -> np.ndarray:
        """Per-sample values of a scalar argument as one array of shape (batch_size,)."""
        tl = self.arg_inputs.get(name)
        if tl is None:
            return np.full(self.batch_size, self.spec.args[name], dtype=dtype)
        dense = tl._storage.dense()
        if len(tl) == self.batch_size and dense is not None and dense.size == len(tl):
            return dense.reshape(-1).astype(dtype)     # one scalar per sample: no Python loop
        return np.asarray(self.arg(name), dtype=dtype)

    def arg_rows(self, name, dtype=np.float64):
        """Per-sample values of a vector argument as one (batch_size, k) array, when every
        sample has k values (a constant, or an argument input of uniform shape); else None
        (use `arg`)."""
        tl = self.arg_inputs.get(name)
        if tl is None:
            v = np.asarray(self.spec.args[name], dtype=dtype).reshape(1, -1)
            return np.broadcast_to(v, (self.batch_size, v.shape[1]))
        dense = tl._storage.dense()
        if len(tl) != self.batch_size or dense is None:
            return None
        return dense.reshape(len(tl), -1).astype(dtype)

    @property
    def gpu(self):
        """The pipeline's GPU (`dali._gpu.runtime.Device`): what `run_gpu` launches kernels,
        allocates and copies through."""
        from dali._gpu import runtime

        return runtime.device(self.spec.device_id)

    # -- samples ------------------------------------------------------------------------------
    def source_info(self, i) -> str:
        if self._source_info is None:
            return ""
        return self._source_info[i]

    def sample_error(self, i, message, exc_type=ValueError):
        """An error about sample i; the executor adds the operator, line and file."""
        return errors.SampleError(i, f"{self.spec.display_name}: {message}", exc_type)

    def input_storage(self, k=0):
        """The storage of input k (see `dali.tensors.storage_of`)."""
        return self.inputs[k]._storage

    def input_dtype(self, k=0) -> np.dtype:
        """The numpy element type of input k."""
        return self.inputs[k]._storage.dtype

    def input_samples(self, k=0) -> list:
        """numpy views of input k's samples."""
        return self.inputs[k]._storage.samples()

    def output_samples(self, k=0) -> list:
        """numpy views of output k's samples (after the executor leased it)."""
        return self.outputs[k].samples()

    def set_output_meta(self, k, ids=None, source_info=None):
        """Give output k its own sample ids and source info (operators that select or reorder
        samples: split, merge, permutations); otherwise outputs inherit input 0's."""
        if self.out_meta is None:
            self.out_meta = {}
        self.out_meta[k] = (ids, source_info)

    # -- randomness ---------------------------------------------------------------------------
    def _key(self):
        if self.spec.seed is None:
            raise self.op.error("operator has no seed (it is not a random operator)",
                                RuntimeError)
        return rng.mix_key(self.spec.seed, self.epoch)

    def random_key(self) -> int:
        """The Philox key of this operator's draws in this epoch (for kernels that draw
        `rng.uniform`'s numbers themselves, with `sample_ids`)."""
        return self._key()

    def uniform(self, counts=1, stream=0) -> list:
        """Per-sample arrays of uniform [0, 1) doubles, `counts` (int or per-sample) each."""
        return self._split(rng.uniform(self._key(), self.sample_ids, self._counts(counts),
                                       stream), counts)

    def normal(self, counts=1, stream=0) -> list:
        """Per-sample arrays of standard normal doubles."""
        return self._split(rng.normal(self._key(), self.sample_ids, self._counts(counts),
                                      stream), counts)

    def uniform_flat(self, counts, stream=0) -> np.ndarray:
        """The draws of `uniform`, concatenated into one array (no per-sample arrays)."""
        return rng.uniform(self._key(), self.sample_ids, self._counts(counts), stream)

    def normal_flat(self, counts, stream=0) -> np.ndarray:
        """The draws of `normal`, concatenated into one array."""
        return rng.normal(self._key(), self.sample_ids, self._counts(counts), stream)

    def _counts(self, counts):
        if np.isscalar(counts):
            return np.full(self.batch_size, counts, dtype=np.int64)
        return np.asarray(counts, dtype=np.int64)

    def _split(self, flat, counts):
        c = self._counts(counts)
        return np.split(flat, np.cumsum(c)[:-1]) if len(c) else []


def _python_value(t, v):
    if t in (_types.DALIDataType.FLOAT, _types.DALIDataType.FLOAT64):
        return float(v)
    if t == _types.DALIDataType.BOOL:
        return bool(v)
    if t in (_types.DALIDataType.INTERP_TYPE,):
        return _types.DALIInterpType(int(v))
    if t in (_types.DALIDataType.DATA_TYPE,):
        return _types.DALIDataType(int(v))
    return int(v)
