"""fn.dl_tensor_python_function: run a user's Python function on DLPack capsules.

The function gets each input sample as a DLPack capsule (`PyCapsule` named "dltensor", a
zero-copy view: any framework's `from_dlpack` reads it, once) and returns capsules, which are
copied into the output batches (the capsules it got, all returned in order, pass their input
batch through uncopied: `_function`).  Everything else (outputs, layouts, errors, executor settings,
debug mode) is `python_function`'s, from the shared `_function.FunctionOperator`.

As in DALI 2.4, the function is called once per batch (lists of capsules) unless
`batch_processing=False` is given: DALI's schema documents the default False, but its Python
wrapper, the only way to call the operator, passes True.  Unlike DALI, objects with a
`__dlpack__` method (a torch tensor, a numpy array) are accepted as well as capsules.
"""

from __future__ import annotations

import ctypes
import struct

import numpy as np

from dali import _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.python import _function

_CAPSULE = type(np.empty(0).__dlpack__())


_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype, _get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object,
                                                                 ctypes.c_char_p]
# Where DLTensor.device (int32 type, int32 id) lies in a capsule's struct: after `data` in a
# DLManagedTensor ("dltensor"); a DLManagedTensorVersioned ("dltensor_versioned", DLPack 1.0)
# has its version, manager context, deleter and flags first.
_DEVICE_OFFSET = {b"dltensor": 8, b"dltensor_versioned": 40}


def _capsule_device(capsule):
    """(DLDeviceType, device id) of an unconsumed DLPack capsule."""
    name = _get_name(capsule)
    if name not in _DEVICE_OFFSET:
        raise TypeError(f"not an unconsumed DLPack capsule (its name is {name!r})")
    address = _get_pointer(capsule, name) + _DEVICE_OFFSET[name]
    return struct.unpack("ii", ctypes.string_at(address, 8))


class _Capsule:
    """A DLPack capsule dressed as a producer, the form `from_dlpack` takes."""

    def __init__(self, capsule):
        self.capsule = capsule
        self.device = _capsule_device(capsule)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


@_registry.register
class DLTensorPythonFunction(_function.FunctionOperator):
    schema = Schema(
        "dl_tensor_python_function", inputs=(0, -1), outputs=_function.outputs_in_pipeline,
        devices=("cpu", "gpu"), class_name="DLTensorPythonFunction", no_prune=True,
        serializable=False,
        doc="Executes a Python function that operates on DLPack tensors.\n\n"
            "The function gets the input samples as DLPack capsules (zero-copy views; read "
            "them with a framework's `from_dlpack`, e.g. `torch.utils.dlpack.from_dlpack`) and "
            "returns DLPack capsules (or objects with a `__dlpack__` method): one per output, "
            "as a tuple when `num_outputs` > 1. With batch processing (the default, as in "
            "DALI's Python wrapper) it is called once per batch with one list of capsules per "
            "input and returns lists. The function must not modify its inputs.\n\n"
            "It must be used while a pipeline is being defined. It works with every executor "
            "setting and, unlike DALI, in debug mode. It is never pruned from the graph, and "
            "it cannot be serialized.",
        args=[
            Arg("function", T.PYTHON_OBJECT, REQUIRED,
                doc="A callable object that defines the function of the operator. It should "
                    "not hold a reference to its pipeline."),
            Arg("num_outputs", T.INT32, 1, doc="Number of outputs."),
            Arg("batch_processing", T.BOOL, True,
                doc="Call the function once per batch with lists of DLPack tensors, instead "
                    "of once per sample (DALI's schema says the default is False, its Python "
                    "wrapper passes True; this is the wrapper's default)."),
            Arg("output_layouts", T.PYTHON_OBJECT, None,
                doc="Layout of the outputs: one layout string for every output, or a list "
                    "with one per output (outputs past its end get no layout)."),
            Arg("synchronize_stream", T.BOOL, True,
                doc="Synchronize DALI's CUDA stream before calling the function.",
                ignored="on the GPU the stream is always synchronized before the function "
                        "runs, and the device after it; there is no stream on the CPU"),
        ])

    def to_function(self, sample):
        # numpy exports a read-only array only in DLPack 1.0 capsules, which few readers take.
        if isinstance(sample, np.ndarray) and not sample.flags.writeable:
            sample = sample.copy()
        return sample.__dlpack__()

    def device_value(self, value):
        return _Capsule(value) if isinstance(value, _CAPSULE) else value

    def from_function(self, value):
        if isinstance(value, _CAPSULE):
            return np.from_dlpack(_Capsule(value))
        if hasattr(value, "__dlpack__"):
            return np.from_dlpack(value)
        return None

    def returned_kind(self):
        return "DLPack tensors (capsules, or objects with a __dlpack__ method)"
