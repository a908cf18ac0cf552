"""Regenerate detection.npz with real NVIDIA DALI: outputs of the deterministic detection
operators (fn.bb_flip, fn.bbox_paste, fn.box_encoder, fn.bbox_rotate) on small batches of
boxes.

The npz holds, per operator `op`: `{op}_in{j}_{i}` (sample i of input j), `{op}_cases` (a JSON
list of keyword arguments) and `{op}_{c}_{k}_{i}` (output k of case c, sample i).
Run: `python tests/goldens/make_detection.py`.
"""
import json
import pathlib

import numpy as np
from nvidia.dali import fn, pipeline_def

OUT = pathlib.Path(__file__).resolve().parent / "detection.npz"


def boxes(rng, counts, ltrb=True):
    out = []
    for n in counts:
        lt = rng.uniform(0.0, 0.6, (n, 2))
        wh = rng.uniform(0.01, 0.4, (n, 2))
        out.append(np.concatenate([lt, lt + wh if ltrb else wh], axis=1).astype(np.float32))
    return out


def inputs():
    rng = np.random.default_rng(2024)
    flat = [*boxes(rng, [5, 0, 3]), rng.uniform(0, 0.5, (2, 8)).astype(np.float32)]
    boxes_ltrb = boxes(rng, [6, 0, 13])
    labels = [np.arange(1, len(b) + 1, dtype=np.int32) for b in boxes_ltrb]
    # two identical boxes and an anchor equal to them: the ties of the matching
    boxes_ltrb[2][5] = boxes_ltrb[2][4]
    return {
        "bb_flip": [flat],
        "bbox_paste": [flat],
        "box_encoder": [boxes_ltrb, labels],
        "bbox_rotate": [boxes_ltrb, [x.reshape(-1, 1) for x in labels]],
    }


def anchors():
    rng = np.random.default_rng(7)
    a = boxes(rng, [120])[0]
    a[17] = inputs()["box_encoder"][0][2][4]
    return [float(v) for v in a.ravel()]


CASES = {
    "bb_flip": [{}, {"ltrb": True}, {"horizontal": 0, "vertical": 1},
                {"ltrb": True, "horizontal": 1, "vertical": 1}],
    "bbox_paste": [{"ratio": 2.0}, {"ratio": 1.5, "paste_x": 0.1, "paste_y": 0.9},
                   {"ratio": 3.7, "paste_x": 1.0, "paste_y": 0.0, "ltrb": True},
                   {"ratio": 1.0, "ltrb": True}],
    "box_encoder": [{}, {"criteria": 0.3}, {"offset": True},
                    {"offset": True, "scale": 300.0, "criteria": 0.45,
                     "means": [0.1, -0.2, 0.05, 0.3], "stds": [0.1, 0.1, 0.2, 0.2]}],
    "bbox_rotate": [{"angle": 30.0, "input_shape": [120, 200]},
                    {"angle": -100.0, "input_shape": [120, 200], "mode": "fixed"},
                    {"angle": 215.0, "input_shape": [120, 200], "mode": "halfway"},
                    {"angle": 41.0, "input_shape": [120, 200], "keep_size": True,
                     "remove_threshold": 0.5},
                    {"angle": 12.0, "input_shape": [90, 60, 3], "size": [50, 70]}],
}


def _returning(batch):
    return lambda: batch


def run(op, batches, kwargs):
    @pipeline_def(batch_size=len(batches[0]), num_threads=1, device_id=None)
    def pipe():
        nodes = [fn.external_source(source=_returning(b)) for b in batches]
        out = getattr(fn, op)(*nodes, **kwargs)
        return tuple(out) if isinstance(out, list) else out

    p = pipe()
    p.build()
    return [[np.array(t) for t in tl] for tl in p.run()]


def main():
    data = {}
    for op, batches in inputs().items():
        for j, b in enumerate(batches):
            for i, x in enumerate(b):
                data[f"{op}_in{j}_{i}"] = x
        cases = [dict(kw, anchors=anchors()) if op == "box_encoder" else kw for kw in CASES[op]]
        data[f"{op}_cases"] = np.array(json.dumps(cases))
        for c, kwargs in enumerate(cases):
            for k, out in enumerate(run(op, batches, kwargs)):
                for i, x in enumerate(out):
                    data[f"{op}_{c}_{k}_{i}"] = x
    np.savez_compressed(OUT, **data)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
