"""The Python-function operators beyond python_function (whose case is in tensor.py):
dl_tensor_python_function runs the identity, the cost of the escape hatch itself;
plugin.numba's numba_function copies the samples in a compiled loop (per sample, on the
pipeline's threads); dump_image writes the batch as PPM files into a scratch directory (the
process's working directory is moved there once, as dump_image writes where it runs)."""

import importlib
import os

from bench import opcase
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


def _dump_image(fn, types, x, size):
    os.chdir(opcase.scratch_dir("dump_image", lambda root: root))
    return fn.dump_image(x, suffix=size)


CASE_LIST = [
    unary("dl_tensor_python_function", function=_same_capsules),
    OpCase("numba_function", None, _numba_copy, modules=("numba",)),
    OpCase("dump_image", "dump_image", _dump_image),
]
