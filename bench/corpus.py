"""Where the benchmark corpus is, and how to make it when it is missing.

The corpus is 2000 ImageNet-like JPEGs in <root>/<class>/*.jpg made by the project's shared
script `make_corpus.py` (deterministic; real photographs bundled with scikit-image).  It is
complete once <root>/MANIFEST.txt exists (the script writes it last).

Lookup order: $DALI_BENCH_CORPUS (made there if missing), then a cache directory
($XDG_CACHE_HOME or ~/.cache)/dali-bench/corpus, made there if missing.

The large-photo corpus (`LARGE`: 256 camera-sized JPEGs, `make_corpus.py --n 256 --scale 6`,
mean 6.8 MP) is found the same way: $DALI_BENCH_LARGE_CORPUS, then .../dali-bench/big.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys

ENV_ROOT = "DALI_BENCH_CORPUS"
ENV_SCRIPT = "DALI_BENCH_MAKE_CORPUS"
N_IMAGES = 2000


@dataclasses.dataclass(frozen=True)
class Kind:
    """A corpus: its environment variable, cache folder name and make_corpus.py options."""

    env: str
    folder: str
    n: int
    scale: int | None = None


IMAGENET = Kind(ENV_ROOT, "corpus", N_IMAGES)
LARGE = Kind("DALI_BENCH_LARGE_CORPUS", "big", 256, scale=6)
_REPO = pathlib.Path(__file__).resolve().parent.parent


class CorpusUnavailable(RuntimeError):
    """The corpus is missing and cannot be made here (the message says why)."""


def is_complete(root):
    return (pathlib.Path(root) / "MANIFEST.txt").is_file()


def cache_root(kind=IMAGENET):
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "dali-bench" / kind.folder


def find_script():
    """Path of make_corpus.py: $DALI_BENCH_MAKE_CORPUS, or shared/bench/ inside or beside the
    repository (../shared/bench/); None when none exists."""
    candidates = [os.environ.get(ENV_SCRIPT), _REPO / "shared/bench/make_corpus.py",
                  _REPO.parent / "shared/bench/make_corpus.py"]
    for c in candidates:
        if c and pathlib.Path(c).is_file():
            return pathlib.Path(c)
    return None


def make(root, kind=IMAGENET):
    """Generate the corpus into `root` with make_corpus.py (a few minutes on two cores; the
    large one about ten)."""
    script = find_script()
    if script is None:
        raise CorpusUnavailable(
            f"no benchmark corpus at {root} and make_corpus.py was not found; set {kind.env} to "
            f"a corpus directory or {ENV_SCRIPT} to the script")
    missing = [m for m in ("PIL", "skimage") if importlib.util.find_spec(m) is None]
    if missing:
        raise CorpusUnavailable(
            f"no benchmark corpus at {root}; making one needs {', '.join(missing)} "
            f"(pip install pillow scikit-image), or set {kind.env} to an existing corpus")
    root = pathlib.Path(root)
    partial = root.with_name(root.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    print(f"making the benchmark corpus ({kind.n} images) in {root} with {script}",
          file=sys.stderr)
    scale = ["--scale", str(kind.scale)] if kind.scale else []
    subprocess.run([sys.executable, str(script), "--out", str(partial), "--n", str(kind.n),
                    *scale], check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(root, ignore_errors=True)
    partial.rename(root)
    return root


def locate(create=True, kind=IMAGENET):
    """The root (a pathlib.Path) of corpus `kind`, made first when missing and `create` is
    true.

    Raises
    ------
    CorpusUnavailable
        When there is none and it cannot (or may not) be made.
    """
    env = os.environ.get(kind.env)
    roots = [pathlib.Path(env)] if env else [cache_root(kind)]
    for root in roots:
        if is_complete(root):
            return root
    if not create:
        raise CorpusUnavailable(f"no complete benchmark corpus in {', '.join(map(str, roots))}")
    return make(roots[-1], kind)
