"""The block the buffer pool maps for a decoded batch counts against RLIMIT_AS: a tiny TIFF
declaring 14142 x 14142 pixels (a coverage-guided finding, kept in regressions/) under an
address-space limit between its 600 MB and the pool's 805 MB block is a sample error naming the
operator, the sample and the declared size, not a bare MemoryError from the pool."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from dali._ext.buffer_pool import BufferPool

from . import runner

TIFF = runner.REGRESSIONS / "rlimit-tiff-248e6ac42a62.bin"

_CHILD = """
import os, resource, sys
import numpy as np
from dali import fn, pipeline_def, types
from dali._executor.errors import SampleError
from dali._ext.buffer_pool import BufferPool

data = np.fromfile(sys.argv[1], np.uint8)

@pipeline_def(batch_size=1, num_threads=1, device_id=None)
def pipe():
    return fn.decoders.image(fn.external_source(source=lambda: [data], batch=True),
                             output_type=types.RGB)

p = pipe()
p.build()
total = 14142 * 14142 * 3
mapped = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
cap = mapped + (total + BufferPool.mapped_for(total)) // 2
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
try:
    p.run()
    print("decoded")
except Exception as e:
    print(type(e.__cause__).__name__, str(e))
"""


def test_mapped_for_is_what_a_fresh_lease_holds():
    for nbytes in (0, 1, 300, 4096, 1 << 20, (1 << 20) + 1, 5_000_000):
        assert BufferPool().lease(nbytes).capacity == BufferPool.mapped_for(nbytes) >= nbytes
    assert BufferPool.mapped_for(599_988_492) == 805_306_368      # 1.5 x 2**29
    with pytest.raises(ValueError, match="no lease has -1 bytes"):
        BufferPool.mapped_for(-1)


def test_a_lease_the_address_space_limit_cannot_hold_is_a_sample_error():
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(_CHILD), str(TIFF)],
                         capture_output=True, text=True, timeout=300).stdout
    assert out.startswith("SampleError"), out
    assert "decoders.image" in out and "in sample 0" in out
    assert "the decoded batch would take 599988492 bytes (a 805306368-byte block of the " \
           "buffer pool), more than the" in out
    assert "the largest image, this one, is 14142 x 14142 x 3" in out
