"""Region fusion: an operator computes only the part of its output that its consumer reads.

When an operator's output feeds exactly one operator (and nothing else: it is no pipeline
output, no sink, no argument input), only the region that consumer reads is ever observed.
`link` finds such pairs when a pipeline is built: a *producer* (an operator with
a `dali._roles.RegionProducer`) followed by a *consumer* (a `RegionConsumer` whose
`regions_ahead()` is true) gets `producer.region_consumer = consumer`.  When the producer
runs, `consumer_regions` asks the consumer which region of each sample it will read, and the
producer fills only those regions of its (whole-sized) output; the rest of the buffer is left
as the pool handed it over, and no operator reads it.

Nothing else changes: the graph, operator names, seeds, output shapes, errors and timings are
those of the unfused pipeline, and the values the consumer reads are the same bit for bit.
Producers and what they skip:

* fn.decoders.image (CPU, uint8 HWC output): JPEGs decode only the rows and iMCU columns of the
  region (libjpeg-turbo's ROI decode gives the same pixels as a whole decode);
* fn.resize and fn.random_resized_crop (HWC): only the output window is resampled, from the
  input positions its filters read.

Consumers and what they read (regions are known before the producer runs only when no argument
input decides them; per-sample arguments given as constants are fine):

* fn.crop_mirror_normalize: its crop window (within the input);
* fn.resize, fn.random_resized_crop: the input positions their filters read for the output
  window their own consumer reads (chains: decode -> resize -> crop_mirror_normalize decodes
  only what the crop needs); the random crop window depends only on the operator's seed and
  the sample ids, which the producer's workspace shares.

A consumer that reads all of its input whatever the shapes says so with `reads_whole_input()`
(crop_mirror_normalize without a crop; resize without a region of interest whose own output is
read whole), and its producer then computes everything without asking for regions.

A region is ((y0, y1), (x0, x1)) in the sample's HWC coordinates; None stands for the whole
sample.  `pipe.check_parity`, which compares every intermediate output, builds its pipelines
without fusion.
"""

from __future__ import annotations

from dali import _roles


def link(graph, ops, sinks=()):
    """Set `region_consumer` on every producer of `ops` (one per node of `graph`, in its order)
    whose output only one consumer reads, as its first positional input."""
    by_node = {id(op.spec.node): op for op in ops}
    uses = {}                                  # id(DataNode) -> [(consumer node, position)]
    for n in graph.nodes:
        for k, edge in enumerate(n.inputs):
            uses.setdefault(id(edge), []).append((n, k))
        for edge in n.arg_inputs.values():
            uses.setdefault(id(edge), []).append((n, None))
    kept = {id(e) for e in graph.outputs} | {id(e) for e in sinks}
    for n in graph.nodes:
        op = by_node[id(n)]
        if not isinstance(op, _roles.RegionProducer) or len(n.outputs) != 1:
            continue
        edge = n.outputs[0]
        readers = uses.get(id(edge), [])
        if id(edge) in kept or len(readers) != 1 or readers[0][1] != 0:
            continue
        consumer_node = readers[0][0]
        consumer = by_node[id(consumer_node)]
        if n.device != "cpu" or consumer_node.device != "cpu":
            continue
        if isinstance(consumer, _roles.RegionConsumer) and consumer.regions_ahead():
            op.region_consumer = consumer


def consumer_regions(op, ws, shapes, layout):
    """The regions of `op`'s output samples (of `shapes`, in `layout`) that its linked consumer
    reads, or None: no consumer, or it cannot tell (it then reports its own errors when it
    runs).  `ws` is `op`'s workspace for this batch."""
    if shapes is None or layout != "HWC" or reads_whole(op):
        return None
    consumer = op.region_consumer
    cws = type(ws)(consumer, ws.batch_size, [], {}, ws.iteration, ws.epoch, ws.sample_ids,
                   ws.thread_pool)
    try:
        return consumer.input_regions(cws, [tuple(s) for s in shapes], layout)
    except Exception:          # the consumer raises it itself, in its own name
        return None


def reads_whole(op):
    """Whether everything `op` produces is read: it has no linked consumer, or the consumer
    says (`reads_whole_input()`) that it reads its whole input whatever the shapes.  Producers
    then compute their regions (all None) without asking for them."""
    consumer = op.region_consumer
    return consumer is None or consumer.reads_whole_input()


def window_of(region, shape):
    """(y, x, h, w) of `region` of an HWC sample of `shape` (the whole sample for None)."""
    if region is None:
        return 0, 0, shape[0], shape[1]
    (y0, y1), (x0, x1) = region
    return y0, x0, y1 - y0, x1 - x0


def crop(sample, region):
    """The view of an HWC `sample` that `region` covers."""
    if region is None:
        return sample
    (y0, y1), (x0, x1) = region
    return sample[y0:y1, x0:x1]
