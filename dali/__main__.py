"""Command line: `python -m dali demo [--out FILE]` (also installed as the `dali` command)."""

import argparse
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
    docs = sub.add_parser("docs", help="regenerate docs/operators.md and the generated list in "
                                       "docs/differences.md")
    docs.add_argument("--dir", default="docs", help="the docs folder of the repository")
    args = parser.parse_args(argv)
    if args.command == "demo":
        _demo.main(args.out, args.batch_size, args.num_threads, args.seed)
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


if __name__ == "__main__":
    sys.exit(main())
