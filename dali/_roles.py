"""The optional roles an operator plays, declared by its bases and found by type.

The executor, the pipeline and region fusion look for these with `isinstance`, never by probing
attributes: an operator class lists the roles it plays after `Operator`, e.g.
``class Resize(Operator, RegionProducer, RegionConsumer)``.  Each role states the methods the
caller uses; docs/developing.md lists them.
"""

from __future__ import annotations


class Source:
    """An operator that gets its batches from Python (fn.external_source).

    The pipeline feeds it before each iteration: from the user's callback when `has_callback`
    (`callback_batch`), else through `pipe.feed_input` (`feed`).  A fed batch may be smaller
    than `max_batch_size`; the executor then runs that iteration with `fed_batch_size()`.
    """

    has_callback: bool = False

    def feed(self, data, layout=None, output=None):
        """Queue one batch (a tuple of batches for a source with several outputs)."""
        raise NotImplementedError

    def fed_batch_size(self):
        """Samples in the next queued batch, or None when nothing is queued."""
        raise NotImplementedError

    def callback_batch(self, epoch_idx):
        """The next batch from the callback; raises StopIteration at the end of the data."""
        raise NotImplementedError

    def reset_callback(self, epoch_idx):
        """Called when the pipeline starts epoch `epoch_idx` (after `reset()`)."""

    def drop_fed(self):
        """Forget the batches fed and not taken yet (a checkpoint restored in place)."""
        raise NotImplementedError


class Checkpointable:
    """An operator with state a checkpoint keeps (`Pipeline.checkpoint`, see
    `dali._pipeline.checkpointing`): positions and counters, never data.

    The executor asks for `checkpoint_state()` after every iteration, on the thread that ran
    it: the state must be the one *after the batches its runs have returned*, whatever was
    read or fed ahead.  A pipeline restored from a checkpoint calls `restore_state` once, after
    `setup()` and before the first iteration.  Random operators need none: their draws are
    keyed by the pipeline's counters, which the checkpoint keeps.
    """

    def checkpoint_state(self) -> dict | None:
        """A JSON-able dict of plain numbers (None: nothing to keep, e.g. a source whose
        callback has no position)."""
        raise NotImplementedError

    def restore_state(self, state: dict) -> None:
        """Take back a state `checkpoint_state` returned (validated: raise ValueError naming
        what is wrong)."""
        raise NotImplementedError


class Reader:
    """An operator that reads a data set in shards and epochs (fn.readers.*).  A reader must
    also be `Checkpointable` for a pipeline with `enable_checkpointing=True` to use it."""

    def reader_meta(self) -> dict:
        """DALI's reader metadata: epoch_size, epoch_size_padded, number_of_shards, shard_id,
        pad_last_batch, stick_to_shard."""
        raise NotImplementedError


class RegionProducer:
    """An operator that can compute only the region of its output its one consumer reads.

    `dali.ops._regions.link` sets `region_consumer` when the pipeline is built (None: compute
    everything); the producer asks `_regions.consumer_regions` for the regions of a batch.
    """

    region_consumer: RegionConsumer | None = None
    delivers_scaled = False     # can decode reduced samples (`dali.ops._regions.Delivery`)
    region_scaling = False      # set by `link`: deliver reduced samples to the consumer


class RegionConsumer:
    """An operator that can say, before its producer runs, which region of each input sample
    it will read (see `dali.ops._regions`)."""

    region_producer: RegionProducer | None = None   # set by `link`
    takes_scaled = False        # can read reduced input samples (`max_input_scales`)

    def regions_ahead(self) -> bool:
        """Whether the regions are known before the producer runs (no argument input decides
        them)."""
        return True

    def reads_whole_input(self) -> bool:
        """Whether every input sample is read whole, whatever its shape."""
        return False

    def input_regions(self, ws, shapes, layout, delivery=None):
        """Per sample of `shapes` (HWC, in `layout`), the region read: ((y0, y1), (x0, x1)),
        or None for the whole sample.  `ws` is a workspace for this operator and batch.  With
        a `dali.ops._regions.Delivery`, the regions are in the delivered (reduced) samples'
        coordinates."""
        raise NotImplementedError

    def max_input_scales(self, ws, shapes, layout):
        """Per sample of `shapes`, the largest reduction in (1, 2, 4, 8) of its input that
        this operator can take instead of the input itself (`dali.ops._regions.Delivery`),
        or None when it takes none."""
        return None
