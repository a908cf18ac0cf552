"""Build-time graph analysis: collect, prune and order the operators that reach the outputs.

`Graph(outputs, sinks)` walks depth-first from the outputs, then the sinks (preserved ops and
`add_sink` edges), inputs before consumers, so `nodes` is a topological order; operators no
output or sink depends on are pruned.  That order is also the order seeds are handed out in, so
adding or removing an unrelated, pruned operator never changes another operator's randomness.
"""

from __future__ import annotations

from dali._graph import seeds as _seeds


class Graph:
    """The operators a pipeline runs, in topological order."""

    def __init__(self, outputs, sinks=()):
        self.outputs = list(outputs)
        self.nodes = []
        seen = set()
        for edge in [*self.outputs, *sinks]:
            # a sink is a DataNode, or an operator node without outputs
            self._visit(edge.source if hasattr(edge, "source") else edge, seen, set())

    def _visit(self, node, seen, active):
        if node is None or id(node) in seen:
            return
        stack = [(node, iter(node.all_inputs()))]
        active.add(id(node))
        while stack:
            cur, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                active.discard(id(cur))
                seen.add(id(cur))
                self.nodes.append(cur)
                continue
            src = nxt.source
            if src is None or id(src) in seen:
                continue
            if id(src) in active:
                raise RuntimeError(f"The pipeline graph has a cycle through {src.name}")
            active.add(id(src))
            stack.append((src, iter(src.all_inputs())))

    def check(self):
        """Definition errors DALI reports when the pipeline is built."""
        by_name = {}
        for n in self.nodes:
            by_name.setdefault(n.name, []).append(n)
        dups = {k: v for k, v in by_name.items() if len(v) > 1}
        if dups:
            raise RuntimeError(
                "The pipeline is invalid because it contains operators with non-unique names:\n"
                + str({k: [f"{x.schema.display_name} ({x.origin[-1].filename}:"
                           f"{x.origin[-1].lineno})" if x.origin else x.schema.display_name
                           for x in v] for k, v in dups.items()}))
        for n in self.nodes:
            missing = [a.name for a in n.schema.args
                       if a.required and a.name not in n.args and a.name not in n.arg_inputs]
            if missing:
                raise RuntimeError(
                    f'Not all required arguments were specified for op "{n.schema.class_name}" '
                    f"({n.schema.display_name}). Please specify values for arguments: "
                    + ", ".join(f'"{m}"' for m in missing))

    def assign_seeds(self, pipeline_seed):
        """Per-node seeds, handed out in topological order (`dali._graph.seeds`)."""
        seeds = _seeds.OperatorSeeds(pipeline_seed)
        return {n: seeds.seed(n.args.get("seed"), n.relation_id) for n in self.nodes
                if "seed" in n.schema.arg_map}
