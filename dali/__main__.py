"""Command line (also installed as the `dali` command):

- `python -m dali demo [--out FILE]`: the Getting Started pipeline on bundled photos;
- `python -m dali profile module:function [--batch-size N] [--num-threads N] [--iterations N]
  [--svg FILE]`: profile a pipeline (`Pipeline.profile`);
- `python -m dali docs`: regenerate the generated docs of a checkout.
"""

import argparse
import importlib
import pathlib
import sys

from dali import _demo, _docgen


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m dali")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run the Getting Started pipeline on bundled photos")
    demo.add_argument("--out", default="dali_demo.png", help="contact sheet PNG to write")
    demo.add_argument("--batch-size", type=int, default=12)
    demo.add_argument("--num-threads", type=int, default=2)
    demo.add_argument("--seed", type=int, default=42)
    prof = sub.add_parser("profile", help="run a pipeline and report where the time goes")
    prof.add_argument("target", help="module:function, a @pipeline_def function (or a function "
                                     "defining a graph) importable from the current folder")
    prof.add_argument("--batch-size", type=int, default=64)
    prof.add_argument("--num-threads", type=int, default=4)
    prof.add_argument("--iterations", type=int, default=100)
    prof.add_argument("--warmup", type=int, default=5)
    prof.add_argument("--seed", type=int, default=None)
    prof.add_argument("--svg", default=None, help="also draw the report into this SVG file")
    docs = sub.add_parser("docs", help="regenerate docs/operators.md and the generated list in "
                                       "docs/differences.md")
    docs.add_argument("--dir", default="docs", help="the docs folder of the repository")
    args = parser.parse_args(argv)
    if args.command == "demo":
        _demo.main(args.out, args.batch_size, args.num_threads, args.seed)
    elif args.command == "profile":
        pipe = _profiled_pipeline(parser, args)
        report = pipe.profile(args.iterations, args.warmup, progress=True, svg=args.svg)
        print(report.table())
        if args.svg:
            print(f"\nwrote {args.svg}")
    elif args.command == "docs":
        folder = pathlib.Path(args.dir)
        if not (folder / "differences.md").is_file():
            parser.error(f"{folder}/differences.md not found: `docs` regenerates the docs of a "
                         "dali checkout; run it in the repository's root or pass --dir")
        (folder / "operators.md").write_text(_docgen.operator_reference())
        differences = folder / "differences.md"
        differences.write_text(_docgen.with_ignored_arguments(differences.read_text()))
        print(f"wrote {folder / 'operators.md'} and {differences}")
    return 0


def _profiled_pipeline(parser, args):
    """The pipeline `args.target` names, made with the command line's batch size, threads
    and seed."""
    from dali import pipeline_def

    module_name, _, attr = args.target.partition(":")
    if not module_name or not attr:
        parser.error(f"profile: expected module:function, got {args.target!r}")
    sys.path.insert(0, str(pathlib.Path.cwd()))
    try:
        func = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as e:
        parser.error(f"profile: cannot load {args.target}: {e}")
    if not getattr(func, "_is_pipeline_def", False):
        func = pipeline_def(func)
    return func(batch_size=args.batch_size, num_threads=args.num_threads, device_id=None,
                seed=args.seed)


if __name__ == "__main__":
    sys.exit(main())
