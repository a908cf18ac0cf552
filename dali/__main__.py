"""Command line: `python -m dali demo [--out FILE]`."""

import argparse
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
    docs = sub.add_parser("docs", help="regenerate the operator reference (docs/operators.md)")
    docs.add_argument("--out", default="docs/operators.md")
    args = parser.parse_args(argv)
    if args.command == "demo":
        _demo.main(args.out, args.batch_size, args.num_threads, args.seed)
    elif args.command == "docs":
        with open(args.out, "w") as f:
            f.write(_docgen.operator_reference())
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
