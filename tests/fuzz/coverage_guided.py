"""Coverage-guided fuzzing of the header parsers and decoders with atheris, where installed.

``python -m tests.fuzz --atheris [RUNS]`` runs in this process (atheris detects crashes itself)
with the address space capped at `--memory-mb` beyond what the process has mapped when it
starts, starting from the seeds; Python exceptions other than the
decoders' sample errors are findings, and atheris writes each crashing input to the current
directory (copy it to regressions/ to keep it).  Without atheris it says so and exits cleanly.
"""

from __future__ import annotations

import resource
import sys
import tempfile

from . import seeds


def main(runs, memory):
    try:
        import atheris  # optional: only this mode needs it
    except ImportError:
        print("atheris is not installed (pip install atheris): coverage-guided mode skipped")
        return 0
    with atheris.instrument_imports():
        from dali.ops.decoders import _formats  # noqa: F401 - instrumented
    from dali._ext.buffer_pool import default_pool

    from . import worker  # dali after the instrumentation
    pipes = [worker.build(t) for t in (worker.types.RGB, worker.types.ANY_DATA)]
    # `memory` more than what the instrumented process has mapped already (libFuzzer and
    # atheris take over a gigabyte): a cap of `memory` in all left decoding next to nothing,
    # and any allocation (an exception's message) failed with a bare MemoryError
    mapped = _mapped_bytes()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + memory, mapped + memory))

    pool = default_pool()

    def one_input(data):
        pool.trim()                  # the cached blocks of earlier inputs would fill the cap
        result = worker.decode(pipes[len(data) % 2], data, 0)
        if result["status"] == "unexpected":
            raise RuntimeError(result["error"])

    corpus = tempfile.mkdtemp(prefix="dali-fuzz-corpus-")
    for name, (_, data) in seeds.seeds().items():
        with open(f"{corpus}/{name}", "wb") as f:
            f.write(data)
    limit_mb = (mapped + memory) // 2 ** 20     # libFuzzer's own RSS limit: the same cap
    atheris.Setup([sys.argv[0], f"-runs={runs}", f"-rss_limit_mb={limit_mb}", corpus],
                  one_input)
    atheris.Fuzz()
    return 0


def _mapped_bytes():
    """The process's mapped size (Linux: /proc/self/statm), 0 where it cannot be read."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0
