"""`dali.plugin.pytorch.fn.torch_python_function`: `fn.python_function` whose function takes
and returns torch tensors (zero-copy views of the samples in, converted back to arrays out)."""

from __future__ import annotations

import numpy as np
import torch

from dali import fn as _fn

__all__ = ["torch_python_function"]


def _to_torch(value):
    if isinstance(value, list):
        return [_to_torch(v) for v in value]
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value)
    return torch.from_dlpack(value)           # a CuPy array of the pipeline's device


def _to_numpy(value):
    if isinstance(value, (list, tuple)):
        return type(value)(_to_numpy(v) for v in value)
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return value


def torch_python_function(*inputs, function, num_outputs=1, batch_processing=False,
                          device="cpu", **kwargs):
    """Run `function` on torch tensors: per sample (one tensor per input) or, with
    `batch_processing=True`, per batch (one list of tensors per input); it returns tensors (a
    tuple of them for several outputs).  With `device="gpu"` the tensors are CUDA tensors on
    the pipeline's device (views of the samples, through DLPack) and so are the ones it
    returns.  The other arguments are `fn.python_function`'s."""
    on_gpu = device == "gpu"

    def wrapped(*args):
        result = function(*(_to_torch(a) for a in args))
        return result if on_gpu else _to_numpy(result)

    return _fn.python_function(*inputs, function=wrapped, num_outputs=num_outputs,
                               batch_processing=batch_processing, device=device, **kwargs)
