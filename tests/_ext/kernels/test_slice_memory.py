"""The slice kernel's index maps that cannot be allocated (std::bad_alloc in its C++ setup)
are a MemoryError naming the operator, not an aborted process: a slice of 30 M rows (240 MB of
index map) under an address-space limit (RLIMIT_AS, in a subprocess) that leaves 120 MB."""

from __future__ import annotations

import subprocess
import sys
import textwrap

_CHILD = """
import os, resource
import numpy as np
from dali import fn, pipeline_def

data = np.ones((30_000_000, 2), np.uint8)

@pipeline_def(batch_size=1, num_threads=1, device_id=None, exec_async=False,
              exec_pipelined=False)
def pipe():
    x = fn.external_source(source=lambda: [data], batch=True)
    return fn.slice(x, start=[0, 0], shape=[30_000_000, 1], axes=[0, 1])

def mapped():
    return int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")

p = pipe()
p.build()
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
print("first", np.array(p.run()[0][0]).shape)
resource.setrlimit(resource.RLIMIT_AS, (mapped() + (120 << 20), hard))
try:
    print("ran", np.array(p.run()[0][0]).shape)
except Exception as e:
    print("error", type(e.__cause__).__name__, str(e).replace("\\n", " | "))
resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
print("after", int(np.array(p.run()[0][0]).sum()))
"""


def test_unallocatable_index_maps_are_a_memory_error():
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_CHILD)], capture_output=True,
                         text=True, timeout=300)
    out = run.stdout.splitlines()
    assert run.returncode == 0, run.stderr[-2000:]
    assert out[0] == "first (30000000, 1)"
    assert out[1].startswith("error MemoryError"), out
    assert "fn.slice" in out[1] and "cannot allocate the slice kernel's index maps" in out[1]
    assert out[2] == "after 30000000"
