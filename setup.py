"""Build the Cython core (_ext/*.pyx) into dali._ext.*."""
import pathlib

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

ROOT = pathlib.Path(__file__).parent
DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}


def cython_include_dir():
    """Mirror _ext/**/*.pxd as dali/_ext/**/*.pxd under build/, where Cython looks for them.

    The extensions are modules of the package dali._ext, so Cython resolves their .pxd files (and
    `cimport dali._ext.x`) by package path; the sources live in the top-level _ext/ folder.
    """
    inc = ROOT / "build" / "cython_include"
    pkg = inc / "dali" / "_ext"
    for pxd in (ROOT / "_ext").rglob("*.pxd"):
        dst = pkg / pxd.relative_to(ROOT / "_ext")
        dst.parent.mkdir(parents=True, exist_ok=True)
        if not dst.exists() or dst.read_bytes() != pxd.read_bytes():
            dst.write_bytes(pxd.read_bytes())
    for d in [inc / "dali", *[p for p in pkg.rglob("*") if p.is_dir()], pkg]:
        (d / "__init__.pxd").touch()
    return inc


def extensions():
    inc = cython_include_dir()
    exts = []
    for pyx in sorted((ROOT / "_ext").rglob("*.pyx")):
        rel = pyx.relative_to(ROOT / "_ext").with_suffix("")
        name = "dali._ext." + ".".join(rel.parts)
        exts.append(
            Extension(
                name,
                [str(pyx.relative_to(ROOT))],
                include_dirs=[numpy.get_include(), str(ROOT / "_ext")],
                extra_compile_args=["-O3", "-std=c++17", "-fno-strict-aliasing"],
                language="c++",
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            )
        )
    return cythonize(exts, compiler_directives=DIRECTIVES, include_path=[str(inc)])


setup(ext_modules=extensions())
