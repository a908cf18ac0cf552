"""`dali.backend`: what user code commonly takes from DALI's backend module.

The tensor types (`TensorCPU`, `TensorListCPU`) and the memory and device queries that scripts
call; dali runs on the CPU, so the device queries say there is no CUDA device, and the memory
hints, which tune DALI's C++ allocators, have no effect (those for pinned or device memory
raise, as DALI does without CUDA) (dali's buffers come from its own pool,
`_ext/buffer_pool`).  GPU tensor types are not there yet: asking for them says so.
"""

from __future__ import annotations

from dali.tensors import TensorCPU, TensorListCPU

__all__ = ["GetCUDADeviceCount", "PreallocateDeviceMemory", "PreallocatePinnedMemory",
           "ReleaseUnusedMemory", "SetHostBufferShrinkThreshold", "TensorCPU",
           "TensorListCPU"]

_GPU_ONLY = ("TensorGPU", "TensorListGPU")


def GetCUDADeviceCount():  # noqa: N802 (DALI's name)
    """CUDA devices dali can use: 0 (CPU only)."""
    return 0


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
    if name in _GPU_ONLY:
        raise AttributeError(f"dali.backend.{name}: dali has no GPU tensors yet (it runs on "
                             "the CPU)")
    raise AttributeError(f"module 'dali.backend' has no attribute '{name}'")
