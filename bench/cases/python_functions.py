"""The Python-function operators beyond python_function (whose case is in tensor.py):
dl_tensor_python_function runs the identity, the cost of the escape hatch itself;
plugin.numba's numba_function copies the samples in a compiled loop (per sample, on the
pipeline's threads)."""

import importlib

from bench.opcase import OpCase, unary


def _same_capsules(capsules):
    return capsules


def _copy(out, inp):
    out[:] = inp


def _numba_copy(fn, types, x, size):
    root = fn.__name__.rsplit(".", 1)[0]               # "dali" or "nvidia.dali"
    plugin = importlib.import_module(root + ".plugin.numba.fn.experimental")
    return plugin.numba_function(x, run_fn=_copy, out_types=[types.UINT8],
                                 in_types=[types.UINT8], outs_ndim=[3], ins_ndim=[3])


CASE_LIST = [
    unary("dl_tensor_python_function", function=_same_capsules),
    OpCase("numba_function", None, _numba_copy, modules=("numba",)),
]
