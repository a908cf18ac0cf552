"""`dali.backend`: what user code commonly takes from DALI's backend module.

The tensor types (`TensorCPU`, `TensorListCPU`, `TensorGPU`, `TensorListGPU`) and the memory
and device queries that scripts call: the device count is CuPy's (0 without CuPy or a driver),
and the memory hints, which tune DALI's C++ allocators, have no effect (those for pinned or
device memory raise, as DALI does without CUDA) (dali's host buffers come from its own pool,
`_ext/buffer_pool`, device memory from CuPy's).
"""

from __future__ import annotations

from dali import _gpu
from dali.tensors import TensorCPU, TensorListCPU

# TensorGPU and TensorListGPU are here too, through __getattr__ (imported on first use)
__all__ = ["GetCUDADeviceCount", "PreallocateDeviceMemory", "PreallocatePinnedMemory",
           "ReleaseUnusedMemory", "SetHostBufferShrinkThreshold", "TensorCPU",
           "TensorListCPU"]


def GetCUDADeviceCount():  # noqa: N802 (DALI's name)
    """CUDA devices dali can use: CuPy's count (0 without CuPy, a driver or a device)."""
    return _gpu.device_count()


def ReleaseUnusedMemory():  # noqa: N802
    """Accepted; no effect."""


def PreallocatePinnedMemory(bytes):  # noqa: N802, A002
    """Pinned memory needs CUDA: a RuntimeError, as in DALI without it."""
    raise RuntimeError("PreallocatePinnedMemory: CUDA is not available (dali runs on the CPU)")


def PreallocateDeviceMemory(bytes, device_id):  # noqa: N802, A002
    """Device memory needs a CUDA device: a RuntimeError, as in DALI without one."""
    raise RuntimeError("PreallocateDeviceMemory: CUDA is not available (dali runs on the CPU)")


def SetHostBufferShrinkThreshold(ratio):  # noqa: N802
    """Accepted; no effect."""
    if not 0 <= ratio <= 1:
        raise ValueError("Shrink threshold must be between 0 (never shrink) and 1 (always "
                         "shrink).")


def __getattr__(name):
    if name in ("TensorGPU", "TensorListGPU"):
        from dali._gpu import tensors as gpu_tensors

        return getattr(gpu_tensors, name)
    raise AttributeError(f"module 'dali.backend' has no attribute '{name}'")
