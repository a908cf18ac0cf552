"""Benchmark suites for dali, each able to run the same pipeline on real NVIDIA DALI.

`python -m pytest bench/ --benchmark-only` runs the pytest-benchmark suites;
`python -m bench.report` runs everything with interleaved repeats and updates bench/RESULTS.md.
"""
