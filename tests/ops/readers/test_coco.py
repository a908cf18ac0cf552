"""fn.readers.coco: listing and filtering of the annotations, boxes (ltrb, ratio), labels
(remapping), polygons, image ids, preprocessed annotations, order over shards, errors."""

from __future__ import annotations

import importlib
import json
import pathlib

import numpy as np
import pytest

IMAGES = [{"id": 7, "file_name": "b.jpg", "width": 40, "height": 20},
          {"id": 3, "file_name": "a.jpg", "width": 10, "height": 10},
          {"id": 9, "file_name": "c.jpg", "width": 8, "height": 8},
          {"id": 12, "file_name": "d.jpg", "width": 8, "height": 8}]
ANNOTATIONS = [
    {"image_id": 7, "category_id": 90, "bbox": [1, 2, 3, 4], "iscrowd": 0,
     "segmentation": [[1, 1, 5, 1, 5, 6], [2, 2, 3, 3, 2, 4, 1, 1]]},
    {"image_id": 3, "category_id": 5, "bbox": [0.5, 0.5, 2, 2], "iscrowd": 1,
     "segmentation": {"size": [10, 10], "counts": [5, 10, 85]}},
    {"image_id": 7, "category_id": 1, "bbox": [4, 4, 0.05, 4], "iscrowd": 0},   # too narrow
    {"image_id": 7, "category_id": 5, "bbox": [10, 5, 20, 10], "iscrowd": 0,
     "segmentation": [[10, 5, 30, 5, 30, 15]]},
    {"image_id": 12, "category_id": 1, "bbox": [1, 1, 2, 2]},
    {"image_id": 99, "category_id": 1, "bbox": [1, 1, 2, 2]},                     # no image
]


@pytest.fixture(scope="module")
def coco(tmp_path_factory):
    root = tmp_path_factory.mktemp("coco")
    (root / "imgs").mkdir()
    for info in IMAGES:
        (root / "imgs" / info["file_name"]).write_bytes(info["file_name"].encode() * 3)
    doc = {"images": IMAGES, "categories": [{"id": 5}, {"id": 1}, {"id": 90}],
           "annotations": ANNOTATIONS, "info": {"ignored": [1, 2]}}
    (root / "ann.json").write_text(json.dumps(doc))
    return root


def read(root, pkg="dali", iterations=1, batch_size=4, pipeline_seed=7, **kwargs):
    """Per iteration: per output, the list of sample arrays (then the images' source info)."""
    mod = importlib.import_module(pkg)
    fns = importlib.import_module(pkg + ".fn")
    if "preprocessed_annotations" not in kwargs:
        kwargs.setdefault("annotations_file", str(root / "ann.json"))
    kwargs.setdefault("file_root", str(root / "imgs"))

    @mod.pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, seed=pipeline_seed)
    def pipe():
        outs = fns.readers.coco(name="R", **kwargs)
        return (*outs, outs[0].source_info())

    p = pipe()
    p.build()
    result = []
    for _ in range(iterations):
        out = p.run()
        result.append([[np.array(x[i]) for i in range(len(x))] for x in out])
    return result, p.reader_meta("R")


def test_outputs(coco):
    (out,), meta = read(coco, polygon_masks=True, image_ids=True)
    assert meta["epoch_size"] == 4
    images, boxes, labels, polygons, vertices, ids, infos = out
    assert [bytes(x) for x in infos] == [b"a.jpg", b"b.jpg", b"c.jpg", b"d.jpg"]   # by id
    assert [x.tobytes() for x in images] == [n.encode() * 3 for n in
                                            ("a.jpg", "b.jpg", "c.jpg", "d.jpg")]
    assert [b.tolist() for b in boxes] == [[[0.5, 0.5, 2, 2]], [[1, 2, 3, 4], [10, 5, 20, 10]],
                                           [], [[1, 1, 2, 2]]]
    assert all(b.shape[1:] == (4,) and b.dtype == np.float32 for b in boxes)
    assert [x.tolist() for x in labels] == [[1], [3, 1], [], [2]]    # 5 -> 1, 1 -> 2, 90 -> 3
    assert [p.tolist() for p in polygons] == [[], [[0, 0, 3], [0, 3, 7], [1, 7, 10]], [], []]
    assert polygons[0].shape == (0, 3) and vertices[0].shape == (0, 2)
    np.testing.assert_array_equal(vertices[1], np.array(
        [1, 1, 5, 1, 5, 6, 2, 2, 3, 3, 2, 4, 1, 1, 10, 5, 30, 5, 30, 15],
        np.float32).reshape(-1, 2))
    assert [x.tolist() for x in ids] == [[3], [7], [9], [12]]


def test_ltrb_ratio_skip_empty_iscrowd_and_no_remapping(coco):
    (out,), meta = read(coco, ltrb=True, ratio=True, skip_empty=True, include_iscrowd=False,
                        avoid_class_remapping=True, batch_size=2)
    assert meta["epoch_size"] == 2
    images, boxes, labels, infos = out
    assert [bytes(x) for x in infos] == [b"b.jpg", b"d.jpg"]
    f = np.float32
    np.testing.assert_array_equal(boxes[0], np.array(
        [[f(1) / f(40), f(2) / f(20), f(4) / f(40), f(6) / f(20)],
         [f(10) / f(40), f(5) / f(20), f(30) / f(40), f(15) / f(20)]], np.float32))
    assert labels[0].tolist() == [90, 5] and labels[1].tolist() == [1]


def test_polygon_ratio_and_legacy_masks(coco):
    with pytest.warns(DeprecationWarning, match="argument `masks`: Use ``polygon_masks``"):
        (out,), _ = read(coco, masks=True, ratio=True, size_threshold=0.0)
    polygons, vertices = out[3], out[4]
    assert polygons[1].tolist() == [[0, 0, 6], [0, 6, 14], [2, 14, 20]]   # doubled, 3 objects
    np.testing.assert_array_equal(vertices[1][-1], np.float32([30, 15]) /
                                  np.float32([40, 20]))


def test_images_argument(coco):
    (out,), meta = read(coco, images=["d.jpg", "a.jpg", "zz.jpg", "d.jpg"], batch_size=3)
    assert meta["epoch_size"] == 3
    assert [bytes(x) for x in out[-1]] == [b"d.jpg", b"a.jpg", b"d.jpg"]


def test_preprocessed_round_trip(coco, tmp_path):
    kwargs = {"polygon_masks": True, "image_ids": True, "ltrb": True}
    direct, meta = read(coco, save_preprocessed_annotations=True,
                        save_preprocessed_annotations_dir=str(tmp_path), **kwargs)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "boxes.dat", "counts.dat", "filenames.dat", "labels.dat", "offsets.dat",
        "original_ids.dat", "polygon_data.dat", "polygon_offset.dat", "polygons_count.dat",
        "vertices.dat", "vertices_count.dat", "vertices_offset.dat"]
    raw = (tmp_path / "counts.dat").read_bytes()
    assert np.frombuffer(raw, np.int32).tolist() == [4, 1, 2, 0, 1]
    loaded, _ = read(coco, preprocessed_annotations=str(tmp_path), **kwargs)
    for a, b in zip(direct[0], loaded[0], strict=True):
        assert [x.tolist() for x in a] == [x.tolist() for x in b]


def test_truncated_or_inconsistent_preprocessed_files(coco, tmp_path):
    read(coco, save_preprocessed_annotations=True, save_preprocessed_annotations_dir=str(tmp_path))
    boxes = tmp_path / "boxes.dat"
    saved = boxes.read_bytes()
    boxes.write_bytes(saved[:-3])
    with pytest.raises(RuntimeError, match=f"Error reading from path: {boxes}"):
        read(coco, preprocessed_annotations=str(tmp_path))
    boxes.write_bytes(np.uint32(4).tobytes() + np.zeros(4, np.float32).tobytes())   # one box
    with pytest.raises(RuntimeError, match="offsets.dat and counts.dat point outside boxes.dat"):
        read(coco, preprocessed_annotations=str(tmp_path))
    (tmp_path / "counts.dat").write_bytes(np.array([1, 1], np.int32).tobytes())
    with pytest.raises(RuntimeError, match="inconsistent: 1 entries in counts.dat for 4 images"):
        read(coco, preprocessed_annotations=str(tmp_path))


def test_shuffle_after_epoch_permutes_as_readers_file(tmp_path):
    """DALI's COCO reader re-permutes its image list as readers.file does its file list."""
    from dali import fn, pipeline_def

    root = random_coco(tmp_path, np.random.default_rng(0))
    names = [i["file_name"] for i in sorted(json.loads((root / "ann.json").read_text())["images"],
                                            key=lambda i: i["id"])]

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=7)
    def files():
        data, _ = fn.readers.file(file_root=str(root / "imgs"), files=names,
                                  shuffle_after_epoch=True, shuffle_after_epoch_seed=3)
        return data.source_info()

    p = files()
    p.build()
    want = [[bytes(np.array(x)).decode() for x in p.run()[0]] for _ in range(6)]
    got, _ = read(root, iterations=6, shuffle_after_epoch=True, shuffle_after_epoch_seed=3)
    assert [[bytes(x).decode() for x in it[-1]] for it in got] == want
    assert sorted(sum(want[:3], [])[:len(names)]) == sorted(names)     # a permutation
    with pytest.raises(RuntimeError, match="shuffle_after_epoch and random_shuffle cannot be "
                                           "both true"):
        read(root, shuffle_after_epoch=True, random_shuffle=True)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    dict(shuffle_after_epoch=True),
    dict(shuffle_after_epoch=True, shuffle_after_epoch_seed=-3, num_shards=3, shard_id=1),
    dict(shuffle_after_epoch=True, num_shards=2, shard_id=1, pad_last_batch=True)])
def test_shuffle_after_epoch_matches_the_oracle(tmp_path, kwargs):
    pytest.importorskip("nvidia.dali")
    root = random_coco(tmp_path, np.random.default_rng(1))
    ours, meta = read(root, iterations=9, batch_size=3, **kwargs)
    theirs, real_meta = read(root, pkg="nvidia.dali", iterations=9, batch_size=3, **kwargs)
    assert meta == real_meta
    assert [[bytes(x).decode() for x in it[-1]] for it in ours] == \
        [[bytes(x).decode() for x in it[-1]] for it in theirs]
    for a, b in zip(ours, theirs, strict=True):          # boxes and labels go with them
        for x, y in zip(a[1:3], b[1:3], strict=True):
            assert [t.tolist() for t in x] == [t.tolist() for t in y]


@pytest.mark.parametrize("kwargs, message", [
    ({"file_root": None}, "``file_root`` argument is required"),
    ({"annotations_file": "nope.json"}, 'Could not open JSON annotations file: "nope.json"'),
    ({"preprocessed_annotations": "x", "annotations_file": "a.json"},
     'When reading data from preprocessed annotation files, "annotations_file" is not '
     "supported."),
])
def test_argument_errors(coco, kwargs, message):
    with pytest.raises(RuntimeError, match="readers.coco") as e:
        read(coco, **kwargs)
    assert message in str(e.value)


def test_bad_json_and_missing_image(coco, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{bad")
    with pytest.raises(RuntimeError, match=f'Error parsing JSON annotations file "{bad}"'):
        read(coco, annotations_file=str(bad))
    bad.write_text(json.dumps({"images": IMAGES, "annotations": [
        {"image_id": 7, "bbox": [1, 2, 3]}]}))
    with pytest.raises(RuntimeError, match="`bbox` must contain exactly 4 values, got 3"):
        read(coco, annotations_file=str(bad))
    root = tmp_path / "imgs"
    root.mkdir()
    (root / "a.jpg").write_bytes(b"a")
    with pytest.raises(RuntimeError, match="cannot read .*b.jpg: No such file"):
        read(coco, file_root=str(root))


def test_on_error_skip_drops_images_that_cannot_be_read(coco, tmp_path):
    root = tmp_path / "imgs"
    root.mkdir()
    for name in ("b.jpg", "d.jpg"):                       # a.jpg missing, c.jpg a directory
        (root / name).write_bytes(name.encode() * 3)
    (root / "c.jpg").mkdir()
    with pytest.warns(RuntimeWarning, match=r"2 sample\(s\) that could not be read"):
        (out,), meta = read(coco, file_root=str(root), batch_size=2, polygon_masks=True,
                            image_ids=True, on_error="skip")
    images, boxes, labels, polygons, vertices, ids, infos = out
    assert [bytes(x) for x in infos] == [b"b.jpg", b"d.jpg"]
    assert [x.tobytes() for x in images] == [b"b.jpg" * 3, b"d.jpg" * 3]
    assert [b.tolist() for b in boxes] == [[[1, 2, 3, 4], [10, 5, 20, 10]], [[1, 1, 2, 2]]]
    assert [x.tolist() for x in labels] == [[3, 1], [2]]
    assert [p.tolist() for p in polygons] == [[[0, 0, 3], [0, 3, 7], [1, 7, 10]], []]
    assert [len(v) for v in vertices] == [10, 0]
    assert [x.tolist() for x in ids] == [[7], [12]]
    skipped = meta["skipped"]
    assert [s["sample"] for s in skipped][:2] == ["a.jpg", "c.jpg"]    # (then read ahead)
    assert "No such file" in skipped[0]["reason"] and "c.jpg" in skipped[1]["reason"]
    with pytest.raises(RuntimeError, match="cannot read .*a.jpg: No such file"):
        read(coco, file_root=str(root), batch_size=2)


def random_coco(root, rng, n_images=11):
    """A random data set: images with random sizes and ids, 0-4 annotations each with random
    boxes (some tiny), categories, crowd flags and 0-2 polygons."""
    root = pathlib.Path(root)
    (root / "imgs").mkdir(parents=True, exist_ok=True)
    ids = rng.permutation(1000)[:n_images]
    images, anns = [], []
    cats = [int(c) for c in rng.permutation(50)[:6]]
    for k, image_id in enumerate(ids.tolist()):
        name = f"im{k}.jpg"
        (root / "imgs" / name).write_bytes(rng.bytes(int(rng.integers(1, 50))))
        w, h = int(rng.integers(8, 300)), int(rng.integers(8, 300))
        images.append({"id": image_id, "file_name": name, "width": w, "height": h})
        for _ in range(int(rng.integers(0, 5))):
            box = [float(np.float32(v)) for v in (rng.uniform(0, w), rng.uniform(0, h),
                                                   rng.choice([0.05, rng.uniform(0, w)]),
                                                   rng.uniform(0, h))]
            segm = [[float(np.float32(v)) for v in rng.uniform(0, w, 2 * int(rng.integers(3, 6)))]
                    for _ in range(int(rng.integers(0, 3)))]
            anns.append({"image_id": image_id, "category_id": int(rng.choice(cats)),
                         "bbox": box, "iscrowd": int(rng.random() < 0.2), "segmentation": segm})
    rng.shuffle(anns)
    doc = {"images": images, "categories": [{"id": c} for c in cats[:-1]], "annotations": anns}
    (root / "ann.json").write_text(json.dumps(doc))
    return root


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_random_data_sets_match_dali(tmp_path, seed):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(seed)
    root = random_coco(tmp_path, rng)
    kwargs = {"polygon_masks": bool(seed % 2), "image_ids": True, "ltrb": seed == 1,
              "ratio": seed >= 2, "skip_empty": seed == 3, "include_iscrowd": seed != 2,
              "avoid_class_remapping": seed == 0, "size_threshold": [0.1, 0.0, 5.0, 1.0][seed]}
    mine, meta = read(root, iterations=3, **kwargs)
    theirs, their_meta = read(root, "nvidia.dali", iterations=3, **kwargs)
    assert meta == their_meta
    for a, b in zip(mine, theirs, strict=True):
        for x, y in zip(a, b, strict=True):
            assert len(x) == len(y)
            for s, t in zip(x, y, strict=True):
                assert s.dtype == t.dtype and s.shape == t.shape
                np.testing.assert_array_equal(s, t)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"random_shuffle": True}, {"random_shuffle": True, "initial_fill": 3, "seed": 5},
    {"num_shards": 3, "shard_id": 1}, {"num_shards": 2, "shard_id": 1, "pad_last_batch": True},
    {"num_shards": 3, "shard_id": 2, "stick_to_shard": True},
])
def test_order_matches_dali(tmp_path, kwargs):
    pytest.importorskip("nvidia.dali")
    root = random_coco(tmp_path, np.random.default_rng(0))

    def names(pkg):
        result, meta = read(root, pkg, iterations=6, batch_size=4, **kwargs)
        return [[bytes(x).decode() for x in it[-1]] for it in result], meta

    assert names("dali") == names("nvidia.dali")


@pytest.mark.oracle
def test_preprocessed_files_match_dali(coco, tmp_path):
    pytest.importorskip("nvidia.dali")
    kwargs = {"polygon_masks": True, "image_ids": True, "ratio": True}
    (tmp_path / "mine").mkdir()
    (tmp_path / "dali").mkdir()
    read(coco, save_preprocessed_annotations=True,
         save_preprocessed_annotations_dir=str(tmp_path / "mine"), **kwargs)
    read(coco, "nvidia.dali", save_preprocessed_annotations=True,
         save_preprocessed_annotations_dir=str(tmp_path / "dali"), **kwargs)
    mine = {p.name: p.read_bytes() for p in (tmp_path / "mine").iterdir()}
    assert mine == {p.name: p.read_bytes() for p in (tmp_path / "dali").iterdir()}


# -- pixel-wise masks --------------------------------------------------------------------------
GOLDEN_MASKS = pathlib.Path(__file__).resolve().parents[2] / "goldens" / "coco_masks.npz"


def test_pixelwise_masks_golden(tmp_path):
    golden = np.load(GOLDEN_MASKS)
    doc = json.loads(str(golden["annotations"]))
    (tmp_path / "ann.json").write_text(json.dumps(doc))
    for info in doc["images"]:
        (tmp_path / info["file_name"]).write_bytes(b"x")
    for c, kwargs in enumerate(json.loads(str(golden["cases"]))):
        (out,), _ = read(tmp_path, file_root=str(tmp_path),
                         annotations_file=str(tmp_path / "ann.json"), batch_size=5,
                         pixelwise_masks=True, **kwargs)
        masks = out[3]
        assert len(masks) == 5
        for i, m in enumerate(masks):
            want = golden[f"{c}_{i}"]
            assert m.dtype == np.int32 and m.shape == want.shape
            np.testing.assert_array_equal(m, want)
    # the last image's smallest label has no mask: DALI's combination paints nothing
    assert not golden["0_4"].any()


def test_pixelwise_mask_of_a_rectangle(coco, tmp_path):
    doc = {"images": [{"id": 1, "file_name": "a.jpg", "width": 12, "height": 10}],
           "categories": [{"id": 4}],
           "annotations": [{"image_id": 1, "category_id": 4, "bbox": [2, 3, 6, 4],
                            "segmentation": [[2, 3, 8, 3, 8, 7, 2, 7]]}]}
    (tmp_path / "ann.json").write_text(json.dumps(doc))
    (out,), _ = read(coco, annotations_file=str(tmp_path / "ann.json"), batch_size=1,
                     pixelwise_masks=True)
    mask = out[3][0]
    want = np.zeros((10, 12, 1), np.int32)
    want[3:7, 2:8] = 1       # the COCO API's rasterisation: the pixels x in [2, 8), y in [3, 7)
    np.testing.assert_array_equal(mask, want)


@pytest.mark.parametrize("segmentation, message", [
    ({"size": [0, 5], "counts": [5]}, "Invalid or missing mask sizes"),
    ({"size": [5, 5]}, "Missing or invalid ``counts`` attribute."),
])
def test_bad_rle(coco, tmp_path, segmentation, message):
    doc = {"images": [{"id": 1, "file_name": "a.jpg", "width": 5, "height": 5}],
           "annotations": [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2],
                            "segmentation": segmentation}]}
    (tmp_path / "ann.json").write_text(json.dumps(doc))
    with pytest.raises(RuntimeError, match=message):
        read(coco, annotations_file=str(tmp_path / "ann.json"), pixelwise_masks=True)


def test_pixelwise_argument_errors(coco):
    with pytest.raises(RuntimeError, match="``pixelwise_masks`` and ``polygon_masks`` are "
                                           "mutually exclusive"):
        read(coco, pixelwise_masks=True, polygon_masks=True)


def _golden_data_set(tmp_path):
    golden = np.load(GOLDEN_MASKS)
    doc = json.loads(str(golden["annotations"]))
    (tmp_path / "ann.json").write_text(json.dumps(doc))
    for info in doc["images"]:
        (tmp_path / info["file_name"]).write_bytes(b"x")
    return {"file_root": str(tmp_path), "annotations_file": str(tmp_path / "ann.json"),
            "batch_size": 5, "pixelwise_masks": True}


def test_pixelwise_preprocessed_round_trip(tmp_path):
    kwargs = _golden_data_set(tmp_path)
    saved = tmp_path / "saved"
    saved.mkdir()
    (direct,), _ = read(tmp_path, save_preprocessed_annotations=True,
                        save_preprocessed_annotations_dir=str(saved), **kwargs)
    assert {"masks_rles.dat", "masks_rles_idx.dat", "masks_offset.dat", "mask_count.dat",
            "heights.dat", "widths.dat", "polygon_data.dat"} <= {p.name for p in saved.iterdir()}
    del kwargs["annotations_file"]
    (loaded,), _ = read(tmp_path, preprocessed_annotations=str(saved), **kwargs)
    for a, b in zip(direct, loaded, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    rles = saved / "masks_rles.dat"
    rles.write_bytes(rles.read_bytes()[:-2])
    with pytest.raises(RuntimeError, match=f"Error reading from path: {rles}. The file ends "
                                           "inside its RLE"):
        read(tmp_path, preprocessed_annotations=str(saved), **kwargs)


@pytest.mark.oracle
def test_pixelwise_preprocessed_files_match_dali(tmp_path):
    pytest.importorskip("nvidia.dali")
    kwargs = _golden_data_set(tmp_path)
    for pkg in ("dali", "nvidia.dali"):
        (tmp_path / pkg).mkdir()
        read(tmp_path, pkg, save_preprocessed_annotations=True,
             save_preprocessed_annotations_dir=str(tmp_path / pkg), **kwargs)
    mine = {p.name: p.read_bytes() for p in (tmp_path / "dali").iterdir()}
    assert mine == {p.name: p.read_bytes() for p in (tmp_path / "nvidia.dali").iterdir()}
    del kwargs["annotations_file"]
    (theirs,), _ = read(tmp_path, "nvidia.dali", preprocessed_annotations=str(tmp_path / "dali"),
                        **kwargs)
    (ours,), _ = read(tmp_path, preprocessed_annotations=str(tmp_path / "nvidia.dali"), **kwargs)
    for a, b in zip(ours, theirs, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


def _rle_string(counts):
    out = []
    for i, x in enumerate(counts):
        x = int(x) - (int(counts[i - 2]) if i > 2 else 0)
        more = True
        while more:
            c = x & 0x1F
            x >>= 5
            more = x != -1 if c & 0x10 else x != 0
            out.append(chr((c | 0x20 if more else c) + 48))
    return "".join(out)


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(6))
def test_pixelwise_masks_match_dali(tmp_path, seed):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(100 + seed)
    root = random_coco(tmp_path, rng, n_images=6)
    doc = json.loads((root / "ann.json").read_text())
    sizes = {i["id"]: (i["height"], i["width"]) for i in doc["images"]}
    for ann in doc["annotations"]:
        if rng.random() < 0.3:
            h, w = sizes[ann["image_id"]]
            flat = (rng.random((h, w)) < 0.5).T.reshape(-1).astype(np.int8)
            bounds = np.concatenate([[0], np.flatnonzero(np.diff(flat)) + 1, [flat.size]])
            counts = ([0] if flat[0] else []) + np.diff(bounds).tolist()
            ann["segmentation"] = {"size": [h, w], "counts": _rle_string(counts)
                                   if rng.random() < 0.5 else counts}
    (root / "ann.json").write_text(json.dumps(doc))
    kwargs = {"pixelwise_masks": True, "ratio": seed % 3 == 2, "size_threshold": 0.0,
              "avoid_class_remapping": bool(seed % 2), "image_ids": True}
    mine, _ = read(root, iterations=2, batch_size=3, **kwargs)
    theirs, _ = read(root, "nvidia.dali", iterations=2, batch_size=3, **kwargs)
    for a, b in zip(mine, theirs, strict=True):
        for x, y in zip(a, b, strict=True):
            for s, t in zip(x, y, strict=True):
                assert s.dtype == t.dtype and s.shape == t.shape
                np.testing.assert_array_equal(s, t)


def test_pixelwise_refuses_far_away_polygons_and_negative_labels(coco, tmp_path):
    doc = {"images": [{"id": 1, "file_name": "a.jpg", "width": 8, "height": 8}],
           "annotations": [{"image_id": 1, "category_id": -3, "bbox": [0, 0, 2, 2],
                            "segmentation": [[0, 0, 4e8, 0, 4, 4]]}]}
    (tmp_path / "ann.json").write_text(json.dumps(doc))
    with pytest.raises(RuntimeError, match="polygon coordinates out of range"):
        read(coco, annotations_file=str(tmp_path / "ann.json"), batch_size=1,
             pixelwise_masks=True)
    doc["annotations"][0]["segmentation"] = [[0, 0, 4, 0, 4, 4]]
    (tmp_path / "ann.json").write_text(json.dumps(doc))
    with pytest.raises(RuntimeError, match="negative labels cannot be painted"):
        read(coco, annotations_file=str(tmp_path / "ann.json"), batch_size=1,
             pixelwise_masks=True, avoid_class_remapping=True)
