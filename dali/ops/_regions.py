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

* fn.decoders.image (CPU, uint8 HWC output; and `device="mixed"` before a GPU consumer, whose
  host buffers are then uploaded whole): JPEGs decode only the rows and iMCU columns of the
  region (libjpeg-turbo's ROI decode gives the same pixels as a whole decode);
* fn.resize and fn.random_resized_crop (HWC, CPU): only the output window is resampled, from
  the input positions its filters read (on the GPU they resample everything, and pass their
  consumer's regions on to their producer).

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

Decode scaling (`Pipeline(decode_scaling=True)`, off by default) goes one step further: when
the consumer reduces its input by 2x or more (resize, random_resized_crop: their
`max_input_scales`), the decoder decodes JPEGs at 1/2, 1/4 or 1/8 scale in the DCT domain (the
largest the consumer allows) and hands the reduced samples over as a `Delivery`; the consumer
resamples from them with its geometry mapped onto the reduced grid.  Shapes, windows and random
draws stay those of the exact pipeline; only the values differ (the reduced images are DCT
averages instead of the full-resolution pixels).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from dali import _roles

SCALES = (8, 4, 2)              # the DCT reductions libjpeg-turbo decodes at, largest first
_DELIVERIES_KEPT = 8            # deliveries a producer keeps for consumers that did not run


@dataclasses.dataclass(frozen=True)
class Delivery:
    """A producer's output samples, delivered reduced.

    Sample i (scale s = scales[i]) is delivered as the top-left (extents[i]) part of its
    output buffer; delivered pixel j along an axis covers the sample's positions
    [j * s - p, (j + 1) * s - p), p = phases[i] on that axis, so sample coordinate c is
    delivered coordinate (c + p) / s.  A scale of 1 is the sample itself.

    Attributes
    ----------
    scales : int64 array (n,)
    phases, extents : int64 arrays (n, 2), (y, x) and (height, width)
    """

    scales: np.ndarray
    phases: np.ndarray
    extents: np.ndarray

    def shapes(self, shapes):
        """`shapes` (HWC tuples) with the reduced samples' extents."""
        return [(*self.extents[i].tolist(), shape[2]) if self.scales[i] > 1 else shape
                for i, shape in enumerate(shapes)]

    def sources(self, samples):
        """The delivered views of the output `samples`."""
        return [s[:self.extents[i, 0], :self.extents[i, 1]] if self.scales[i] > 1 else s
                for i, s in enumerate(samples)]

    def geometry(self, geometry):
        """Per-sample source regions (lo, hi) ((y, x) pairs) mapped onto the delivered
        grids."""
        out = list(geometry)
        for i in np.flatnonzero(self.scales > 1).tolist():
            s, (py, px) = int(self.scales[i]), self.phases[i].tolist()
            lo, hi = out[i]
            out[i] = ([(lo[0] + py) / s, (lo[1] + px) / s], [(hi[0] + py) / s, (hi[1] + px) / s])
        return out

    def bounds(self, lo, hi):
        """Source regions [lo, hi) ((n, 2) arrays, (y, x)) mapped onto the delivered grids."""
        scale = self.scales[:, None].astype(np.float64)
        return (np.asarray(lo) + self.phases) / scale, (np.asarray(hi) + self.phases) / scale


def delivery_of(windows, limits, scalable):
    """The `Delivery` of windows (y, x, h, w) ((n, 4) array: where each output sample lies in
    its image) at the scales `limits` (per sample) for `scalable` samples, or None when no
    sample is reduced.  A reduced window always fits its sample: it spans at most
    ceil((s - 1 + h) / s) <= h rows."""
    windows = np.asarray(windows, np.int64).reshape(-1, 4)
    scales = np.where(scalable, np.asarray(limits, np.int64), 1)
    if not (scales > 1).any():
        return None
    origin, size = windows[:, :2], windows[:, 2:]
    col = scales[:, None]
    return Delivery(scales, origin % col, -(-(origin + size) // col) - origin // col)


def deliver(producer, ws, delivery):
    """Keep `delivery` for the consumer's run on this batch (`delivered`)."""
    kept = producer.__dict__.setdefault("_deliveries", {})
    while len(kept) >= _DELIVERIES_KEPT:
        del kept[next(iter(kept))]
    kept[ws.epoch, ws.iteration] = delivery


def delivered(consumer, ws):
    """The `Delivery` of the batch `consumer` runs on, or None: its input is the samples."""
    producer = consumer.region_producer
    kept = getattr(producer, "_deliveries", None)
    return kept.pop((ws.epoch, ws.iteration), None) if kept else None


# (producer, consumer) devices a link is made for.  A GPU consumer's kernels read the input
# positions its CPU path reads (they are bit-exact with it), so a mixed decoder decodes only
# those; a GPU producer computes its whole output anyway (its kernels take no regions) but
# passes its consumer's regions on, as a chain needs.  Reduced deliveries (decode scaling)
# are read by CPU consumers only.
_FUSED_DEVICES = {("cpu", "cpu"), ("mixed", "gpu"), ("gpu", "gpu")}


def link(graph, ops, sinks=(), scaling=False):
    """Set `region_consumer` on every producer of `ops` (one per node of `graph`, in its order)
    whose output only one consumer reads, as its first positional input; with `scaling`, a
    producer that can deliver reduced samples to a consumer taking them gets `region_scaling`
    (see `Delivery`)."""
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
        if (n.device, consumer_node.device) not in _FUSED_DEVICES:
            continue
        if isinstance(consumer, _roles.RegionConsumer) and consumer.regions_ahead():
            op.region_consumer = consumer
            consumer.region_producer = op
            op.region_scaling = (scaling and op.delivers_scaled and consumer.takes_scaled
                                 and consumer_node.device == "cpu")


def scale_limits(op, ws, shapes, layout):
    """Per sample of `op`'s output (of `shapes`), the largest reduction its linked consumer
    takes (`max_input_scales`), or None."""
    if not op.region_scaling or layout != "HWC":
        return None
    consumer = op.region_consumer
    try:
        return consumer.max_input_scales(_consumer_ws(op, ws), shapes, layout)
    except Exception:          # the consumer raises it itself, in its own name
        return None


def _consumer_ws(op, ws):
    return type(ws)(op.region_consumer, ws.batch_size, [], {}, ws.iteration, ws.epoch,
                    ws.sample_ids, ws.thread_pool)


def consumer_regions(op, ws, shapes, layout, delivery=None):
    """The regions of `op`'s output samples (of `shapes`, in `layout`) that its linked consumer
    reads (in the delivered samples' coordinates with a `delivery`), or None: no consumer, or
    it cannot tell (it then reports its own errors when it runs).  `ws` is `op`'s workspace
    for this batch."""
    if shapes is None or layout != "HWC" or reads_whole(op):
        return None
    shapes = [tuple(s) for s in shapes]
    try:
        if delivery is None:
            return op.region_consumer.input_regions(_consumer_ws(op, ws), shapes, layout)
        return op.region_consumer.input_regions(_consumer_ws(op, ws), shapes, layout,
                                                delivery)
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
