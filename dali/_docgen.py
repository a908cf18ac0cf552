"""Generate docs/operators.md, the operator reference, and the list of arguments without effect
in docs/differences.md (between its `IGNORED_BEGIN`/`IGNORED_END` markers), from the registered
schemas."""

from __future__ import annotations

from dali import _registry, ops  # noqa: F401  (importing ops registers every operator)

_HEADER = """# Operator reference

Generated from the operator schemas by `python -m dali docs`; do not edit by hand.
Each operator is available as `dali.fn.<name>` (functional API) and `dali.ops.<Class>` (class
API). Arguments marked *per-sample* also accept a DataNode (one value per sample). Arguments
marked *not implemented* are accepted with their default value only; any other value raises
`NotImplementedError`. Arguments marked *no effect* are accepted for compatibility and do
nothing here (the note says why); they are also listed in docs/differences.md.
"""


def _default(arg):
    if arg.required:
        return "required"
    if arg.default is None:
        return "—"
    return f"`{arg.default!r}`"


def _escape(text):
    return " ".join(text.split()).replace("|", "\\|")


def operator_reference() -> str:
    """The markdown text of the operator reference."""
    public = sorted((impl for impl in _registry.all_operators().values()
                     if not impl.schema.internal and not impl.schema.name.startswith("test_")),
                    key=lambda impl: impl.schema.name)
    lines = [_HEADER, "## Contents", ""]
    lines += [f"- [`fn.{i.schema.name}`](#fn{i.schema.name.replace('.', '').replace('_', '')})"
              for i in public]
    for impl in public:
        s = impl.schema
        cls = ".".join([*s.module, s.class_name])
        lines += ["", f"## fn.{s.name}", "",
                  f"Class API: `ops.{cls}`. Devices: {', '.join(s.devices)}. "
                  f"Signature: `fn.{s.name}{s.signature()}`", "", s.doc.strip(), "",
                  "| argument | type | default | notes |", "|---|---|---|---|"]
        for a in sorted(s.args, key=lambda a: a.name):
            notes = []
            if a.tensor:
                notes.append("per-sample")
            if not a.implemented:
                notes.append("not implemented")
            if a.alias_of:
                notes.append(f"deprecated alias of `{a.alias_of}`")
            elif a.deprecated:
                notes.append("deprecated")
            if a.ignored:
                notes.append(f"no effect: {_escape(a.ignored)}")
            doc = _escape(a.doc)
            note = ", ".join(notes)
            lines.append(f"| `{a.name}` | {_escape(a.type_doc())} | {_default(a)} | "
                         f"{'*' + note + '*. ' if note else ''}{doc} |")
    return "\n".join(lines) + "\n"


IGNORED_BEGIN = "<!-- generated: ignored arguments -->"
IGNORED_END = "<!-- end of generated list -->"


def with_ignored_arguments(differences: str) -> str:
    """The text of docs/differences.md with its generated list brought up to date."""
    head, rest = differences.split(IGNORED_BEGIN, 1)
    tail = rest.split(IGNORED_END, 1)[1]
    return f"{head}{IGNORED_BEGIN}\n{ignored_arguments()}{IGNORED_END}{tail}"


def ignored_arguments() -> str:
    """The markdown list of arguments accepted without effect, for docs/differences.md."""
    lines = []
    for impl in sorted(_registry.all_operators().values(), key=lambda i: i.schema.name):
        s = impl.schema
        if s.internal or s.name.startswith("test_"):
            continue
        for a in sorted(s.args, key=lambda a: a.name):
            if a.ignored:
                lines.append(f"- `fn.{s.name}`, `{a.name}`: {_escape(a.ignored)}.")
    return "\n".join(lines) + "\n"
