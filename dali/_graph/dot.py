"""A built graph in Graphviz dot format.

`write` is `Pipeline.save_graph_to_dot_file`, in DALI's format (its `graph2dot`): per operator,
an edge to every consumer of its outputs (dotted when tensors are shown), with `show_tensors`
each output as a box (`<name>_cpu`, brackets of multi-output names made underscores) with
edges from its operator and to its consumers labelled by output and input index, a blank line
after each operator, and, as DALI's graph has them, one `__MakeContiguous_CpuToCpu_<output>`
node per pipeline output (dali makes outputs contiguous as they are returned).

`render` is `Pipeline.save_graph` (beyond DALI): the same graph drawn by Graphviz's `dot`
program, operators labelled with their schema name and mean time, coloured by device, the
slowest one marked, and edges labelled with the type, dimensions and layout of the data once
the pipeline has run.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess

_COLORS = {"cpu": "blue", "gpu": "#76b900", "mixed": "cyan"}
_FORMATS = ("svg", "png", "pdf", "dot")


def _id(name):
    return name.replace("[", "_").replace("]", "_")


def _tensor(edge):
    return f"{_id(edge.name)}_{edge.device}"


def _consumers(graph):
    """For each edge (by id): its consumers as (node, input index), in graph order."""
    out = {}
    for c in graph.nodes:
        for k, e in enumerate(c.all_inputs()):
            out.setdefault(id(e), []).append((c, k))
    return out


def _contiguous_nodes(graph):
    """DALI's MakeContiguous node of each distinct pipeline output: (edge, node name)."""
    seen, out = set(), []
    for e in graph.outputs:
        if id(e) not in seen:
            seen.add(id(e))
            out.append((e, f"__MakeContiguous_CpuToCpu_{_id(e.name)}"))
    return out


def lines(graph, show_tensors=False, use_colors=False):
    """The dot text of `graph` as DALI writes it, line by line."""
    consumers = _consumers(graph)
    contiguous = dict((id(e), name) for e, name in _contiguous_nodes(graph))
    out = ["digraph graphname {"]
    style = "[style=dotted]" if show_tensors else ""
    for n in graph.nodes:
        if use_colors:
            out.append(f'{n.name}[color="{_COLORS[n.device]}"];')
        for e in n.outputs:
            for c, _ in consumers.get(id(e), ()):
                out.append(f"{n.name} -> {c.name}{style};")
            if id(e) in contiguous:
                out.append(f"{n.name} -> {contiguous[id(e)]}{style};")
        if show_tensors:
            for i, e in enumerate(n.outputs):
                t = _tensor(e)
                out.append(f"{t}[shape=box];")
                out.append(f"{n.name} -> {t}[label={i}];")
                for c, k in consumers.get(id(e), ()):
                    out.append(f"{t} -> {c.name}[label={k}];")
                if id(e) in contiguous:
                    out.append(f"{t} -> {contiguous[id(e)]}[label=0];")
        out.append("")
    for e, name in _contiguous_nodes(graph):
        if use_colors:
            out.append(f'{name}[color="{_COLORS["cpu"]}"];')
        if show_tensors:
            t = f"contiguous_cpu_to_cpu_{_tensor(e)}"
            out.append(f"{t}[shape=box];")
            out.append(f"{name} -> {t}[label=0];")
        out.append("")
    out.append("}")
    return out


def write(graph, filename, show_tensors=False, use_colors=False):
    """Write `graph` (a `dali._graph.graph.Graph`) to `filename` in DALI's dot format."""
    with open(filename, "w") as f:
        f.write("\n".join(lines(graph, show_tensors, use_colors)) + "\n")


def _q(text):
    """A quoted dot string (newlines become dot's line breaks)."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + text + '"'


def annotated(graph, meta, timing):
    """Dot text for `render`: `meta` maps an operator name to its outputs' (dtype, ndim,
    layout) (or None before the first run), `timing` to `executor_timing()` entries."""
    slowest = max(timing, key=lambda k: timing[k]["mean_us"], default=None) \
        if any(v["runs"] for v in timing.values()) else None
    consumers = _consumers(graph)
    out = ["digraph pipeline {", "  rankdir=LR;", '  node [shape=box, style="rounded,filled", '
           'fillcolor=white, fontname="sans-serif"];', '  edge [fontname="sans-serif"];']
    for n in graph.nodes:
        label = f"{n.name}\n{n.schema.name}"
        t = timing.get(n.name)
        if t and t["runs"]:
            label += f"\n{t['mean_us'] / 1000:.2f} ms a batch"
        attrs = [f"label={_q(label)}", f"color={_q(_COLORS[n.device])}"]
        if n.name == slowest:
            attrs += ["fillcolor=\"#ffd9d9\"", "penwidth=3",
                      f"xlabel={_q('bottleneck')}"]
        out.append(f"  {_q(n.name)} [{', '.join(attrs)}];")
    for n in graph.nodes:
        for i, e in enumerate(n.outputs):
            m = (meta.get(n.name) or ())[i:i + 1]
            label = ""
            if m:
                dtype, ndim, layout = m[0]
                label = f"{dtype} {ndim}-D" + (f" {layout}" if layout else "")
            for c, _ in consumers.get(id(e), ()):
                out.append(f"  {_q(n.name)} -> {_q(c.name)} [label={_q(label)}];")
    for k, e in enumerate(graph.outputs):
        out.append(f"  {_q(f'output {k}')} [shape=plaintext, style=\"\"];")
        out.append(f"  {_q(e.source.name)} -> {_q(f'output {k}')};")
    out.append("}")
    return "\n".join(out) + "\n"


def render(text, filename):
    """Draw dot `text` into `filename` with Graphviz (format from the extension: .svg, .png,
    .pdf, or .dot for the text itself)."""
    fmt = pathlib.Path(filename).suffix.lstrip(".").lower()
    if fmt not in _FORMATS:
        raise ValueError(f"save_graph: cannot tell the format of {filename!r}: use one of "
                         + ", ".join("." + f for f in _FORMATS))
    if fmt == "dot":
        pathlib.Path(filename).write_text(text)
        return
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError(
            "save_graph needs Graphviz's `dot` program to draw the graph, and it is not "
            "installed (the `graphviz` package of your system: apt install graphviz, brew "
            "install graphviz, conda install graphviz); save_graph(\"graph.dot\") writes the "
            "text without it.")
    done = subprocess.run([exe, f"-T{fmt}", "-o", str(filename)], input=text.encode(),
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"Graphviz failed to draw {filename}: "
                           f"{done.stderr.decode(errors='replace').strip()}")
