"""fn.segmentation.select_masks: the polygons (and their vertices) of selected masks.

Inputs, per sample: `mask_ids` (1-D int32, no duplicates), `polygons` ((P, 3) int32 rows of
mask id, start vertex, end vertex) and `vertices` ((V, D) of any type), as COCO's reader
produces them.  The output has one polygon per selected mask, in the order of `mask_ids`, its
vertices copied back to back (so its range is renumbered), and the id kept or, with
`reindex_masks`, replaced by its position in `mask_ids`.  As in DALI 2.4, a mask with several
polygons keeps only its last one.  Polygon lists are small: the copy is NumPy, per sample.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T


@_registry.register
class SelectMasks(_operator.Operator):
    schema = Schema(
        "segmentation.select_masks", inputs=3, outputs=2, devices=("cpu",),
        input_names=["mask_ids", "polygons", "vertices"],
        doc="Selects a subset of polygons by their mask ids.\n\n"
            "Inputs: `mask_ids` (1-D int32: the masks to select, without duplicates), "
            "`polygons` (2-D int32 rows `[mask_id, start_vertex_idx, end_vertex_idx)`) and "
            "`vertices` (2-D, any number of coordinates). Outputs: the polygons and vertices of "
            "the selected masks, in the order of `mask_ids`, the vertex ranges renumbered. As in "
            "DALI 2.4, a mask with several polygons keeps only its last one.",
        args=[Arg("reindex_masks", T.BOOL, False,
                  doc="If set to True, the output mask ids are replaced with the indices at "
                      "which they appeared in ``mask_ids`` input.")])

    def infer(self, ws):
        for k, (name, ndim) in enumerate((("mask_ids", 1), ("polygons", 2), ("vertices", 2))):
            storage = ws.input_storage(k)
            if k < 2 and storage.dtype != np.int32:
                raise self.error(f"``{name}`` input is expected to be int32", TypeError)
            if storage.ndim != ndim:
                raise self.error(f"``{name}`` input is expected to be {ndim}D", ValueError)
        cols = np.asarray(ws.input_storage(1).shapes)[:, 1]
        for i in np.flatnonzero(cols != 3):
            raise ws.sample_error(int(i), "``polygons`` is expected to contain 2D tensors with 3 "
                                  "columns: ``mask_id, start_idx, end_idx``. Got "
                                  f"{cols[i]} columns.")
        return _operator.Plan([
            _operator.OutputDesc(None, np.int32, "", 2),
            _operator.OutputDesc(None, ws.input_dtype(2), "", 2)])

    def run_cpu(self, ws, plan):
        polygons_out, vertices_out = [], []
        samples = zip(ws.input_samples(0), ws.input_samples(1), ws.input_samples(2), strict=True)
        for i, (ids, polygons, vertices) in enumerate(samples):
            p, v = self._select(ws, i, ids, polygons, vertices)
            polygons_out.append(p)
            vertices_out.append(v)
        ws.outputs[0] = polygons_out
        ws.outputs[1] = vertices_out

    def _select(self, ws, i, ids, polygons, vertices):
        if len(np.unique(ids)) != len(ids):
            unique, counts = np.unique(ids, return_counts=True)
            raise ws.sample_error(i, "mask_ids should not have duplicated values. Got "
                                     f"{unique[counts > 1][0]} repeated.")
        # the last polygon of every mask id: the first of the reversed rows
        masks, first = np.unique(polygons[::-1, 0], return_index=True)
        pos = np.minimum(np.searchsorted(masks, ids), max(len(masks) - 1, 0))
        missing = np.flatnonzero(masks[pos] != ids) if len(masks) else np.arange(len(ids))
        if missing.size:
            raise ws.sample_error(i, f"Selected mask_id {ids[missing[0]]} is not present in "
                                     "the input.")
        rows = polygons[len(polygons) - 1 - first[pos]]
        lo, hi = rows[:, 1].astype(np.int64), rows[:, 2].astype(np.int64)
        bad = np.flatnonzero((lo < 0) | (hi > len(vertices)))
        if bad.size:
            k = bad[0]
            raise ws.sample_error(i, f"Vertex index range for mask id {ids[k]} [{lo[k]}, "
                                     f"{hi[k]}) is out of bounds. Expected to be within the "
                                     f"range of available vertices [0, {len(vertices)}).")
        bad = np.flatnonzero(hi < lo)
        if bad.size:
            k = bad[0]
            raise ws.sample_error(i, "Vertex start index can't be after end index. Got "
                                     f"[{lo[k]}, {hi[k]})")
        lengths = hi - lo
        ends = np.cumsum(lengths)
        out = np.empty((len(ids), 3), np.int32)
        out[:, 0] = np.arange(len(ids)) if self.args["reindex_masks"] else ids
        out[:, 1] = ends - lengths
        out[:, 2] = ends
        index = np.repeat(lo - (ends - lengths), lengths) + np.arange(ends[-1] if len(ends)
                                                                        else 0)
        return out, vertices[index]
