"""A `dali._gpu.runtime.Device` without a GPU: device memory is host memory and kernels are
the `.cu` sources compiled for the CPU by emulate.py, so pipelines with GPU operators run,
end to end, on machines without a GPU (the `emulated_gpu` fixture of conftest.py installs it).

Copies are immediate and launches run to completion, so the stream is always idle; what this
checks is everything above the stream: graph copies, allocation, descriptors, launches and the
tensor types.
"""

from __future__ import annotations

import contextlib
import ctypes

import emulate
import numpy as np
from dali._ext.buffer_pool import BufferPool

from dali._gpu import modules, runtime


class EmulatedDevice(runtime.Device):
    def __init__(self, device_id):
        self.device_id = device_id
        self.launches = []                 # kernel names, in launch order (tests read them)
        self.pinned = {}                   # address: bytes of the host pool's "pinned" blocks
        self.direct_uploads = 0            # uploads from host pool blocks, without staging
        self.host_pool = BufferPool(pin=self.pinned.__setitem__, unpin=self.pinned.pop)

    def alloc(self, nbytes):
        mem = np.empty(max(int(nbytes), 1), np.uint8)
        return runtime.Buffer(mem.ctypes.data, nbytes, mem)

    def upload(self, host, pinned=False):
        host = np.ascontiguousarray(host)
        if pinned:
            start = host.ctypes.data
            assert any(a <= start and start + host.nbytes <= a + n
                       for a, n in self.pinned.items()), "upload(pinned=True) of unpinned memory"
            self.direct_uploads += 1
        buf = self.alloc(host.nbytes)
        buf.owner[:host.nbytes] = host.reshape(-1).view(np.uint8)
        return buf

    def download(self, ptr, nbytes):
        out = np.empty(int(nbytes), np.uint8)
        if nbytes:
            ctypes.memmove(out.ctypes.data, int(ptr), int(nbytes))
        return out

    def copy(self, dst, src, nbytes):
        if nbytes:
            ctypes.memmove(int(dst), int(src), int(nbytes))

    def run_kernel(self, module_file, name, grid, block, args):
        self.launches.append(name)
        emulate.load(modules.source_path(module_file)).launch(name, grid, block, args)

    def wait(self):
        pass

    def record(self):
        return None             # launches run to completion

    def user_scope(self):
        return contextlib.nullcontext()

    def user_array(self, value):
        # device arrays are numpy arrays here: what numpy can view (torch and JAX CPU arrays,
        # DLPack producers)
        if isinstance(value, np.ndarray) or hasattr(value, "__array__"):
            value = np.asarray(value)
        elif hasattr(value, "__dlpack__"):
            value = np.from_dlpack(value)
        else:
            return None
        if not value.flags.c_contiguous:
            value = value.copy()
        return value, value.ctypes.data

    def array(self, buffer, offset, shape, dtype):
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        return np.frombuffer(buffer.owner, dtype, count, offset).reshape(shape)


class RecordingCupyDevice(runtime.CupyDevice):
    """CUDA device `device_id` through CuPy, recording kernel names like `EmulatedDevice`: with
    DALI_TEST_DEVICE=cuda the `emulated_gpu` fixture installs it, so that the same end-to-end
    tests run on a real GPU (its stream is asynchronous: fences and waits are exercised too)."""

    def __init__(self, device_id):
        super().__init__(device_id)
        self.launches = []
        self.direct_uploads = 0

    def upload(self, host, pinned=False):
        self.direct_uploads += bool(pinned)
        return super().upload(host, pinned)

    def run_kernel(self, module_file, name, grid, block, args):
        self.launches.append(name)
        super().run_kernel(module_file, name, grid, block, args)
