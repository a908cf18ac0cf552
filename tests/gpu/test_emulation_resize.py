"""resize.cu under the CPU emulation equals fn.resize on the CPU bit for bit: random batches
over layouts (HWC through the batch engine, the others through the N-D engine), element types,
output types, shapes (empty samples too), sizes, regions of interest, filters (per sample as
argument inputs too) and antialiasing; float inputs hold NaNs and zeros of both signs."""

import contextlib

import cases_resize
import emulate
import gpu_cases
import numpy as np
import pytest

from dali._types import DALIInterpType as Interp
from dali.ops.geometry import _resize_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(48))
def test_resize_kernels_equal_cpu(seed):
    case = cases_resize.resize_case(seed)
    expected, call = cases_resize.resize_expected(*case)
    got, _ = cases_resize.resample_kernel(gpu_cases.emulated, case[0], call)
    gpu_cases.assert_same(got, expected)


def _call(samples, layout, **kwargs):
    return cases_resize.resize_expected(samples, layout, kwargs, {})


def test_samples_at_given_offsets():
    """Samples apart in the input and output buffers (as a device batch may hold them)."""
    rng = np.random.default_rng(5)
    samples = [rng.integers(0, 256, (7, 9, 3), dtype=np.uint8),
               rng.integers(0, 256, (4, 5, 3), dtype=np.uint8)]
    expected, call = _call(samples, "HWC", size=[6.0, 11.0], interp_type=Interp.INTERP_CUBIC)
    src_offsets, dst_offsets = [16, 16 + 7 * 9 * 3 + 5], [8, 8 + 6 * 11 * 3 + 24]
    program = _resize_gpu.plan_program(call["plan"], call["in_shapes"], call["filters"], True,
                                       np.uint8, np.uint8, src_offsets, dst_offsets)
    src = np.zeros(src_offsets[1] + samples[1].size, np.uint8)
    dst = np.zeros(dst_offsets[1] + 6 * 11 * 3, np.uint8)
    for s, at in zip(samples, src_offsets, strict=True):
        src[at:at + s.size] = s.reshape(-1)
    buffers = {"input": src, "output": dst,
               "tmp0": np.zeros(max(program.tmp_sizes[0], 1), np.float32),
               "tmp1": np.zeros(max(program.tmp_sizes[1], 1), np.float32)}
    for launch in program.launches:
        gpu_cases.emulated(cases_resize.RESIZE_CU, launch,
                           _resize_gpu.launch_args(launch, buffers, program.starts,
                                                   program.weights))
    for e, at in zip(expected, dst_offsets, strict=True):
        np.testing.assert_array_equal(dst[at:at + e.size].reshape(e.shape), e)


def test_large_sample_uses_grid_stride():
    """More output values than MAX_BLOCKS_X blocks cover: the grid-stride loop reaches them."""
    x = np.arange(40 * 50 * 3, dtype=np.float32).reshape(40, 50, 3)
    expected, call = _call([x], "HWC", size=[45.0, 2000.0])
    got, program = cases_resize.resample_kernel(gpu_cases.emulated, [x], call)
    assert max(int(launch.descs[:, 2].max()) for launch in program.launches) > \
        _resize_gpu.BLOCK * _resize_gpu.MAX_BLOCKS_X
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("layout", ["HWC", "CHW"])
def test_nearest_is_passes_in_hwc_batches_and_a_gather_elsewhere(layout):
    """The batch engine (HWC) runs nearest neighbour as passes of weight 1 (0.f + x turns -0.0
    into +0.0); the N-D engine gathers (the sign kept)."""
    x = np.full((6, 6, 3), -0.0, np.float32)
    x[0, 0, 0] = 7
    expected, call = _call([x], layout, size=[4.0, 9.0], interp_type=Interp.INTERP_NN)
    got, program = cases_resize.resample_kernel(gpu_cases.emulated, [x], call)
    kinds = {launch.kernel.split("_")[0] for launch in program.launches}
    assert kinds == ({"resample"} if layout == "HWC" else {"gather"})
    assert np.signbit(expected[0]).any() == (layout != "HWC")
    gpu_cases.assert_same(got, expected)


def test_copy_when_nothing_is_resized():
    x = np.arange(2 * 5 * 4 * 3, dtype=np.int16).reshape(2, 5, 4, 3)
    expected, call = _call([x], "FHWC", size=[5.0, 4.0])
    got, program = cases_resize.resample_kernel(gpu_cases.emulated, [x], call)
    assert [launch.kernel for launch in program.launches] == ["gather_i16_i16"]
    gpu_cases.assert_same(got, expected)


def test_program_rejects_bad_types_and_offsets():
    with pytest.raises(ValueError, match="from int32 to float32"):
        _resize_gpu.check_types(np.int32, np.float32)
    with pytest.raises(ValueError, match="from uint8 to int16"):
        _resize_gpu.check_types(np.uint8, np.int16)
    with pytest.raises(ValueError, match="multiples of the element size"):
        _resize_gpu.program("HWC", [(2, 2, 1)], [(3, 3, 1)], [[0, 0]], [[2, 2]], [[1, 1]],
                            True, np.int16, np.int16, src_offsets=[1])


@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("name", ["random_resized_crop", "resize_crop_mirror",
                                  "tensor_resize"])
def test_crop_and_resize_operators_equal_cpu(name, seed):
    """The operators whose CPU run is resize's resampling of a source region per sample."""
    case = getattr(cases_resize, f"{name}_case")(seed)
    expected, call = cases_resize.op_expected(name, *case)
    got, _ = cases_resize.resample_kernel(gpu_cases.emulated, case[0], call)
    gpu_cases.assert_same(got, expected)


def _assert_pipelines_agree(name, case, iterations=1):
    gpu = cases_resize.pipeline_outputs(name, *case, 0, iterations)
    cpu = cases_resize.pipeline_outputs(name, *case, None, iterations)
    for g_run, c_run in zip(gpu, cpu, strict=True):
        for g, c in zip(g_run, c_run, strict=True):
            gpu_cases.assert_same(g, c)


@pytest.mark.parametrize("seed", range(0, 48, 5))
def test_resize_gpu_pipeline_equals_cpu(emulated_gpu, seed):
    """fn.resize(x.gpu(), ...) on the emulated device equals the CPU pipeline."""
    _assert_pipelines_agree("resize", cases_resize.resize_case(seed))
    assert any(k.startswith(("resample_", "gather_")) for k in emulated_gpu.launches)


def test_resize_gpu_save_attrs(emulated_gpu):
    rng = np.random.default_rng(1)
    samples = [rng.integers(0, 256, (4, 5 + i, 6, 3), dtype=np.uint8) for i in range(3)]
    case = samples, "DHWC", {"size": [3.0, 7.0, 2.0], "save_attrs": True}, {}
    _assert_pipelines_agree("resize", case)


@pytest.mark.parametrize("seed", range(0, 16, 3))
@pytest.mark.parametrize("name", ["random_resized_crop", "resize_crop_mirror",
                                  "fast_resize_crop_mirror", "tensor_resize",
                                  "experimental.tensor_resize"])
def test_crop_and_resize_gpu_pipelines_equal_cpu(emulated_gpu, name, seed):
    """The same operators on the emulated device, two iterations (new random windows)."""
    base = name.split(".")[-1].replace("fast_", "")
    deprecated = base != name
    with pytest.warns(DeprecationWarning) if deprecated else contextlib.nullcontext():
        _assert_pipelines_agree(name, getattr(cases_resize, f"{base}_case")(seed), iterations=2)


@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("interp", list(Interp))
@pytest.mark.parametrize("layout, dtype", [("HWC", np.uint8), ("CHW", np.float32),
                                           ("HWC", np.uint16)])
def test_photo_sized_reductions_and_enlargements(layout, dtype, interp, antialias):
    """Every filter, with and without antialiasing, on larger images: a 3.4x reduction (many
    taps per output) and a 2.5x enlargement, both axes."""
    rng = np.random.default_rng(int(interp))
    shape = (3, 60, 80) if layout == "CHW" else (60, 80, 3)
    x = cases_resize._values(rng, shape, dtype)
    for size in ([17.5, 23.0], [150.0, 201.0]):
        expected, call = _call([x], layout, size=size, interp_type=interp, antialias=antialias)
        got, _ = cases_resize.resample_kernel(gpu_cases.emulated, [x], call)
        gpu_cases.assert_same(got, expected)


def test_gpu_pipeline_of_empty_samples_only(emulated_gpu):
    """Nothing to launch: the outputs keep their empty shapes."""
    samples = [np.zeros((0, 5, 3), np.uint8), np.zeros((4, 0, 3), np.uint8)]
    case = samples, "HWC", {"size": [6.0, 7.0]}, {}
    _assert_pipelines_agree("resize", case)
    assert not [k for k in emulated_gpu.launches if k.startswith(("resample_", "gather_"))]
