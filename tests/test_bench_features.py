"""bench/features.py: the profiler-overhead table from a measurement's numbers."""

from __future__ import annotations

import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import features  # noqa: E402


def test_profiler_table_gives_the_recording_cost_as_a_share_of_a_p2_batch():
    res = {"off": [1000.0, 1100.0, 900.0], "on": [1050.0, 950.0, 1000.0],
           "us_per_op": {"off": [10.0, 11.0, 12.0], "on": [10.5, 11.4, 12.8]},
           "operators": 8}
    text = features.profiler_table(res)
    # per-repeat differences 0.5, 0.4, 0.8 µs: median 0.5; 8 operators in a batch of 64
    # images at 1000 images/s (64 ms): 0.5 * 8 / 64000 = 0.00625%
    assert "| off | 1000.0 | 11.00 |" in text
    assert "| on (Pipeline.profile) | 1000.0 | 11.40 |" in text
    assert "Recording costs +0.50 µs per operator run" in text
    assert "P2 runs 8 operators a batch of 64.0 ms, so its overhead is **+0.006%**" in text
    assert "P2's own images/s differ by +0.00%" in text
