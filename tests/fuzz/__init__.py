"""Fuzzing the image decoders: `python -m tests.fuzz` (see docs/reliability.md).

A campaign takes tiny seed images of every format the decoders read (`seeds`), mutates them
(`mutate`: bit flips, truncation, header sizes set to zero, huge or negative values, duplicated
chunks) and decodes each through `fn.decoders.image` in worker subprocesses (`worker`) that run
under a memory cap (RLIMIT_AS) and a per-input timeout (`runner`).  A worker reports one line
per input: whether it decoded, was refused with a sample error (the expected outcome for bad
data), or failed in an unexpected way, with the size of its output and the peak RSS while it
was decoded.  A worker killed by a signal is a crash, one that stops answering is a hang; the
runner starts a new worker for the inputs left.  Every input that ever failed is kept under
`regressions/` and replayed by `test_fuzz.py`.
"""
