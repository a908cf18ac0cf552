"""Conditionals with real operators in the branches: per-sample values checked against NumPy
references, and (where real DALI is installed) identical pipelines compared with it exactly."""

import importlib

import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali.pipeline import experimental

N = 8
_rs = np.random.RandomState(3)
IMAGES = [[_rs.randint(0, 256, (_rs.randint(16, 33), _rs.randint(16, 33), 3), dtype=np.uint8)
           for _ in range(N)] for _ in range(3)]
LABELS = [[np.array((i + k) % 5, np.int32) for i in range(N)] for k in range(3)]
MODES = pytest.mark.parametrize("debug", [False, True], ids=["graph", "debug"])


def images(fn=fn):
    return fn.external_source(source=lambda i: IMAGES[i % 3], layout="HWC")


def labels(fn=fn):
    return fn.external_source(source=lambda i: LABELS[i % 3])


def make(body, debug, **kw):
    factory = experimental.pipeline_def(body, debug=True) if debug else pipeline_def(body)
    p = factory(batch_size=N, num_threads=2, device_id=None, seed=11,
                enable_conditionals=True, **kw)
    p.build()
    return p


def samples(tl):
    return [np.asarray(t) for t in tl]


def center_crop(img, h, w):
    y = int(np.floor((img.shape[0] - h) * 0.5 + 0.5))
    x = int(np.floor((img.shape[1] - w) * 0.5 + 0.5))
    return img[y:y + h, x:x + w]


@MODES
def test_coin_flip_rotates_only_the_flipped_samples(debug):
    def body():
        img = images()
        flip = fn.random.coin_flip(seed=4)
        if flip:
            img = fn.rotate(img, angle=90)
        return img, flip

    p = make(body, debug)
    seen = set()
    for it in range(3):
        out, flip = p.run()
        for i, (got, f) in enumerate(zip(samples(out), flip.as_array(), strict=True)):
            src = IMAGES[it][i]
            np.testing.assert_array_equal(got, np.rot90(src) if f else src)
            seen.add(bool(f))
    assert seen == {True, False}


@MODES
def test_rotate_by_30_degrees_in_a_branch_equals_rotate_on_the_whole_batch(debug):
    def body():
        img = images()
        everywhere = fn.rotate(img, angle=30)
        flip = fn.random.coin_flip(seed=4)
        if flip:
            img = fn.rotate(img, angle=30)
        return img, everywhere, flip

    p = make(body, debug)
    for it in range(2):
        out, everywhere, flip = p.run()
        for i, (got, rot, f) in enumerate(zip(samples(out), samples(everywhere),
                                              flip.as_array(), strict=True)):
            np.testing.assert_array_equal(got, rot if f else IMAGES[it][i])
            assert got.shape != IMAGES[it][i].shape or not f


@MODES
def test_flip_and_crop_mirror_normalize_in_branches(debug):
    mean, std = np.float32([10, 20, 30]), np.float32([40, 50, 60])

    def body():
        img = images()
        label = labels()
        if label < 2:
            out = fn.cast(fn.flip(img, horizontal=1), dtype=types.FLOAT)
        else:
            out = fn.crop_mirror_normalize(img, crop=(12, 10), mirror=label % 2, mean=mean,
                                           std=std, dtype=types.FLOAT, output_layout="HWC")
        return (out,)

    p = make(body, debug)
    for it in range(3):
        out, = p.run()
        for i, got in enumerate(samples(out)):
            src, label = IMAGES[it][i], int(LABELS[it][i])
            if label < 2:
                np.testing.assert_array_equal(got, src[:, ::-1].astype(np.float32))
            else:
                ref = (center_crop(src, 12, 10).astype(np.float32) - mean) / std
                ref = ref[:, ::-1] if label % 2 else ref
                np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)


def elif_chain():
    img = images()
    label = labels()
    if label == 0:
        out = fn.rotate(img, angle=90)
    elif label == 1:
        out = fn.flip(img, horizontal=1)
    elif label == 2 or label == 3 and not label > 3:
        out = fn.flip(img, horizontal=0, vertical=1)
        if label == 3:
            out = fn.crop(out, crop=(8, 6))
    else:
        out = img
    return out, label


@MODES
def test_elif_chain_with_nested_if_and_logical_conditions(debug):
    p = make(elif_chain, debug)
    for it in range(3):
        out, label = p.run()
        for i, got in enumerate(samples(out)):
            src, k = IMAGES[it][i], int(LABELS[it][i])
            ref = [np.rot90(src), src[:, ::-1], src[::-1], center_crop(src[::-1], 8, 6),
                   src][k]
            np.testing.assert_array_equal(got, ref)
        assert label.as_array().tolist() == [int(v) for v in LABELS[it]]


# -- against real DALI ---------------------------------------------------------------------------
def oracle_pipelines(fn, types):
    """Conditional pipelines without randomness (conditions from the data), written against
    the given `fn`/`types` (ours or real DALI's)."""

    def chain():
        img = images(fn)
        label = labels(fn)
        if label == 0:
            out = fn.rotate(img, angle=30, fill_value=0)
        elif label == 1:
            out = fn.flip(img, horizontal=1)
        elif label > 1 and label < 4:
            out = fn.crop_mirror_normalize(img, crop=(12, 10), mirror=label - 2,
                                           mean=[10.0, 20.0, 30.0], std=[40.0, 50.0, 60.0],
                                           dtype=types.FLOAT, output_layout="HWC")
            out = fn.cast(out * 10.0, dtype=types.UINT8)
        else:
            out = fn.resize(img, resize_x=20, resize_y=14)
        return out, label

    def nested():
        img = images(fn)
        label = labels(fn)
        small = label < 3
        if small or label == 4:
            if not small:
                img = fn.rotate(img, angle=90)
                code = 2
            else:
                code = 1
            img = fn.flip(img, vertical=1)
        else:
            code = 0
        return img, code, small

    def empty_branch():
        img = images(fn)
        label = labels(fn)
        if label > 10:
            img = fn.rotate(img, angle=45)
            tag = label * 2
        else:
            tag = label + 100
        return img, tag

    return {"chain": chain, "nested": nested, "empty_branch": empty_branch}


def run_pipeline(real, name, debug=False, iterations=3):
    pkg = importlib.import_module("nvidia.dali" if real else "dali")
    body = oracle_pipelines(pkg.fn, pkg.types)[name]
    factory = (pkg.pipeline.experimental.pipeline_def(body, debug=True) if debug
               else pkg.pipeline_def(body))
    p = factory(batch_size=N, num_threads=2, device_id=None, seed=11, enable_conditionals=True)
    p.build()
    return [[samples(tl) + [tl.dtype] for tl in p.run()] for _ in range(iterations)]


@pytest.mark.oracle
@MODES
@pytest.mark.parametrize("name", ["chain", "nested", "empty_branch"])
def test_conditional_pipelines_match_real_dali(debug, name):
    ours, real = run_pipeline(False, name, debug), run_pipeline(True, name)
    for it_ours, it_real in zip(ours, real, strict=True):
        for out_ours, out_real in zip(it_ours, it_real, strict=True):
            assert str(out_ours[-1]).split(".")[-1] == str(out_real[-1]).split(".")[-1]
            for a, b in zip(out_ours[:-1], out_real[:-1], strict=True):
                assert a.shape == b.shape
                np.testing.assert_array_equal(a, b)
