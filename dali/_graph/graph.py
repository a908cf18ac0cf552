"""Build-time graph analysis: collect, prune and order the operators that reach the outputs.

`Graph(outputs, sinks)` walks depth-first from the outputs, then the sinks (preserved ops and
`add_sink` edges), inputs before consumers, so `nodes` is a topological order; operators no
output or sink depends on are pruned.  That order is also the order seeds are handed out in, so
adding or removing an unrelated, pruned operator never changes another operator's randomness.

`insert_copies` then adds the device copies DALI's backend adds: an edge a consumer needs on
the other device (`.gpu()`, `.cpu()`, a CPU input of a GPU operator) gets a copy node, and
the executor reads every operator's inputs through `inputs_of`/`arg_inputs_of`, which see the
copies; the user's nodes are not changed.
"""

from __future__ import annotations

from dali._graph import seeds as _seeds


class Graph:
    """The operators a pipeline runs, in topological order."""

    def __init__(self, outputs, sinks=()):
        self.outputs = list(outputs)
        self.nodes = []
        self._inputs = {}                 # id(node) -> its inputs with copies (insert_copies)
        self._arg_inputs = {}
        self._outputs = None
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

    # -- device copies ------------------------------------------------------------------------
    def insert_copies(self, make_copy, gpu_to_cpu):
        """Give every edge needed on another device than its producer's a copy node.

        `make_copy(edge, device)` returns the OpNode copying the produced `edge` to `device`
        ("gpu" or "cpu").  A GPU operator needs its positional inputs on the GPU (but those of
        `schema.gpu_host_inputs`), every other operator on the CPU, argument inputs are on
        the CPU; a pipeline output is needed where
        its DataNode says.  GPU-to-CPU copies need `gpu_to_cpu` (DALI's dynamic executor),
        else DALI's error is raised.  One copy per produced edge and device.
        """
        copies = {}
        nodes = []

        def resolve(edge, device):
            src = edge.source
            produced = src.outputs[edge.index] if src is not None and hasattr(src, "outputs") \
                else edge
            if produced.device == device:
                return produced
            if device == "cpu" and not gpu_to_cpu:
                raise RuntimeError(
                    "This pipeline doesn't support transition from GPU to CPU (the output "
                    f'"{edge.name}" is used on the CPU): create it with exec_dynamic=True')
            key = (id(produced), device)
            copy = copies.get(key)
            if copy is None:
                copy = copies[key] = make_copy(produced, device)
                self._inputs[id(copy)] = [produced]
                nodes.append(copy)
            return copy.outputs[0]

        for n in self.nodes:
            host = n.schema.gpu_host_inputs if n.device == "gpu" else range(len(n.inputs))
            self._inputs[id(n)] = [resolve(e, "cpu" if k in host else "gpu")
                                   for k, e in enumerate(n.inputs)]
            self._arg_inputs[id(n)] = {k: resolve(e, "cpu") for k, e in n.arg_inputs.items()}
            nodes.append(n)
        self._outputs = [resolve(e, e.device) for e in self.outputs]
        self.nodes = nodes

    def inputs_of(self, node):
        """`node`'s positional inputs as the executor reads them (device copies included)."""
        return self._inputs.get(id(node), node.inputs)

    def arg_inputs_of(self, node):
        return self._arg_inputs.get(id(node), node.arg_inputs)

    def produced_outputs(self):
        """The pipeline outputs as the executor produces them (copies included)."""
        return self.outputs if self._outputs is None else self._outputs

    def assign_seeds(self, pipeline_seed):
        """Per-node seeds, handed out in topological order (`dali._graph.seeds`)."""
        seeds = _seeds.OperatorSeeds(pipeline_seed)
        return {n: seeds.seed(n.args.get("seed"), n.relation_id) for n in self.nodes
                if "seed" in n.schema.arg_map}
