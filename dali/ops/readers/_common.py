"""Arguments and behaviour every reader shares (DALI's `LoaderBase`), reading ahead, and
`on_error` (not in DALI 2.4) for the readers that declare it.

`on_error="skip"`: a sample that cannot be read (missing, unreadable, truncated, corrupt file)
is dropped and the batch is completed with the next samples in order (those of the batches read
ahead, which are then read again, else the loader's), so batches stay full and the epoch goes
on; a batch with a bad sample is read again without it (errors are rare: the cost of re-reads
does not matter).  Each skipped sample is listed with the reason in
`reader_meta()["skipped"]` (a key only when skipping), and once per epoch (an epoch: a shard's
worth of samples taken from the loader, skipped ones included) a warning gives the count.  A
skipped sample counts in its epoch, so an epoch returns each good sample once and the bad ones
never.

Decoders with `on_error="skip"` whose input is a reader's first output register a validator
with that reader (`add_validator`): the reader then runs it on each batch it has read, on its
own thread, and skips the samples it rejects the same way (whatever its own `on_error`), so
the labels and other outputs stay with their samples.
"""

from __future__ import annotations

import collections
import concurrent.futures
import functools
import os
import time
import warnings
import weakref

from dali import _operator, _roles
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops.readers import _loader


def loader_args():
    """The arguments of DALI's `LoaderBase` schema, with its defaults."""
    return [
        Arg("random_shuffle", T.BOOL, False,
            doc="Shuffle the data: samples are read in order into a buffer of `initial_fill` "
                "and drawn from it at random (after a fixed, seed-independent permutation of "
                "the file list)."),
        Arg("initial_fill", T.INT32, 1024,
            doc="Size of the shuffle buffer; ignored without `random_shuffle`."),
        Arg("num_shards", T.INT32, 1, doc="Number of parts the data set is split into."),
        Arg("shard_id", T.INT32, 0, doc="Index of the part to read."),
        Arg("stick_to_shard", T.BOOL, False,
            doc="Loop over this reader's shard instead of moving on to the next one after "
                "each epoch."),
        Arg("pad_last_batch", T.BOOL, False,
            doc="Pad the shard by repeating its last sample, so that every shard yields the "
                "same number of batches (may add a whole batch of repeats)."),
        Arg("read_ahead", T.BOOL, False,
            doc="Keep every file's contents in memory after it is first read."),
        Arg("prefetch_queue_depth", T.INT32, 1,
            doc="Batches whose files the reader reads ahead while the pipeline works (at "
                "least 1): on its own thread, or at once on the pipeline's for reads that "
                "take under 250 microseconds of CPU."),
        Arg("lazy_init", T.BOOL, False,
            doc="List the data set at the first run instead of when the pipeline is built."),
        Arg("skip_cached_images", T.BOOL, False, implemented=False,
            doc="Return empty samples for images in the decoder cache (no decoder cache here)."),
        Arg("dont_use_mmap", T.BOOL, False, doc="Use plain reads instead of memory mapping.",
            ignored="files are always read with plain reads, straight into the output batch "
                    "(a batch is one contiguous pool block, so a mapping's pages would be "
                    "copied into it anyway, and mapping, faulting and unmapping them cost "
                    "more than reading)"),
        Arg("tensor_init_bytes", T.INT32, 1048576, doc="Per-sample memory hint, in bytes.",
            ignored="outputs come from the buffer pool, sized per batch"),
    ]


def on_error_arg():
    """`on_error`, for the readers that implement it (see the module docstring)."""
    return Arg("on_error", T.STRING, "raise",
               doc='A sample that cannot be read: "raise" (the error, as DALI does) or "skip" '
                   "(replaced by the next sample; `reader_meta()[\"skipped\"]` lists the "
                   "skipped samples with the reason, and a warning gives their count once "
                   "per epoch). Not in DALI 2.4.")


def skip_undecodable(op, check):
    """`on_error="skip"` of decoder `op` (its `on_error` argument, checked here): the reader
    whose first output is `op`'s input skips the samples `check(samples) -> {index: reason}`
    rejects (`Loader.add_validator`); a build error when the input is not such an output."""
    mode = op.args["on_error"]
    if mode not in ("raise", "skip"):
        raise op.error(f'on_error must be "raise" or "skip", got {mode!r}', RuntimeError)
    if mode == "raise":
        return
    node = getattr(op.spec, "node", None)
    edge = node.inputs[0] if node is not None and node.inputs else None
    ref = edge.source.extra.get("reader") if edge is not None and edge.index == 0 \
        and edge.source is not None else None
    reader = ref() if ref is not None else None
    if reader is None:
        raise op.error('on_error="skip" needs the input to be the first output of a reader '
                       "(fn.readers.file, ...): the reader replaces the samples that cannot "
                       "be decoded", RuntimeError)
    reader.add_validator(check)


# Reads that take less CPU time than this (seconds, a recent mean) are done on the pipeline's
# thread when the batch is submitted instead of on the reader's: waking that thread and
# waiting for its result cost tens of microseconds, and such reads (tiny records, parsed in
# Python and C) hold the GIL most of the time anyway.  CPU time, not wall time: a threaded
# read's wall time counts its waits for the GIL.  Either way a batch is read when it is
# submitted, and its errors are raised when it is taken.  Measured with the record readers'
# parsing in one nogil call a batch (batches of 64 in a synchronous pipeline, 2 busy cores),
# reading on the reader's thread still costs about 0.03 ms a batch more than inline (ms a
# batch, threaded / inline, 224x224 and 8x8 images: tfrecord 0.12 / 0.09 and 0.05 / 0.02,
# mxnet 0.12 / 0.09 and 0.04 / 0.01, caffe2 0.10 / 0.07 and 0.06 / 0.04): the reader's thread
# gets the GIL for its Python parts only while the pipeline's thread waits, and the hand-over
# costs more than the C part it would overlap.
INLINE_READ_S = 250e-6


class Reader(_operator.Operator, _roles.Reader, _roles.Checkpointable):
    """A source operator driven by a `Loader`; subclasses list the entries and load them.

    Subclasses implement `list_entries() -> list` (called once, at build or, with `lazy_init`,
    at the first run) and may pass `reshuffle_seed` through `loader_options()`.

    Readers that read ahead implement `read(entries) -> (data, None)` or `(None, (index,
    message))` for the first entry that cannot be read (the message an exception instead where
    the error is not to be a RuntimeError, an `Unskippable` where it is not to be skipped;
    data: a BatchStorage, or whatever
    `first_output`, `subset` and `combine` take) (called on the reader's own thread, or on
    the pipeline's for quick reads: `INLINE_READ_S`),
    and take each batch from `next_batch(ws)`: its entries and storage, read ahead
    (`prefetch_queue_depth` batches are kept submitted) and, with `on_error="skip"`,
    completed after skipped samples.  `entry_name(entry)` names an entry in errors and in
    `reader_meta()["skipped"]`.
    """

    loader = None

    def setup(self):
        a = self.args
        if a["prefetch_queue_depth"] < 1:
            raise RuntimeError(f"prefetch_queue_depth must be at least 1, got "
                               f"{a['prefetch_queue_depth']}")
        self._ahead = collections.deque()      # (entries, future of read(entries))
        self._worker = None
        self._threaded = None                  # future of the last read on the reader's thread
        self._read_pool = None                 # `read_pool()`
        self._read_s = INLINE_READ_S           # recent reads' mean CPU time (s); threaded first
        self._skip = a.get("on_error", "raise") == "skip"
        if a.get("on_error", "raise") not in ("raise", "skip"):
            raise RuntimeError(f'on_error must be "raise" or "skip", got {a["on_error"]!r}')
        self._validators = []
        self._skipped = []                   # (entry name, reason)
        self._skipped_names = set()          # of the entries skipped (`_note_skipped`)
        self._taken = 0                      # samples taken from the loader (skipped included)
        self._reads_ahead = False            # batches come from next_batch (reading ahead)
        self._epoch_end = 0                  # ... when the current epoch ends
        self._pending = []                   # where the skipped samples of this epoch were
        if a["num_shards"] < 1 or not 0 <= a["shard_id"] < a["num_shards"]:
            raise RuntimeError("num_shards needs to be greater than shard_id")
        if a["random_shuffle"] and a["initial_fill"] < 1:
            raise RuntimeError(f"initial_fill must be at least 1, got {a['initial_fill']}")
        if getattr(self.spec, "node", None) is not None:
            self.spec.node.extra["reader"] = weakref.ref(self)
        if not a["lazy_init"]:
            self._prepare()

    def _prepare(self):
        if self.loader is not None:
            return
        entries = self.list_entries()
        a = self.args
        if a["num_shards"] > len(entries):
            raise RuntimeError(
                f"The number of input samples: {len(entries)}, needs to be at least equal to "
                f"the requested number of shards: {a['num_shards']}.")
        self.loader = _loader.Loader(
            entries, max_batch_size=self.spec.max_batch_size,
            random_shuffle=a["random_shuffle"], initial_fill=a["initial_fill"],
            seed=self.spec.seed, num_shards=a["num_shards"], shard_id=a["shard_id"],
            stick_to_shard=a["stick_to_shard"], pad_last_batch=a["pad_last_batch"],
            **self.loader_options())

    def list_entries(self):
        raise NotImplementedError

    # -- checkpoints ---------------------------------------------------------------------------
    def _consumed(self):
        """Loader entries behind the batches returned so far: those taken for them when
        reading ahead (skipped ones included), else every entry drawn."""
        if self._reads_ahead:
            return self._taken
        return sum(size * count for size, count in self.loader.calls) if self.loader else 0

    def checkpoint_state(self):
        """The loader calls behind the batches returned, and the skip accounting."""
        self._prepare()
        taken = self._consumed()
        return {"calls": self.loader.calls_for(taken), "taken": taken,
                "epoch_end": self._epoch_end, "pending": list(self._pending)}

    def restore_state(self, state):
        try:
            calls, taken = state["calls"], state["taken"]
            epoch_end, pending = state["epoch_end"], state["pending"]
        except (KeyError, TypeError):
            raise ValueError(f"{self.spec.display_name}: the checkpointed reader state is "
                             f"incomplete: {state!r}") from None
        self._ahead.clear()
        if self.loader is not None and self.loader.calls:    # restored in place: start over
            self.loader = None
        self._prepare()
        self.loader.replay(calls)
        if sum(size * count for size, count in calls) != taken:
            raise ValueError(f"{self.spec.display_name}: the checkpointed loader calls do not "
                             f"add up to {taken} samples")
        self._taken, self._epoch_end, self._pending = taken, epoch_end, list(pending)

    def loader_options(self):
        return {}

    def next_entries(self, n):
        self._prepare()
        return self.loader.next_batch(n)

    def reader_meta(self):
        self._prepare()
        meta = self.loader.meta()
        if self._skip or self._validators:
            meta["skipped"] = [{"sample": name, "reason": why} for name, why in self._skipped]
        return meta

    def entry_name(self, entry):
        return entry[1]

    # -- reading ahead -----------------------------------------------------------------------
    def read_pool(self):
        """The reader's own threads (`num_threads` of them, made at first use) for the nogil
        work of `read`: the pipeline's pool belongs to the executor's thread, and reads run on
        the reader's thread or inline, one at a time."""
        if self._read_pool is None:
            self._read_pool = ThreadPool(max(self.spec.num_threads, 1))
        return self._read_pool

    def read(self, entries):
        raise NotImplementedError

    def next_batch(self, ws, read=None):
        """(entries, storage) of the next batch of `ws.batch_size` samples (see the class
        docstring); raises the error of a sample that cannot be read unless skipping.

        `read(entries, at)`, for batches whose arguments are known only when they run:
        read them now with it instead of `read` ahead (`at`: the batch position of
        `entries[0]`; a sample that replaces a skipped one takes the position it fills)."""
        n = ws.batch_size
        self._reads_ahead = True
        if read is None:
            entries, done = self.next_read(n)
            entries, storage, error, skipped = done.result()
        else:
            entries, storage, error, skipped = self.read_skipping(
                self._take(n, n), functools.partial(read, at=0))
        parts = [(entries, storage)]
        have = len(entries)
        while error is None and have < n:          # skipped samples: take the next ones
            self._note_skipped(entries, skipped)
            entries, storage, error, skipped = self.read_skipping(
                self._take(n - have, n), read and functools.partial(read, at=have))
            parts.append((entries, storage))
            have += len(entries)
        self._note_skipped(entries, skipped)
        if error is not None:
            i, message = error
            kind = type(message) if isinstance(message, Exception) and \
                not isinstance(message, Unskippable) else RuntimeError
            raise ws.sample_error(have - len(parts[-1][0]) + i, str(message), kind)
        self._count_epochs()
        if len(parts) == 1:
            return parts[0]
        entries = [e for part, _ in parts for e in part]
        return entries, self.combine([st for _, st in parts if st is not None])

    def _take(self, k, n):
        """The next `k` entries in order: those of the batches read ahead first (the rest of
        them submitted again, `n` a batch), then the loader's."""
        queued = [e for batch, _ in self._ahead for e in batch]
        self._ahead.clear()
        taken = queued[:k] + (self.next_entries(k - len(queued)) if k > len(queued) else [])
        rest = queued[k:]
        for j in range(0, len(rest), n):
            self._ahead.append(self.submit(rest[j:j + n]))
        return taken

    def add_validator(self, check):
        """Skip the samples of output 0 that `check(samples) -> {index: reason}` rejects."""
        self._validators.append(check)

    def read_skipping(self, entries, read=None):
        """(entries read, storage, error, skipped): `read(entries)` (default `self.read`),
        leaving out the entries that fail when skipping (unless the message is `Unskippable`)
        and those a validator rejects (`skipped`: (entry, reason, index in `entries`) of
        each), else with the first failure as `error` ((index, message))."""
        read = read or self.read
        skipped = []
        where = list(range(len(entries)))
        while entries:
            storage, error = read(entries)
            if error is None:
                bad = {}
                for check in self._validators:
                    bad.update(check(self.first_output(storage)))
                if not bad:
                    return entries, storage, None, skipped
                skipped += [(entries[i], bad[i], where[i]) for i in sorted(bad)]
                kept = [i for i in range(len(entries)) if i not in bad]
                if not kept:
                    return [], None, None, skipped
                return [entries[i] for i in kept], self.subset(storage, kept), None, skipped
            if not self._skip or isinstance(error[1], Unskippable):
                return entries, storage, error, skipped
            i, message = error
            skipped.append((entries[i], str(message), where.pop(i)))
            entries = entries[:i] + entries[i + 1:]
        return entries, None, None, skipped

    # what `read` returned: a BatchStorage (one output read ahead; readers of several outputs
    # return other objects and override these three)
    def first_output(self, data):
        """The samples of output 0 of `data`, for the validators."""
        return data.samples()

    def subset(self, data, idx):
        """`data` of the samples `idx` only."""
        samples = data.samples()
        return BatchStorage.from_arrays([samples[i] for i in idx])

    def combine(self, parts):
        """The concatenation of the `read` results `parts`."""
        return BatchStorage.from_arrays([x for data in parts for x in data.samples()])

    def skip_unlisted(self, name, reason):
        """Skip a part of the data set that cannot be listed (with `on_error="skip"`, while
        listing it): in `reader_meta()["skipped"]` once (also when listed again to restore a
        checkpoint), with a warning."""
        if (name, reason) in self._skipped:
            return
        self._skipped.append((name, reason))
        warnings.warn(f"{self.spec.display_name}: {name} was skipped: {reason} (see "
                      "reader_meta()['skipped'])", RuntimeWarning, stacklevel=2)

    def _note_skipped(self, entries, skipped):
        """Account for a read run of the loader's samples: `entries` kept, `skipped` not; an
        error once every entry the loader draws from has been skipped (the batch would never
        fill)."""
        self._skipped += [(self.entry_name(e), why) for e, why, _ in skipped]
        if skipped and not entries:           # (where every sample fails, no run keeps one)
            self._skipped_names.update(name for name, _ in self._skipped[-len(skipped):])
            loader = self.loader
            drawn = loader.size if not loader.stick else \
                _loader.shard_start(loader.shard_id + 1, loader.num_shards, loader.size) - \
                _loader.shard_start(loader.shard_id, loader.num_shards, loader.size)
            if len(self._skipped_names) >= drawn:
                name, why = self._skipped[-1]
                raise RuntimeError(f"{self.spec.display_name}: every sample was skipped "
                                   f'(on_error="skip"), none can be read; the last, {name}: '
                                   f"{why}")
        self._pending += [self._taken + k for _, _, k in skipped]
        self._taken += len(entries) + len(skipped)

    def _count_epochs(self):
        """Warn of the skipped samples of each epoch that the samples taken have finished."""
        while self._taken >= self._epoch_end + self.loader.per_shard:
            self._epoch_end += self.loader.per_shard
            count = sum(k < self._epoch_end for k in self._pending)
            if count:
                warnings.warn(f"{self.spec.display_name}: {count} sample(s) that could not be "
                              "read were skipped in this epoch (see reader_meta()['skipped'])",
                              RuntimeWarning, stacklevel=2)
            self._pending = [k for k in self._pending if k >= self._epoch_end]

    def next_read(self, n):
        """(entries, future of `read(entries)`) of the next `n` samples: the batch read ahead
        when it has that size, else submitted now; then tops the queue of batches read ahead
        up to `prefetch_queue_depth`."""
        if self._ahead and len(self._ahead[0][0]) == n:
            done = self._ahead.popleft()
        else:
            entries = [e for batch, _ in self._ahead for e in batch]      # keep the order
            self._ahead.clear()
            entries += self.next_entries(n - len(entries)) if n > len(entries) else []
            for k in range(n, len(entries), n):
                self._ahead.append(self.submit(entries[k:k + n]))
            done = self.submit(entries[:n])
        for _ in range(self.args["prefetch_queue_depth"] - len(self._ahead)):
            self._ahead.append(self.submit(self.next_entries(n)))
        return done

    def submit(self, entries):
        """(entries, future of `read(entries)`): run on the reader's thread, or at once on the
        caller's while reads take less than `INLINE_READ_S` (see there) and none is left on
        the reader's thread (reads never overlap)."""
        if self._read_s < INLINE_READ_S and (self._threaded is None or self._threaded.done()):
            try:
                return entries, _Done(self._timed_read(entries))
            except Exception as e:          # raised by the batch's result, as when threaded
                return entries, _Done(error=e)
        if self._worker is None:
            self._worker = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix=f"dali-{self.spec.name}")
            weakref.finalize(self, self._worker.shutdown, wait=False)
        self._threaded = self._worker.submit(self._timed_read, entries)
        return entries, self._threaded

    def _timed_read(self, entries):
        """`read_skipping(entries)`, its CPU time averaged into `_read_s`."""
        start = time.thread_time()
        try:
            return self.read_skipping(entries)
        finally:
            self._read_s += (time.thread_time() - start - self._read_s) / 4


class Unskippable(Exception):
    """The message of a `read` error that `on_error="skip"` does not skip (raised as a
    RuntimeError): the sample can be read, but not as the arguments or the rest of its batch
    ask (a region outside its array, another type than the batch's), which the samples that
    would replace it are not likely to fit either."""


class _Done:
    """A read done at once on the caller's thread, with the `result()` of a future's (a
    `concurrent.futures.Future` costs 6 us a batch to make and fill)."""

    __slots__ = ("_value", "_error")

    def __init__(self, value=None, error=None):
        self._value, self._error = value, error

    def result(self):
        if self._error is not None:
            raise self._error
        return self._value


# -- shuffle_after_epoch ----------------------------------------------------------------------
def shuffle_after_epoch_args(unit=None):
    """`shuffle_after_epoch` and its seed (checked by `check_shuffle_after_epoch`, given to the
    loader by `shuffle_after_epoch_options`): of the whole data set (readers of listed files),
    or of the order of its `unit`s ("files", "archives": container readers)."""
    what = ("Re-permute the whole data set at every epoch (the same permutation on every "
            "shard, applied to the previous epoch's order); implies `stick_to_shard`, excludes "
            "`random_shuffle`." if unit is None else
            f"Shuffle the order of the {unit} at every epoch (the same on every shard), each "
            f"read in its stored order; implies `stick_to_shard`, may be combined with "
            f"`random_shuffle`.")
    return [
        Arg("shuffle_after_epoch", T.BOOL, False, doc=what),
        Arg("shuffle_after_epoch_seed", T.INT64, None,
            doc="Seed of the `shuffle_after_epoch` permutations (default: a fixed one); epoch "
                "e (from 1) draws from `std::mt19937_64(seed + (e << 32))` as DALI does."),
    ]


def check_shuffle_after_epoch(a, with_random_shuffle=False):
    """DALI's checks: `stick_to_shard` never, `random_shuffle` only by the container readers."""
    if a["shuffle_after_epoch"] and a["stick_to_shard"]:
        raise RuntimeError("shuffle_after_epoch and stick_to_shard cannot be both true")
    if a["shuffle_after_epoch"] and a["random_shuffle"] and not with_random_shuffle:
        raise RuntimeError("shuffle_after_epoch and random_shuffle cannot be both true")


def shuffle_after_epoch_options(a, groups=None):
    """The loader options of `shuffle_after_epoch` (for `Reader.loader_options`); `groups`:
    the bounds of each file's entries, for the readers that shuffle files."""
    if not a["shuffle_after_epoch"]:
        return {}
    seed = a["shuffle_after_epoch_seed"]
    return {"reshuffle_seed": _loader.PRESHUFFLE_SEED if seed is None else seed,
            "groups": groups}


# -- what the readers of listed files share (readers.file, readers.numpy) -----------------------
def check_file_sources(a):
    """DALI's checks of `file_root` / `file_list` / `files` (exactly one way to list)."""
    if a["files"] is not None and a["file_list"] is not None:
        raise RuntimeError("File paths can be provided through ``files`` or ``file_list`` "
                           "but not both.")
    if a["file_root"] is None and a["file_list"] is None and a["files"] is None:
        raise RuntimeError("``file_root`` argument is required when not using ``files`` "
                           "or ``file_list``.")


def read_file_list(list_path, base):
    """The lines of the file list `list_path` and the directory its paths are relative to
    (`base`, the file_root, if given, else the list's directory)."""
    try:
        with open(list_path) as f:
            lines = f.read().splitlines()
    except OSError:
        raise RuntimeError(f"Cannot open: {list_path}") from None
    return lines, base or os.path.dirname(list_path)
