"""fn.segmentation.random_object_bbox: the bounding box of a random object of a label map.

The objects are the blobs of a label map: elements of one label other than the background,
connected along the axes (face connectivity, as DALI: 4 in 2-D, 6 in 3-D).  They are found for
the whole batch by the nogil kernel `dali._ext.kernels.components.label_batch` (a table of
blobs: label, volume, box).  Then, per sample, with probability `foreground_prob`:

- `ignore_class`: one blob is drawn uniformly among those whose box reaches `threshold` in every
  axis (the `k_largest` by volume, when given);
- otherwise a class is drawn, with `class_weights`, among `classes` (default: the labels present,
  or 1..len(class_weights)) that have such a blob - DALI rejects a class without one and draws
  again, which is the same distribution - and one of its blobs (its `k_largest`) uniformly;

else, or when no blob qualifies, the box is the whole input and the class the background.  The
background is `background`, else 0, or min(classes) - 1 when 0 is one of the classes.  Three
uniform draws per sample (foreground, class, blob; stream 0), so the result depends only on the
seed and the sample.  Boxes are int32 in the input's axes: anchor and shape, start and end, or
both in one "box" output; `output_class` adds the label (int32 scalar).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import components as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T

FORMATS = ("anchor_shape", "start_end", "box")
_NO_CLASS = -(1 << 40)        # no label (int32 values) is this


def _num_outputs(args, num_inputs=1):
    return (1 if args.get("format", "anchor_shape") == "box" else 2) + \
        bool(args.get("output_class", False))


@_registry.register
class RandomObjectBBox(_operator.Operator):
    schema = Schema(
        "segmentation.random_object_bbox", inputs=1, outputs=_num_outputs, devices=("cpu",),
        random=True, class_name="RandomObjectBBox",
        doc="Randomly selects an object from a mask and returns its bounding box.\n\n"
            "The input is a labeled segmentation map (bool or integers of up to 32 bits). "
            "With probability `foreground_prob` a label is selected (uniformly or by "
            "`class_weights`), its connected blobs are found and one of them is selected "
            "(`k_largest` and `threshold` filter them); otherwise, or when no blob qualifies, "
            "the entire area of the input is returned.",
        args=[Arg("background", T.INT32, None, tensor=True,
                  doc="Background label. If left unspecified, it's either 0 or any value not "
                      "in `classes`."),
              Arg("cache_objects", T.BOOL, False,
                  ignored="the boxes are always computed (the results are the same)",
                  doc="Cache object bounding boxes of previously seen inputs."),
              Arg("class_weights", T._FLOAT_VEC, None, tensor=True,
                  doc="Relative probabilities of foreground classes, one per class in "
                      "`classes` (without `classes`: of the labels 1, 2, ...)."),
              Arg("classes", T._INT32_VEC, None, tensor=True,
                  doc="List of labels considered as foreground. If left unspecified, all "
                      "labels not equal to `background` are considered foreground."),
              Arg("foreground_prob", T.FLOAT, 1.0, tensor=True,
                  doc="Probability of selecting a foreground bounding box."),
              Arg("format", T.STRING, "anchor_shape",
                  doc="Format of the output: \"anchor_shape\" (two outputs: anchor and shape), "
                      "\"start_end\" (two outputs: start and one-past-end coordinates) or "
                      "\"box\" (one output: start and end concatenated)."),
              Arg("ignore_class", T.BOOL, False,
                  doc="If True, all objects are picked with equal probability, regardless of "
                      "their class; incompatible with `classes`, `class_weights` and "
                      "`output_class`."),
              Arg("k_largest", T.INT32, None,
                  doc="If specified, only the `k_largest` boxes by volume are considered (of "
                      "all classes with `ignore_class`, else of the selected class)."),
              Arg("output_class", T.BOOL, False,
                  doc="If True, an additional output holds the label of the selected box's "
                      "class, or the background label for the whole-input box."),
              Arg("threshold", T._INT32_VEC, None, tensor=True,
                  doc="Per-axis minimum size of the bounding boxes to return (one value "
                      "applies to every axis).")])

    def setup(self):
        a, given = self.args, self.spec.given
        if a["format"] not in FORMATS:
            raise self.error(f'Invalid output format: "{a["format"]}"\nPossible values: '
                             '"anchor_shape", "start_end" and "box".', RuntimeError)
        if a["ignore_class"] and ({"classes", "class_weights"} & given or a["output_class"]):
            raise self.error("Class-related arguments ``classes``, ``weights`` and "
                             "``output_class`` cannot be used when ``ignore_class`` is True",
                             RuntimeError)
        if a["k_largest"] is not None and a["k_largest"] < 1:
            raise self.error(f"``k_largest`` must be at least 1; got {a['k_largest']}",
                             RuntimeError)

    def infer(self, ws):
        storage = ws.input_storage(0)
        if storage.dtype not in _kernel.CODES:
            name = _types.type_name(_types.dali_type_of(storage.dtype))
            raise self.error(f"Unsupported input type: {name}", TypeError)
        n, ndim = storage.num_samples, storage.ndim
        box = [(2 * ndim,)] * n if self.args["format"] == "box" else [(ndim,)] * n
        descs = [_operator.OutputDesc(box, np.int32, "", 1)]
        if self.args["format"] != "box":
            descs.append(_operator.OutputDesc(box, np.int32, "", 1))
        if self.args["output_class"]:
            descs.append(_operator.OutputDesc([()] * n, np.int32, "", 0))
        return _operator.Plan(descs)

    def run_cpu(self, ws, plan):
        storage = ws.input_storage(0).contiguous()
        n, ndim = storage.num_samples, storage.ndim
        shapes = np.asarray(storage.shapes, np.int64).reshape(n, ndim)
        classes = ws.arg("classes") if ws.arg_given("classes") else None
        weights = ws.arg("class_weights") if ws.arg_given("class_weights") else None
        background = self._backgrounds(ws, classes)
        thresholds = self._thresholds(ws, ndim)
        counts, rows = _kernel.label_batch(ws.thread_pool, storage, background)
        u = ws.uniform_flat(3).reshape(n, 3)
        fg = u[:, 0] < ws.arg_array("foreground_prob", np.float64)
        # the candidate blobs of the whole batch, as a mask over its rows, narrowed step by step
        sample = np.repeat(np.arange(n), counts)
        extent = rows[:, 2 + ndim:] - rows[:, 2:2 + ndim]
        cand = fg[sample] & (extent >= thresholds[sample]).all(axis=1)
        if not self.args["ignore_class"]:
            chosen = self._classes(ws, sample, rows[:, 0], cand, classes, weights, u[:, 1])
            cand &= rows[:, 0] == chosen[sample]
        if self.args["k_largest"] is not None:
            idx = np.flatnonzero(cand)
            order = idx[np.lexsort((-rows[idx, 1], sample[idx]))]   # by sample, largest first
            rank = np.arange(len(order)) - np.searchsorted(sample[order], sample[order])
            cand[:] = False
            cand[order[rank < self.args["k_largest"]]] = True
        idx = np.flatnonzero(cand)
        m = np.bincount(sample[idx], minlength=n)
        has = m > 0
        first = np.cumsum(m) - m
        pick = idx[first[has] + np.minimum((u[has, 2] * m[has]).astype(np.int64), m[has] - 1)]
        lo, hi = np.zeros((n, ndim), np.int64), shapes.copy()
        label = background.copy()
        label[has], lo[has], hi[has] = rows[pick, 0], rows[pick, 2:2 + ndim], rows[pick, 2 + ndim:]
        self._write(ws, lo, hi, label)

    def _backgrounds(self, ws, classes):
        if ws.arg_given("background"):
            return ws.arg_array("background", np.int64)
        if classes is None:
            return np.zeros(ws.batch_size, np.int64)
        return np.array([min(int(c.min()) - 1, -1) if c.size and (c == 0).any() else 0
                         for c in classes], np.int64)

    def _thresholds(self, ws, ndim):
        if not ws.arg_given("threshold"):
            return np.zeros((ws.batch_size, ndim), np.int64)
        out = []
        for i, t in enumerate(ws.arg("threshold")):
            if t.size not in (1, ndim):
                raise ws.sample_error(i, f'Argument "threshold" expected shape {ndim} but got '
                                         f"{t.size} values")
            out.append(np.broadcast_to(np.asarray(t, np.int64), (ndim,)))
        return np.array(out, np.int64).reshape(ws.batch_size, ndim)

    def _classes(self, ws, sample, labels, cand, classes, weights, u):
        """The class drawn for every sample among its classes with candidate blobs (a value
        no label has where there is none)."""
        n = ws.batch_size
        chosen = np.full(n, _NO_CLASS, np.int64)
        if classes is None and weights is None:   # uniform over the labels present
            key = np.unique((sample[cand] << 33) + (labels[cand] + (1 << 32)))
            owner = key >> 33
            count = np.bincount(owner, minlength=n)
            has = count > 0
            first = np.cumsum(count) - count
            c = first[has] + np.minimum((u[has] * count[has]).astype(np.int64), count[has] - 1)
            chosen[has] = (key[c] & ((1 << 33) - 1)) - (1 << 32)
            return chosen
        starts = np.searchsorted(sample, np.arange(n + 1))
        for i in range(n):
            sl = slice(starts[i], starts[i + 1])
            if classes is not None:
                ids = np.asarray(classes[i], np.int64)
            elif weights is not None:
                ids = np.arange(1, weights[i].size + 1)
            w = np.ones(len(ids)) if weights is None else np.asarray(weights[i], np.float64)
            if w.shape != ids.shape:
                raise ws.sample_error(i, "If both ``classes`` and ``class_weights`` are "
                                         f"provided, their shapes must match. Got: {ids.size} "
                                         f"and {w.size} values")
            present = np.isin(ids, labels[sl][cand[sl]]) & (w > 0)
            if present.any():
                cdf = np.cumsum(np.where(present, w, 0.0))
                c = min(int(np.searchsorted(cdf, u[i] * cdf[-1], side="right")), len(cdf) - 1)
                chosen[i] = ids[c]
        return chosen

    def _write(self, ws, lo, hi, label):
        fmt = self.args["format"]
        if fmt == "box":
            ws.outputs[0].dense()[...] = np.concatenate([lo, hi], axis=1)
        else:
            ws.outputs[0].dense()[...] = lo
            ws.outputs[1].dense()[...] = hi - lo if fmt == "anchor_shape" else hi
        if self.args["output_class"]:
            ws.outputs[-1].dense()[...] = label
