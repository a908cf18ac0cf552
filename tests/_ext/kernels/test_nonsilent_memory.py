"""The nonsilent kernel's short-term power buffer that cannot be allocated is a MemoryError
naming the operator and the sample, not an aborted process: a signal of 60 M int16 values
(240 MB of float powers) under an address-space limit (RLIMIT_AS, in a subprocess) that leaves
120 MB."""

from __future__ import annotations

import subprocess
import sys
import textwrap

_CHILD = """
import os, resource
import numpy as np
from dali import fn, pipeline_def

data = np.ones(60_000_000, np.int16)

@pipeline_def(batch_size=1, num_threads=1, device_id=None, exec_async=False,
              exec_pipelined=False)
def pipe():
    x = fn.external_source(source=lambda: [data], batch=True)
    begin, length = fn.nonsilent_region(x)
    return begin, length

def mapped():
    return int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")

p = pipe()
p.build()
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
print("first", [int(np.array(t[0])) for t in p.run()])
resource.setrlimit(resource.RLIMIT_AS, (mapped() + (120 << 20), hard))
try:
    print("ran", [int(np.array(t[0])) for t in p.run()])
except Exception as e:
    print("error", type(e.__cause__).__name__, str(e).replace("\\n", " | "))
resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
print("after", [int(np.array(t[0])) for t in p.run()])
"""


def test_an_unallocatable_power_buffer_is_a_memory_error():
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_CHILD)], capture_output=True,
                         text=True, timeout=300)
    out = run.stdout.splitlines()
    assert run.returncode == 0, run.stderr[-2000:]
    assert out[0] == "first [0, 60000000]"
    assert out[1].startswith("error MemoryError"), out
    assert "fn.nonsilent_region" in out[1] and "sample 0: cannot allocate" in out[1]
    assert out[2] == "after [0, 60000000]"
