"""random.cu under the CPU emulation equals the random generators on the CPU bit for bit:
fn.random.uniform (float and integer ranges), normal, coin_flip, choice from range(a) and beta,
per-sample parameters, ragged and empty samples, every output type; the emulation calls the
same C library as the CPU kernel, so even the normal and beta transforms are exact here."""

import cases_math
import emulate
import gpu_cases
import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage

from dali._ext.kernels import random as _kernel
from dali.ops.random import _random_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("op", cases_math.RANDOM_OPS)
@pytest.mark.parametrize("seed", range(6))
def test_random_kernel_equals_cpu(op, seed):
    case = cases_math.random_case(seed, op)
    got, failed = cases_math.random_kernel(cases_math.emulated, case)
    assert not failed.any()
    gpu_cases.assert_same(got, cases_math.random_expected(case))


@pytest.mark.parametrize("mode,dtype", [("uniform", np.float32), ("normal", np.float64),
                                        ("rint", np.int16), ("coin", np.bool_),
                                        ("index", np.uint64)])
def test_draw_equals_cpu_kernel(mode, dtype):
    """Sample ids above 2**32 (the counter's high word), another stream, the batch kernel of
    the CPU operators (`draw_batch`) as the reference."""
    rng = np.random.default_rng(5)
    shapes = [(7, 3), (0, 3), (130, 1), (1, 1)]
    ids = rng.integers(0, 2**40, len(shapes))
    a = rng.uniform(1, 20, len(shapes)).round()
    b = rng.uniform(0.5, 1.0, len(shapes)) if mode == "coin" else rng.uniform(1, 9, len(shapes))
    if mode == "coin":
        a, b = b, np.zeros(len(shapes))
    end = a + b
    expected = BatchStorage.from_arrays([np.zeros(s, dtype) for s in shapes])
    _kernel.draw_batch(None, expected, 0x1234_5678_9ABC, ids, 3, mode, a, b, end)
    launch = _random_gpu.draw(mode, shapes, dtype, 0x1234_5678_9ABC, ids, 3, a, b, end)
    out = np.zeros(sum(int(np.prod(s)) for s in shapes), dtype)
    cases_math.emulated(cases_math.RANDOM_CU, launch, [],
                        lambda _: launch.arguments(out, np.uint64(0)))
    gpu_cases.assert_same(cases_math._unpack(out, shapes), expected.samples())


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint64, np.bool_])
def test_pick_equals_cpu_pick(dtype):
    """The "pick" mode (fn.random.uniform's `values`) against the CPU path's rule on the same
    uniform draws: value min(int(u * k), k - 1) of the sample's k, converted by
    `_common.convert` (rounded, clamped)."""
    from dali._ext import rng as _rng
    from dali.ops.random import _common

    shapes = [(5, 2), (0, 2), (40, 1)]
    sizes = np.array([3, 1, 6], np.int64)
    table = np.array([0.5, -200.0, 7.25, 1e30, -3.5, 0.0, 2.5, 126.5, -0.5, 99.0])
    offsets = np.cumsum(sizes) - sizes
    ids = np.array([0, 9, 2**33 + 1], np.int64)
    counts = np.array([int(np.prod(s)) for s in shapes], np.int64)
    u = _rng.uniform(77, ids, counts, 0)
    sample = np.repeat(np.arange(len(shapes)), counts)
    idx = np.minimum((u * sizes[sample]).astype(np.int64), sizes[sample] - 1)
    with np.errstate(invalid="ignore", over="ignore"):
        expected = _common.convert(table[offsets[sample] + idx], dtype)
    launch = _random_gpu.draw("pick", shapes, dtype, 77, ids, 0, offsets, sizes)
    out = np.zeros(counts.sum(), dtype)
    cases_math.emulated(cases_math.RANDOM_CU, launch, [], lambda _: launch.arguments(out, table))
    np.testing.assert_array_equal(out, expected)


def test_large_sample_uses_grid_stride():
    case = cases_math.random_case(3, "uniform")
    case.shapes = [(_random_gpu.BLOCK * _random_gpu.MAX_BLOCKS_X + 555,), (0,)]
    case.params = {"range": [[-1.0, 1.0], [0.0, 2.0]]}
    case.dtype = np.dtype(np.float32)
    got, _ = cases_math.random_kernel(cases_math.emulated, case)
    gpu_cases.assert_same(got, cases_math.random_expected(case))


def test_launch_validates():
    with pytest.raises(ValueError, match="does not draw float16"):
        _random_gpu.draw("uniform", [(2,)], np.float16, 1, [0], 0, [0.0])
    with pytest.raises(ValueError, match="float32 or float64, not int32"):
        _random_gpu.beta([(2,)], np.int32, 1, [0], [1.0], [1.0])
    with pytest.raises(ValueError, match="at most 65535 samples"):
        _random_gpu.draw("coin", [()] * 65536, np.int32, 1, np.arange(65536), 0,
                         np.zeros(65536))
    launch = _random_gpu.draw("normal", [(3, 2), ()], np.float64, 7, [4, 5], 0, [1, 2], [3, 4])
    assert launch.grid == (1, 2, 1)
    assert launch.samples["offset"].tolist() == [0, 48]
    assert launch.samples.itemsize == 48        # sizeof(RandomSample)


# ---- the operators on the emulated device ----------------------------------------------------
def _assert_same_as_cpu(graph_of, batch_size=4):
    """graph_of(on_gpu) run on device 0 and on the CPU: equal outputs (the GPU's are
    TensorListGPU), two iterations (the sample ids of the second batch differ)."""
    from dali import pipeline_def

    outs = []
    for device_id in (0, None):
        @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id, seed=7,
                      prefetch_queue_depth=1)
        def pipe(on_gpu=device_id is not None):
            return graph_of(on_gpu)

        p = pipe()
        p.build()
        outs.append([p.run(), p.run()])
    for gpu_run, cpu_run in zip(*outs, strict=True):
        for g, c in zip(gpu_run, cpu_run, strict=True):
            assert type(g).__name__ == "TensorListGPU"
            assert g.dtype == c.dtype and g.shape() == c.shape() and g.layout() == c.layout()
            gpu_cases.assert_same([np.asarray(t) for t in g.as_cpu()],
                                  [np.asarray(t) for t in c], gpu_cases.DEVICE_MATH_ULPS)


def test_gpu_generators_equal_cpu(emulated_gpu):
    """uniform (float and integer ranges per sample, values of one or several lengths), normal
    (per-sample mean), coin_flip; shapes from `shape`, from a GPU `shape_like` input and
    scalars."""
    from dali import fn, types

    rng = np.random.default_rng(0)
    images = [np.zeros((int(rng.integers(1, 9)), int(rng.integers(1, 9)), 3), np.uint8)
              for _ in range(4)]
    ranges = [np.array([-3.0 * i, 2.0 + i], np.float32) for i in range(4)]
    values = [np.arange(i + 1, dtype=np.float32) * 1.5 for i in range(4)]
    means = [np.float32(10 * i) for i in range(4)]

    def graph(on_gpu):
        device = "gpu" if on_gpu else "cpu"
        x = fn.external_source(source=lambda: images, layout="HWC", batch=True)
        r = fn.external_source(source=lambda: ranges, batch=True)
        v = fn.external_source(source=lambda: values, batch=True)
        m = fn.external_source(source=lambda: means, batch=True)
        like = x.gpu() if on_gpu else x
        return (fn.random.uniform(like, range=r, seed=3, device=device),
                fn.random.uniform(shape=[5, 2], range=[0, 9], dtype=types.INT16, seed=4,
                                  device=device),
                fn.random.uniform(shape=[7], values=v, dtype=types.INT32, seed=5,
                                  device=device),
                fn.random.uniform(like, values=[0.5, 2.0, -1.0], seed=6, device=device),
                fn.random.normal(like, mean=m, stddev=2.0, dtype=types.FLOAT64, seed=8,
                                 device=device),
                fn.random.coin_flip(probability=0.3, seed=9, device=device),
                fn.random.coin_flip(shape=[3], dtype=types.UINT8, seed=10, device=device))

    _assert_same_as_cpu(graph)
    assert "random_draw" in emulated_gpu.launches
