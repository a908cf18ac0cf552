"""fn.readers.coco: COCO images (encoded bytes) with their boxes, labels, polygons and ids.

The annotations come from the JSON file (parsed with the standard library's `json`, the way
DALI's loader reads it) or from a directory of preprocessed annotations that DALI (or this
reader, `save_preprocessed_annotations`) wrote.  Images are listed by ascending image id, or in
the order of `images`; an annotation is kept when both sides of its box reach `size_threshold`
(and, without `include_iscrowd`, when it is not a crowd); `skip_empty` drops images without a
kept annotation.  Class ids are remapped to 1, 2, ... in the order the categories are listed
unless `avoid_class_remapping` (an id missing from the categories maps to 0, as in DALI).  The
data set is held as arrays: per image the first row and number of its boxes, polygons and
vertices; all boxes (float32, ltrb/ratio applied), labels, polygons (mask index and vertex
range within the image) and vertices.  A batch gathers its rows with one fancy index per
output.  Outputs: images (uint8, 1-D), boxes (M, 4) float32, labels (M,) int32, then polygons
(P, 3) int32 and vertices (V, 2) float32 with `polygon_masks`, or the pixel-wise mask (H, W, 1)
int32 with `pixelwise_masks` (painted by the `coco_masks` kernel from the polygons and the RLE
segmentations, which are kept as one array of run lengths), then image ids (1,) int32 with
`image_ids`.  The images are read ahead on the reader's thread (`_common.Reader.next_batch`;
with `on_error="skip"`, an image file that cannot be read is skipped with its annotations: the
other outputs are gathered from the entries read).
Order, sharding, shuffling and padding: `_loader` (as for readers.file: the list is permuted
once with DALI's fixed seed when `random_shuffle` is set, and re-permuted at every epoch with
`shuffle_after_epoch`).
"""

from __future__ import annotations

import json
import os

import numpy as np

from dali import _operator, _registry
from dali._ext import files
from dali._ext.kernels import coco_masks
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.readers import _common


def _n_outputs(args):
    return 3 + 2 * bool(args.get("polygon_masks") or args.get("masks")) + \
        bool(args.get("pixelwise_masks")) + \
        bool(args.get("image_ids") or args.get("save_img_ids"))


# the preprocessed annotation files: name -> (dtype, values per record)
_PREPROCESSED = {
    "offsets": ("offsets.dat", np.int32, 1), "boxes": ("boxes.dat", np.float32, 1),
    "labels": ("labels.dat", np.int32, 1), "counts": ("counts.dat", np.int32, 1),
    "polygons": ("polygon_data.dat", np.int32, 3),
    "poly_offset": ("polygon_offset.dat", np.int64, 1),
    "poly_count": ("polygons_count.dat", np.int64, 1),
    "vertices": ("vertices.dat", np.float32, 2),
    "vert_offset": ("vertices_offset.dat", np.int64, 1),
    "vert_count": ("vertices_count.dat", np.int64, 1),
    "original_ids": ("original_ids.dat", np.int32, 1),
    "rle_objects": ("masks_rles_idx.dat", np.int32, 1),
    "rle_offset": ("masks_offset.dat", np.int64, 1),
    "rle_count": ("mask_count.dat", np.int64, 1),
    "heights": ("heights.dat", np.int32, 1), "widths": ("widths.dat", np.int32, 1),
}
_MASK_KEYS = ("rle_objects", "rle_offset", "rle_count", "heights", "widths")
_RLES_FILE = "masks_rles.dat"       # per RLE: uint64 h, w, m, then m uint32 counts
_POLYGON_KEYS = ("polygons", "poly_offset", "poly_count", "vertices", "vert_offset",
                 "vert_count")


def _rle_size(segm):
    size = segm.get("size")
    h, w = (size[0], size[1]) if isinstance(size, list) and len(size) >= 2 else (-1, -1)
    if not (isinstance(h, int) and isinstance(w, int) and h > 0 and w > 0):
        raise RuntimeError("Invalid or missing mask sizes")
    return h, w


def _rle_counts(segm):
    """The run lengths of an RLE segmentation: a list of counts, or the COCO API's compressed
    string (6-bit groups from '0', deltas against the count two back)."""
    counts = segm.get("counts")
    if isinstance(counts, list) and counts:
        return np.array(counts, np.int64).astype(np.uint32)
    if not isinstance(counts, str) or not counts:
        raise RuntimeError("Missing or invalid ``counts`` attribute.")
    out = []
    p, n = 0, len(counts)
    while p < n:
        x = k = 0
        more = True
        while more:
            c = (ord(counts[p]) - 48) if p < n else 0
            x |= (c & 0x1F) << (5 * k)
            more = bool(c & 0x20)
            p += 1
            k += 1
            if not more and c & 0x10:
                x |= -1 << (5 * k)
        if len(out) > 2:
            x += out[-2]
        out.append(x & 0xFFFFFFFF)
    return np.array(out, np.uint32)


def _rows(offsets, counts):
    """The row indices of samples whose rows are [offsets[i], offsets[i] + counts[i])."""
    total = int(counts.sum())
    starts = np.repeat(offsets - np.cumsum(counts) + counts, counts)
    return starts + np.arange(total, dtype=np.int64)


@_registry.register
class Coco(_common.Reader):
    schema = Schema(
        "readers.coco", inputs=0, outputs=_n_outputs, devices=("cpu",), random=True,
        class_name="COCO",
        doc="Reads a COCO data set: the images (encoded bytes) of `file_root` with their "
            "bounding boxes and labels from `annotations_file`, optionally the masks' polygons "
            "and the image ids. Outputs: images, bounding_boxes, labels, "
            "((polygons, vertices) | (pixelwise_masks)), (image_ids). The sample order, "
            "sharding, shuffling buffer and padding are real DALI's.",
        args=[
            Arg("file_root", T.STRING, None, doc="Directory of the images."),
            Arg("annotations_file", T.STRING, "", doc="The JSON annotations file."),
            Arg("preprocessed_annotations", T.STRING, "",
                doc="Directory of preprocessed annotations (see "
                    "`save_preprocessed_annotations`), read instead of `annotations_file`."),
            Arg("meta_files_path", T.STRING, None, alias_of="preprocessed_annotations"),
            Arg("images", T._STRING_VEC, None,
                doc="The images to read, in this order (duplicates give copies), named as in "
                    "the annotations file; default: every image, by ascending id."),
            Arg("ltrb", T.BOOL, False,
                doc="Boxes as [left, top, right, bottom] instead of [x, y, width, height]."),
            Arg("ratio", T.BOOL, False,
                doc="Box and polygon coordinates relative to the image's width and height."),
            Arg("size_threshold", T.FLOAT, 0.1,
                doc="Objects whose box is narrower or lower than this (pixels) are left out."),
            Arg("skip_empty", T.BOOL, False, doc="Leave out images without objects."),
            Arg("include_iscrowd", T.BOOL, True,
                doc="Keep the annotations marked `iscrowd=1`."),
            Arg("avoid_class_remapping", T.BOOL, False,
                doc="Return the category ids as in the file instead of 1..number of "
                    "categories in the order they are listed."),
            Arg("polygon_masks", T.BOOL, False,
                doc="Add the outputs polygons ([mask index, first vertex, end vertex] rows) "
                    "and vertices ([x, y] rows)."),
            Arg("masks", T.BOOL, False,
                deprecated="Use ``polygon_masks`` instead. Note that the polygon format has "
                           "changed ``mask_id, start_coord, end_coord`` to ``mask_id, "
                           "start_vertex, end_vertex``.",
                doc="Polygon masks in the legacy format (vertex ranges counted in "
                    "coordinates, i.e. doubled)."),
            Arg("pixelwise_masks", T.BOOL, False,
                doc="Add an output of pixel-wise masks: (height, width, 1) int32, layout HWC, "
                    "each pixel the label of its object (0: background), rasterised from the "
                    "polygons and RLEs as DALI does. Exclusive with `polygon_masks`."),
            Arg("image_ids", T.BOOL, False, doc="Add an output of the image ids."),
            Arg("save_img_ids", T.BOOL, None, alias_of="image_ids"),
            Arg("save_preprocessed_annotations", T.BOOL, False,
                doc="Write the preprocessed annotations to "
                    "`save_preprocessed_annotations_dir` (DALI's binary format)."),
            Arg("dump_meta_files", T.BOOL, None, alias_of="save_preprocessed_annotations"),
            Arg("save_preprocessed_annotations_dir", T.STRING, "",
                doc="Directory the preprocessed annotations are written to."),
            Arg("dump_meta_files_path", T.STRING, None,
                alias_of="save_preprocessed_annotations_dir"),
            *_common.shuffle_after_epoch_args(),
            *_common.loader_args(),
            _common.on_error_arg(),
        ])

    def setup(self):
        a = self.args
        if a["file_root"] is None:
            raise RuntimeError("``file_root`` argument is required when not using ``files`` "
                               "or ``file_list``.")
        if a["preprocessed_annotations"]:
            if a["annotations_file"]:
                raise RuntimeError('When reading data from preprocessed annotation files, '
                                   '"annotations_file" is not supported.')
            if a["images"] is not None:
                raise RuntimeError('When reading data from preprocessed annotation files, '
                                   '"images" is not supported.')
        self._polygons = bool(a["polygon_masks"] or a["masks"])
        if self._polygons and a["pixelwise_masks"]:
            raise RuntimeError("``pixelwise_masks`` and ``polygon_masks`` are mutually "
                               "exclusive")
        self._segmentation = self._polygons or bool(a["pixelwise_masks"])
        _common.check_shuffle_after_epoch(a)
        super().setup()

    def loader_options(self):
        return _common.shuffle_after_epoch_options(self.args)

    # -- the annotations ---------------------------------------------------------------------
    def list_entries(self):
        a = self.args
        if a["preprocessed_annotations"]:
            names, data = self._load_preprocessed(a["preprocessed_annotations"])
        else:
            names, data = self._parse_json(a["annotations_file"])
            if a["save_preprocessed_annotations"]:
                self._save_preprocessed(a["save_preprocessed_annotations_dir"], names, data)
        if not names:
            raise RuntimeError("No files found.")
        self._names = names
        self._data = data
        self._paths = [os.fsencode(os.path.join(a["file_root"], n)) for n in names]
        return list(range(len(names)))

    def _parse_json(self, path):
        a = self.args
        try:
            with open(path, "rb") as f:
                doc = json.load(f)
        except OSError:
            raise RuntimeError(f'Could not open JSON annotations file: "{path}"') from None
        except (ValueError, RecursionError) as e:
            raise RuntimeError(f'Error parsing JSON annotations file "{path}": {e}') from None
        if not isinstance(doc, dict):
            raise RuntimeError(f'Error parsing JSON annotations file "{path}": the top level '
                               f"is not an object")
        infos = [i for i in doc.get("images", ()) if isinstance(i, dict)]
        categories = {}
        for c in doc.get("categories", ()):
            if not isinstance(c, dict):
                continue
            if "id" not in c:
                raise RuntimeError("Missing category ID in the JSON annotations file")
            categories.setdefault(int(c["id"]), len(categories) + 1)
        names = a["images"]
        if names is None:
            names = [i.get("file_name", "") for i in sorted(infos, key=lambda i: i.get("id", 0))]
        by_name = {n: None for n in names}
        by_id = {}
        for info in infos:
            name = info.get("file_name", "")
            if name in by_name:
                by_name[name] = info
                by_id[info.get("id")] = []
        threshold = np.float32(a["size_threshold"])
        for ann in doc.get("annotations", ()):
            if not isinstance(ann, dict) or ann.get("image_id") not in by_id:
                continue
            if not a["include_iscrowd"] and ann.get("iscrowd", 0) != 0:
                continue
            box = ann.get("bbox", [0, 0, 0, 0])
            if not isinstance(box, list) or len(box) != 4:
                got = len(box) if isinstance(box, list) else 0
                raise RuntimeError(f"Invalid COCO annotation: `bbox` must contain exactly 4 "
                                   f"values, got {got}.")
            box = np.array(box, np.float32)
            if not (box[2] >= threshold and box[3] >= threshold):
                continue
            by_id[ann["image_id"]].append((ann, box))
        return self._flatten(names, by_name, by_id, categories)

    def _flatten(self, names, by_name, by_id, categories):
        a = self.args
        remap = not a["avoid_class_remapping"]
        kept, offsets, counts, ids = [], [], [], []
        boxes, labels = [], []
        polygons, vertices, poly_offset, poly_count, vert_offset, vert_count = \
            [], [], [], [], [], []
        rle_objects, rle_dims, rle_counts, rle_offset, rle_count, heights, widths = \
            [], [], [], [], [], [], []
        for name in names:
            info = by_name.get(name)
            if info is None:
                continue
            anns = by_id[info.get("id")]
            if a["skip_empty"] and not anns:
                continue
            width = np.float32(info.get("width", 1))
            height = np.float32(info.get("height", 1))
            poly_offset.append(len(polygons))
            vert_offset.append(len(vertices))
            rle_offset.append(len(rle_objects))
            first_vertex = len(vertices)
            for m, (ann, box) in enumerate(anns):
                cat = int(ann.get("category_id", 0))
                labels.append(categories.get(cat, 0) if remap else cat)
                if a["ltrb"]:
                    box = np.array([box[0], box[1], box[0] + box[2], box[1] + box[3]],
                                   np.float32)
                if a["ratio"]:
                    box = box / np.array([width, height, width, height], np.float32)
                boxes.append(box)
                segm = ann.get("segmentation")
                if a["pixelwise_masks"] and isinstance(segm, dict):
                    rle_objects.append(m)
                    rle_dims.append(_rle_size(segm))
                    rle_counts.append(_rle_counts(segm))
                    continue
                if not self._segmentation or not isinstance(segm, list):
                    continue
                for poly in segm:
                    coords = np.array(poly, np.float32).reshape(-1, 2)
                    if a["ratio"]:
                        coords = coords / np.array([width, height], np.float32)
                    start = len(vertices) - first_vertex
                    polygons.append((m, start, start + len(coords)))
                    vertices.extend(coords)
            poly_count.append(len(polygons) - poly_offset[-1])
            rle_count.append(len(rle_objects) - rle_offset[-1])
            heights.append(int(info.get("height", 0)))
            widths.append(int(info.get("width", 0)))
            vert_count.append(len(vertices) - vert_offset[-1])
            offsets.append(sum(counts))
            counts.append(len(anns))
            ids.append(int(info.get("id", 0)))
            kept.append(name)
        data = {
            "offsets": np.array(offsets, np.int64), "counts": np.array(counts, np.int64),
            "boxes": np.array(boxes, np.float32).reshape(-1, 4),
            "labels": np.array(labels, np.int32), "original_ids": np.array(ids, np.int32),
            "polygons": np.array(polygons, np.int32).reshape(-1, 3),
            "vertices": np.array(vertices, np.float32).reshape(-1, 2),
            "poly_offset": np.array(poly_offset, np.int64),
            "poly_count": np.array(poly_count, np.int64),
            "vert_offset": np.array(vert_offset, np.int64),
            "vert_count": np.array(vert_count, np.int64),
            "rle_objects": np.array(rle_objects, np.int32),
            "rle_dims": np.array(rle_dims, np.int64).reshape(-1, 2),
            "rle_starts": np.cumsum([0] + [len(c) for c in rle_counts], dtype=np.int64),
            "rle_data": (np.concatenate(rle_counts).astype(np.uint32) if rle_counts
                         else np.empty(0, np.uint32)),
            "rle_offset": np.array(rle_offset, np.int64),
            "rle_count": np.array(rle_count, np.int64),
            "heights": np.array(heights, np.int64), "widths": np.array(widths, np.int64),
        }
        return kept, data

    def _wanted(self):
        keys = ["offsets", "boxes", "labels", "counts"]
        keys += list(_POLYGON_KEYS) if self._segmentation else []
        keys += list(_MASK_KEYS) if self.args["pixelwise_masks"] else []
        keys += ["original_ids"] if self.args["image_ids"] else []
        return keys

    def _save_preprocessed(self, directory, names, data):
        for key in self._wanted():
            filename, dtype, width = _PREPROCESSED[key]
            values = np.ascontiguousarray(data[key], dtype).reshape(-1, width)
            if not len(values):
                continue          # DALI writes no file for an empty table
            self._write(os.path.join(directory, filename),
                        np.uint32(len(values)).tobytes() + values.tobytes())
        parts = {"filenames.dat": "".join(n + "\n" for n in names).encode("utf-8")}
        if self.args["pixelwise_masks"] and len(data["rle_objects"]):
            starts = data["rle_starts"]
            blob = [np.uint32(len(data["rle_objects"])).tobytes()]
            for k, (h, w) in enumerate(data["rle_dims"].tolist()):
                counts = data["rle_data"][starts[k]:starts[k + 1]]
                blob += [np.array([h, w, len(counts)], np.uint64).tobytes(), counts.tobytes()]
            parts[_RLES_FILE] = b"".join(blob)
        for filename, blob in parts.items():
            self._write(os.path.join(directory, filename), blob)

    @staticmethod
    def _write(path, blob):
        try:
            with open(path, "wb") as f:
                f.write(blob)
        except OSError as e:
            raise RuntimeError(f"CocoReader meta file error while saving: {path} "
                               f"({e.strerror})") from None

    def _load_preprocessed(self, directory):
        data = {}
        for key in self._wanted():
            filename, dtype, width = _PREPROCESSED[key]
            path = os.path.join(directory, filename)
            try:
                with open(path, "rb") as f:
                    raw = f.read()
            except OSError:
                raw = b""                            # DALI: a missing file is an empty table
            values = np.empty(0, dtype)
            if raw:
                n = int(np.frombuffer(raw[:4], np.uint32)[0]) if len(raw) >= 4 else -1
                need = 4 + n * width * np.dtype(dtype).itemsize
                if n < 0 or len(raw) < need:
                    raise RuntimeError(f"Error reading from path: {path}. The file has "
                                       f"{len(raw)} bytes but its header announces {need}.")
                values = np.frombuffer(raw, dtype, n * width, 4)
            data[key] = values.reshape(-1, width) if width > 1 else values
        data["boxes"] = data["boxes"].reshape(-1, 4)
        for key in ("offsets", "counts", "poly_offset", "poly_count", "vert_offset",
                    "vert_count", "rle_offset", "rle_count", "heights", "widths"):
            data[key] = data.get(key, np.empty(0, np.int64)).astype(np.int64)
        if self.args["pixelwise_masks"]:
            self._load_rles(os.path.join(directory, _RLES_FILE), data)
        try:
            with open(os.path.join(directory, "filenames.dat"), encoding="utf-8") as f:
                names = f.read().split()
        except OSError:
            names = []
        n = len(names)
        for key in ("offsets", "counts") + \
                (_POLYGON_KEYS[1:3] + _POLYGON_KEYS[4:] if self._segmentation else ()) + \
                (_MASK_KEYS[1:] if self.args["pixelwise_masks"] else ()):
            if len(data[key]) < n:
                raise RuntimeError(f"The preprocessed annotations in {directory} are "
                                   f"inconsistent: {len(data[key])} entries in "
                                   f"{_PREPROCESSED[key][0]} for {n} images")
        self._check_ranges(directory, data, n)
        return names, data

    @staticmethod
    def _load_rles(path, data):
        """The RLEs of masks_rles.dat into data's rle_dims, rle_starts and rle_data."""
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError:
            raw = b""
        dims, counts, starts = [], [], [0]
        if raw:
            def short():
                return RuntimeError(f"Error reading from path: {path}. The file ends inside "
                                    f"its RLE {len(dims)}.")
            if len(raw) < 4:
                raise short()
            pos = 4
            for _ in range(int(np.frombuffer(raw, np.uint32, 1)[0])):
                if pos + 24 > len(raw):
                    raise short()
                h, w, m = np.frombuffer(raw, np.uint64, 3, pos).tolist()
                pos += 24
                if pos + 4 * m > len(raw):
                    raise short()
                counts.append(np.frombuffer(raw, np.uint32, m, pos))
                pos += 4 * m
                dims.append((h, w))
                starts.append(starts[-1] + m)
        data["rle_dims"] = np.array(dims, np.int64).reshape(-1, 2)
        data["rle_starts"] = np.array(starts, np.int64)
        data["rle_data"] = np.concatenate(counts) if counts else np.empty(0, np.uint32)

    def _check_ranges(self, directory, data, n):
        checks = [("offsets", "counts", "boxes"), ("offsets", "counts", "labels")]
        if self.args["pixelwise_masks"]:
            checks.append(("rle_offset", "rle_count", "rle_objects"))
            if len(data["rle_objects"]) != len(data["rle_dims"]):
                raise RuntimeError(f"The preprocessed annotations in {directory} are "
                                   f"inconsistent: {len(data['rle_objects'])} entries in "
                                   f"masks_rles_idx.dat for {len(data['rle_dims'])} RLEs")
        if self._segmentation:
            checks += [("poly_offset", "poly_count", "polygons"),
                       ("vert_offset", "vert_count", "vertices")]
        for off, cnt, table in checks:
            o, c = data[off][:n], data[cnt][:n]
            if n and ((o < 0).any() or (c < 0).any() or (o + c > len(data[table])).any()):
                raise RuntimeError(f"The preprocessed annotations in {directory} are "
                                   f"inconsistent: {_PREPROCESSED[off][0]} and "
                                   f"{_PREPROCESSED[cnt][0]} point outside "
                                   f"{_PREPROCESSED[table][0]}")

    # -- one iteration -----------------------------------------------------------------------
    def infer(self, ws):
        entries, images = self.next_batch(ws)         # read ahead on the reader's thread
        ids = np.array(entries, np.int64)
        d = self._data
        counts = d["counts"][ids]
        descs = [_operator.OutputDesc(None, np.uint8, "", ndim=1),
                 _operator.OutputDesc(None, np.float32, "", ndim=2),
                 _operator.OutputDesc(None, np.int32, "", ndim=1)]
        if self._polygons:
            descs += [_operator.OutputDesc(None, np.int32, "", ndim=2),
                      _operator.OutputDesc(None, np.float32, "", ndim=2)]
        if self.args["pixelwise_masks"]:
            shapes = np.stack([d["heights"][ids], d["widths"][ids], np.ones_like(ids)], axis=1)
            if (shapes < 0).any():
                raise self.error("an image has a negative width or height", RuntimeError)
            descs.append(_operator.OutputDesc(shapes, np.int32, "HWC"))
        if self.args["image_ids"]:
            descs.append(_operator.OutputDesc([(1,)] * len(ids), np.int32, ""))
        return _operator.Plan(descs, ids=ids, counts=counts, images=images)

    def run_cpu(self, ws, plan):
        ids, d = plan.ids, self._data
        ws.outputs[0] = plan.images
        rows = _rows(d["offsets"][ids], plan.counts)
        ws.outputs[1] = self._gather(d["boxes"], rows, plan.counts, 4)
        ws.outputs[2] = self._gather(d["labels"], rows, plan.counts, 0)
        k = 3
        if self._polygons:
            counts = d["poly_count"][ids]
            polygons = d["polygons"][_rows(d["poly_offset"][ids], counts)]
            if self.args["masks"] and not self.args["polygon_masks"]:
                polygons = polygons * np.array([1, 2, 2], np.int32)
            ws.outputs[3] = self._gather(polygons, None, counts, 3)
            counts = d["vert_count"][ids]
            ws.outputs[4] = self._gather(d["vertices"], _rows(d["vert_offset"][ids], counts),
                                         counts, 2)
            k = 5
        if self.args["pixelwise_masks"]:
            self._paint(ws, ws.outputs[k], ids, rows, plan.counts)
            k += 1
        if self.args["image_ids"]:
            ws.outputs[k].dense()[:, 0] = d["original_ids"][ids]
        ws.out_source_info = [self._names[i] for i in ids.tolist()]

    def _paint(self, ws, out, ids, label_rows, label_counts):
        d = self._data

        def starts(counts):
            return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)

        poly_counts, vert_counts = d["poly_count"][ids], d["vert_count"][ids]
        rle_counts = d["rle_count"][ids]
        rles = _rows(d["rle_offset"][ids], rle_counts)
        lengths = d["rle_starts"][rles + 1] - d["rle_starts"][rles]
        coco_masks.masks_batch(
            ws.thread_pool, out, (d["labels"][label_rows], starts(label_counts)),
            (d["polygons"][_rows(d["poly_offset"][ids], poly_counts)], starts(poly_counts)),
            (self._absolute(ids, d["vertices"][_rows(d["vert_offset"][ids], vert_counts)],
                            vert_counts), starts(vert_counts)),
            (d["rle_objects"][rles], d["rle_dims"][rles], starts(lengths),
             d["rle_data"][_rows(d["rle_starts"][rles], lengths)], starts(rle_counts)))

    def _absolute(self, ids, vertices, counts):
        if not self.args["ratio"]:
            return vertices
        d = self._data
        size = np.stack([d["widths"][ids], d["heights"][ids]], axis=1).astype(np.float32)
        return vertices * np.repeat(size, counts, axis=0)

    @staticmethod
    def _gather(table, rows, counts, width):
        """Storage of the samples' rows of `table` (all of it when `rows` is None)."""
        shapes = counts.reshape(-1, 1) if not width else \
            np.stack([counts, np.full_like(counts, width)], axis=1)
        storage = BatchStorage.allocate(table.dtype, shapes, ndim=2 if width else 1)
        flat = storage.flat()
        if flat.size:
            flat[...] = (table if rows is None else table[rows]).reshape(-1)
        return storage

    def entry_name(self, entry):
        return self._names[entry]

    def read(self, entries):
        """(storage of the images' bytes, None), or (None, (index, message)) for the first
        that cannot be read (on the reader's thread)."""
        paths = [self._paths[i] for i in entries]
        opened = files.open_files(paths)
        if opened.failure is not None:
            i, err = opened.failure
            return None, (i, f"cannot read {os.fsdecode(paths[i])}: {os.strerror(err)}")
        storage = BatchStorage.allocate(np.uint8, opened.sizes.reshape(-1, 1), ndim=1)
        failure = opened.read_into(storage.samples())
        if failure is not None:
            i, err, _ = failure
            return None, (i, f"cannot read {os.fsdecode(paths[i])}: "
                             + (os.strerror(err) if err else "it changed while it was read"))
        return storage, None
