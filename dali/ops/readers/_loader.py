"""What every reader shares: sharding, the shuffle buffer and padding, as real DALI does them.

A `Loader` walks a list of entries (e.g. `(path, label)` pairs) and hands out the next batch of
them; the reader operator then loads each entry's data.  The order is DALI's exactly (see
`dali/ops/readers/_std_random.py` for the generators):

* Shard `s` of `n` covers entries `[N*s//n, N*(s+1)//n)`.  The reader starts at its shard and
  reads on through the following shards (wrapping at N) unless `stick_to_shard`, when it loops
  over its own shard.  An "epoch" is one shard's worth of samples.
* With `random_shuffle`, the entry list is first permuted with `mt19937(524287)` (the same on
  every shard and for every seed; not by the record readers), `initial_fill` samples are read
  into a buffer, and each request picks one of the buffered samples of the current epoch at
  random and refills its slot with the next sample read.  Samples of the next epoch wait in the
  buffer until the current epoch is used up, so a batch can straddle two epochs but an epoch
  never repeats a sample.
* With `pad_last_batch`, an exhausted epoch repeats its last sample up to `ceil(N/n)` samples and
  then to the end of the batch, so every shard yields the same number of batches.
* With `shuffle_after_epoch` (which implies `stick_to_shard`), the order changes at the start
  of every epoch, epoch `e` (counted from 1) drawing from `mt19937_64(seed + (e << 32))`
  (modulo 2**64): the file readers shuffle their whole current list again (each epoch's
  permutation applies to the previous epoch's order), the container readers (TFRecord,
  RecordIO, tar files) shuffle the order of their files from the stored one and read the
  records of each file in stored order (`groups`).

The order is an int64 array of entry indices (permuted in C, `_std_random`), so a data set of
millions of entries costs a few bytes each beyond its listing.  Without `random_shuffle` and
`pad_last_batch` a batch is drawn as runs of indices (the buffer of one sample then only
delays the reads), and entries that are a `range` are handed out as the indices (entries with
a `take(indices)` method make a batch's at once).

Checkpoints: the loader's position is a function of the sequence of its `next_batch` calls,
which it keeps as runs of [size, count] (a handful of numbers: one run per batch size used);
a restored loader replays the calls that drew the samples consumed, drawing without reading.
"""

from __future__ import annotations

import math

import numpy as np

from dali.ops.readers import _std_random

PRESHUFFLE_SEED = 524287       # DALI's fixed data-loader seed


def shard_start(shard, num_shards, size):
    return size * shard // num_shards


class Loader:
    """Order of the entries a reader returns (see the module docstring).

    Parameters
    ----------
    entries : sequence
        The data set, in listing order (indexed by the loader's order; not copied).
    max_batch_size : int
    random_shuffle : bool
    initial_fill : int
    seed : int
        Seeds the shuffle-buffer draws.
    num_shards, shard_id : int
    stick_to_shard, pad_last_batch : bool
    reshuffle_seed : int or None
        Change the order at every epoch (`shuffle_after_epoch`, see the module docstring;
        implies `stick_to_shard`).
    preshuffle : bool
        With `random_shuffle`, permute the list first (DALI's file readers); record readers
        (TFRecord, RecordIO) keep the stored order and only draw from the buffer.
    groups : array of int or None
        With `reshuffle_seed`: the bounds of the entries of each file (`groups[k]` to
        `groups[k + 1]`), whose order is shuffled instead of the entries'.
    """

    def __init__(self, entries, *, max_batch_size, random_shuffle=False, initial_fill=1024,
                 seed=0, num_shards=1, shard_id=0, stick_to_shard=False, pad_last_batch=False,
                 reshuffle_seed=None, preshuffle=True, groups=None):
        self.entries = entries
        self.size = len(entries)
        self.max_batch_size = max_batch_size
        self.shuffle = random_shuffle
        self.fill = initial_fill if random_shuffle else 1
        self.num_shards = num_shards
        self.shard_id = shard_id
        self.stick = stick_to_shard or reshuffle_seed is not None
        self.pad = pad_last_batch
        self.reshuffle_seed = reshuffle_seed
        self._groups = None if groups is None else np.asarray(groups, np.int64)
        self.per_shard = math.ceil(self.size / num_shards)
        self._engine = _std_random.MinStd0(seed)
        shuffled = random_shuffle and preshuffle
        self._order = (np.arange(self.size, dtype=np.int64)
                       if shuffled or reshuffle_seed is not None else None)
        if shuffled:
            _std_random.shuffle_mt19937(self._order, PRESHUFFLE_SEED)
        self._list_epoch = 0
        self._cursor = 0
        self._restart(wrap_to_shard=True)
        self._virtual_shard = shard_id
        self._read_in_shard = 0
        self._buffer = []
        self._segments = []          # [start, end) of each epoch's samples in the ring buffer
        self._returned = 0
        self._last = None
        self.calls = []              # [size, count] runs of next_batch calls (checkpoints)
        # without shuffling or padding the samples are the reads in order (the buffer of one
        # only delays them): drawn as runs of indices (`_next_in_order`)
        self.in_order = not random_shuffle and not pad_last_batch

    # -- sequential reading ------------------------------------------------------------------
    def _start(self, shard):
        return shard_start(shard, self.num_shards, self.size)

    def _restart(self, wrap_to_shard):
        self._cursor = self._start(self.shard_id) if wrap_to_shard else 0
        self._list_epoch += 1
        if self.reshuffle_seed is None:
            return
        seed = (self.reshuffle_seed + (self._list_epoch << 32)) % 2**64
        if self._groups is None:
            _std_random.shuffle_mt19937_64(self._order, seed)
            return
        bounds = self._groups
        files = np.arange(len(bounds) - 1, dtype=np.int64)
        _std_random.shuffle_mt19937_64(files, seed)
        starts, counts = bounds[files], np.diff(bounds)[files]
        ends = np.cumsum(counts)
        self._order = np.arange(self.size, dtype=np.int64) + np.repeat(starts - ends + counts,
                                                                        counts)

    def _past_shard(self, index, shard):
        return index >= self.size or (
            shard + 1 < self.num_shards and index >= self._start(shard + 1))

    def _read(self):
        at = self._cursor if self._order is None else int(self._order[self._cursor])
        entry = self.entries[at]
        self._cursor += 1
        if self._cursor >= self.size or (self.stick and self._past_shard(self._cursor,
                                                                          self.shard_id)):
            self._restart(self.stick)
        self._read_in_shard += 1
        if self._past_shard(self._read_in_shard - 1 + self._start(self._virtual_shard),
                            self._virtual_shard):
            if not self.stick:
                self._virtual_shard = (self._virtual_shard + 1) % self.num_shards
            self._read_in_shard = 1
            end = self._segments[-1][1] if self._segments else 0
            self._segments.append([end, end])
        return entry

    # -- the shuffle buffer --------------------------------------------------------------------
    def _fill(self):
        self._segments = [[0, 0]]
        for _ in range(self.fill):
            entry = self._read()
            self._buffer.append(entry)
            self._segments[-1][1] += 1

    def next_one(self, new_batch):
        if not self._buffer:
            self._fill()
        front = self._segments[0]
        if front[0] == front[1]:
            if self.pad and (self._returned < self.per_shard or not new_batch):
                self._returned += 1
                return self._last
            self._segments.pop(0)
            self._returned = 0
            front = self._segments[0]
        n = len(self._buffer)
        offset = _std_random.uniform_int(self._engine, 0, front[1] - front[0] - 1) \
            if self.shuffle else 0
        i, head = (front[0] + offset) % n, front[0] % n
        buf = self._buffer
        buf[i], buf[head] = buf[head], buf[i]
        chosen = buf[head]
        buf[head] = self._read()                 # the ring is full: the tail slot is `head`
        self._segments[-1][1] += 1
        front[0] += 1
        self._returned += 1
        self._last = chosen
        return chosen

    def next_batch(self, n):
        """The entries of the next batch of `n` samples."""
        if self.calls and self.calls[-1][0] == n:
            self.calls[-1][1] += 1
        else:
            self.calls.append([n, 1])
        if self.in_order:
            return self._next_in_order(n)
        return [self.next_one(k == 0) for k in range(n)]

    def _next_in_order(self, n):
        """The next `n` reads (`_read`'s order and restarts), a run of cursor positions at a
        time; entries that are a `range(size)` are given as the indices themselves."""
        parts = []
        while n > 0:
            end = self.size
            if self.stick and self.shard_id + 1 < self.num_shards:
                end = self._start(self.shard_id + 1)
            k = min(n, end - self._cursor)
            run = np.arange(self._cursor, self._cursor + k, dtype=np.int64)
            parts.append(run if self._order is None else self._order[run])
            self._cursor += k
            n -= k
            if self._cursor >= end:
                self._restart(self.stick)
        at = np.concatenate(parts) if len(parts) > 1 else parts[0]
        entries = self.entries
        if type(entries) is range and entries == range(self.size):
            return at.tolist()
        if hasattr(entries, "take"):             # listed files: a batch at once
            return entries.take(at)
        return [entries[i] for i in at.tolist()]

    # -- checkpoints ---------------------------------------------------------------------------
    def calls_for(self, taken):
        """The calls of `next_batch` that drew the first `taken` entries, as [size, count]
        runs (the last call cut short where `taken` ends inside it): with `replay`, the
        loader's position after them, without reading anything."""
        out, left = [], taken
        for size, count in self.calls:
            if left <= 0:
                break
            whole = min(count, left // size)
            if whole:
                out.append([size, whole])
                left -= whole * size
            if whole < count and left > 0:
                out.append([left, 1])
                left = 0
        if left > 0:
            raise ValueError(f"the loader drew fewer than {taken} entries")
        return out

    def replay(self, calls):
        """Draw (and drop) the entries of `calls` (from `calls_for`)."""
        for size, count in calls:
            if type(size) is not int or type(count) is not int or size < 1 or count < 0:
                raise ValueError(f"bad loader calls in the checkpoint: {[size, count]}")
            for _ in range(count):
                self.next_batch(size)

    def meta(self):
        """`Pipeline.reader_meta()` of this reader (DALI's keys; the flags as ints)."""
        padded = self.per_shard * self.num_shards if self.pad else self.size
        return {"epoch_size": self.size, "epoch_size_padded": padded,
                "number_of_shards": self.num_shards, "shard_id": self.shard_id,
                "pad_last_batch": int(self.pad), "stick_to_shard": int(self.stick)}
