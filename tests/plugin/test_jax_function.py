import importlib

import numpy as np
import pytest

from dali import Pipeline
from dali._executor.errors import PipelineError

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from dali.plugin import jax as dax  # noqa: E402

ORACLE = [False, pytest.param(True, marks=pytest.mark.oracle)]


def pkgs(real):
    pkg = importlib.import_module("nvidia.dali" if real else "dali")
    plugin = importlib.import_module(("nvidia.dali" if real else "dali") + ".plugin.jax")
    return pkg, plugin


def constant(batch):
    return lambda: batch


def run(real, build, batches, layouts=("HWC",), batch_size=None):
    """Run build(jax_fn, *nodes) over external sources of `batches`; outputs as (arrays,
    layout, dtype) per output."""
    pkg, plugin = pkgs(real)
    p = pkg.Pipeline(batch_size=batch_size or len(batches[0]), num_threads=1, device_id=None)
    with p:
        nodes = [pkg.fn.external_source(constant(b), layout=lay)
                 for b, lay in zip(batches, layouts, strict=True)]
        outs = build(plugin.fn.jax_function, *nodes)
        p.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return [([np.array(t) for t in o], o.layout(), np.array(o[0]).dtype) for o in p.run()]


def images(seed, n=3):
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(1, 9, size=3))
    return [rng.integers(0, 255, size=shape, dtype=np.uint8) for _ in range(n)]


@pytest.mark.parametrize("real", ORACLE)
@pytest.mark.parametrize("seed", range(3))
def test_batch_function_and_layout_propagation(real, seed):
    batch = images(seed)

    def build(jax_function, x):
        flip = jax_function(lambda b: b[:, :, ::-1])
        brightness = jax_function(jax.jit(lambda b: (b.astype(jnp.float32) * 0.5).sum(-1)))
        return flip(x), brightness(x)

    (flipped, lay0, dt0), (summed, lay1, dt1) = run(real, build, [batch])
    assert (lay0, dt0, lay1, dt1) == ("HWC", np.uint8, "", np.float32)
    for f, s, b in zip(flipped, summed, batch, strict=True):
        np.testing.assert_array_equal(f, b[:, ::-1])
        np.testing.assert_allclose(s, (b.astype(np.float32) * 0.5).sum(-1), rtol=1e-6)


@pytest.mark.parametrize("real", ORACLE)
def test_decorator_with_arguments_and_several_outputs(real):
    batch = images(4)
    other = [np.full((2,), i, np.int32) for i in range(3)]

    def build(jax_function, x, y):
        @jax_function(num_outputs=2, output_layouts=["ABC", "L"])
        @jax.vmap
        def two(img, v):
            return img * 2, v + img.shape[0]

        a, b = two(x, y)
        c, d = jax_function(lambda p, q: (q, p), num_outputs=2, output_layouts=["Z", "Z"])(y, y)
        return a, b, c, d

    (a, la, _), (b, lb, _), (_, lc, _), (_, ld, _) = run(real, build, [batch, other],
                                                          layouts=("HWC", "X"))
    assert (la, lb, lc, ld) == ("ABC", "L", "Z", "Z")
    for k in range(3):
        np.testing.assert_array_equal(a[k], batch[k] * 2)
        np.testing.assert_array_equal(b[k], other[k] + batch[k].shape[0])


@pytest.mark.parametrize("real", ORACLE)
def test_no_outputs(real):
    calls = []
    pkg, plugin = pkgs(real)
    p = pkg.Pipeline(batch_size=2, num_threads=1, device_id=None, prefetch_queue_depth=1)
    with p:
        x = pkg.fn.external_source(lambda: [np.ones(3, np.float32)] * 2)
        out = plugin.fn.jax_function(lambda b: calls.append(b.shape), num_outputs=0)(x)
        p.set_outputs(x)
    assert out == []
    p.run()
    assert set(calls) == {(2, 3)}


def test_sharding():
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("batch",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("batch"))
    seen = []

    def build(jax_function, x):
        def f(b):
            seen.append(b.sharding)
            return b + 1
        return jax_function(f, sharding=sharding)(x)

    batch = images(7)
    (out, layout, _), = run(False, build, [batch])
    assert seen and all(s == sharding for s in seen) and layout == "HWC"
    for o, b in zip(out, batch, strict=True):
        np.testing.assert_array_equal(o, b + 1)


def test_one_layout_for_all_outputs():
    # As DALI documents it; DALI 2.4 itself wants a list of num_outputs layouts.
    build = lambda jax_function, x: tuple(jax_function(  # noqa: E731
        lambda b: (b, b * 2), num_outputs=2, output_layouts="Q")(x))
    (_, la, _), (b, lb, _) = run(False, build, [[np.ones(2, np.int8)]], ("X",))
    assert (la, lb) == ("Q", "Q") and b[0].tolist() == [2, 2]


def test_not_serializable_and_unknown_device_refused():
    p = Pipeline(batch_size=1, num_threads=1, device_id=None)
    with p:
        p.set_outputs(dax.fn.jax_function(lambda b: b)(
            __import__("dali").fn.external_source(lambda: [np.zeros(1)])))
    with pytest.raises(RuntimeError):
        p.serialize()
    with pytest.raises(ValueError, match='`device` must be "cpu", "gpu" or None, got \'tpu\''):
        dax.fn.jax_function(lambda b: b, device="tpu")


# -- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("real", ORACLE)
def test_samples_of_different_shapes(real):
    batch = [np.zeros((2, 3), np.float32), np.zeros((2, 2), np.float32)]
    with pytest.raises(RuntimeError, match="The input at index 0 is a batch of samples with "
                                           "different shapes"):
        run(real, lambda jax_function, x: jax_function(lambda b: b)(x), [batch], ("HW",))


@pytest.mark.parametrize("function, message", [
    (lambda b: np.asarray(b), "output 0 of the function is a ndarray; it must return jax.Array"),
    (lambda b: b[0], r"must be a batch: an array whose leading extent is the batch size 2, "
                     r"got shape \(3,\)"),
    (lambda b: (b, b), "the function returned 2 arrays, but num_outputs is 1"),
])
def test_bad_results(function, message):
    batch = [np.zeros(3, np.float32)] * 2
    with pytest.raises(PipelineError, match=r"dali\.plugin\.jax\.fn\.jax_function") as e:
        run(False, lambda jax_function, x: jax_function(function)(x), [batch], ("X",))
    assert e.match(message)


@pytest.mark.parametrize("real", ORACLE)
def test_layouts_must_match_num_outputs(real):
    batch = [np.zeros(3, np.float32)] * 2
    with pytest.raises((ValueError, RuntimeError),
                       match="The number of `output_layouts` must match the `num_outputs`"):
        run(real, lambda jax_function, x: tuple(jax_function(
            lambda b: (b, b), num_outputs=2, output_layouts=["A"])(x)), [batch], ("X",))


def test_bad_sharding():
    with pytest.raises(ValueError, match="must be an instance of `jax.sharding.Sharding`"):
        run(False, lambda jax_function, x: jax_function(lambda b: b, sharding="batch")(x),
            [[np.zeros(3, np.float32)]], ("X",))
