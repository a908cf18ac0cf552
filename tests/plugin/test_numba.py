import importlib
import threading
import time

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import Pipeline, fn, types
from dali._executor.errors import PipelineError

pytest.importorskip("numba")
from dali.plugin import numba as dnumba  # noqa: E402
from dali.plugin.numba.fn.experimental import numba_function  # noqa: E402

ORACLE = [False, pytest.param(True, marks=pytest.mark.oracle)]


def numba_fn(real):
    mod = "nvidia.dali.plugin.numba.fn.experimental" if real else \
        "dali.plugin.numba.fn.experimental"
    return importlib.import_module(mod).numba_function


def transpose_shapes(outs, ins):
    for i in range(len(outs[0])):
        outs[0][i][0] = ins[0][i][1]
        outs[0][i][1] = ins[0][i][0]


def transpose_twice(out, inp):
    for y in range(out.shape[0]):
        for x in range(out.shape[1]):
            out[y, x] = inp[x, y] * 2


def transpose_batch(outs, ins):
    for i in range(len(outs)):
        transposed = ins[i].T
        outs[i][:] = transposed * 2


def add_and_scale(o0, o1, a, b):
    o0[:] = a + b
    o1[:] = a * 0.5


def random_batch(rng, dtype, ndim):
    return [rng.integers(0, 50, size=rng.integers(1, 7, size=ndim)).astype(dtype)
            for _ in range(rng.integers(1, 6))]


def transpose(x, real=False, **kw):
    return numba_fn(real)(x, run_fn=transpose_twice, setup_fn=transpose_shapes,
                          out_types=[types.INT16], in_types=[types.INT16], outs_ndim=[2],
                          ins_ndim=[2], **kw)


@pytest.mark.parametrize("real", ORACLE)
@pytest.mark.parametrize("num_threads", [1, 3])
def test_setup_fn_sets_the_output_shapes(real, num_threads):
    rng = np.random.default_rng(num_threads)
    batches = [random_batch(rng, np.int16, 2) for _ in range(3)]
    batches = [b + [b[0]] * (4 - len(b)) for b in batches]     # one batch size
    outs = run_op(lambda fn, x: transpose(x, real), [[b] for b in batches], iterations=3,
                  real=real, num_threads=num_threads)
    for (out,), batch in zip(outs, batches, strict=True):
        for o, b in zip(out, batch, strict=True):
            assert o.dtype == np.int16
            np.testing.assert_array_equal(o, b.T * 2)


@pytest.mark.parametrize("real", ORACLE)
def test_batch_processing(real):
    batch = random_batch(np.random.default_rng(5), np.int16, 2)
    out, = run_op(lambda fn, x: numba_fn(real)(
        x, run_fn=transpose_batch, setup_fn=transpose_shapes, out_types=[types.INT16],
        in_types=[types.INT16], outs_ndim=[2], ins_ndim=[2], batch_processing=True),
        [batch], real=real)
    for o, b in zip(out, batch, strict=True):
        np.testing.assert_array_equal(o, b.T * 2)


@pytest.mark.parametrize("real", ORACLE)
def test_without_setup_outputs_take_the_inputs_shapes(real):
    rng = np.random.default_rng(7)
    a = [rng.random((3, 4), np.float32), rng.random((2, 2), np.float32)]
    b = [rng.random((5,), np.float32) for _ in range(2)]
    a2 = [np.resize(x, (5,)).astype(np.float32) for x in a]

    def build(fn, x, y, z):
        o0, o1 = numba_fn(real)(
            x, y, run_fn=add_and_scale, out_types=[types.FLOAT, types.FLOAT],
            in_types=[types.FLOAT, types.FLOAT], outs_ndim=[1, 1], ins_ndim=[1, 1])
        return o0, o1, numba_fn(real)(z, run_fn=_copy_plus_one, out_types=[types.FLOAT],
                                      in_types=[types.FLOAT], outs_ndim=[2], ins_ndim=[2])

    o0, o1, o2 = run_op(build, [a2, b, a], real=real)
    for k in range(2):
        np.testing.assert_allclose(o0[k], a2[k] + b[k], rtol=1e-6)
        np.testing.assert_allclose(o1[k], a2[k] * 0.5, rtol=1e-6)
        np.testing.assert_allclose(o2[k], a[k] + 1, rtol=1e-6)
        assert o2[k].shape == a[k].shape


def _copy_plus_one(out, inp):
    out[:] = inp + 1


def _two_outputs(o0, o1, a):
    o0[:] = a
    o1[:] = a


def _first(out, a, b):
    out[:] = a


def _count(out, inp):
    out[0] = inp.size


def _one_count(outs, ins):
    for i in range(len(outs[0])):
        outs[0][i][0] = 1


@pytest.mark.parametrize("real", ORACLE)
def test_output_type_from_out_types(real):
    batch = [np.zeros(s, np.uint8) for s in [(2, 3, 1), (4, 1, 2)]]
    out, = run_op(lambda fn, x: numba_fn(real)(
        x, run_fn=_count, setup_fn=_one_count, out_types=[types.INT64], in_types=[types.UINT8],
        outs_ndim=[1], ins_ndim=[3]), [batch], real=real)
    assert [o.tolist() for o in out] == [[6], [8]] and out[0].dtype == np.int64


def test_ops_class_and_both_fn_names():
    from dali.plugin.numba.fn import numba_function as plain

    assert plain is numba_function
    p = Pipeline(batch_size=1, num_threads=1, device_id=None)
    with p:
        op = dnumba.NumbaFunction(run_fn=_copy_plus_one, out_types=[types.FLOAT],
                                  in_types=[types.FLOAT], outs_ndim=[1], ins_ndim=[1],
                                  blocks=[1, 1, 1], threads_per_block=[32, 1, 1])
        p.set_outputs(op(fn.external_source(lambda: [np.arange(3, dtype=np.float32)])))
    assert np.array(p.run()[0][0]).tolist() == [1, 2, 3]
    assert "no effect here" in numba_function.__doc__


def test_single_values_for_the_lists():
    out, = run_op(lambda fn, x: numba_function(
        x, run_fn=_copy_plus_one, out_types=types.FLOAT, in_types=types.FLOAT, outs_ndim=1,
        ins_ndim=1), [[np.arange(3, dtype=np.float32)]])
    assert out[0].tolist() == [1, 2, 3]


def _spin(out, inp):
    x = inp[0]
    for _ in range(inp[1]):
        x = (x * 1103515245 + 12345) % 2147483648
    out[0] = x


def test_run_fn_runs_without_the_gil():
    """A Python thread keeps running while the compiled function spins (the GIL held by the
    kernel would stop it for the whole run: no step at all).  Counted in steps, not gaps
    timed, so that a loaded machine does not fail it."""
    p = Pipeline(batch_size=1, num_threads=1, device_id=None, exec_async=False,
                 exec_pipelined=False)
    with p:
        x = fn.external_source(lambda: [np.array([1, 200_000_000], np.int64)])
        p.set_outputs(numba_function(x, run_fn=_spin, out_types=[types.INT64],
                                     in_types=[types.INT64], outs_ndim=[1], ins_ndim=[1]))
    p.build()
    p.run()                                          # compiled and warm
    stamps, running = [], threading.Event()
    running.set()

    def tick():
        while running.is_set():
            stamps.append(time.perf_counter())

    t = threading.Thread(target=tick)
    t.start()
    start = time.perf_counter()
    p.run()
    took = time.perf_counter() - start
    running.clear()
    t.join()
    # the middle half of the run is the kernel's (its entry and exit are Python)
    during = [s for s in stamps if start + took / 4 <= s <= start + 3 * took / 4]
    assert took > 0.01 and len(during) >= 10, (took, len(during))


def test_is_never_pruned():
    assert numba_function._schema.no_prune and not numba_function._schema.serializable


# -- errors ------------------------------------------------------------------------------------

def run_transpose(batch, **kw):
    args = dict(run_fn=transpose_twice, setup_fn=transpose_shapes, out_types=[types.INT16],
                in_types=[types.INT16], outs_ndim=[2], ins_ndim=[2])
    args.update(kw)
    return run_op(lambda fn, x: numba_function(x, **args), [batch])


@pytest.mark.parametrize("batch, kw, exc, message", [
    ([np.zeros((2, 2), np.float32)], {}, TypeError,
     "Data type passed in `in_types` at index 0 doesn't match type of the input data: "
     "int16 != float"),
    ([np.zeros((2, 2, 1), np.int16)], {}, ValueError,
     "Number of dimensions passed in `ins_ndim` at index 0 doesn't match the number of "
     "dimensions of the input data: 2 != 3"),
    ([np.zeros((2, 2), np.int16)], dict(setup_fn=None, outs_ndim=[3]), ValueError,
     r"without `setup_fn` output 0 has input 0's shape, with 2 dimensions, but "
     r"`outs_ndim\[0\]` is 3"),
    ([np.zeros((2, 2), np.int16)],
     dict(run_fn=_first, in_types=[types.INT16, types.INT16], ins_ndim=[2, 2]), ValueError,
     r"Expected 2 inputs \(basing on `in_types`\), but got 1"),
])
def test_bad_inputs(batch, kw, exc, message):
    with pytest.raises(PipelineError, match=r"dali\.plugin\.numba\.fn\.experimental\."
                                            r"numba_function") as e:
        run_transpose(batch, **kw)
    assert isinstance(e.value.__cause__, exc) and e.match(message)


@pytest.mark.parametrize("kw, exc, message", [
    (dict(ins_ndim=[2, 2]), AssertionError,
     "Number of input types and input dimensions should match."),
    (dict(out_types=[types.INT16, types.INT16]), AssertionError,
     "Number of output types and output dimensions should match."),
    (dict(setup_fn=None, out_types=[types.INT16] * 2, outs_ndim=[2, 2]), RuntimeError,
     "Size of `out_types` should match size of `in_types` when `setup_fn` isn't provided."),
    (dict(out_types=[types.FLOAT16]), RuntimeError, "float16"),
    (dict(out_types=[types.INT16] * 7, outs_ndim=[2] * 7), ValueError, "at most 6"),
])
def test_bad_arguments(kw, exc, message):
    with pytest.raises(exc, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_transpose([np.zeros((2, 2), np.int16)], **kw)


@pytest.mark.oracle
@pytest.mark.parametrize("kw, message", [
    (dict(ins_ndim=[2, 2]), "Number of input types and input dimensions should match."),
    (dict(run_fn=_two_outputs, setup_fn=None, out_types=[types.INT16] * 2, outs_ndim=[2, 2]),
     "Size of `out_types` should match size of `in_types` when `setup_fn` isn't provided."),
])
def test_bad_arguments_in_real_dali(kw, message):
    from nvidia.dali import types as real_types

    args = dict(run_fn=transpose_twice, setup_fn=transpose_shapes, out_types=[types.INT16],
                in_types=[types.INT16], outs_ndim=[2], ins_ndim=[2])
    args.update(kw)
    args = {k: [real_types.DALIDataType(int(t)) for t in v] if k.endswith("types") else v
            for k, v in args.items()}
    with pytest.raises((AssertionError, RuntimeError), match=message.replace("(", r"\(")
                       .replace(")", r"\)")):
        run_op(lambda fn, x: tuple(numba_fn(True)(x, **args)), [[np.zeros((2, 2), np.int16)]],
               real=True)
