"""fn.segmentation.select_masks: the polygons (and their vertices) of selected masks.

Inputs, per sample: `mask_ids` (1-D int32, no duplicates), `polygons` ((P, 3) int32 rows of
mask id, start vertex, end vertex) and `vertices` ((V, D) of any type), as COCO's reader
produces them.  The output has one polygon per selected mask, in the order of `mask_ids`, its
vertices copied back to back (so its range is renumbered), and the id kept or, with
`reindex_masks`, replaced by its position in `mask_ids`.  As in DALI 2.4, a mask with several
polygons keeps only its last one.  The selection is NumPy over the whole batch at once (mask
ids, polygons and vertex ranges of all samples keyed by sample), so the vertices are one
gather from the flat vertex batch.
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
        polygons, index, n_ids, n_vertices, dims = self._select(ws)
        return _operator.Plan([
            _operator.OutputDesc(np.stack([n_ids, np.full_like(n_ids, 3)], 1), np.int32, "", 2),
            _operator.OutputDesc(np.stack([n_vertices, dims], 1), ws.input_dtype(2), "", 2)],
            polygons=polygons, index=index)

    def run_cpu(self, ws, plan):
        ws.outputs[0].flat()[...] = plan.polygons.reshape(-1)
        ws.outputs[1].flat()[...] = ws.input_storage(2).contiguous().flat()[plan.index]

    def _select(self, ws):
        """The whole batch at once: the output polygons (one array), the element indices of
        the output vertices in the flat vertex batch, and the output shapes' parts."""
        n = ws.batch_size
        counts = [np.asarray(ws.input_storage(k).shapes, np.int64).reshape(n, -1)
                  for k in range(3)]
        n_ids, n_polygons, n_verts, dims = (counts[0][:, 0], counts[1][:, 0], counts[2][:, 0],
                                            counts[2][:, 1])
        ids = ws.input_storage(0).contiguous().flat().astype(np.int64)
        polygons = ws.input_storage(1).contiguous().flat().reshape(-1, 3).astype(np.int64)
        s_id = np.repeat(np.arange(n), n_ids)
        key = (s_id << 33) + (ids + (1 << 32))            # (sample, mask id) as one number
        if len(np.unique(key)) != len(key):
            order = np.argsort(key, kind="stable")
            dup = order[1:][key[order][1:] == key[order][:-1]]
            i = int(dup.min())
            raise ws.sample_error(int(s_id[i]), "mask_ids should not have duplicated values. "
                                                f"Got {ids[i]} repeated.")
        # the last polygon of every (sample, mask id): the first of the reversed rows
        s_poly = np.repeat(np.arange(n), n_polygons)
        poly_key = (s_poly << 33) + (polygons[:, 0] + (1 << 32))
        known, first = np.unique(poly_key[::-1], return_index=True)
        pos = np.minimum(np.searchsorted(known, key), max(len(known) - 1, 0))
        missing = np.flatnonzero(known[pos] != key) if len(known) else np.arange(len(key))
        if missing.size:
            i = missing[0]
            raise ws.sample_error(int(s_id[i]), f"Selected mask_id {ids[i]} is not present in "
                                                "the input.")
        rows = polygons[len(polygons) - 1 - first[pos]]
        lo, hi = rows[:, 1], rows[:, 2]
        for i in np.flatnonzero((lo < 0) | (hi > n_verts[s_id]))[:1]:
            raise ws.sample_error(int(s_id[i]), f"Vertex index range for mask id {ids[i]} "
                                                f"[{lo[i]}, {hi[i]}) is out of bounds. Expected "
                                                "to be within the range of available vertices "
                                                f"[0, {n_verts[s_id[i]]}).")
        for i in np.flatnonzero(hi < lo)[:1]:
            raise ws.sample_error(int(s_id[i]), "Vertex start index can't be after end index. "
                                                f"Got [{lo[i]}, {hi[i]})")
        length = hi - lo
        id_base = np.cumsum(n_ids) - n_ids                 # first id of every sample
        end = np.cumsum(length)
        sample_end = np.zeros(n, np.int64)
        np.add.at(sample_end, s_id, length)
        start_in_sample = end - length - (np.cumsum(sample_end) - sample_end)[s_id]
        out = np.empty((len(ids), 3), np.int32)
        out[:, 0] = np.arange(len(ids)) - id_base[s_id] if self.args["reindex_masks"] else ids
        out[:, 1] = start_in_sample
        out[:, 2] = start_in_sample + length
        # element indices of the vertices: each range's rows, dims[s] elements a row
        d = dims[s_id]
        elem_base = np.cumsum(n_verts * dims) - n_verts * dims
        seg = length * d
        seg_end = np.cumsum(seg)
        index = np.repeat(elem_base[s_id] + lo * d - (seg_end - seg), seg) + \
            np.arange(seg_end[-1] if len(seg) else 0)
        return out, index, n_ids, sample_end, dims
