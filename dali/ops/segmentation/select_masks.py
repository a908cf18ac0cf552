"""fn.segmentation.select_masks: the polygons (and their vertices) of selected masks.

Inputs, per sample: `mask_ids` (1-D int32, no duplicates), `polygons` ((P, 3) int32 rows of
mask id, start vertex, end vertex) and `vertices` ((V, D) of any type), as COCO's reader
produces them.  The output has one polygon per selected mask, in the order of `mask_ids`, its
vertices copied back to back (so its range is renumbered), and the id kept or, with
`reindex_masks`, replaced by its position in `mask_ids`.  As in DALI 2.4, a mask with several
polygons keeps only its last one.  The whole batch is two nogil calls of the `select_masks`
kernel: `infer` selects the polygons (and finds the errors, raised here in DALI's words),
which sizes the outputs; `run_cpu` copies the polygons and the selected vertex rows into them.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import select_masks as _kernel
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
        error, i, rows, starts, poly_shapes, vert_shapes = _kernel.select(
            ws.input_storage(0), ws.input_storage(1), ws.input_storage(2),
            self.args["reindex_masks"])
        if error >= 0:
            raise self._error(ws, error, i)
        return _operator.Plan([_operator.OutputDesc(poly_shapes, np.int32, "", 2),
                               _operator.OutputDesc(vert_shapes, ws.input_dtype(2), "", 2)],
                              rows=rows, starts=starts)

    def run_cpu(self, ws, plan):
        _kernel.write(ws.input_storage(2), plan.rows, plan.starts, ws.outputs[0], ws.outputs[1])

    def _error(self, ws, kind, i):
        """The error `_kernel.select` found: its kind, and the sample (COLUMNS) or the flat
        index of the id."""
        if kind == _kernel.COLUMNS:
            cols = ws.input_storage(1).shapes[i, 1]
            return ws.sample_error(i, "``polygons`` is expected to contain 2D tensors with 3 "
                                      "columns: ``mask_id, start_idx, end_idx``. Got "
                                      f"{cols} columns.")
        n_ids = ws.input_storage(0).shapes[:, 0]
        s = int(np.searchsorted(np.cumsum(n_ids), i, side="right"))
        mask_id = ws.input_storage(0).samples()[s][i - int(n_ids[:s].sum())]
        if kind == _kernel.DUPLICATE:
            return ws.sample_error(s, "mask_ids should not have duplicated values. "
                                      f"Got {mask_id} repeated.")
        if kind == _kernel.MISSING:
            return ws.sample_error(s, f"Selected mask_id {mask_id} is not present in the input.")
        polygons = ws.input_storage(1).samples()[s]
        _, lo, hi = polygons[polygons[:, 0] == mask_id][-1]     # the mask's last polygon
        if kind == _kernel.OUT_OF_BOUNDS:
            return ws.sample_error(s, f"Vertex index range for mask id {mask_id} [{lo}, {hi}) "
                                      "is out of bounds. Expected to be within the range of "
                                      "available vertices "
                                      f"[0, {ws.input_storage(2).shapes[s, 0]}).")
        return ws.sample_error(s, f"Vertex start index can't be after end index. Got [{lo}, {hi})")
