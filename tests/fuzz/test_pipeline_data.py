"""Fuzzing what a pipeline loads from outside: checkpoints, serialized pipelines and COCO
annotation files.  Mutants of valid inputs must load or be refused with a clear error
(ValueError for bytes that are not what they should be, RuntimeError for a reader's data set
it cannot use), never fail another way and never run code."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from dali import fn, pipeline_def
from dali._pipeline import checkpointing, serialization
from tests.fuzz import mutate


def _checkpoint():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=1,
                  enable_checkpointing=True)
    def pipe():
        x = fn.external_source(source=lambda i: [np.full(2, i, np.int32)] * 2)
        return x, fn.random.uniform(range=[0, 1])

    p = pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p.run()
    return p.checkpoint(), p.serialize()


@pytest.mark.parametrize("seed", range(3))
def test_checkpoints_and_serialized_pipelines_load_or_are_refused(seed):
    cp, ser = _checkpoint()
    outcomes = {"loaded": 0, "refused": 0}
    for _, _, _, data in mutate.mutants({"cp": ("bin", cp), "ser": ("bin", ser)}, 150, seed):
        for load in (checkpointing.decode, serialization.parse):
            try:
                result = load(data)
            except ValueError as e:
                assert str(e)                        # says what is wrong
                outcomes["refused"] += 1
            else:
                assert result is not None
                outcomes["loaded"] += 1
    assert outcomes["refused"] > 100 and outcomes["loaded"] > 0


def _coco(root):
    images = [{"id": i, "file_name": f"{i}.jpg", "width": 40, "height": 30} for i in range(3)]
    anns = [{"id": k, "image_id": k % 3, "category_id": 1 + k % 2, "iscrowd": 0,
             "bbox": [1.0 + k, 2.0, 10.0, 8.0], "area": 80.0,
             "segmentation": [[1, 2, 11, 2, 11, 10, 1, 10]]} for k in range(5)]
    cats = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]
    for i in range(3):
        (root / f"{i}.jpg").write_bytes(b"\xff\xd8" + bytes(20))
    return json.dumps({"images": images, "annotations": anns, "categories": cats}).encode()


@pytest.mark.parametrize("seed", range(2))
def test_coco_annotations_load_or_are_refused(tmp_path, seed):
    valid = _coco(tmp_path)
    for k, (_, _, _, data) in enumerate(mutate.mutants({"coco": ("json", valid)}, 60, seed)):
        path = tmp_path / f"ann{k}.json"
        path.write_bytes(data)

        @pipeline_def(batch_size=2, num_threads=1, device_id=None)
        def pipe(path=path):
            out = fn.readers.coco(file_root=str(tmp_path), annotations_file=str(path),
                                  polygon_masks=True)
            return out[1], out[2]

        try:
            pipe().build()
        except (ValueError, RuntimeError, KeyError, TypeError) as e:
            assert str(e)                          # says what is wrong
