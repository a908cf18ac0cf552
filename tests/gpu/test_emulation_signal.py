"""The audio kernels under the CPU emulation equal the CPU operators bit for bit:
preemphasis_filter.cu (then cast.cu for other output types) against fn.preemphasis_filter over
every input type, borders, output types, per-sample coefficients and signals of 0, 1 or many
elements; axis_matmul.cu against fn.mel_filter_bank and fn.mfcc (the CPU work items' sum
orders); to_decibels.cu against fn.to_decibels with and without a reference (the maximum's
lanes, NaN, infinities and signed zeros), cut-offs above and below FLT_MIN."""

import cases_signal
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.signal import _axis_matmul_gpu, _preemphasis_filter_gpu, _to_decibels_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(30))
def test_preemphasis_kernels_equal_cpu(seed):
    expected, got = cases_signal.preemphasis_run(gpu_cases.emulated,
                                                 *cases_signal.preemphasis_case(seed))
    gpu_cases.assert_same(got, expected)


def test_preemphasis_program():
    prog = _preemphasis_filter_gpu.program([(4, 1), (0, 1), (3, 2)], [0.5, 1, 2], "reflect",
                                           np.int16, np.uint8)
    assert [la.kernel for la in prog.launches] == ["preemph_i16_f32", "cast_f32_u8"]
    assert prog.temps == {"acc": 40}
    assert prog.launches[0].args[2].tolist() == [[0, 0, 4], [4, 4, 0], [4, 4, 6]]
    direct = _preemphasis_filter_gpu.program([(4,)], 0.5, "zero", np.float64, np.float64,
                                             dst_offsets=[64])
    assert [la.kernel for la in direct.launches] == ["preemph_f64_f64"] and not direct.temps
    assert direct.launches[0].args[2].tolist() == [[0, 8, 4]]


@pytest.mark.parametrize("call, message", [
    (lambda: _preemphasis_filter_gpu.program([(4,)], 0.5, "wrap", np.float32, np.float32),
     "unknown border"),
    (lambda: _preemphasis_filter_gpu.program([(4,)], 0.5, "zero", np.float16, np.float32),
     "no kernel from float16"),
    (lambda: _preemphasis_filter_gpu.program([(4,)], 0.5, "zero", np.float32, np.int16,
                                             dst_offsets=[8]), "must be packed"),
])
def test_preemphasis_program_rejects(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("seed", range(30))
def test_to_decibels_kernels_equal_cpu(seed):
    expected, got = cases_signal.decibels_run(gpu_cases.emulated,
                                              *cases_signal.decibels_case(seed))
    gpu_cases.assert_same(got, expected)


def test_to_decibels_maximum_keeps_the_first_zero():
    """The maximum is 0 in lanes holding -0.0 before 0.0 (and the other way): its sign, and so
    the sign of 1 / maximum, is the CPU's."""
    for first, second in ((-0.0, 0.0), (0.0, -0.0)):
        x = np.full(16, -1.0, np.float32)
        x[3], x[11] = first, second
        expected, got = cases_signal.decibels_run(gpu_cases.emulated, [x], {})
        gpu_cases.assert_same(got, expected)


def test_to_decibels_program():
    prog = _to_decibels_gpu.program([(5,), (0,), (9,)], 10.0, 0.0, -80.0)
    assert [la.kernel for la in prog.launches] == ["db_lanes", "db_reference", "db_convert"]
    assert prog.temps["keys"].shape == (24,) and not prog.temps["keys"].any()
    assert prog.launches[0].args[2].tolist() == [[0, 0, 5], [5, 5, 0], [5, 5, 9]]
    given = _to_decibels_gpu.program([(5,)], 10.0, 4.0, -400.0)
    assert [la.kernel for la in given.launches] == ["db_convert"]
    args = given.launches[0].args
    assert args[3].tolist() == [0.25] and int(args[6]) == 0          # log10f below FLT_MIN
    with pytest.raises(ValueError, match="must not be 0"):
        _to_decibels_gpu.program([(5,)], 0.0, 4.0, -80.0)


@pytest.mark.parametrize("seed", range(24))
def test_mel_filter_bank_kernel_equals_cpu(seed):
    expected, got = cases_signal.mel_run(gpu_cases.emulated, *cases_signal.mel_case(seed))
    gpu_cases.assert_same(got, expected)


def test_mel_filter_bank_long_spectrogram_in_column_pieces():
    """One outer row and enough columns for the CPU to cut the columns into several work
    items: the pieces and their sums are the CPU's."""
    x = (np.random.default_rng(0).random((257, 4500)) * 10).astype(np.float32)
    kwargs = {"nfilter": 128, "sample_rate": 16000.0}
    expected, got = cases_signal.mel_run(gpu_cases.emulated, [x], "ft", kwargs)
    gpu_cases.assert_same(got, expected)
    from dali.ops.signal import mel_filter_bank
    bank = mel_filter_bank.filter_bank(257, 128, 16000.0, 0.0, 8000.0, "slaney", True)
    launch = _axis_matmul_gpu.launch([x.shape], [bank], 0)
    assert len(launch.pieces) > 1 and not launch.pieces[:, 11].any()


def test_mel_filter_bank_launch_rejects():
    from dali._ext.kernels import axis_matmul
    m = axis_matmul.AxisMatrix(np.eye(3, dtype=np.float32))
    with pytest.raises(ValueError, match="do not match the matrices"):
        _axis_matmul_gpu.launch([(4, 2)], [m], 0)
    with pytest.raises(ValueError, match="one matrix per sample"):
        _axis_matmul_gpu.launch([(3, 2)], [m, m], 0)


@pytest.mark.parametrize("seed", range(16))
def test_mfcc_kernel_equals_cpu(seed):
    expected, got = cases_signal.mfcc_run(gpu_cases.emulated, *cases_signal.mfcc_case(seed))
    gpu_cases.assert_same(got, expected)
