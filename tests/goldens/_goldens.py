"""What the golden generators that store cases share (make_coord_transform, make_tensor_resize,
make_resize_crop_mirror, make_warp_perspective, make_transforms): DALI type names in a case's
arguments, running one operator graph in a pipeline with real NVIDIA DALI, and the npz layout
`cases` (JSON), optional `layouts` (JSON), `input_{name}_{i}` and `out_{k}_{i}` (case k,
sample i).  Imported by the scripts run as `python tests/goldens/make_*.py` (their directory is
on sys.path)."""
import json
import pathlib

import numpy as np
from nvidia.dali import pipeline_def, types


def dali_kwargs(args, type_keys):
    """`args` with the values of `type_keys` (type names such as "UINT8") as DALI's types."""
    return {k: getattr(types, v) if k in type_keys else v for k, v in args.items()}


def run_graph(graph, batch_size):
    """The samples of output 0 of a one-iteration pipeline whose graph is `graph()`."""
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def pipe():
        return graph()

    p = pipe()
    p.build()
    return [np.array(o) for o in p.run()[0]]


def write_cases(name, inputs, cases, run, layouts=None):
    """Write `name` next to the scripts: the cases, their inputs and `run(case)` of each."""
    data = {"cases": np.array(json.dumps(cases))}
    if layouts is not None:
        data["layouts"] = np.array(json.dumps(layouts))
    for input_name, batch in inputs.items():
        for i, x in enumerate(batch):
            data[f"input_{input_name}_{i}"] = x
    for k, case in enumerate(cases):
        for i, o in enumerate(run(case)):
            data[f"out_{k}_{i}"] = o
    out = pathlib.Path(__file__).with_name(name)
    np.savez_compressed(out, **data)
    print(f"wrote {out} ({out.stat().st_size} bytes)")
