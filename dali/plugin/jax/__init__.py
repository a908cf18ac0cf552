"""JAX plugin: DALI 2.4's `DALIGenericIterator` and `data_iterator` for JAX, on CPU devices,
and `fn.jax_function` (a JAX function on whole batches as a pipeline operator; see fn.py).

The iterator returns one dict per batch, output name -> `jax.Array`.  With one pipeline the
array is that pipeline's batch; with several (one per device, each reading its shard) the
batches are combined across devices: with `sharding`, a global array sharded as it says (the
batch axis split over the devices); otherwise an array with a leading device axis, placed one
shard per device when the devices differ (what `jax.pmap` takes), stacked when they are one.
Epochs and last-batch policies are those of `dali.plugin.base_iterator` (PARTIAL is refused,
as in DALI: JAX wants static shapes).  `data_iterator` turns a graph function into a factory
of such iterators, making one pipeline per device of `devices` or of `sharding`.
"""

from __future__ import annotations

try:
    import jax
    import jax.numpy as jnp
except ImportError as e:                  # pragma: no cover - depends on the environment
    raise ImportError("dali.plugin.jax needs JAX: pip install jax") from e

import functools
import os

import numpy as np

from dali import pipeline_def
from dali.plugin.base_iterator import LastBatchPolicy, _DaliBaseIterator

__all__ = ["DALIGenericIterator", "data_iterator", "LastBatchPolicy", "fn"]


class DALIGenericIterator(_DaliBaseIterator):
    """Iterator over one or more pipelines returning a dict of `jax.Array` keyed by
    `output_map`; `sharding` (a `jax.sharding.Sharding`) builds globally sharded arrays,
    `pmap_compatible` a leading device axis even for one pipeline.  The other parameters
    are those of `dali.plugin.base_iterator._DaliBaseIterator`."""

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, auto_reset=False,
                 last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL,
                 prepare_first_batch=True, sharding=None, pmap_compatible=None):
        if len(set(output_map)) != len(output_map):
            raise AssertionError("output_map names should be distinct")
        if sharding is not None and not isinstance(sharding, jax.sharding.Sharding):
            raise AssertionError("`sharding` should be an instance of "
                                 "`jax.sharding.Sharding`")
        if last_batch_policy == LastBatchPolicy.PARTIAL:
            raise AssertionError("JAX iterator does not support partial last batch policy.")
        self.output_map = output_map
        self._sharding = sharding
        self._pmap_compatible = bool(pmap_compatible)
        super().__init__(pipelines, size, reader_name, auto_reset, None, last_batch_padded,
                         last_batch_policy, prepare_first_batch)
        self._devices = [_device_of(p, i) for i, p in enumerate(self._pipes)]
        self._prepare()

    def _batch(self):
        outputs = self._get_outputs()
        out = {}
        for j, name in enumerate(self.output_map):
            shards = [jax.device_put(_array(outs[j].as_tensor()), device)
                      for outs, device in zip(outputs, self._devices, strict=True)]
            out[name] = self._combine(shards)
        self._schedule_runs()
        self._advance_and_check_drop_last()
        return out

    def _combine(self, shards):
        if len(shards) == 1 and self._sharding is None and not self._pmap_compatible:
            return shards[0]
        if any(s.shape != shards[0].shape for s in shards):
            raise AssertionError("Shards shapes have to be the same.")
        if self._sharding is not None:
            shape = (len(shards) * shards[0].shape[0], *shards[0].shape[1:])
            return jax.make_array_from_single_device_arrays(shape, self._sharding, shards)
        devices = [next(iter(s.devices())) for s in shards]
        if len(set(devices)) != len(devices):
            if len(set(devices)) != 1:
                raise AssertionError("JAX iterator requires shards to be placed on different "
                                     "devices or all on the same device.")
            return jnp.stack(shards)
        mesh = jax.sharding.Mesh(np.array(devices), axis_names=("device",))
        sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("device"))
        return jax.make_array_from_single_device_arrays(
            (len(shards), *shards[0].shape), sharding, [s[None] for s in shards])


def _device_of(pipe, index):
    """The JAX device a pipeline's batches go to: the pipeline's own (`_jax_device`, set by
    `data_iterator`), else the GPU of its `device_id` when JAX has GPUs, else the first CPU
    device."""
    own = getattr(pipe, "_jax_device", None)
    if own is not None:
        return own
    if pipe.device_id is not None:
        try:
            return jax.devices("gpu")[pipe.device_id]
        except (RuntimeError, IndexError):       # JAX without CUDA
            pass
    return jax.devices("cpu")[0]


def _array(tensor):
    """What `jax.device_put` takes of a batch: a GPU tensor through DLPack (no copy on its
    device), a host tensor as a numpy view."""
    if hasattr(tensor, "__cuda_array_interface__"):
        from jax import dlpack

        return dlpack.from_dlpack(tensor)
    return np.asarray(tensor)


def default_num_threads_value():
    """Threads per pipeline when `data_iterator` is not told: the CPUs of this process."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


def data_iterator(pipeline_fn=None, output_map=(), size=-1, reader_name=None,
                  auto_reset=False, last_batch_padded=False,
                  last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True,
                  sharding=None, devices=None, pmap_compatible=None):
    """Decorator: `graph_fn` -> a function making a `DALIGenericIterator`.

    Called with the pipeline's arguments (`batch_size`, `num_threads`, ..., and
    `checkpoints=` for pipelines restored from `iterator.checkpoints()`).  With `devices` or
    `sharding`, one pipeline per device: `batch_size` is the global batch, split evenly, and
    the graph function gets `shard_id` and `num_shards` to pass to its reader.
    """
    if sharding is not None and devices is not None:
        raise ValueError("Only one of `sharding` and `devices` arguments can be provided.")

    def decorator(func):
        @functools.wraps(func)
        def create_iterator(*args, checkpoints=None, **kwargs):
            make = pipeline_def(func)
            kwargs.setdefault("num_threads", default_num_threads_value())
            kwargs.setdefault("device_id", None)
            common = dict(output_map=list(output_map), size=size, reader_name=reader_name,
                          auto_reset=auto_reset, last_batch_padded=last_batch_padded,
                          last_batch_policy=last_batch_policy,
                          prepare_first_batch=prepare_first_batch)
            if sharding is None and devices is None:
                cp = checkpoints[0] if checkpoints else None
                pipe = make(*args, **kwargs, **({"checkpoint": cp} if cp else {}))
                return DALIGenericIterator([pipe], pmap_compatible=pmap_compatible, **common)
            use = list(devices) if devices is not None else list(sharding.device_set)
            use.sort(key=lambda d: d.id)
            if checkpoints and len(checkpoints) != len(use):
                raise RuntimeError(f"The number of checkpoints provided ({len(checkpoints)}) "
                                   f"should match the number of devices to use ({len(use)}).")
            kwargs["batch_size"] = kwargs["batch_size"] // len(use)
            pipes = []
            for i, device in enumerate(use):
                extra = {"checkpoint": checkpoints[i]} if checkpoints else {}
                pipe = make(*args, **kwargs, shard_id=i, num_shards=len(use), **extra)
                pipe._jax_device = device
                pipes.append(pipe)
            if sharding is not None:
                return DALIGenericIterator(pipes, sharding=sharding,
                                           pmap_compatible=pmap_compatible, **common)
            return DALIGenericIterator(pipes, pmap_compatible=(
                True if pmap_compatible is None else pmap_compatible), **common)

        return create_iterator

    return decorator(pipeline_fn) if pipeline_fn is not None else decorator

from dali.plugin.jax import fn  # noqa: E402  (jax_function: dali.plugin.jax.fn)
