"""The LZ4 block kernel of fn.decoders.inflate (`dali._ext.kernels.lz4`): round trips of the
test encoder over random data (runs, repeats, long literals and matches), hand-made blocks
(overlapping matches, extension bytes), outputs shorter and longer than the data, malformed
blocks, and the batch's checks."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool
from lz4_encode import compress

from dali._ext.kernels import lz4


def _decode(blocks, out_sizes, pool=None):
    src = BatchStorage.from_samples([np.frombuffer(b, np.uint8) for b in blocks]).contiguous()
    dst = BatchStorage.from_samples([np.full(s, 0xAB, np.uint8) for s in out_sizes]).contiguous()
    rows = [(k, 0, len(b), k, 0, s) for k, (b, s) in enumerate(zip(blocks, out_sizes,
                                                                     strict=True))]
    status, written = lz4.inflate_batch(pool, src, dst, rows)
    return status, written, [bytes(np.asarray(s)) for s in dst.samples()]


def _random_data(rng, n):
    parts = []
    while sum(map(len, parts)) < n:
        kind = rng.integers(0, 3)
        if kind == 0:
            parts.append(rng.integers(0, 256, int(rng.integers(1, 300)), np.uint8).tobytes())
        elif kind == 1:
            parts.append(bytes([int(rng.integers(0, 256))]) * int(rng.integers(1, 600)))
        elif parts:
            parts.append(parts[int(rng.integers(0, len(parts)))][:int(rng.integers(4, 400))])
    return b"".join(parts)[:n]


@pytest.mark.parametrize("seed", range(8))
def test_round_trip(seed):
    rng = np.random.default_rng(seed)
    data = [_random_data(rng, int(rng.integers(1, 5000))) for _ in range(6)]
    blocks = [compress(d) for d in data]
    status, written, out = _decode(blocks, [len(d) for d in data], ThreadPool(2))
    assert list(status) == [0] * 6 and list(written) == [len(d) for d in data]
    assert out == data


def test_hand_made_blocks():
    # "ab" then a match of 10 at offset 2 (overlapping: "abababababab")
    block = bytes([0x26]) + b"ab" + (2).to_bytes(2, "little") + bytes([0x50]) + b"tail!"
    status, written, out = _decode([block], [17])
    assert status[0] == 0 and out[0] == b"ab" * 6 + b"tail!"
    # 15 + 20 literals (one extension byte), then a match of 4 + 15 + 255 + 3 (two bytes)
    lits = bytes(range(35))
    block = bytes([0xFF, 20]) + lits + (35).to_bytes(2, "little") + bytes([255, 3]) + b"\x10z"
    status, written, out = _decode([block], [35 + 277 + 1])
    assert status[0] == 0
    assert out[0] == lits + (lits * 8)[:277] + b"z"


def test_short_and_long_outputs():
    data = bytes(range(200)) * 3
    block = compress(data)
    status, written, out = _decode([block, block], [len(data) + 50, 250])
    assert list(status) == [0, 2] and list(written) == [len(data), 250]
    assert out[0] == data + bytes(50)            # the rest zeroed
    assert out[1] == data[:250]                  # truncated at the output's end


@pytest.mark.parametrize("block", [
    b"",                                          # empty
    bytes([0xF0]),                                # literal length past the end
    bytes([0x30]) + b"ab",                        # literals past the end
    bytes([0x10]) + b"a" + bytes([5]),            # a cut offset
    bytes([0x10]) + b"a" + (0).to_bytes(2, "little"),      # offset 0
    bytes([0x10]) + b"a" + (2).to_bytes(2, "little"),      # offset before the start
    bytes([0x10]) + b"a" + (1).to_bytes(2, "little"),      # ends after a match
])
def test_malformed_blocks(block):
    status, _, _ = _decode([block], [16])
    assert status[0] == 1


def test_chunks_must_lie_inside_samples():
    src = BatchStorage.from_samples([np.zeros(4, np.uint8)]).contiguous()
    dst = BatchStorage.from_samples([np.zeros(8, np.uint8)]).contiguous()
    with pytest.raises(ValueError, match="inside their samples"):
        lz4.inflate_batch(None, src, dst, [(0, 2, 3, 0, 0, 8)])
    with pytest.raises(ValueError, match="sample indices"):
        lz4.inflate_batch(None, src, dst, [(1, 0, 1, 0, 0, 8)])
    status, written = lz4.inflate_batch(None, src, dst, np.zeros((0, 6)))
    assert len(status) == len(written) == 0
