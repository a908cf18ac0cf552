import gc
import threading

import numpy as np
import pytest
from dali._ext.buffer_pool import BufferPool, default_pool


def test_lease_is_writable_and_sized():
    pool = BufferPool()
    buf = pool.lease(1000)
    assert len(buf) == 1000 and buf.capacity == 1024 and buf.address % 64 == 0
    arr = np.frombuffer(buf, np.uint8)
    arr[:] = 7
    assert arr.sum() == 7000


def test_block_returns_when_last_view_goes():
    pool = BufferPool()
    buf = pool.lease(5000)
    view = np.frombuffer(buf, np.uint8)
    del buf
    assert pool.stats()["bytes_in_use"] == BufferPool.capacity_for(5000)
    del view
    s = pool.stats()
    assert s["bytes_in_use"] == 0 and s["bytes_cached"] == BufferPool.capacity_for(5000)


def test_steady_state_reuses_blocks():
    pool = BufferPool()
    for _ in range(3):
        bufs = [pool.lease(n) for n in (100, 3000, 70000, 65000)]
        del bufs
    assert pool.stats()["allocations"] == 4
    for _ in range(100):
        bufs = [pool.lease(n) for n in (100, 3000, 70000, 65000)]
        del bufs
    assert pool.stats()["allocations"] == 4
    assert pool.stats()["leases"] == 412


@pytest.mark.parametrize("n,cap", [(0, 256), (256, 256), (257, 320), (1025, 1280),
                                   (1536, 1536), (1537, 1792), (2049, 2560)])
def test_size_classes_quarter_octaves(n, cap):
    assert BufferPool.capacity_for(n) == cap


def test_cache_limit_frees_extra_blocks():
    pool = BufferPool(max_cached=4096)
    a, b = pool.lease(4000), pool.lease(4000)
    del a, b
    assert pool.stats()["bytes_cached"] == 4096
    pool.trim()
    assert pool.stats()["bytes_cached"] == 0


def test_a_lease_reuses_a_cached_block_up_to_four_classes_larger():
    pool = BufferPool()
    big = pool.lease(4096)                         # class 4096
    del big
    small = pool.lease(2000)                       # class 2048, four classes below
    assert small.capacity == 4096 and pool.stats()["allocations"] == 1
    del small
    tiny = pool.lease(1700)                        # class 1792: five below, not reused
    assert tiny.capacity == 1792 and pool.stats()["allocations"] == 2


def test_large_blocks_get_headroom_and_replace_slightly_smaller_cached_ones():
    mib = 1 << 20
    pool = BufferPool()
    a, b = pool.lease(mib), pool.lease(2 * mib)    # classes 1 and 2 MiB, allocated one up
    assert (a.capacity, b.capacity) == (1.25 * mib, 2.5 * mib)
    del a
    assert pool.stats()["bytes_cached"] == 1.25 * mib
    c = pool.lease(int(2.6 * mib))                 # nothing cached fits: a new 3.5 MiB block...
    assert c.capacity == 3.5 * mib
    s = pool.stats()                               # ... and the 1.25 MiB one is not kept
    assert (s["allocations"], s["bytes_cached"]) == (3, 1.25 * mib)
    del b, c
    s = pool.stats()
    assert (s["bytes_in_use"], s["bytes_cached"]) == (0, 1.25 * mib + 2.5 * mib + 3.5 * mib)
    arrays = [np.frombuffer(pool.lease(n), np.uint8) for n in (mib, 2 * mib, 3 * mib)]
    for x in arrays:
        x[:] = 1
    assert pool.stats()["allocations"] == 3 and sum(int(x.sum()) for x in arrays) == 6 * mib


def test_negative_size_rejected():
    with pytest.raises(ValueError):
        BufferPool().lease(-1)


@pytest.mark.parametrize("n", [2**50 + 1, 2**62, 2**63 - 1])
def test_absurd_sizes_fail_at_once(n):
    # Sizes >= 2**62 used to spin forever in size_class (an overflowing shift, without the GIL).
    with pytest.raises(MemoryError, match=f"cannot allocate {n} bytes"):
        BufferPool().lease(n)


def test_concurrent_leases_from_threads():
    pool = BufferPool()
    errors = []

    def work(k):
        try:
            for i in range(300):
                b = pool.lease(100 + (i * 37 + k) % 5000)
                a = np.frombuffer(b, np.uint8)
                a[:] = k
                assert (a == k).all()
        except AssertionError as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert pool.stats()["bytes_in_use"] == 0


def test_default_pool_is_shared():
    assert default_pool() is default_pool()


class FakePinning:
    """pin/unpin hooks recording the page-locked ranges (as cudaHostRegister would refuse,
    an overlapping registration or an unknown unregistration fails)."""

    def __init__(self):
        self.ranges = {}
        self.calls = []

    def pin(self, address, nbytes):
        assert address % 4096 == 0, "a pinned block starts on a page of its own"
        assert all(address + nbytes <= a or a + n <= address for a, n in self.ranges.items())
        self.ranges[address] = nbytes
        self.calls.append(("pin", nbytes))

    def unpin(self, address):
        nbytes = self.ranges.pop(address)
        self.calls.append(("unpin", nbytes))


def test_pinned_pool_pins_each_block_once_and_unpins_before_freeing():
    pins = FakePinning()
    pool = BufferPool(max_cached=4096, pin=pins.pin, unpin=pins.unpin)
    a, b = pool.lease(100), pool.lease(3000)
    assert pins.calls == [("pin", 256), ("pin", 3072)] and pool.pinned
    assert all(x.address in pins.ranges for x in (a, b))
    del a, b                                   # 256 + 3072 cached (under 4096)
    c = pool.lease(3000)                       # reused: no new pin
    assert pins.calls == [("pin", 256), ("pin", 3072)]
    d = pool.lease(3000)                       # a new block
    del c, d                                   # one 3072 block over the limit: retired...
    assert len(pins.ranges) == 3
    e = pool.lease(50)                         # ... and unpinned by the next lease
    assert pins.calls[-1] == ("unpin", 3072) and len(pins.ranges) == 2
    del e
    pool.trim()
    assert pins.ranges == {} and pool.stats()["bytes_cached"] == 0


def test_destroyed_pinned_pool_unpins_its_cached_and_retired_blocks():
    pins = FakePinning()
    pool = BufferPool(max_cached=4096, pin=pins.pin, unpin=pins.unpin)
    blocks = [pool.lease(3000) for _ in range(3)]       # two cached, one retired
    del blocks
    assert len(pins.ranges) == 3
    del pool
    assert pins.ranges == {} and [c[0] for c in pins.calls] == ["pin"] * 3 + ["unpin"] * 3


def test_pinned_pool_in_a_reference_cycle_unpins_when_collected():
    pins = FakePinning()

    class Device:                    # a device whose pool's hooks are its own methods
        def __init__(self):
            self.pool = BufferPool(pin=self.pin, unpin=self.unpin)

        def pin(self, address, nbytes):
            pins.pin(address, nbytes)

        def unpin(self, address):
            pins.unpin(address)

    dev = Device()
    dev.pool.lease(200000)
    del dev
    gc.collect()
    assert pins.ranges == {} and [c[0] for c in pins.calls] == ["pin", "unpin"]


def _pool_whose_unpin_fails(message):
    """(pins, a pinned pool with two cached blocks whose `unpin` raises `message` after
    unpinning)."""
    pins = FakePinning()

    def unpin(address):
        pins.unpin(address)
        raise RuntimeError(message)

    pool = BufferPool(pin=pins.pin, unpin=unpin)
    pool.lease(100)                            # leased and given back at once
    pool.lease(200000)
    return pins, pool


def test_destroyed_pinned_pool_passes_over_an_unpin_that_fails():
    pins, pool = _pool_whose_unpin_fails("cudaErrorCudartUnloading")
    del pool                             # no unraisable-exception warning (an error here)
    assert pins.ranges == {}


def test_pinned_pool_failed_pin_fails_the_lease():
    def refuse(address, nbytes):
        raise RuntimeError("cudaErrorHostMemoryAlreadyRegistered")

    pool = BufferPool(pin=refuse, unpin=lambda address: None)
    with pytest.raises(RuntimeError, match="AlreadyRegistered"):
        pool.lease(5000)
    assert pool.stats()["bytes_in_use"] == 0


def test_pinned_pool_unpin_error_is_raised_after_freeing_every_block():
    pins, pool = _pool_whose_unpin_fails("context destroyed")
    with pytest.raises(RuntimeError, match="context destroyed"):
        pool.trim()
    assert pins.ranges == {} and pool.stats()["bytes_cached"] == 0


def test_pinned_pool_needs_both_hooks():
    with pytest.raises(ValueError, match="both `pin` and `unpin`"):
        BufferPool(pin=lambda address, nbytes: None)
