"""The convolution kernels report buffers they cannot allocate (MemoryError naming the
operator) instead of leaving the output unwritten: a blur run under an address-space limit
(RLIMIT_AS, in a subprocess) too small for its float buffers, then again without it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

_CHILD = """
import os, resource
import numpy as np
from dali import fn, pipeline_def

images = [np.full((2000, 2000, 3), v, np.uint8) for v in (10, 200)]
calls = []

def source():
    calls.append(None)
    return [images[min(len(calls) - 1, 1)]]

@pipeline_def(batch_size=1, num_threads=1, device_id=None, exec_async=False,
              exec_pipelined=False)
def pipe():
    data = fn.external_source(source=source, batch=True, layout="HWC")
    return fn.gaussian_blur(data, window_size=5), fn.laplacian(data, window_size=3)

p = pipe()
p.build()
p.run()                                  # the pool's blocks for both outputs, image 10
mapped = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (mapped + (60 << 20), hard))
try:
    blur, lap = p.run()                  # image 200: 190 MB of float buffers do not fit
    print("ran", int(np.array(blur[0])[1000, 1000, 0]))
except Exception as e:
    print("error", type(e.__cause__).__name__, str(e).replace("\\n", " | "))
resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
blur, lap = p.run()
print("after", int(np.array(blur[0])[1000, 1000, 0]), int(np.abs(np.array(lap[0])).max()))
"""


def test_unallocatable_buffers_are_a_memory_error():
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(_CHILD)], capture_output=True,
                         text=True, timeout=300).stdout.splitlines()
    assert out[0].startswith("error MemoryError"), out
    assert "gaussian_blur" in out[0] and "cannot allocate the convolution buffers" in out[0]
    assert out[-1] == "after 200 0"
