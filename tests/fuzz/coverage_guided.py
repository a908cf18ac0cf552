"""Coverage-guided fuzzing of the header parsers and decoders with atheris, where installed.

``python -m tests.fuzz --atheris [RUNS]`` runs in this process (atheris detects crashes itself)
with the address space capped, starting from the seeds; Python exceptions other than the
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
    from . import worker  # dali after the instrumentation
    pipes = [worker.build(t) for t in (worker.types.RGB, worker.types.ANY_DATA)]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    def one_input(data):
        result = worker.decode(pipes[len(data) % 2], data, 0)
        if result["status"] == "unexpected":
            raise RuntimeError(result["error"])

    corpus = tempfile.mkdtemp(prefix="dali-fuzz-corpus-")
    for name, (_, data) in seeds.seeds().items():
        with open(f"{corpus}/{name}", "wb") as f:
            f.write(data)
    atheris.Setup([sys.argv[0], f"-runs={runs}", corpus], one_input)
    atheris.Fuzz()
    return 0
