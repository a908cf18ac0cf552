"""CupyDevice's host side against a stand-in for CuPy (no GPU needed): uploads are staged in
its page-locked pool (blocks registered once, reused for batches of nearby sizes), an upload of
a pool block is copied from where it is, and what a copy reads is kept until its fence."""

import contextlib
import ctypes
import threading
import types as pytypes
import weakref

import numpy as np
import pytest

from dali import _gpu
from dali._gpu import runtime


class FakeRuntime:
    memcpyHostToDevice = 1

    def __init__(self):
        self.registered = {}        # address: bytes
        self.registrations = 0
        self.copies = []            # (dst, src, nbytes)

    def hostRegister(self, address, nbytes, flags):
        assert flags == 1                                   # cudaHostRegisterPortable
        assert all(address + nbytes <= a or a + n <= address
                   for a, n in self.registered.items())     # CUDA refuses an overlap
        self.registered[address] = nbytes
        self.registrations += 1

    def hostUnregister(self, address):
        del self.registered[address]

    def memcpyAsync(self, dst, src, nbytes, kind, stream):
        assert kind == self.memcpyHostToDevice
        self.copies.append((dst, src, nbytes))
        ctypes.memmove(dst, src, nbytes)

    def is_pinned(self, address, nbytes):
        return any(a <= address and address + nbytes <= a + n
                   for a, n in self.registered.items())


class FakeEvent:
    def __init__(self, block, disable_timing):
        self.synchronized = False

    def record(self, stream):
        pass

    def synchronize(self):
        self.synchronized = True


class FakeStream(contextlib.nullcontext):
    ptr = 0

    def __init__(self, non_blocking):
        super().__init__()


class FakeMemory:
    def __init__(self, nbytes):
        self.array = np.zeros(nbytes, np.uint8)
        self.ptr = self.array.ctypes.data


@pytest.fixture
def device(monkeypatch):
    cuda = pytypes.SimpleNamespace(Device=lambda i: contextlib.nullcontext(), Stream=FakeStream,
                                   Event=FakeEvent, alloc=FakeMemory, runtime=FakeRuntime())
    monkeypatch.setattr(_gpu, "require", lambda what, device_id: pytypes.SimpleNamespace(
        cuda=cuda))
    return runtime.CupyDevice(0)


def _device_bytes(buf):
    return buf.owner.array[:buf.nbytes]


def test_upload_is_staged_in_a_registered_block_and_kept_until_its_fence(device):
    rt = device._cupy.cuda.runtime
    host = np.arange(5000, dtype=np.int32)
    buf = device.upload(host)
    (dst, src, nbytes), = rt.copies
    assert (dst, nbytes) == (buf.ptr, host.nbytes) and src != host.ctypes.data
    assert rt.is_pinned(src, nbytes)
    np.testing.assert_array_equal(_device_bytes(buf).view(np.int32), host)
    assert device.host_pool.stats()["bytes_in_use"] > 0       # the staging, until the fence
    device.fence().wait()
    assert device.host_pool.stats()["bytes_in_use"] == 0


def test_upload_of_a_pool_block_copies_it_in_place(device):
    rt = device._cupy.cuda.runtime
    host = np.frombuffer(device.host_pool.lease(3000), np.uint8)
    host[:] = 7
    buf = device.upload(host, pinned=True)
    (dst, src, nbytes), = rt.copies
    assert src == host.ctypes.data and nbytes == 3000 and (_device_bytes(buf) == 7).all()


def test_batches_of_varying_size_reuse_a_few_registered_blocks(device):
    # CuPy's pinned pool would register one block per distinct size: 40 here
    rt = device._cupy.cuda.runtime
    rng = np.random.default_rng(0)
    for nbytes in rng.integers(3 << 20, 4 << 20, 40):
        device.upload(np.ones(int(nbytes), np.uint8))
        device.fence().wait()
    assert rt.registrations <= 3 and len(rt.copies) == 40
    device.host_pool.trim()
    assert rt.registered == {}


def test_a_device_dropped_unregisters_its_staging_blocks(device):
    # a block freed still registered would make CUDA refuse the next one mapped there
    rt = device._cupy.cuda.runtime
    other = runtime.CupyDevice(0)                  # the fixture keeps `device` alive
    other.upload(np.ones(5 << 20, np.uint8))
    other.fence().wait()
    assert len(rt.registered) == 1
    del other
    assert rt.registered == {}


def test_a_fence_holds_only_what_its_own_thread_kept(device):
    # two pipelines on one device: one's fence must not free what the other's launch, whose
    # argument buffers are kept before it is queued, is about to read
    class Held:
        pass

    theirs = Held()
    gone = weakref.ref(theirs)
    other = threading.Thread(target=device.keep, args=(theirs,))
    other.start()
    other.join()
    del theirs
    device.keep(Held())
    device.fence().wait()
    assert gone() is not None


def test_a_tensor_list_made_from_host_data_gives_its_staging_back(device):
    from dali._gpu.tensors import TensorListGPU

    with runtime.use_device_factory(lambda device_id: device):
        tl = TensorListGPU(np.ones((2, 300, 5), np.float32), device_id=0)
    assert tl.device_id() == 0 and threading.get_ident() not in device._queued()
    assert device.host_pool.stats()["bytes_in_use"] == 0
