"""The CPU check that runs before any other compiled module of dali is loaded.

`setup.py` compiles the extensions with `-march=x86-64-v2` (or `$DALI_MARCH`) and records in the
generated `dali/_ext/_build_info.py` which instruction sets that level lets the compiler use.
This module alone is compiled for the baseline instruction set, so it runs on every x86-64 CPU;
`dali/_ext/__init__.py` calls `check` with the record, and a CPU that lacks something gets an
ImportError that says what and how to rebuild, instead of a SIGILL in the middle of a kernel.
Other architectures, and compilers without `__builtin_cpu_supports`, are not checked.
"""

cdef extern from "cpu_features.h" nogil:
    int DALI_CPU_CHECKS
    int dali_cpu_has(const char *name)


CHECKED = bool(DALI_CPU_CHECKS)


def has(str feature):
    """Whether this CPU has `feature` (a name of `__builtin_cpu_supports`, e.g. ``"sse4.2"``);
    None when it cannot be asked (a name this check does not know, or not an x86 CPU)."""
    cdef bytes name = feature.encode("ascii")
    cdef int answer = dali_cpu_has(name)
    return None if answer < 0 else bool(answer)


def missing(features, has=has):
    """The names in `features` that `has` says this CPU lacks (unknown answers are skipped)."""
    return [f for f in features if has(f) is False]


def check(flags, features, has=has):
    """Raise ImportError if this CPU lacks one of `features`, which the build with `flags`
    (e.g. ``"-march=x86-64-v2"``) let the compiler use."""
    lacking = missing(features, has)
    if lacking:
        raise ImportError(
            f"dali was compiled with {flags}, which lets the compiler use instruction sets this "
            f"processor lacks: {', '.join(lacking)}. Its kernels would stop the process with an "
            "illegal instruction. Rebuild it on this machine for the compiler's default "
            "instruction set: `DALI_MARCH= pip install --force-reinstall --no-cache-dir .` "
            "from the source tree (or `DALI_MARCH= python setup.py build_ext --inplace --force` "
            "in a checkout); `DALI_MARCH=native` builds for exactly this CPU.")
