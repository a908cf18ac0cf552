"""Kernel programs: the launches of one GPU operator's batch, in order, sharing scratch buffers
(what the host helpers of several-pass kernels return: `_convolution_gpu`,
`_preemphasis_filter_gpu`, `_to_decibels_gpu`).  Pure numpy.

A launch's `args` are what its kernel takes: numpy arrays (descriptors, parameters: uploaded for
the launch), numpy scalars, and the names of buffers - "src" and "dst" (the operator's input and
output batches) and the scratch buffers of `Program.temps`, which `run` binds on a device and
the tests bind to host arrays.
"""

from __future__ import annotations

import typing

import numpy as np


class Launch(typing.NamedTuple):
    module: str                 # the .cu file
    kernel: str
    grid: tuple
    block: tuple
    args: tuple


class Program(typing.NamedTuple):
    launches: list
    temps: dict                 # name -> bytes (uninitialised) or a numpy array (its contents)


def run(device, program, src, dst):
    """Queue `program` on `device` (`dali._gpu.runtime.Device`) with the device batches `src`
    and `dst`; the scratch buffers are allocated (or uploaded) on it and kept until the
    stream's work is done."""
    buffers = {"src": src, "dst": dst}
    for name, temp in program.temps.items():
        buf = device.upload(temp) if isinstance(temp, np.ndarray) else device.alloc(temp)
        device.keep(buf)
        buffers[name] = buf
    for launch in program.launches:
        device.launch(launch.module, launch.kernel, launch.grid, launch.block,
                      tuple(buffers[a] if isinstance(a, str) else a for a in launch.args))
