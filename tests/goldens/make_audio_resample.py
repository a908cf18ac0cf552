"""Regenerate audio_resample.npz with real NVIDIA DALI: fn.audio_resample on mono and stereo
float and int16 signals, by scale, rates and output length, at several qualities and output
types.  Cases as `_goldens.write_cases` stores them (`input` names the input batch, `args`
the keyword arguments; "dtype" values are DALI type names).
Run: `python tests/goldens/make_audio_resample.py`.
"""
import numpy as np
from _goldens import dali_kwargs, run_graph, write_cases
from nvidia.dali import fn

SAMPLES = 2
CASES = [
    {"input": "mono", "args": {"scale": 0.5}},
    {"input": "mono", "args": {"scale": 1.7, "quality": 0}},
    {"input": "mono", "args": {"in_rate": 22050.0, "out_rate": 16000.0}},
    {"input": "mono", "args": {"in_rate": 8000.0, "out_rate": 44100.0, "quality": 100}},
    {"input": "mono", "args": {"out_length": 301, "quality": 30, "dtype": "INT16"}},
    {"input": "stereo", "args": {"scale": 0.37, "quality": 70}},
    {"input": "stereo", "args": {"in_rate": 16000.0, "out_rate": 16000.0, "dtype": "INT32"}},
    {"input": "int16", "args": {"scale": 2.5}},
    {"input": "int16", "args": {"scale": 0.8, "dtype": "FLOAT"}},
]


def inputs():
    rng = np.random.default_rng(7)
    t = [np.arange(n) for n in (700, 433)]
    mono = [(np.sin(k * 0.05) * 0.6 + rng.standard_normal(len(k)) * 0.1).astype(np.float32)
            for k in t]
    stereo = [np.stack([m, -m * 0.5], axis=1) for m in mono]
    int16 = [rng.integers(-30000, 30000, len(k)).astype(np.int16) for k in t]
    return {"mono": mono, "stereo": stereo, "int16": int16}


def main():
    batches = inputs()

    def run(case):
        args = dali_kwargs(case["args"], ("dtype",))
        return run_graph(lambda: fn.audio_resample(
            fn.external_source(lambda: batches[case["input"]], batch=True), **args), SAMPLES)

    write_cases("audio_resample.npz", batches, CASES, run)


if __name__ == "__main__":
    main()
