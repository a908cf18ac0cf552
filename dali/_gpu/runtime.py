"""The device a pipeline's GPU stage runs on: memory, copies and kernel launches, on one CUDA
stream per pipeline.

    dev = runtime.device(device_id)          # the pipeline's Device (CuPy)
    buf = dev.upload(host_array)             # pinned staging, then an async copy on the stream
    dev.launch(__file__, "flip_1", grid, block, (src_batch, out_batch, descriptors))
    fence = dev.fence()                      # the iteration's work so far, and its staging
    fence.wait()                             # done; the staging is released

Everything the executor and the operators' `run_gpu` do on the device goes through a `Device`,
so that the same code runs on a CUDA device through CuPy (`CupyDevice`) or, in the tests of
machines without a GPU, on an emulated device whose memory is host memory and whose kernels are
the `.cu` sources compiled for the CPU (tests/gpu/emulated_device.py, installed with
`use_device_factory`).  See docs/gpu.md.
"""

from __future__ import annotations

import contextlib
import functools
import threading

import numpy as np

from dali import _gpu
from dali._ext.buffer_pool import BufferPool

_HOST_REGISTER_PORTABLE = 1     # cudaHostRegisterPortable: page-locked for every context
_DLPACK_CUDA = 2                # DLDeviceType kDLCUDA


class Buffer:
    """A block of device memory: its address, size, and what keeps it allocated."""

    __slots__ = ("ptr", "nbytes", "owner")

    def __init__(self, ptr, nbytes, owner):
        self.ptr = int(ptr)
        self.nbytes = int(nbytes)
        self.owner = owner

    def __repr__(self):
        return f"Buffer(ptr=0x{self.ptr:x}, nbytes={self.nbytes})"


class Device:
    """What the GPU stage needs of a device; subclasses implement the primitives.

    Launch arguments (`launch`): device batches and `Buffer`s are passed as their address
    (a `numpy.uint64`), numpy arrays are uploaded first (kept until the fence of the work is
    waited for), numpy scalars are passed by value.
    """

    device_id = 0
    host_pool = None            # a BufferPool of page-locked host memory, where the device has one

    # -- primitives (subclasses) --------------------------------------------------------------
    def alloc(self, nbytes) -> Buffer:
        raise NotImplementedError

    def upload(self, host, pinned=False) -> Buffer:
        """A device copy of the C-contiguous `host` array, made on the stream; `pinned`: `host`
        lies in a block of `host_pool` (a mixed operator's output), so it is copied from where
        it is instead of through staging, and kept until the copy is fenced."""
        raise NotImplementedError

    def download(self, ptr, nbytes) -> np.ndarray:
        """`nbytes` bytes at device address `ptr`, as uint8, after the stream's work."""
        raise NotImplementedError

    def copy(self, dst, src, nbytes):
        """Device-to-device copy on the stream."""
        raise NotImplementedError

    def run_kernel(self, module_file, name, grid, block, args):
        raise NotImplementedError

    def wait(self):
        """Wait for the stream's work."""
        raise NotImplementedError

    def record(self):
        """An event marking the stream's work so far (with `synchronize()`), or None when the
        work is already done."""
        raise NotImplementedError

    def array(self, buffer, offset, shape, dtype):
        """An array of the device's array library (CuPy; numpy when emulated) viewing
        `shape`/`dtype` elements at `offset` bytes into `buffer`, keeping it alive."""
        raise NotImplementedError

    def user_scope(self):
        """A context manager around user code that works on the device's arrays (a GPU
        `python_function`): the stream's work is complete when it starts, the code's array
        library queues on the stream where it can, and all its work is complete when it
        ends, whatever stream it used."""
        raise NotImplementedError

    def user_array(self, value):
        """(array, device address) of `value`, what user code returned: a C-contiguous array
        of the device's library viewing (or, if it was not contiguous, copying) it; None when
        it is not an array on this device."""
        raise NotImplementedError

    # -- shared -------------------------------------------------------------------------------
    def synchronize(self):
        """Wait for everything queued on the stream."""
        self.wait()

    def _queued(self):
        """What each thread's queued work still reads (`keep`, `fence`), by thread.  Per
        thread: every pipeline on the device queues its work from one thread (its executor's),
        and one pipeline's fence must not take what another's launch is about to read (a
        launch keeps its argument buffers before it is queued).  A thread that ends without a
        fence leaves its entry (held, never freed early)."""
        queued = self.__dict__.get("_by_thread")
        if queued is None:
            queued = self.__dict__.setdefault("_by_thread", {})
        return queued

    def fence(self):
        """A `Fence` over the work queued so far: it holds what this thread's work reads
        (staging and argument buffers) until it is waited for."""
        return Fence(self.record(), self._queued().pop(threading.get_ident(), None))

    def keep(self, obj):
        """Keep `obj` alive until this thread's fence of the work queued now is waited for."""
        self._queued().setdefault(threading.get_ident(), []).append(obj)

    def launch(self, module_file, name, grid, block, args):
        """Run kernel `name` of the `.cu` source of `module_file` (`modules.source_path`); a
        grid with no blocks along an axis launches nothing."""
        grid = _dim3(grid, empty_ok=True)
        if 0 in grid:
            return
        self.run_kernel(module_file, name, grid, _dim3(block),
                        tuple(self._argument(a) for a in args))

    def _argument(self, a):
        ptr = getattr(a, "ptr", None)
        if ptr is not None:                      # a Buffer or a device batch
            return np.uint64(ptr)
        if isinstance(a, np.ndarray):
            buf = self.upload(np.ascontiguousarray(a))
            self.keep(buf)
            return np.uint64(buf.ptr)
        return a


class Fence:
    """The end of an iteration's device work (see `Device.fence`)."""

    __slots__ = ("_event", "_pending")

    def __init__(self, event, pending):
        self._event, self._pending = event, pending

    def wait(self):
        if self._event is not None:
            self._event.synchronize()
        self._event = self._pending = None


def _dim3(d, empty_ok=False):
    d = (d,) if isinstance(d, int) else tuple(int(x) for x in d)
    if not 1 <= len(d) <= 3 or min(d) < (0 if empty_ok else 1):
        raise ValueError(f"a launch dimension must be 1 to 3 positive integers, not {d}")
    return d + (1,) * (3 - len(d))


def _pin(cupy, device, address, nbytes):
    with device:
        cupy.cuda.runtime.hostRegister(address, nbytes, _HOST_REGISTER_PORTABLE)


def _unpin(cupy, device, address):
    with device:
        cupy.cuda.runtime.hostUnregister(address)


class CupyDevice(Device):
    """A CUDA device through CuPy: memory from CuPy's pool (stream-ordered), one non-blocking
    stream, and uploads staged in a pool of page-locked host memory of dali's own
    (`BufferPool` blocks registered with cudaHostRegister).  CuPy's pinned pool reuses a
    block only for a request of the same size, so batches whose sizes vary (decoded images)
    would page-lock a new block every iteration and keep them all."""

    def __init__(self, device_id):
        self._cupy = cupy = _gpu.require("the GPU stage of the pipeline", device_id)
        self.device_id = device_id
        self._device = cupy.cuda.Device(device_id)
        with self._device:
            self.stream = cupy.cuda.Stream(non_blocking=True)
        # The hooks hold the CUDA device, not `self`: no reference cycle, so the pool (and the
        # unpinning of its blocks) goes when the device does, not whenever a cycle is collected
        # with `self` already cleared.
        self.host_pool = BufferPool(pin=functools.partial(_pin, cupy, self._device),
                                    unpin=functools.partial(_unpin, cupy, self._device))

    def alloc(self, nbytes):
        with self._device, self.stream:
            mem = self._cupy.cuda.alloc(max(int(nbytes), 1))
        return Buffer(mem.ptr, nbytes, mem)

    def upload(self, host, pinned=False):
        runtime = self._cupy.cuda.runtime
        host = np.ascontiguousarray(host)
        buf = self.alloc(host.nbytes)
        if host.nbytes:
            if not pinned:
                staging = np.frombuffer(self.host_pool.lease(host.nbytes), np.uint8,
                                        host.nbytes)
                staging[...] = host.reshape(-1).view(np.uint8)
                host = staging
            with self._device:
                runtime.memcpyAsync(buf.ptr, host.ctypes.data, host.nbytes,
                                    runtime.memcpyHostToDevice, self.stream.ptr)
            self.keep(host)
        return buf

    def download(self, ptr, nbytes):
        out = np.empty(int(nbytes), np.uint8)
        self.wait()
        if nbytes:
            with self._device:
                self._cupy.cuda.runtime.memcpy(out.ctypes.data, ptr, int(nbytes),
                                               self._cupy.cuda.runtime.memcpyDeviceToHost)
        return out

    def copy(self, dst, src, nbytes):
        if nbytes:
            with self._device:
                self._cupy.cuda.runtime.memcpyAsync(
                    dst, src, int(nbytes), self._cupy.cuda.runtime.memcpyDeviceToDevice,
                    self.stream.ptr)

    def run_kernel(self, module_file, name, grid, block, args):
        from dali._gpu import modules

        kernel = modules.kernel(module_file, name, self.device_id)
        with self._device:
            kernel(grid, block, args, stream=self.stream)

    def wait(self):
        self.stream.synchronize()

    def record(self):
        with self._device:
            event = self._cupy.cuda.Event(block=False, disable_timing=True)
            event.record(self.stream)
        return event

    @contextlib.contextmanager
    def user_scope(self):
        self.wait()
        with self._device, self.stream:
            yield
        self._device.synchronize()

    def user_array(self, value):
        cupy = self._cupy
        if not isinstance(value, cupy.ndarray):
            if hasattr(value, "__cuda_array_interface__"):
                value = cupy.asarray(value)
            elif hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__") \
                    and value.__dlpack_device__()[0] == _DLPACK_CUDA:
                value = cupy.from_dlpack(value)
            else:
                return None
        if value.device.id != self.device_id:
            return None
        if not value.flags.c_contiguous:
            with self._device:
                value = value.copy()
        return value, value.data.ptr

    def array(self, buffer, offset, shape, dtype):
        cupy = self._cupy
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        mem = cupy.cuda.UnownedMemory(buffer.ptr + offset, nbytes, buffer, self.device_id)
        return cupy.ndarray(tuple(shape), dtype, cupy.cuda.MemoryPointer(mem, 0))


_lock = threading.Lock()
_devices = {}
_factory = None


def available(device_id=0):
    """Whether `device(device_id)` can be made (CuPy and the device, or an installed
    factory); never raises."""
    if _factory is not None:
        return True
    return device_id is not None and 0 <= device_id < _gpu.device_count()


def check_operator(impl, device, device_id, origin, what="runs"):
    """Raise what DALI users get for an operator on `device` ("gpu"/"mixed") that cannot run:
    a RuntimeError without a GPU backend (no `device_id`, CuPy or device), NotImplementedError
    for a GPU operator without a GPU implementation in dali yet."""
    from dali import _operator

    schema = impl.schema
    where = f" (created at {origin[-1].filename}:{origin[-1].lineno})" if origin else ""
    if device_id is None or not available(device_id):
        raise RuntimeError(
            f"The pipeline requires a CUDA-capable GPU: operator {schema.display_name}{where} "
            f"{what} on \"gpu\", but no GPU backend is available (install CuPy with "
            "`pip install dali[gpu]` on a machine with a CUDA device), and device_id=None "
            "pipelines are CPU-only.")
    if device == "gpu" and impl.run_gpu is _operator.Operator.run_gpu:
        raise NotImplementedError(
            f'{schema.display_name}{where}: device="gpu" is not implemented yet in dali '
            "(docs/gpu.md lists the GPU operators)")


def device(device_id):
    """The `Device` for CUDA device `device_id`, made once per process (per factory).

    Raises `GPUUnavailableError` (what to install) when there is no CuPy or no such device.
    """
    if device_id is None:
        raise _gpu.GPUUnavailableError(
            "the pipeline was created with device_id=None (CPU only), so it has no GPU; give "
            "it a device_id to run GPU operators")
    factory = _factory              # once: a device is kept under the factory that made it
    with _lock:
        dev = _devices.get((factory, device_id))
        if dev is None:
            dev = _devices[(factory, device_id)] = (factory or CupyDevice)(device_id)
        return dev


@contextlib.contextmanager
def use_device_factory(factory):
    """Make devices with `factory(device_id)` instead of CuPy while the block runs (the
    tests' emulated device)."""
    global _factory
    previous = _factory
    _factory = factory
    try:
        yield
    finally:
        _factory = previous
        with _lock:
            for key in [k for k in _devices if k[0] is factory]:
                del _devices[key]
