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
    "sig": [RNG.standard_normal(n).astype(np.float32) for n in (600, 301, 1)],
    "i16": [RNG.integers(-3000, 3000, n).astype(np.int16) for n in (40, 7, 2)],
    "spec": [RNG.random((129, n)).astype(np.float32) ** 3 for n in (8, 3, 1)],
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
    {"input": "sig", "op": "spectrogram", "args": {"nfft": 64, "window_length": 40,
                                                  "window_step": 16}},
    {"input": "sig", "op": "spectrogram", "args": {"nfft": 50, "window_length": 30,
                                                  "window_step": 25, "power": 1,
                                                  "layout": "tf", "reflect_padding": False}},
    {"input": "sig", "op": "spectrogram", "args": {"window_length": 8, "window_step": 3,
                                                  "window_fn": [0.1, 0.5, 1, 1, 1, 1, 0.5, 0.1]}},
    {"input": "talk", "op": "spectrogram", "args": {"nfft": 33, "window_length": 33,
                                                   "window_step": 20,
                                                   "center_windows": False}},
    {"input": "talk", "op": "power_spectrum", "args": {}},
    {"input": "sig", "op": "power_spectrum", "args": {"nfft": 16, "power": 1}},
    {"input": "spec", "op": "power_spectrum", "args": {"axis": 0, "nfft": 40}},
    {"input": "spec", "op": "mel_filter_bank", "args": {}},
    {"input": "spec", "op": "mel_filter_bank", "args": {"nfilter": 20, "sample_rate": 16000.0,
                                                       "freq_low": 100.0, "freq_high": 6000.0,
                                                       "mel_formula": "htk",
                                                       "normalize": False}},
    {"input": "spec_tf", "op": "mel_filter_bank", "args": {"nfilter": 10,
                                                          "sample_rate": 8000.0}},
    {"input": "spec", "op": "to_decibels", "args": {}},
    {"input": "spec", "op": "to_decibels", "args": {"multiplier": 20.0, "reference": 0.5,
                                                   "cutoff_db": -30.0}},
    {"input": "mel", "op": "mfcc", "args": {}},
    {"input": "mel", "op": "mfcc", "args": {"dct_type": 3, "normalize": True, "n_mfcc": 12,
                                           "lifter": 22.0}},
    {"input": "mel", "op": "mfcc", "args": {"dct_type": 1, "n_mfcc": 32}},
    {"input": "mel", "op": "mfcc", "args": {"dct_type": 4, "axis": 1, "n_mfcc": 3}},
    {"input": "talk", "op": "nonsilent_region", "args": {"window_length": 64}},
    {"input": "talk", "op": "nonsilent_region", "args": {"window_length": 16,
                                                        "cutoff_db": -20.0,
                                                        "reference_power": 0.5,
                                                        "reset_interval": 96}},
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
