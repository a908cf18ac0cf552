"""Build the Cython core (_ext/*.pyx) into dali._ext.*.

Environment variables (docs/developing.md, "Build and test"):
- `DALI_BUILD_ONLY=kernels/flip,executor`: build only these extensions (paths under _ext/).
- `DALI_MARCH=level`: `-march=level` for the extensions (default `x86-64-v2` on x86-64; empty:
  the compiler's default).  `_ext/cpu.pyx` alone is built for the baseline, and refuses to let
  the others load on a CPU that lacks what the level assumes (dali/_ext/__init__.py).
- `DALI_REQUIRE_LIBJPEG_TURBO=1`: stop with an error when libjpeg-turbo cannot be linked,
  instead of building without the JPEG kernel.

The compiler is probed by running it (`$CC`, else the compiler Python was built with), and what
the build assumed is written to dali/_ext/_build_info.py.
"""
import os
import pathlib
import platform
import re
import runpy
import shlex
import subprocess
import sys
import sysconfig
import tempfile

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).parent
DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}
X86 = platform.machine().lower() in ("x86_64", "amd64")
# The extension built for the baseline instruction set, which checks the CPU for the others.
CPU_CHECK = "cpu"
JPEG = "kernels/jpeg"
EMPTY_MAIN = "int main(void) { return 0; }\n"


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


def run_compiler(source, *args):
    """Run the C compiler on `source` (C code) with `args` in a scratch folder: the completed
    process, or None when there is no compiler to run (e.g. MSVC, which has no `CC`)."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC")
    if not cc:
        return None
    flags = [f for var in ("CPPFLAGS", "CFLAGS") for f in shlex.split(os.environ.get(var, ""))]
    with tempfile.TemporaryDirectory() as tmp:
        (pathlib.Path(tmp) / "probe.c").write_text(source)
        try:
            return subprocess.run([*shlex.split(cc), *flags, "probe.c", *args], cwd=tmp,
                                  capture_output=True, text=True, check=False)
        except OSError:
            return None


def compiles(source, *args):
    done = run_compiler(source, *args)
    return done is not None and done.returncode == 0


def have_libjpeg_turbo():
    """Whether libjpeg-turbo (headers + library; jpeg_skip_scanlines is turbo's) links."""
    return compiles("#include <stdio.h>\n#include <jpeglib.h>\n"
                    "int main(void) { jpeg_skip_scanlines(0, 0); return 0; }\n",
                    "-o", "probe", *shlex.split(os.environ.get("LDFLAGS", "")), "-ljpeg")


def arch_flags():
    """The instruction-set flag: `-march=$DALI_MARCH` when that is set (empty: none), else on
    x86-64 `-march=x86-64-v2` (SSE4.2, every x86-64 CPU since 2009): the kernels' uint8 <->
    float conversions vectorize with it, ~3x faster than with the SSE2 baseline."""
    march = os.environ.get("DALI_MARCH")
    if march is None:
        march = "x86-64-v2" if X86 else ""
    flag = f"-march={march}"
    return [flag] if march and compiles(EMPTY_MAIN, "-c", flag) else []


def cpu_features(arch):
    """The x86 extensions (names of _ext/cpu_features.h) the compiler may use with `arch`: those
    whose `__NAME__` macro it defines (`sse4.1` <- `__SSE4_1__`)."""
    known = re.findall(r'X\("([^"]+)"\)', (ROOT / "_ext" / "cpu_features.h").read_text())
    done = run_compiler("", *arch, "-dM", "-E")
    if done is None or done.returncode != 0:
        return []
    macros = set(re.findall(r"#define (__\w+__) 1", done.stdout))
    return [f for f in known if "__" + f.upper().replace(".", "_") + "__" in macros]


def no_libjpeg_turbo():
    """Build without the JPEG kernel, loudly (the text to print); or stop when
    DALI_REQUIRE_LIBJPEG_TURBO=1."""
    install = ["Install libjpeg-turbo's headers (Debian/Ubuntu: libjpeg-turbo8-dev or",
               "libjpeg62-turbo-dev; Fedora: libjpeg-turbo-devel; macOS: brew install jpeg-turbo",
               "and CFLAGS=-I<prefix>/include LDFLAGS=-L<prefix>/lib) and reinstall."]
    if os.environ.get("DALI_REQUIRE_LIBJPEG_TURBO", "") not in ("", "0"):
        sys.exit("\n".join(["error: DALI_REQUIRE_LIBJPEG_TURBO is set, and libjpeg-turbo "
                            "(jpeglib.h, -ljpeg) was not found.", *install]))
    what = ["libjpeg-turbo was not found: dali is built WITHOUT its JPEG decoder, and JPEGs",
            "will be decoded by OpenCV (slower, and pixels may differ from DALI's).", *install,
            "DALI_REQUIRE_LIBJPEG_TURBO=1 makes this an error."]
    return "\n".join(["", "!" * 80, *("!! " + line for line in what), "!" * 80, ""])


def build_info(selected, arch):
    """What this build assumed, merged with the record of an earlier full build when only some
    extensions are rebuilt (they all load into one process)."""
    info = {"MARCH": tuple(arch), "CPU_FEATURES": tuple(cpu_features(arch)), "LIBJPEG_TURBO": None}
    if JPEG in selected:
        info["LIBJPEG_TURBO"] = have_libjpeg_turbo()
    return info


class BuildExt(build_ext):
    """build_ext that writes dali/_ext/_build_info.py beside the extensions and repeats the
    libjpeg-turbo warning at the end of the output; compiles the extensions side by side (one job
    per core, unless -j says otherwise)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1

    def run(self):
        super().run()
        base = ROOT if self.inplace else pathlib.Path(self.build_lib)
        path = base / "dali" / "_ext" / "_build_info.py"
        info = dict(BUILD_INFO)
        if os.environ.get("DALI_BUILD_ONLY") and path.exists():
            old = runpy.run_path(str(path))
            info["MARCH"] = tuple(dict.fromkeys([*old.get("MARCH", ()), *info["MARCH"]]))
            info["CPU_FEATURES"] = tuple(
                dict.fromkeys([*old.get("CPU_FEATURES", ()), *info["CPU_FEATURES"]]))
            if info["LIBJPEG_TURBO"] is None:
                info["LIBJPEG_TURBO"] = old.get("LIBJPEG_TURBO")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('"""Written by setup.py: what this build of dali._ext assumed."""\n\n'
                        + "".join(f"{k} = {v!r}\n" for k, v in info.items()))
        if info["LIBJPEG_TURBO"] is False:
            print(no_libjpeg_turbo(), file=sys.stderr)


def extensions(selected, arch):
    inc = cython_include_dir()
    exts = []
    for rel in selected:
        name = "dali._ext." + rel.replace("/", ".")
        libraries = []
        flags = ["-O3", "-std=c++17", "-fno-strict-aliasing", *arch]
        if rel == CPU_CHECK:                      # the baseline, whatever the compiler's default
            flags = [f for f in ["-march=x86-64"] if X86 and compiles(EMPTY_MAIN, "-c", f)]
        if rel == JPEG:
            if not BUILD_INFO["LIBJPEG_TURBO"]:
                print(no_libjpeg_turbo(), file=sys.stderr)
                continue
            libraries.append("jpeg")
        exts.append(
            Extension(
                name,
                [f"_ext/{rel}.pyx"],
                libraries=libraries,
                include_dirs=[numpy.get_include(), str(ROOT / "_ext"),
                              str((ROOT / "_ext" / rel).parent)],
                extra_compile_args=flags,
                language="c++",
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            )
        )
    return cythonize(exts, compiler_directives=DIRECTIVES, include_path=[str(inc)],
                     nthreads=os.cpu_count() or 1)


ALL = sorted(p.relative_to(ROOT / "_ext").with_suffix("").as_posix()
             for p in (ROOT / "_ext").rglob("*.pyx"))
ONLY = os.environ.get("DALI_BUILD_ONLY")             # e.g. "kernels/flip,executor"
SELECTED = [rel for rel in ALL if not ONLY or rel in ONLY.split(",")]
ARCH = arch_flags()
BUILD_INFO = build_info(SELECTED, ARCH)

setup(ext_modules=extensions(SELECTED, ARCH), cmdclass={"build_ext": BuildExt})
