"""Record the `fn` paths of every operator real DALI 2.4 has (dali/data/dali_operators.txt), so
that `dali.fn.<name>` of one dali does not implement yet says so.

Run: `python tests/goldens/make_dali_operators.py` (needs nvidia-dali-cuda120==2.4.0).
"""

import inspect
import pathlib
import types

import nvidia.dali as dali_pkg
import nvidia.dali.fn as fn

OUT = pathlib.Path(__file__).parents[2] / "dali" / "data" / "dali_operators.txt"


def fn_paths(module, prefix=""):
    for name in dir(module):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith("nvidia.dali.fn"):
                yield from fn_paths(value, f"{prefix}{name}.")
        elif callable(value) and not inspect.isclass(value):
            yield prefix + name


if __name__ == "__main__":
    names = sorted(set(fn_paths(fn)))
    OUT.write_text(f"# fn paths of NVIDIA DALI {dali_pkg.__version__}'s operators, recorded by "
                   f"tests/goldens/make_dali_operators.py\n" + "\n".join(names) + "\n")
    print(f"wrote {len(names)} names to {OUT}")
