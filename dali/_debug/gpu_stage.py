"""What debug mode does for GPU operators (checked when called, with
`runtime.check_operator`, as the pipeline build checks them): it moves each batch to the
device its reader needs (as the build's device copies do in graph mode) and waits for the
device after every GPU operator, so that `.get()` is always complete."""

from __future__ import annotations

from dali import tensors
from dali._gpu import runtime
from dali._gpu.batch import DeviceBatch


def moved(tl, device, device_id):
    """`tl` (a TensorListCPU or TensorListGPU) on `device`: itself, an upload or a download."""
    on_gpu = not isinstance(tl, tensors.TensorListCPU)
    if on_gpu == (device == "gpu"):
        return tl
    if on_gpu:
        return tl.as_cpu()
    dev = runtime.device(device_id)
    out = tensors.TensorListGPU._wrap(DeviceBatch.from_host(dev, tensors.storage_of(tl)),
                                      tl.layout(), tl._source_info)
    dev.fence().wait()
    return out


def finish(device_id):
    """Wait for the device work queued by the operator that just ran."""
    runtime.device(device_id).fence().wait()
