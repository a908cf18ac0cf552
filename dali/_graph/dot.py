"""A built graph in Graphviz dot format (`Pipeline.save_graph_to_dot_file`): an edge from each
operator to every consumer of its outputs; with `show_tensors`, the outputs as boxes too."""

from __future__ import annotations

_COLORS = {"cpu": "blue", "gpu": "#76b900", "mixed": "cyan"}


def write(graph, filename, show_tensors=False, use_colors=False):
    """Write `graph` (a `dali._graph.graph.Graph`) to `filename`."""
    lines = ["digraph graphname {"]
    for n in graph.nodes:
        if use_colors:
            lines.append(f'"{n.name}"[color="{_COLORS[n.device]}"];')
        for out in n.outputs:
            for c in graph.nodes:
                if any(e is out for e in c.all_inputs()):
                    style = "[style=dotted]" if show_tensors else ""
                    lines.append(f'"{n.name}" -> "{c.name}"{style};')
            if show_tensors:
                lines.append(f'"{out.name}"[shape=box];')
                lines.append(f'"{n.name}" -> "{out.name}"[label={out.index}];')
        lines.append("")
    lines.append("}")
    with open(filename, "w") as f:
        f.write("\n".join(lines) + "\n")
