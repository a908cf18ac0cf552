"""What the framework iterators share: epochs measured in samples, the last-batch policies and
the bookkeeping of sharded readers, with DALI 2.4's semantics (the reference's section 11).

An iterator drives one or more pipelines (one per shard/device) with the ITERATOR API and counts
the samples it has returned per pipeline (`_counter`).  Its epoch length (`size`, per pipeline)
is the `size` argument, or derived from the reader named `reader_name`:

* DROP: the shard size rounded down, `epoch_size // num_shards`;
* padded readers (`pad_last_batch=True`): `epoch_size_padded // num_shards`, every shard equal;
* otherwise: the largest shard rounded up to whole batches.  Shards may differ in size, so the
  readers read on into the next shard at the end of an epoch; the iterator remembers how far
  each shard got (`_counter_per_gpu`) and shortens the next epoch accordingly, moving every
  pipeline to the next shard each epoch unless `stick_to_shard`.

With the data set [1..7] and batch 2 (one pipeline), the last batch and the start of the next
epoch are: FILL padded [7, 7] / [1, 2]; FILL unpadded [7, 1] / [2, 3]; PARTIAL padded [7] /
[1, 2]; PARTIAL unpadded [7] / [2, 3]; DROP padded [5, 6] / [1, 2]; DROP unpadded [5, 6] /
[2, 3].  Subclasses turn a batch of pipeline outputs into framework tensors (`__next__`).
"""

from __future__ import annotations

import enum
import json
import logging
import math
import warnings

import numpy as np

from dali import _types

_ITERATOR = _types.PipelineAPIType.ITERATOR
_STATE = (("_counter", "int"), ("_counter_per_gpu", "array"), ("_shard_sizes_per_gpu", "array"),
          ("_shards_id", "array"), ("_size", "value"))


class LastBatchPolicy(enum.Enum):
    """What the last batch of an epoch holds when the epoch does not fill it.

    * FILL: it is filled, with the reader's padding (`pad_last_batch=True`) or with the start
      of the next epoch;
    * DROP: it is dropped;
    * PARTIAL: it holds only the samples of this epoch (a shorter batch).
    """

    FILL = 0
    DROP = 1
    PARTIAL = 2


class _DaliBaseIterator:
    """Base of the framework iterators (see the module docstring); not used directly.

    Parameters
    ----------
    pipelines : Pipeline or list of Pipeline
        All with the same `max_batch_size`.
    size : int
        Samples per pipeline and epoch (-1: read until the pipeline raises StopIteration, one
        pipeline only).  Excludes `reader_name`.
    reader_name : str
        The reader (its `name`) that says how long an epoch is and whether it pads.
    auto_reset : bool or "yes"/"no"
        Reset by itself at the end of each epoch (StopIteration is still raised).
    fill_last_batch : bool
        Deprecated: True is FILL, False PARTIAL.
    last_batch_padded : bool
        Whether the reader pads its last batch (without `reader_name`).
    last_batch_policy : LastBatchPolicy
    prepare_first_batch : bool
        Produce the first batch when the iterator is made.
    """

    def __init__(self, pipelines, size=-1, reader_name=None, auto_reset=False,
                 fill_last_batch=None, last_batch_padded=False,
                 last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True):
        if pipelines is None:
            raise AssertionError("Number of provided pipelines has to be at least 1")
        self._pipes = pipelines if isinstance(pipelines, list) else [pipelines]
        self._num_gpus = len(self._pipes)
        self.batch_size = self._pipes[0].max_batch_size
        if any(p.max_batch_size != self.batch_size for p in self._pipes):
            raise AssertionError("All pipelines should have the same batch size set")
        self._size = int(size)
        self._auto_reset = _auto_reset_mode(auto_reset)
        self._prepare_first_batch = prepare_first_batch
        self._last_batch_policy = _policy(fill_last_batch, last_batch_policy)
        self._last_batch_padded = last_batch_padded
        self._check_size_arguments(reader_name, last_batch_padded)
        if self._size < 0 and not reader_name:
            self._last_batch_policy = LastBatchPolicy.FILL
            self._last_batch_padded = False
        if self._size > 0 and not reader_name:
            warnings.warn("Please set `reader_name` and don't set last_batch_padded and size "
                          "manually whenever possible. This may lead, in some situations, to "
                          "missing some samples or returning duplicated ones. Check the "
                          "Sharding section of the documentation for more details.",
                          Warning, stacklevel=3)
        self._counter = 0
        self._first_batch = None
        for p in self._pipes:
            with p._check_api_type_scope(_ITERATOR):
                p.build()
        self._reader_name = reader_name
        if reader_name:
            self._size_from_reader()
        self._ever_scheduled = False
        self._ever_consumed = False
        self._enable_checkpointing = self._pipes[0].enable_checkpointing
        if any(p.enable_checkpointing != self._enable_checkpointing for p in self._pipes):
            raise ValueError(
                "All wrapped pipelines must have the same value for `enable_checkpointing`.")
        if self._enable_checkpointing:
            self._restore_if_restored()
            self._initial_checkpoints = [p._get_checkpoint(iterator_data=self._save_state())
                                         for p in self._pipes]

    def _check_size_arguments(self, reader_name, last_batch_padded):
        if self._size == 0:
            raise AssertionError("Size cannot be 0")
        if self._size < 0 and not (self._num_gpus == 1 or reader_name):
            raise AssertionError("Negative size is supported only for a single pipeline")
        if reader_name and self._size >= 0:
            raise AssertionError("When reader_name is provided, size should not be set")
        if reader_name and last_batch_padded:
            raise AssertionError(
                "When reader_name is provided, last_batch_padded should not be set")

    # -- epoch length from the reader ----------------------------------------------------------
    def _size_from_reader(self):
        metas = [p.reader_meta(self._reader_name) for p in self._pipes]

        def same(key, what):
            values = [m[key] for m in metas]
            if any(v != values[0] for v in values):
                raise AssertionError(
                    f"Reader Operator should have the same {what} in all the pipelines.")
            return values[0]

        def all_or_none(key, what):
            flags = [bool(m[key]) for m in metas]
            if any(flags) and not all(flags):
                raise AssertionError(
                    f"Reader Operator should have the same {what} in all the pipelines.")
            return metas[0][key]

        self._size_no_pad = same("epoch_size", "size value")
        self._shards_num = same("number_of_shards", "`num_shards` argument set")
        self._last_batch_padded = all_or_none("pad_last_batch", "`pad_last_batch` argument set")
        self._is_stick_to_shard = all_or_none("stick_to_shard", "`stick_to_shard` argument set")
        self._shards_id = np.array([m["shard_id"] for m in metas], dtype=np.int64)
        if self._last_batch_policy == LastBatchPolicy.DROP:
            self._size = self._size_no_pad // self._shards_num
        elif self._last_batch_padded:
            self._size = metas[0]["epoch_size_padded"] // self._shards_num
        else:
            largest = math.ceil(self._size_no_pad / self._shards_num)
            self._size = math.ceil(largest / self.batch_size) * self.batch_size
        self._counter_per_gpu = np.zeros(self._shards_num, dtype=np.int64)
        shards = np.arange(self._shards_num)
        self._shard_sizes_per_gpu = ((shards + 1) * self._size_no_pad // self._shards_num
                                     - shards * self._size_no_pad // self._shards_num)
        self._shard_sizes_per_gpu_initial = self._shard_sizes_per_gpu.copy()

    # -- checkpoints ---------------------------------------------------------------------------
    def _save_state(self):
        state = {}
        for name, kind in _STATE:
            if hasattr(self, name):
                value = getattr(self, name)
                state[name] = (value.tolist() if kind == "array" else
                               int(value) if kind == "int" else value)
        return json.dumps(state)

    def _restore_if_restored(self):
        restored = [p.is_restored_from_checkpoint for p in self._pipes]
        if not any(restored):
            return
        data = [p._iterator_data for p in self._pipes]
        if not all(restored):
            logging.warning("Some, but not all of the pipelines used were restored from "
                            "checkpoint. This iterator might produce unexpected results.")
        elif any(d != data[0] for d in data):
            logging.warning("The provided pipelines had different iterator data in the "
                            "checkpoints they were restored from. This iterator might produce "
                            "unexpected results.")
        self._restore_state(data[0])

    def _restore_state(self, iterator_data):
        if not iterator_data:
            logging.warning("Iterator data was not saved in the checkpoint. This iterator "
                            "might produce unexpected results.")
            return
        try:
            state = json.loads(iterator_data)
        except json.JSONDecodeError:
            raise ValueError("Iterator checkpoint data is not a valid JSON string. Please make "
                             "sure that the checkpoint was created with the same version of "
                             "DALI.") from None
        for name, kind in _STATE:
            if hasattr(self, name):
                value = state[name]
                setattr(self, name, np.asarray(value, np.int64) if kind == "array" else
                        np.int64(value) if kind == "int" else value)

    def checkpoints(self):
        """The pipelines' checkpoints, each with this iterator's position."""
        if not self._enable_checkpointing:
            raise ValueError("Cannot access checkpoints with checkpointing disabled")
        if not self._ever_consumed:
            return self._initial_checkpoints
        data = self._save_state()
        return [p._get_checkpoint(iterator_data=data) for p in self._pipes]

    def state_dict(self):
        """The iterator's state for `load_state_dict` (torchdata's StatefulDataLoader
        convention): the pipelines' checkpoints.  Needs `enable_checkpointing=True`."""
        return {"dali_checkpoints": self.checkpoints()}

    # -- running -------------------------------------------------------------------------------
    def _get_outputs(self):
        """One batch of outputs per pipeline; StopIteration at the end of the epoch."""
        if not self._ever_scheduled:
            self._schedule_runs(False)
        if self._size > 0 and self._counter >= self._size:
            self._end_iteration()
        outputs = []
        try:
            for p in self._pipes:
                with p._check_api_type_scope(_ITERATOR):
                    outputs.append(p.share_outputs())
        except StopIteration:
            if self._size < 0 and self._auto_reset == "yes":
                self.reset()
            raise
        if self._reader_name or self._size != -1:
            for out in outputs:
                if any(len(o) != self.batch_size for o in out):
                    raise AssertionError(
                        "Variable batch size is not supported by the iterator when "
                        "reader_name is provided or iterator size is set explicitly")
        return outputs

    def _end_iteration(self):
        if self._auto_reset == "yes":
            self.reset()
        raise StopIteration

    def _schedule_runs(self, release_outputs=True):
        self._ever_scheduled = True
        for p in self._pipes:
            with p._check_api_type_scope(_ITERATOR):
                if release_outputs:
                    p.release_outputs()
                p.schedule_run()

    def _would_drop(self, counter):
        """Whether a batch that brings the count to `counter` overflows an epoch (DROP)."""
        if self._last_batch_policy != LastBatchPolicy.DROP:
            return False
        if self._reader_name:
            return bool(np.any(self._counter_per_gpu + counter > self._shard_sizes_per_gpu))
        return counter > self._size

    def _advance_and_check_drop_last(self, dry_run=False, end_iteration=True):
        """Count one more batch (unless `dry_run`); True when it is one DROP drops (and then,
        with `end_iteration`, the epoch ends here)."""
        step = self.batch_size if self._reader_name else self._num_gpus * self.batch_size
        counter = self._counter + step
        drop = self._would_drop(counter)
        if not dry_run:
            self._counter = counter
            if drop and end_iteration:
                self._end_iteration()
        return drop

    def _remove_padded(self):
        """PARTIAL with a reader: (whether to trim, samples to keep per pipeline)."""
        if self._last_batch_policy != LastBatchPolicy.PARTIAL:
            return False, -1
        left = self.batch_size - (self._counter
                                  - self._shard_sizes_per_gpu_initial[self._shards_id])
        return np.less(left, self.batch_size), left

    def _trimmed(self, batches, trim):
        """`batches` (one dict per pipeline) cut to the samples of this epoch under PARTIAL;
        `trim(value, n)` keeps the first n samples of one output."""
        if self._reader_name:
            cut, left = self._remove_padded()
            if not np.any(cut):
                return batches
            return [{k: trim(v, int(n)) for k, v in b.items()} for b, n in zip(batches, left,
                                                                                 strict=True)]
        if not (self._last_batch_policy == LastBatchPolicy.PARTIAL
                and self._counter > self._size > 0):
            return batches
        wanted = self._num_gpus * self.batch_size - (self._counter - self._size)
        pipes = math.ceil(wanted / self.batch_size)
        last = wanted % self.batch_size or self.batch_size
        out = batches[:pipes]
        out[-1] = {k: trim(v, last) for k, v in out[-1].items()}
        return out

    def _report_no_data_in_pipeline(self):
        if all(not p.is_restored_from_checkpoint or p._sched.first_iter for p in self._pipes):
            raise RuntimeError(
                "It seems that there is no data in the pipeline. This may happen if "
                "`last_batch_policy` is set to PARTIAL and the requested batch size is greater "
                "than the shard size.")

    # -- epochs --------------------------------------------------------------------------------
    def reset(self):
        """Start the next epoch; before the end of an epoch only warns, as DALI does."""
        if self._last_batch_policy == LastBatchPolicy.DROP:
            # the incomplete last batch is still in the pipelines: take it out first
            drop = self._advance_and_check_drop_last(dry_run=True, end_iteration=False)
            ended = self._size > 0 and self._counter >= self._size
            if drop and not ended:
                self._get_outputs()
                self._schedule_runs()
                self._advance_and_check_drop_last(end_iteration=False)
        if not (self._counter >= self._size or self._size < 0):
            logging.warning("DALI iterator does not support resetting while epoch is not "
                            "finished. Ignoring...")
            return
        carries_over = (self._last_batch_policy == LastBatchPolicy.FILL
                        and not self._last_batch_padded)
        if carries_over and self._reader_name:
            self._carry_shard_counters()
        elif carries_over:
            self._counter %= self._size
        else:
            self._counter = 0
        if self._reader_name:
            self._next_shards(carries_over)
        for p in self._pipes:
            p.reset()
            if p.empty():
                with p._check_api_type_scope(_ITERATOR):
                    p.schedule_run()

    def _carry_shard_counters(self):
        """FILL without padding: how far each shard read into the next epoch."""
        read = self._counter - min(self._counter_per_gpu)
        self._counter_per_gpu = self._counter_per_gpu + read - self._shard_sizes_per_gpu
        self._counter = min(self._counter_per_gpu)

    def _next_shards(self, carries_over):
        if not self._is_stick_to_shard:
            self._shards_id = (self._shards_id + 1) % self._shards_num
        if not carries_over:
            return
        if not self._is_stick_to_shard:
            self._shard_sizes_per_gpu = np.roll(self._shard_sizes_per_gpu, 1)
        remaining = self._shard_sizes_per_gpu - self._counter_per_gpu
        self._size = math.ceil(max(remaining) / self.batch_size) * self.batch_size
        if self._size == 0:       # read so far ahead that the next epoch is done already
            self._counter_per_gpu = np.zeros(self._shards_num, dtype=np.int64)
            self._counter = 0
            self._shard_sizes_per_gpu = np.roll(self._shard_sizes_per_gpu, 1)
            self._size = math.ceil(max(self._shard_sizes_per_gpu) / self.batch_size) \
                * self.batch_size

    # -- Python iteration ----------------------------------------------------------------------
    def _prepare(self):
        """Produce the first batch now when `prepare_first_batch` (subclasses call it at the
        end of their __init__)."""
        self._first_batch = None
        if self._prepare_first_batch:
            try:
                self._first_batch = self._batch()
            except StopIteration:
                self._report_no_data_in_pipeline()

    def _batch(self):
        """The next batch in the framework's form (subclasses)."""
        raise NotImplementedError

    def next(self):
        self._ever_consumed = True
        return self.__next__()

    def __next__(self):
        self._ever_consumed = True
        if self._first_batch is not None:
            batch, self._first_batch = self._first_batch, None
            return batch
        return self._batch()

    def __iter__(self):
        if self._counter != 0 and self._ever_consumed:
            self.reset()
        return self

    @property
    def size(self):
        return self._size

    def __len__(self):
        per_step = self.batch_size if self._reader_name else self._num_gpus * self.batch_size
        if self._last_batch_policy == LastBatchPolicy.DROP:
            return self.size // per_step
        return math.ceil(self.size / per_step)


def _auto_reset_mode(auto_reset):
    if auto_reset is False or auto_reset is None or auto_reset == "no":
        return "no"
    if auto_reset is True or auto_reset == "yes":
        return "yes"
    raise ValueError(f"Unsupported value for `auto_reset` {auto_reset}")


def _policy(fill_last_batch, last_batch_policy):
    if fill_last_batch is not None:
        warnings.warn("Please do not use `fill_last_batch` and use `last_batch_policy` instead.",
                      Warning, stacklevel=4)
        return LastBatchPolicy.FILL if fill_last_batch else LastBatchPolicy.PARTIAL
    if type(last_batch_policy) is not LastBatchPolicy:
        raise ValueError(f"Wrong type for `last_batch_policy`. Expected {LastBatchPolicy}, got "
                         f"{type(last_batch_policy)}")
    return last_batch_policy
