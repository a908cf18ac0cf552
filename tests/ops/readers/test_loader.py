"""The loader's draw of samples in order (no shuffling, no padding: `Loader._next_in_order`,
runs of indices) against its general per-sample path, over shards, stick_to_shard,
shuffle_after_epoch (of entries and of files), batch sizes that straddle epochs, and entries
given as a range or a list."""

from __future__ import annotations

import numpy as np
import pytest

from dali.ops.readers import _loader


def loaders(size, entries_kind, **kwargs):
    """(in order, general) loaders of the same data set and arguments."""
    entries = range(size) if entries_kind == "range" else [("e", i) for i in range(size)]
    fast = _loader.Loader(entries, max_batch_size=8, **kwargs)
    slow = _loader.Loader(entries, max_batch_size=8, **kwargs)
    slow.in_order = False
    return fast, slow


@pytest.mark.parametrize("seed", range(30))
def test_in_order_draw_matches_the_general_path(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 40))
    num_shards = int(rng.integers(1, min(size, 5) + 1))
    kwargs = dict(num_shards=num_shards, shard_id=int(rng.integers(num_shards)),
                  stick_to_shard=bool(rng.integers(2)), preshuffle=False)
    if rng.integers(3) == 0:
        kwargs["reshuffle_seed"] = int(rng.integers(2**40))
        if rng.integers(2):
            cuts = np.unique(rng.integers(1, size, int(rng.integers(0, 4)))) if size > 1 else []
            kwargs["groups"] = np.concatenate([[0], cuts, [size]]).astype(np.int64)
    fast, slow = loaders(size, ["range", "list"][seed % 2], **kwargs)
    assert fast.in_order
    for _ in range(12):
        n = int(rng.integers(1, 2 * size + 3))
        got, want = fast.next_batch(n), slow.next_batch(n)
        assert got == want
        assert type(got) is list and all(type(x) is type(want[0]) for x in got)
    assert fast.calls == slow.calls


def test_shuffling_and_padding_take_the_general_path():
    for kwargs in ({"random_shuffle": True}, {"pad_last_batch": True}):
        assert not _loader.Loader(range(5), max_batch_size=2, **kwargs).in_order


def test_replay_reaches_the_same_position():
    fast, _ = loaders(11, "range", num_shards=3, shard_id=1)
    drawn = [fast.next_batch(4) for _ in range(5)]
    again, _ = loaders(11, "range", num_shards=3, shard_id=1)
    again.replay(fast.calls_for(12))
    assert again.next_batch(8) == drawn[3] + drawn[4]


@pytest.mark.parametrize("base", ["", "root", "root/", "/abs/root"])
def test_listed_files_take_a_batch_as_they_index(base):
    from dali.ops.readers import file

    names = [b"a.jpg", "é/b.png".encode(), b"\xffraw", b"/abs/c", b""]
    listed = file._Listed.of(base, names, [3, 1, 4, 1, 5])
    idx = np.array([4, 0, 2, 2, 3, 1], np.int64)
    assert listed.take(idx) == [listed[i] for i in idx.tolist()]
