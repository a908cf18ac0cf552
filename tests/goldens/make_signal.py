"""Regenerate signal.npz with real NVIDIA DALI: the signal operators (preemphasis_filter,
spectrogram, power_spectrum, mel_filter_bank, to_decibels, mfcc, nonsilent_region) on small
fixed random signals and spectrograms.

The npz holds `cases` (a JSON list of {"input", "op", "args"}; "dtype" values are DALI type
names), `layouts` (the input layouts by name), `input_{name}_{i}` and `out_{k}_{i}` (case k,
sample i; for nonsilent_region the pair [begin, length]).
Run: `python tests/goldens/make_signal.py`.
"""
import numpy as np
from _goldens import dali_kwargs, write_cases
from nvidia.dali import fn, pipeline_def

RNG = np.random.default_rng(14)
_QUIET = np.concatenate([np.zeros(300), RNG.standard_normal(500), 1e-4 * np.ones(200)])
INPUTS = {
    "sig": [RNG.standard_normal(n).astype(np.float32) for n in (1200, 301, 1)],
    "i16": [RNG.integers(-3000, 3000, n).astype(np.int16) for n in (40, 7, 2)],
    "spec": [RNG.random((129, n)).astype(np.float32) ** 3 for n in (20, 7, 1)],
    "spec_tf": [RNG.random((n, 65)).astype(np.float32) ** 3 for n in (9, 3, 2)],
    "mel": [(RNG.random((32, n)) * 10).astype(np.float32) for n in (15, 4, 1)],
    "talk": [_QUIET.astype(np.float32), RNG.standard_normal(700).astype(np.float32),
             np.zeros(50, np.float32)],
}
LAYOUTS = {"sig": "", "i16": "", "spec": "ft", "spec_tf": "tf", "mel": "ft", "talk": ""}
CASES = [
    {"input": "sig", "op": "preemphasis_filter", "args": {}},
    {"input": "sig", "op": "preemphasis_filter", "args": {"border": "zero",
                                                         "preemph_coeff": 0.5}},
    {"input": "sig", "op": "preemphasis_filter", "args": {"border": "reflect"}},
    {"input": "i16", "op": "preemphasis_filter", "args": {"dtype": "INT16",
                                                         "preemph_coeff": 1.5}},
    {"input": "i16", "op": "preemphasis_filter", "args": {"dtype": "UINT8", "border": "zero"}},
]


def run(case):
    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: INPUTS[case["input"]],
                               layout=LAYOUTS[case["input"]])
        out = getattr(fn, case["op"])(x, **dali_kwargs(case["args"], ("dtype",)))
        if case["op"] == "nonsilent_region":
            return fn.cat(fn.expand_dims(out[0], axes=0), fn.expand_dims(out[1], axes=0))
        return out

    p = pipe()
    p.build()
    return [np.array(o) for o in p.run()[0]]


if __name__ == "__main__":
    write_cases("signal.npz", INPUTS, CASES, run, LAYOUTS)
