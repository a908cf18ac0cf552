"""io.file.read: the paths of the 64 "jpeg" samples written by `file_root` (the readers'
directory), as uint8 byte strings ("paths" input kind)."""

import os

import numpy as np

from bench import opcase
from bench.opcase import file_root, unary


@opcase.input_kind("paths")
def _paths(size, batch_size):
    root = file_root(size)
    names = sorted(os.path.join(root, d, f) for d in os.listdir(root)
                   for f in os.listdir(os.path.join(root, d)))
    return [np.frombuffer(names[i % len(names)].encode(), np.uint8)
            for i in range(batch_size)], None


CASE_LIST = [unary("io.file.read", kind="paths")]
