"""arithmetic.cu under the CPU emulation equals the arithmetic operator on the CPU: random
expressions over every supported type (ragged batches, broadcasting per sample, constants,
integer wrap-around, shifts, truncating division and its zero-divisor error, exact uint64 and
signed comparisons) bit for bit; the transcendental functions within a few ULPs
(`cases_math.EMULATION_ULPS`: glibc, which the emulation calls, and NumPy, which the CPU
operator calls, round differently); sqrt, rsqrt, fabs, floor, ceil and fmod exactly."""

import re

import cases_math
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.math import _arithmetic_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")

INTEGER_OPS = ("pow", "lshift", "rshift", "div", "mod", "minus", "abs", "mul", "bitnot", "add",
               "sub")
COMPARE_OPS = ("eq", "neq", "lt", "leq", "gt", "geq", "min", "max", "clamp")


def check_equal(case, backend=cases_math.emulated):
    """The kernel's output (or the flagged division by zero) against the CPU operator's."""
    expected = cases_math.arith_expected(case)
    got, errors = cases_math.arith_kernel(backend, case)
    if isinstance(expected, int):                   # the sample the CPU's error names
        assert errors[expected] == 1
    else:
        assert not errors.any()
        gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(48))
def test_expression_equals_cpu(seed):
    check_equal(cases_math.arith_case(seed))


@pytest.mark.parametrize("seed", range(16))
def test_integer_expression_equals_cpu(seed):
    check_equal(cases_math.arith_case(1000 + seed, INTEGER_OPS))


@pytest.mark.parametrize("seed", range(16))
def test_comparison_expression_equals_cpu(seed):
    check_equal(cases_math.arith_case(2000 + seed, COMPARE_OPS))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
@pytest.mark.parametrize("name", [*cases_math.MATH_FUNCTIONS, "pow", "fpow", "atan2", "mod"])
def test_math_function_within_ulps(name, dtype):
    case = cases_math.math_case(7, name, dtype)
    if name == "pow" and np.dtype(dtype).kind != "f":
        check_equal(case)                                 # integer power: exact
        return
    expected = cases_math.arith_expected(case)
    got, errors = cases_math.arith_kernel(cases_math.emulated, case)
    if isinstance(expected, int) or expected[0].dtype.kind != "f":
        check_equal(case)                                 # integer fmod: exact (or a zero divisor)
        return
    out = expected[0].dtype
    assert got[0].dtype == out
    tolerance = cases_math.EMULATION_ULPS[out].get(name.replace("fpow", "pow"), 0)
    assert gpu_cases.max_ulps(got[0], expected[0]) <= tolerance


def _one(desc, *inputs, ints=(), reals=()):
    case = cases_math.ArithCase(desc=desc, ints=list(ints), reals=list(reals),
                                inputs=[[np.asarray(x)] for x in inputs],
                                layouts=[None] * len(inputs))
    got, errors = cases_math.arith_kernel(cases_math.emulated, case)
    return got[0], errors


def test_known_values():
    """Rules stated in arithmetic.cu's header, independent of the CPU operator."""
    lo = np.array([-2**31, 7, -7], np.int32)
    m1 = np.array([-1, -2, 2], np.int32)
    np.testing.assert_array_equal(_one("div(&0 &1)", lo, m1)[0], [-2**31, -3, -3])
    np.testing.assert_array_equal(_one("mod(&0 &1)", lo, m1)[0], [0, 1, -1])
    np.testing.assert_array_equal(_one("lshift(&0 $0:int32)", np.array([1, 3], np.int32),
                                       ints=[33])[0], [2, 6])
    np.testing.assert_array_equal(_one("pow(&0 &1)", np.array([2, 2, 3], np.int8),
                                       np.array([-1, 7, 5], np.int8))[0], [0, -128, -13])
    u = np.array([2**64 - 1, 0, 5], np.uint64)
    s = np.array([-1, -1, 5], np.int64)
    np.testing.assert_array_equal(_one("lt(&0 &1)", s, u)[0], [True, True, False])
    np.testing.assert_array_equal(_one("neq(&0 &1)", u, s)[0], [True, True, False])
    nan = np.array([np.nan, 1.0, 3.0], np.float32)
    one = np.array([1.0, np.nan, 2.0], np.float32)
    got = _one("min(&0 &1)", nan, one)[0]
    np.testing.assert_array_equal(got, [1.0, np.nan, 2.0])       # a < b ? a : b
    got, errors = _one("div(&0 &1)", np.array([1, 2], np.int16), np.array([1, 0], np.int16))
    assert errors.tolist() == [1]


def test_empty_samples_and_grid_stride():
    big = np.arange(_arithmetic_gpu.BLOCK * _arithmetic_gpu.MAX_BLOCKS_X + 777, dtype=np.int32)
    case = cases_math.ArithCase(
        desc="add(&0 $0:int32)", ints=[5], reals=[],
        inputs=[[big, np.zeros(0, np.int32), big[:3]]], layouts=[None])
    check_equal(case)


def test_opcodes_and_types_match_the_kernel():
    with open(cases_math.ARITH_CU, encoding="utf-8") as f:
        source = f.read()
    ops = re.search(r"// opcodes\nenum \{(.*?)\};", source, re.S).group(1)
    assert [o.strip()[3:].lower() for o in ops.replace("\n", " ").split(",")] == \
        list(_arithmetic_gpu.OPCODES)
    kinds = re.search(r"// type codes\nenum \{\n(.*?)\n", source, re.S).group(1)
    assert [k.strip()[3:].lower() for k in kinds.split(",") if k.strip()] == \
        ["bool" if t.kind == "b" else f"{t.kind}{t.itemsize * 8}" for t in _arithmetic_gpu.TYPES]


def test_launch_validates_sizes():
    case = cases_math.ArithCase(desc="add(&0 &0)", ints=[], reals=[],
                                inputs=[[np.zeros(3, np.float32)]], layouts=[None])
    op, plan = cases_math.arith_plan(case)
    program = _arithmetic_gpu.compile(op.tree, plan.prog)
    with pytest.raises(ValueError, match="at most 8 dimensions"):
        _arithmetic_gpu.launch(program, np.ones((1, 9), np.int64), [[(1,) * 9]], [np.float32])
    with pytest.raises(ValueError, match=r"input 0 of sample 0, of shape \(2,\), does not "
                                         r"broadcast to \(3,\)"):
        _arithmetic_gpu.launch(program, [(3,)], [[(2,)]], [np.float32])
    with pytest.raises(ValueError, match="at most 65535 samples"):
        _arithmetic_gpu.launch(program, np.ones((65536, 1), np.int64),
                               [np.ones((65536, 1), np.int64)], [np.float32])


def test_compile_limits_registers():
    """A chain nested on the left needs two registers, on the right one per level."""
    regs = _arithmetic_gpu.REGS
    case = cases_math.ArithCase(desc="add(" * regs + "&0" + " &0)" * regs, ints=[], reals=[],
                                inputs=[[np.arange(3, dtype=np.float32)]], layouts=[None])
    check_equal(case)
    case.desc = "add(&0 " * (regs - 1) + "&0" + ")" * (regs - 1)
    check_equal(case)                                     # exactly REGS registers
    case.desc = "add(&0 " * regs + "&0" + ")" * regs
    op, plan = cases_math.arith_plan(case)
    with pytest.raises(ValueError, match=f"more than {regs} registers"):
        _arithmetic_gpu.compile(op.tree, plan.prog)


# ---- the operator on the emulated device -----------------------------------------------------
def _pipelines(graph_of, batch_size=4):
    """(GPU outputs as host arrays, CPU outputs) of graph_of(on_gpu) on device 0 and on the
    CPU; the GPU outputs must be TensorListGPU of the CPU's dtype, layout and shapes."""
    from dali import pipeline_def

    outs = []
    for device_id in (0, None):
        @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id, seed=7,
                      prefetch_queue_depth=1)
        def pipe(on_gpu=device_id is not None):
            return graph_of(on_gpu)

        p = pipe()
        p.build()
        outs.append(p.run())
    gpu, cpu = outs
    for g, c in zip(gpu, cpu, strict=True):
        assert type(g).__name__ == "TensorListGPU"
        assert g.layout() == c.layout() and g.dtype == c.dtype and g.shape() == c.shape()
    return [[np.asarray(t) for t in g.as_cpu()] for g in gpu], \
        [[np.asarray(t) for t in c] for c in cpu]


@pytest.mark.parametrize("seed", range(3))
def test_gpu_pipeline_equals_cpu(emulated_gpu, seed):
    """GPU inputs with CPU inputs, per-sample scalars, Python and array constants, dali.math
    functions, comparisons: the GPU form (chosen because one input is on the GPU) equals the
    CPU pipeline."""
    from dali import fn, math

    rng = np.random.default_rng(seed)
    images = [rng.integers(0, 255, (int(rng.integers(1, 9)), int(rng.integers(1, 9)), 3))
              .astype(np.uint8) for _ in range(4)]
    scales = [np.float32(rng.uniform(-2, 2)) for _ in range(4)]
    ints = [rng.integers(-9, 9, 3).astype(np.int16) for _ in range(4)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: images, layout="HWC", batch=True)
        s = fn.external_source(source=lambda: scales, batch=True)
        k = fn.external_source(source=lambda: ints, layout="C", batch=True)
        if on_gpu:
            x = x.gpu()
        y = (x * 2 + s) / 3 - math.sqrt(math.abs(k))
        z = math.clamp(x - k, -5, 200) << 1
        w = (x > [10, 100, 200]) ^ (k < 0)
        v = math.max(x, 7.5) ** 2 % 13
        return y, z, w, v

    gpu, cpu = _pipelines(graph)
    for g, c in zip(gpu, cpu, strict=True):
        gpu_cases.assert_same(g, c)
    assert "arith_program" in emulated_gpu.launches


def test_gpu_pipeline_integer_division_by_zero(emulated_gpu):
    from dali import fn, pipeline_def

    data = [np.array([4, 5], np.int32), np.array([1, 0], np.int32)]

    @pipeline_def(batch_size=2, num_threads=1, device_id=0, prefetch_queue_depth=1)
    def pipe():
        x = fn.external_source(source=lambda: data, batch=True).gpu()
        return 10 // x

    p = pipe()
    p.build()
    with pytest.raises(Exception, match=r"Integer division by zero.\n\(in sample 1 of"):
        p.run()
