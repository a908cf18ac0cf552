"""reductions.cu under the CPU emulation equals fn.reductions.* on the CPU bit for bit: every
operation over random ragged batches of every input type, random axes (negative ones too),
keep_dims, the `dtype` choices, means of one value or one per output element, ddof, empty
samples and reductions; NaN and signed zeros in min and max."""

import cases_math
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.reductions import _reductions_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


def check_equal(case, backend=cases_math.emulated):
    expected = cases_math.reduce_expected(case)
    got = cases_math.reduce_kernel(backend, case, expected[0].dtype, [e.shape for e in expected])
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("op", cases_math.REDUCTIONS)
@pytest.mark.parametrize("seed", range(8))
def test_reduction_kernel_equals_cpu(op, seed):
    check_equal(cases_math.reduce_case(seed, op))


@pytest.mark.parametrize("op", ["min", "max"])
def test_nan_and_signed_zeros(op):
    """A NaN never replaces the running value; of equal zeros the first one stays."""
    x = np.array([[np.nan, 0.0, -0.0, 2.0], [-0.0, 0.0, np.nan, -3.0], [np.nan] * 4],
                 np.float32)
    for axes in ([0], [1]):
        check_equal(cases_math.ReduceCase(op=op, samples=[x, x[::-1].copy()], axes=axes,
                                    keep_dims=False, dtype=None, means=None, ddof=0))


def test_large_output_uses_grid_stride():
    n = _reductions_gpu.BLOCK * _reductions_gpu.MAX_BLOCKS_X + 321
    x = np.arange(2 * n, dtype=np.int32).reshape(2, n)
    check_equal(cases_math.ReduceCase(op="sum", samples=[x], axes=[0], keep_dims=True,
                                dtype=None, means=None, ddof=0))


def test_launch_validates():
    with pytest.raises(ValueError, match="does not reduce float64"):
        _reductions_gpu.launch("sum", [True], [(3,)], np.float64, np.float64)
    with pytest.raises(ValueError, match="unknown reduction 'median'"):
        _reductions_gpu.launch("median", [True], [(3,)], np.float32, np.float32)
    with pytest.raises(ValueError, match="only"):
        _reductions_gpu.launch("sum", [True], [(3,)], np.float32, np.float32, [()])
    with pytest.raises(ValueError, match="sample 0: the mean has 2 elements, not 1 or 3"):
        _reductions_gpu.launch("variance", [False, True], [(3, 4)], np.float32, np.float32,
                               [(2,)])
    with pytest.raises(ValueError, match="collapses to 18 axes"):
        _reductions_gpu.launch("max", [True, False] * 9, [(2,) * 18], np.int8, np.int8)
    launch = _reductions_gpu.launch("mean", [True, False, True], [(4, 1, 3), (2, 5, 1)],
                                    np.uint8, np.float32)
    assert launch.kernel == "reduce_u8"
    row = launch.samples[1]
    assert row[4:7].tolist() == [5, 2, 2]               # out_count, count, collapsed axes


# ---- the operators on the emulated device ----------------------------------------------------
@pytest.mark.parametrize("op", cases_math.REDUCTIONS)
def test_gpu_pipeline_equals_cpu(emulated_gpu, op):
    """fn.reductions.<op> of a GPU input (the mean of variance and std_dev a CPU input, moved
    by the build) equals the CPU pipeline; layouts follow the reduced axes."""
    from dali import fn, pipeline_def

    case = cases_math.reduce_case(11, op)
    rng = np.random.default_rng(3)
    data = [rng.integers(0, 200, (int(rng.integers(1, 6)), int(rng.integers(0, 7)), 3))
            .astype(np.uint8) for _ in range(4)]
    means = [np.float32(rng.uniform(0, 200)) for _ in data]
    kwargs = {"axis_names": "HC"} if op != "sum" else {"axes": [1], "keep_dims": True}
    outs = []
    for device_id in (0, None):
        @pipeline_def(batch_size=4, num_threads=2, device_id=device_id, prefetch_queue_depth=1)
        def pipe(on_gpu=device_id is not None):
            x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
            m = fn.external_source(source=lambda: means, batch=True)
            x = x.gpu() if on_gpu else x
            reduce = getattr(fn.reductions, op)
            return reduce(x, m, **kwargs) if case.means is not None else reduce(x, **kwargs)

        p = pipe()
        p.build()
        outs.append(p.run()[0])
    gpu, cpu = outs
    assert type(gpu).__name__ == "TensorListGPU"
    assert gpu.layout() == cpu.layout() and gpu.dtype == cpu.dtype and gpu.shape() == cpu.shape()
    gpu_cases.assert_same([np.asarray(t) for t in gpu.as_cpu()], [np.asarray(t) for t in cpu])
    assert any(name.startswith("reduce_") for name in emulated_gpu.launches)
