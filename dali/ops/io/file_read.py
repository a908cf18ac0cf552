"""fn.io.file.read: the contents of the files whose paths are the input's samples.

Each input sample is a path encoded as bytes (uint8 or int8; as DALI, the path ends at the
first NUL byte, so a padded buffer works), e.g. `np.frombuffer(path.encode(), np.uint8)`.
Each output sample is the file's bytes (uint8, 1-D, no layout).  The batch's files are
examined and read in C without the GIL (`dali._ext.files.open_files`), one path lookup per
file.  An empty file gives an empty sample (DALI fails to map it).
"""

from __future__ import annotations

import os

import numpy as np

from dali import _operator, _registry
from dali._ext import files
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T


@_registry.register
class FileRead(_operator.Operator):
    schema = Schema(
        "io.file.read", inputs=1, outputs=1, devices=("cpu",), class_name="Read",
        doc="Reads the raw contents of files named by the input: each sample is a path "
            "encoded as a 1-D uint8 or int8 array (it ends at the first NUL byte). The "
            "output sample is the file's bytes (uint8, 1-D).",
        args=[
            Arg("dont_use_mmap", T.BOOL, False, doc="Use plain reads instead of memory "
                "mapping.", ignored="files are always read with plain reads"),
            Arg("use_o_direct", T.BOOL, False,
                doc="Read bypassing the system's page cache.",
                ignored="files are read through the page cache"),
        ])

    def infer(self, ws):
        dtype = ws.input_dtype(0)
        if dtype not in (np.uint8, np.int8):
            raise self.error(f"Unexpected input data type: {dtype} (the paths must be uint8 "
                             "or int8 bytes)", TypeError)
        paths = [bytes(s.reshape(-1).view(np.uint8)).partition(b"\0")[0]
                 for s in ws.input_samples(0)]
        return _operator.Plan([_operator.OutputDesc(None, np.uint8, "", ndim=1)], paths=paths)

    def run_cpu(self, ws, plan):
        paths = plan.paths
        opened = files.open_files(paths)
        if opened.failure is not None:
            i, err = opened.failure
            raise ws.sample_error(i, f"cannot read {os.fsdecode(paths[i])}: "
                                     f"{os.strerror(err)}", RuntimeError)
        storage = BatchStorage.allocate(np.uint8, opened.sizes.reshape(-1, 1), ndim=1)
        failure = opened.read_into(storage.samples())
        if failure is not None:
            i, err, got = failure
            why = os.strerror(err) if err else "it changed while it was read"
            raise ws.sample_error(i, f"cannot read {os.fsdecode(paths[i])}: {why}",
                                  RuntimeError)
        ws.outputs[0] = storage
