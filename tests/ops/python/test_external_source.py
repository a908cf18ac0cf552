"""fn.external_source: how sources are called, cycling, end of data in every executor mode,
feeding by name, and the errors for bad sources and bad data.

Tests taking the `api` fixture run on dali and, marked `oracle`, on real DALI with the same
expectations; tests of our error messages (where DALI's types or texts differ) run on dali only.
"""

import importlib
import types as pytypes

import numpy as np
import pytest

from dali import Pipeline, fn, ops, tensors, types
from dali._executor.errors import PipelineError


@pytest.fixture(params=["dali", pytest.param("nvidia.dali", marks=pytest.mark.oracle)])
def api(request):
    name = request.param
    return pytypes.SimpleNamespace(
        name=name, pkg=importlib.import_module(name), fn=importlib.import_module(name + ".fn"),
        types=importlib.import_module(name + ".types"), real=name != "dali")


DALI_API = pytypes.SimpleNamespace(pkg=importlib.import_module("dali"), fn=fn, real=False)


def make(api, source=None, bs=2, outputs=None, **kw):
    """A built pipeline with one external_source (its kwargs) or with `outputs(fn)`."""
    pipe_kw = {k: kw.pop(k) for k in ("prefetch_queue_depth", "exec_async", "exec_pipelined")
               if k in kw}
    p = api.pkg.Pipeline(batch_size=bs, num_threads=1, device_id=None, **pipe_kw)
    with p:
        outs = outputs(api.fn) if outputs else api.fn.external_source(source, **kw)
        p.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    p.build()
    return p


def values(tl):
    return [np.array(t).tolist() for t in tl]


def run_all(p, n):
    """`n` run() results: output 0's samples as lists, or "Stop"."""
    res = []
    for _ in range(n):
        try:
            res.append(values(p.run()[0]))
        except StopIteration:
            res.append("Stop")
    return res


def batch(*vals, dtype=np.int32):
    return [np.array([v], dtype) for v in vals]


# -- how the source is called ------------------------------------------------------------------

def test_callable_without_arguments(api):
    count = []

    def cb():
        count.append(1)
        return batch(len(count), len(count))

    assert run_all(make(api, cb), 3) == [[[1], [1]], [[2], [2]], [[3], [3]]]


def test_one_argument_gets_the_iteration_index(api):
    p = make(api, lambda i: batch(i, 10 * i))
    assert run_all(p, 3) == [[[0], [0]], [[1], [10]], [[2], [20]]]


def test_default_argument_counts_as_the_one_argument(api):
    # A DALI pitfall: `lambda a=a:` receives the iteration index, not its default.
    a = 7
    p = make(api, lambda a=a: batch(a, a))
    assert run_all(p, 2) == [[[0], [0]], [[1], [1]]]


def test_batch_info(api):
    seen = []

    def cb(info):
        seen.append(info)
        return batch(info.iteration, info.epoch_idx)

    p = make(api, cb, batch_info=True)
    assert run_all(p, 2) == [[[0], [0]], [[1], [0]]]
    assert all(isinstance(x, api.types.BatchInfo) for x in seen)


def test_callable_object_and_bound_method(api):
    class Source:
        def __call__(self, i):
            return batch(i + 100, i + 100)

        def get(self, info):
            return batch(info.iteration, 0)

    assert run_all(make(api, Source()), 2) == [[[100], [100]], [[101], [101]]]
    assert run_all(make(api, Source().get, batch_info=True), 2) == [[[0], [0]], [[1], [0]]]


def test_per_sample_gets_sample_info_and_epochs_continue(api):
    seen = []

    def cb(si):
        seen.append(si)
        if si.idx_in_epoch >= 7:
            raise StopIteration
        return np.array([si.idx_in_epoch, si.idx_in_batch, si.iteration, si.epoch_idx],
                        np.int32)

    p = make(api, cb, bs=3, batch=False)
    first = run_all(p, 4)
    assert first == [[[0, 0, 0, 0], [1, 1, 0, 0], [2, 2, 0, 0]],
                     [[3, 0, 1, 0], [4, 1, 1, 0], [5, 2, 1, 0]], "Stop", "Stop"]
    assert all(isinstance(x, api.types.SampleInfo) for x in seen)
    p.reset()
    assert run_all(p, 1) == [[[0, 0, 0, 1], [1, 1, 0, 1], [2, 2, 0, 1]]]


def test_per_sample_without_arguments(api):
    p = make(api, lambda: np.array([1.5], np.float32), batch=False)
    assert run_all(p, 1) == [[[1.5], [1.5]]]


def test_per_sample_with_batch_info_still_gets_sample_info(api):
    p = make(api, lambda si: np.array([si.idx_in_batch]), batch=False, batch_info=True)
    assert run_all(p, 1) == [[[0], [1]]]


def test_per_sample_several_outputs(api):
    def build(fn):
        return fn.external_source(
            lambda si: (np.array([si.idx_in_batch], np.int32), np.array([2.5], np.float32)),
            num_outputs=2, batch=False)

    a, b = make(api, outputs=build).run()
    assert values(a) == [[0], [1]] and values(b) == [[2.5], [2.5]]
    assert b.dtype == api.types.FLOAT


def test_parallel_defaults_to_per_sample_calls():
    p = make(DALI_API, lambda si: np.array([si.idx_in_epoch]), bs=3, parallel=True)
    assert run_all(p, 2) == [[[0], [1], [2]], [[3], [4], [5]]]


# -- iterables, generators and cycling ---------------------------------------------------------

def gen3():
    for i in range(3):
        yield batch(i, i)


THREE = [[[0], [0]], [[1], [1]], [[2], [2]]]


@pytest.mark.parametrize("kind", ["generator function", "list", "iterator", "generator"])
@pytest.mark.parametrize("cycle", [None, "no", False])
def test_non_cycling_sources_end_and_are_not_restarted_by_reset(api, kind, cycle):
    if kind in ("iterator", "generator") and cycle is not None:
        pytest.skip("cycle is given only with restartable sources here")
    data = [batch(i, i) for i in range(3)]
    source = {"generator function": gen3, "list": data, "iterator": iter(data),
              "generator": gen3()}[kind]
    kw = {} if cycle is None else {"cycle": cycle}
    p = make(api, source, **kw)
    assert run_all(p, 4) == [*THREE, "Stop"]
    p.reset()
    assert run_all(p, 2) == ["Stop", "Stop"]


@pytest.mark.parametrize("cycle", ["quiet", True])
@pytest.mark.parametrize("kind", ["generator function", "list"])
def test_quiet_cycling_restarts_silently(api, cycle, kind):
    source = gen3 if kind == "generator function" else [batch(i, i) for i in range(3)]
    assert run_all(make(api, source, cycle=cycle), 7) == [*THREE, *THREE, THREE[0]]


@pytest.mark.parametrize("kind", ["generator function", "list"])
def test_raise_cycling_stops_then_restarts(api, kind):
    source = gen3 if kind == "generator function" else [batch(i, i) for i in range(3)]
    p = make(api, source, cycle="raise")
    assert run_all(p, 4) == [*THREE, "Stop"]
    p.reset()
    assert run_all(p, 4) == [*THREE, "Stop"]
    p.reset()
    assert run_all(p, 1) == [THREE[0]]


def test_iterable_class_with_raise_cycling_is_iterated_again(api):
    class Two:
        def __iter__(self):
            self.i = 0
            return self

        def __next__(self):
            self.i += 1
            if self.i > 2:
                raise StopIteration
            return batch(self.i, self.i)

    p = make(api, Two(), cycle="raise")
    assert run_all(p, 3) == [[[1], [1]], [[2], [2]], "Stop"]
    p.reset()
    assert run_all(p, 1) == [[[1], [1]]]


def test_per_sample_iterables_drop_a_short_last_batch(api):
    data = [np.array([i], np.int32) for i in range(5)]
    p = make(api, data, batch=False)
    assert run_all(p, 3) == [[[0], [1]], [[2], [3]], "Stop"]
    p.reset()
    assert run_all(p, 1) == ["Stop"]
    assert run_all(make(api, data, batch=False, cycle="quiet"), 4) == \
        [[[0], [1]], [[2], [3]], [[4], [0]], [[1], [2]]]
    p = make(api, data, batch=False, cycle="raise")
    assert run_all(p, 3) == [[[0], [1]], [[2], [3]], "Stop"]
    p.reset()
    assert run_all(p, 1) == [[[0], [1]]]


def test_per_sample_generator_function_with_several_outputs(api):
    def samples():
        for i in range(5):
            yield np.array([i], np.int32), np.array([10 * i], np.int32)

    p = make(api, outputs=lambda fn: fn.external_source(samples, batch=False, num_outputs=2))
    a, b = p.run()
    assert values(a) == [[0], [1]] and values(b) == [[0], [10]]


def test_generator_object_cannot_be_cycled(api):
    with pytest.raises(TypeError, match="generator"):
        make(api, gen3(), cycle="quiet")


def test_cycle_needs_an_iterable_source(api):
    for cycle in ("quiet", "no", False):
        with pytest.raises(ValueError, match="`cycle`"):
            make(api, lambda: batch(1, 1), cycle=cycle)


def test_invalid_cycle_value(api):
    with pytest.raises(ValueError, match="sometimes"):
        make(api, [batch(1, 1)], cycle="sometimes")


# -- bad sources (rejected when the call is recorded, like DALI) ---------------------------------

def two(a, b):
    return batch(a, b)


def star(*args):
    return batch(1, 1)


def starstar(**kw):
    return batch(1, 1)


def keyword_only(i, *, offset=1):
    return batch(i, offset)


def two_with_default(a, b=1):
    return batch(a, b)


SIGNATURE_RULE = ("The `source` callable must accept either 0 or 1 positional arguments to "
                  "indicate whether it accepts the batch or sample indexing information. ")


@pytest.mark.parametrize("source, found", [
    (two, "Found more than one positional argument, which is not allowed"),
    (two_with_default, "Found more than one positional argument, which is not allowed"),
    (star, "Found var-positional argument `*args` which is not allowed."),
    (starstar, "Found var-keyword argument `**kw` which is not allowed."),
    (keyword_only, "Found keyword-only argument `offset` which is not allowed."),
])
@pytest.mark.parametrize("per_sample", [False, True])
def test_bad_source_signatures_read_like_dali(api, source, found, per_sample):
    p = api.pkg.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p, pytest.raises(TypeError) as e:
        api.fn.external_source(source, batch=not per_sample)
    assert SIGNATURE_RULE + found in str(e.value)


def test_bad_source_signature_names_the_operator_and_the_count():
    p = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p, pytest.raises(TypeError) as e:
        fn.external_source(two)
    assert str(e.value) == ("dali.fn.external_source: " + SIGNATURE_RULE + "Found more than one "
                            "positional argument, which is not allowed (it takes 2).")


def test_source_that_is_not_callable_or_iterable(api):
    p = api.pkg.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p, pytest.raises(TypeError, match="source"):
        api.fn.external_source(5)
    if not api.real:
        with p, pytest.raises(TypeError, match="must be a callable, an iterable or a generator "
                                               "function, got int"):
            fn.external_source(5)


def test_generator_function_needing_arguments_fails_when_called(api):
    def needs(x):
        yield batch(x, x)

    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        make(api, needs).run()


def test_exceptions_from_the_callback_propagate_unchanged(api):
    def cb(i):
        if i == 1:
            raise KeyError("user boom")
        return batch(i, i)

    p = make(api, cb)
    with pytest.raises(KeyError, match="user boom"):
        p.run()


# -- outputs: num_outputs, layouts, dtypes, batch forms ------------------------------------------

@pytest.mark.parametrize("container", [tuple, list])
def test_several_outputs(api, container):
    def build(fn):
        return fn.external_source(
            lambda: container([batch(1, 2), batch(2.5, 3.5, dtype=np.float32)]), num_outputs=2,
            layout=["A", "B"])

    a, b = make(api, outputs=build).run()
    assert values(a) == [[1], [2]] and values(b) == [[2.5], [3.5]]
    assert (a.dtype, b.dtype) == (api.types.INT32, api.types.FLOAT)
    assert (a.layout(), b.layout()) == ("A", "B")


def test_num_outputs_one_returns_a_list_and_takes_a_tuple(api):
    got = []

    def build(fn):
        outs = fn.external_source(lambda: (batch(3, 4),), num_outputs=1)
        got.append(type(outs))
        return outs

    out, = make(api, outputs=build).run()
    assert got == [list] and values(out) == [[3], [4]]


def test_per_output_layout_dtype_and_ndim(api):
    # Lists shorter than num_outputs leave the last outputs undeclared; extra entries are
    # ignored (as DALI splits them).
    def build(fn):
        return fn.external_source(
            lambda: ([np.zeros((1, 1), np.uint8)] * 2, [np.zeros(1, np.float32)] * 2,
                     [np.zeros(1, np.int16)] * 2),
            num_outputs=3, layout=["AB", "C"], dtype=[api.types.UINT8, api.types.FLOAT],
            ndim=(2, 1, 1, 7))

    outs = make(api, outputs=build).run()
    assert [(o.layout(), o.dtype) for o in outs] == [
        ("AB", api.types.UINT8), ("C", api.types.FLOAT), ("", api.types.INT16)]


def test_one_layout_for_every_output(api):
    a, b = make(api, outputs=lambda fn: fn.external_source(
        lambda: (batch(1, 2), batch(3, 4)), num_outputs=2, layout="X")).run()
    assert (a.layout(), b.layout()) == ("X", "X")


def test_ndim_of_one_output_is_checked(api):
    p = make(api, outputs=lambda fn: fn.external_source(
        lambda: (batch(1, 2), batch(1, 2)), num_outputs=2, ndim=[1, 2]))
    with pytest.raises(RuntimeError, match="ExternalSource expected data with 2 dimensions and "
                                           "got 1 dimensions."):
        p.run()


def test_named_source_with_num_outputs_is_rejected(api):
    p = api.pkg.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p, pytest.raises(RuntimeError) as e:
        api.fn.external_source(lambda: (batch(1, 2), batch(1, 2)), num_outputs=2, name="x")
    assert str(e.value) == (f"``num_outputs`` is not compatible with named "
                            f"`{api.name}.fn.external_source`.")


def test_num_outputs_needs_a_source(api):
    p = api.pkg.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p, pytest.raises(ValueError, match=r"^The parameter ``num_outputs`` is only valid when "
                                            r"using ``source`` to provide data. To feed multiple "
                                            r"external sources in ``feed_input``, use multiple "):
        api.fn.external_source(num_outputs=2)


def test_outputs_of_different_batch_sizes(api):
    p = make(api, outputs=lambda fn: fn.external_source(
        lambda: (batch(1, 2), batch(1)), num_outputs=2))
    with pytest.raises(RuntimeError, match="Batch size clash!"):
        p.run()


def test_wrong_number_of_outputs_is_a_clear_error():
    p = make(DALI_API, outputs=lambda fn: list(
        fn.external_source(lambda: (batch(1, 1),), num_outputs=2)))
    with pytest.raises(TypeError, match=r"must return a tuple of 2 batches \(num_outputs=2\), "
                                        r"got 1 of them"):
        p.run()


def test_layout_dtype_and_ndim_that_match(api):
    p = make(api, lambda: [np.zeros((2, 3), np.uint8)] * 2, layout="HW", dtype=api.types.UINT8,
             ndim=2)
    out, = p.run()
    assert out.layout() == "HW" and out.dtype == api.types.UINT8 and out.shape() == [(2, 3)] * 2


def test_dtype_mismatch_is_an_operator_error_of_its_iteration(api):
    def cb(i):
        return [np.zeros(2, np.uint8 if i != 1 else np.int16)] * 2

    p = make(api, cb, dtype=api.types.UINT8)
    assert run_all(p, 1) == [[[0, 0], [0, 0]]]
    with pytest.raises(RuntimeError, match="external_source"):
        p.run()


def test_ndim_mismatch_is_an_operator_error(api):
    p = make(api, lambda: [np.zeros(2, np.uint8)] * 2, ndim=2)
    with pytest.raises(RuntimeError, match="external_source"):
        p.run()


@pytest.mark.parametrize("kw, message", [
    ({"dtype": "FLOAT", "ndim": 1}, "ExternalSource expected data of type float and got: uint8"),
    ({"ndim": 2}, "ExternalSource expected data with 2 dimensions and got 1 dimensions."),
])
def test_dtype_and_ndim_error_messages(api, kw, message):
    if "dtype" in kw:
        kw = {**kw, "dtype": getattr(api.types, kw["dtype"])}
    p = make(api, lambda: [np.zeros(2, np.uint8)] * 2, **kw)
    with pytest.raises(RuntimeError, match="Error in CPU operator `(nvidia.)?dali.fn.external_"
                                           "source`") as e:
        p.run()
    assert message in str(e.value)


def test_dtype_error_of_one_output():
    p = make(DALI_API, outputs=lambda fn: fn.external_source(
        lambda: (batch(1, 2), batch(1, 2)), num_outputs=2, dtype=[types.INT32, types.FLOAT]))
    with pytest.raises(PipelineError) as e:
        p.run()
    assert ("dali.fn.external_source: ExternalSource expected data of type float and got: int32 "
            "(output 1)\n") in str(e.value)
    assert type(e.value.__cause__) is RuntimeError


def test_no_type_checks_nothing(api):
    out, = make(api, lambda: batch(1, 2), dtype=api.types.NO_TYPE).run()
    assert out.dtype == api.types.INT32


@pytest.mark.parametrize("kw, message", [
    ({"ndim": 2, "layout": "X"}, 'Number of dimensions in the provided layout does not match the '
                                 'ndim argument. The arguments provided:\n ndim = 2,\n layout: '
                                 '"X".'),
    ({"ndim": -1}, "Incorrect number of dimensions (-1). Use positive values for tensors or 0 "
                   "for scalars."),
])
def test_declared_metadata_is_checked_at_build(api, kw, message):
    p = api.pkg.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        p.set_outputs(api.fn.external_source(lambda: [np.zeros(2, np.uint8)] * 2, **kw))
    with pytest.raises(RuntimeError, match="Critical error when building pipeline") as e:
        p.build()
    assert message in str(e.value)


@pytest.mark.parametrize("kw, exc", [({"ndim": "x"}, ValueError), ({"dtype": "x"}, None)])
def test_metadata_of_a_wrong_type_is_rejected_at_the_call(api, kw, exc):
    # DALI converts the value with int(): a ValueError; dali's dtype error is the TypeError of
    # an unknown type (`types.to_dali_type`).
    exc = exc or (ValueError if api.real else TypeError)
    p = api.pkg.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p, pytest.raises(exc):
        api.fn.external_source(lambda: batch(1, 2), **kw)


def test_layout_must_fit_the_data(api):
    p = make(api, lambda: [np.zeros((2, 2), np.uint8)] * 2, layout="HWC")
    with pytest.raises(RuntimeError, match="The layout 'HWC' cannot describe 2-dimensional data"):
        p.run()


def test_tensor_lists_and_tensors_keep_their_layout(api):
    tl = api.pkg.tensors.TensorListCPU(np.arange(4, dtype=np.int32).reshape(2, 2), "X")
    out, = make(api, lambda: tl).run()
    assert values(out) == [[0, 1], [2, 3]] and out.layout() == "X"
    out, = make(api, lambda: [tl[0], tl[1]]).run()
    assert values(out) == [[0, 1], [2, 3]] and out.layout() == "X"


def test_a_fed_tensor_list_is_not_changed():
    tl = tensors.TensorListCPU(np.arange(4, dtype=np.int32).reshape(2, 2), "X")
    p = make(DALI_API, lambda: tl, layout="Y")
    assert p.run()[0].layout() == "Y"
    assert tl.layout() == "X"


def test_dense_array_batch_and_zero_dim_samples(api):
    out, = make(api, lambda: np.arange(6, dtype=np.int16).reshape(3, 2), bs=3).run()
    assert values(out) == [[0, 1], [2, 3], [4, 5]] and out.dtype == api.types.INT16
    out, = make(api, lambda: [np.float32(1.5), np.float32(2)]).run()
    assert values(out) == [1.5, 2.0] and out.shape() == [(), ()]


def test_bool_and_float16_data(api):
    a, b = make(api, outputs=lambda fn: fn.external_source(
        lambda: ([np.zeros(1, bool)] * 2, [np.ones(1, np.float16)] * 2), num_outputs=2)).run()
    assert (a.dtype, b.dtype) == (api.types.BOOL, api.types.FLOAT16)
    assert values(b) == [[1.0], [1.0]]


def test_strided_arrays_are_accepted():
    # Real DALI rejects strided samples ("Strided data not supported"); we copy them.
    p = make(DALI_API,
             lambda: [np.arange(6, dtype=np.int16)[::2]] * 2)
    assert values(p.run()[0]) == [[0, 2, 4], [0, 2, 4]]
    p = make(DALI_API,
             lambda: np.arange(12, dtype=np.int16).reshape(2, 6)[:, ::2])
    assert values(p.run()[0]) == [[0, 2, 4], [6, 8, 10]]


def test_ops_api(api):
    es = api.pkg.ops.ExternalSource(source=lambda i: batch(i, i))
    p = api.pkg.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with p:
        p.set_outputs(es())
    assert run_all(p, 2) == [[[0], [0]], [[1], [1]]]


def test_ops_class_is_generated():
    assert ops.ExternalSource.schema.name == "external_source"


# -- batch sizes -------------------------------------------------------------------------------

def test_batches_smaller_than_max_batch_size_and_too_large(api):
    p = make(api, lambda i: batch(*[i] * (i + 1), dtype=np.uint8), bs=4, prefetch_queue_depth=1)
    assert run_all(p, 4) == [[[0]], [[1], [1]], [[2], [2], [2]], [[3], [3], [3], [3]]]
    with pytest.raises(RuntimeError, match=r"The external source callback returned an "
                                           r"unexpected batch size. Expected batch_size <= 4, "
                                           r"actual: 5$"):
        p.run()


def test_fed_batch_too_large(api):
    p = make(api, name="x", prefetch_queue_depth=1)
    with pytest.raises(RuntimeError, match=r"unexpected batch size. Expected batch_size <= 2, "
                                           r"actual: 3$"):
        p.feed_input("x", batch(1, 2, 3))
        p.run()


def test_empty_batch(api):
    out, = make(api, lambda: [], bs=4).run()
    assert len(out) == 0


# -- bad data: clear errors naming the operator and the sample -----------------------------------

@pytest.mark.parametrize("data, exc, message", [
    ([1, 2], TypeError, "sample 0 of the batch is a int; samples must be numpy arrays"),
    ([np.array([1]), [3, 4]], TypeError, "sample 1 of the batch is a list"),
    ([np.zeros(2, np.uint8), np.zeros(2, np.int32)], RuntimeError,
     "Sample must have the same type as the target batch, current: uint8, new: int32 for "
     "sample idx: 1."),
    ([np.zeros(2, np.uint8), np.zeros((2, 1), np.uint8)], RuntimeError,
     "All tensors in a batch must have the same number of dimensions: sample 0 has 1, sample 1 "
     "has 2 (shape (2, 1))"),
    ([np.array(["a"]), np.array(["b"])], TypeError, "sample 0 has unsupported type <U1"),
    (np.array([[1], [2]], dtype=object), TypeError, "sample 0 has unsupported type object"),
    ([np.zeros(2, np.uint8)] * 3, RuntimeError,
     "The external source callback returned an unexpected batch size. Expected batch_size <= 2, "
     "actual: 3"),
    (np.float32(1.5), TypeError, "a batch must be a list of arrays"),
])
def test_bad_data(data, exc, message):
    p = make(DALI_API, lambda: data)
    with pytest.raises(exc, match=r"dali\.fn\.external_source \(defined at .*test_external_"
                                  r"source\.py:\d+\): ") as e:
        p.run()
    assert message in str(e.value)


@pytest.mark.parametrize("per_sample", [False, True])
def test_samples_of_mixed_type_or_ndim(api, per_sample):
    i32, f32, i32_2d = np.zeros(1, np.int32), np.zeros(1, np.float32), np.zeros((1, 1), np.int32)

    def build(fn, arrays):
        if per_sample:
            return fn.external_source(lambda info: arrays[info.idx_in_batch], batch=False)
        return fn.external_source(lambda: arrays)

    p = make(api, outputs=lambda fn: build(fn, [i32, i32, f32]), bs=3)
    with pytest.raises(RuntimeError, match="Sample must have the same type as the target batch, "
                                           "current: int32, new: float for sample idx: 2."):
        p.run()
    p = make(api, outputs=lambda fn: build(fn, [i32, i32_2d]), bs=2)
    with pytest.raises(RuntimeError, match="All tensors in a batch must have the same number of "
                                           "dimensions"):
        p.run()


def test_bad_data_raises_in_real_dali_too(api):
    for data in ([1, 2], [[1, 2], [3, 4]], [np.zeros(2, np.uint8), np.zeros(2, np.int32)],
                 [np.zeros(2, np.uint8), np.zeros((2, 1), np.uint8)]):
        with pytest.raises((TypeError, ValueError, RuntimeError)):
            make(api, lambda d=None, data=data: data).run()


# -- feeding by name ---------------------------------------------------------------------------

def test_feed_input_and_run_with_named_inputs(api):
    p = make(api, name="x", prefetch_queue_depth=1)
    p.feed_input("x", batch(1, 1))
    assert run_all(p, 1) == [[[1], [1]]]
    out, = p.run(x=batch(5))
    assert values(out) == [[5]]
    p = make(api, name="x", prefetch_queue_depth=1)
    p.feed_input("x", [np.zeros((1, 1), np.int32)] * 2, layout="AB")
    assert p.run()[0].layout() == "AB"


@pytest.mark.parametrize("change", ["dtype", "ndim", "layout"])
def test_data_must_keep_its_type_ndim_and_layout(api, change):
    p = make(api, name="x", prefetch_queue_depth=1)
    p.feed_input("x", [np.zeros((1, 1), np.int32)] * 2, layout="AB")
    p.run()
    data = {"dtype": [np.zeros((1, 1), np.int16)] * 2, "ndim": [np.zeros(1, np.int32)] * 2,
            "layout": [np.zeros((1, 1), np.int32)] * 2}[change]
    p.feed_input("x", data, layout=None if change != "dtype" else "AB")
    with pytest.raises(RuntimeError, match="external_source"):
        p.run()


def test_changed_data_message():
    p = make(DALI_API, lambda i: [np.zeros(2, np.uint8 if i == 0 else np.int16)] * 2)
    p.run()
    with pytest.raises(PipelineError, match="the type of the data changed from the previous "
                                            "iteration: it was DALIDataType.UINT8 and is now "
                                            "DALIDataType.INT16"):
        p.run()


def test_an_empty_batch_fixes_nothing():
    p = make(DALI_API, lambda i: [] if i == 0 else [np.zeros((2, 2), np.uint8)])
    assert len(p.run()[0]) == 0
    assert p.run()[0].shape() == [(2, 2)]


def test_feed_input_queues_batches(api):
    p = make(api, name="x")
    for i in range(2):
        p.feed_input("x", batch(i, i))
    assert run_all(p, 2) == [[[0], [0]], [[1], [1]]]
    with pytest.raises(IndexError if api.real else PipelineError):
        p.run()


def test_named_inputs_need_prefetch_depth_one(api):
    p = make(api, name="x")
    with pytest.raises(RuntimeError, match="prefetch_queue_depth"):
        p.run(x=batch(1, 1))


def test_missing_feed_is_an_error():
    p = make(DALI_API, name="x", prefetch_queue_depth=1)
    with pytest.raises(PipelineError, match="No data was provided to the external source") \
            as info:
        p.run()
    assert isinstance(info.value, IndexError)  # DALI's class


def test_repeat_last():
    p = make(DALI_API, name="x", prefetch_queue_depth=1, repeat_last=True)
    p.feed_input("x", batch(1, 1))
    assert run_all(p, 2) == [[[1], [1]]] * 2
    p.feed_input("x", batch(2))
    assert run_all(p, 2) == [[[2]]] * 2


# -- end of data: StopIteration in every executor mode -------------------------------------------

MODES = [dict(exec_async=True, exec_pipelined=True), dict(exec_async=True, exec_pipelined=False),
         dict(exec_async=False, exec_pipelined=True), dict(exec_async=False, exec_pipelined=False)]


def stop_at_3(calls):
    def cb(info):
        calls.append((info.iteration, info.epoch_idx))
        if info.iteration == 3:
            raise StopIteration
        return batch(info.iteration, info.epoch_idx)
    return cb


@pytest.mark.parametrize("mode", MODES, ids=["async-pipelined", "async", "pipelined", "simple"])
def test_stop_iteration_in_every_mode(api, mode):
    if api.real and not mode["exec_async"] and mode["exec_pipelined"]:
        pytest.skip("real DALI deadlocks with exec_async=False, exec_pipelined=True, depth 2")
    calls = []
    p = make(api, stop_at_3(calls), batch_info=True, prefetch_queue_depth=2, **mode)
    assert run_all(p, 5) == [[[0], [0]], [[1], [0]], [[2], [0]], "Stop", "Stop"]
    assert calls == [(0, 0), (1, 0), (2, 0), (3, 0)]
    p.reset()
    assert run_all(p, 2) == [[[0], [1]], [[1], [1]]]
    assert calls[4] == (0, 1)


def test_stop_iteration_pipelined_sync_depth_one_matches_real_dali(api):
    calls = []
    p = make(api, stop_at_3(calls), batch_info=True, prefetch_queue_depth=1, exec_async=False,
             exec_pipelined=True)
    assert run_all(p, 4) == [[[0], [0]], [[1], [0]], [[2], [0]], "Stop"]
    p.reset()
    assert run_all(p, 1) == [[[0], [1]]]


@pytest.mark.parametrize("mode", MODES, ids=["async-pipelined", "async", "pipelined", "simple"])
def test_stop_iteration_with_the_scheduled_api(api, mode):
    if api.real and not mode["exec_async"] and mode["exec_pipelined"]:
        pytest.skip("real DALI deadlocks with exec_async=False, exec_pipelined=True, depth 2")
    calls = []
    p = make(api, stop_at_3(calls), batch_info=True, **mode)
    got = []
    p.schedule_run()
    for _ in range(4):
        try:
            got.append(values(p.share_outputs()[0])[0][0])
            p.release_outputs()
            p.schedule_run()
        except StopIteration:
            got.append("Stop")
    assert got == [0, 1, 2, "Stop"]
    assert calls == [(0, 0), (1, 0), (2, 0), (3, 0)]


def test_stop_with_a_deeper_queue_drains_what_was_produced(api):
    calls = []

    def cb(info):
        calls.append(info.iteration)
        if info.iteration == 1:
            raise StopIteration
        return batch(info.iteration, info.iteration)

    p = make(api, cb, batch_info=True, prefetch_queue_depth=3)
    assert run_all(p, 2) == [[[0], [0]], "Stop"]
    assert calls == [0, 1]
    p.reset()
    assert run_all(p, 2) == [[[0], [0]], "Stop"]


def test_stop_at_the_first_iteration(api):
    def cb(info):
        raise StopIteration

    p = make(api, cb, batch_info=True)
    assert run_all(p, 2) == ["Stop", "Stop"]
    p.reset()
    assert run_all(p, 1) == ["Stop"]


def test_reset_before_the_end_does_not_start_an_epoch(api):
    calls = []

    def cb(info):
        calls.append((info.iteration, info.epoch_idx))
        return batch(info.iteration, info.epoch_idx)

    p = make(api, cb, batch_info=True)
    run_all(p, 2)
    p.reset()
    assert run_all(p, 1) == [[[2], [0]]]
    assert calls == [(0, 0), (1, 0), (2, 0), (3, 0)]


def test_any_source_ending_ends_the_iteration(api):
    def a(i):
        if i == 2:
            raise StopIteration
        return batch(i, i)

    p = make(api, outputs=lambda fn: (fn.external_source(a),
                                       fn.external_source(lambda i: batch(10 * i, 10 * i))))
    assert [values(o[1]) for o in (p.run(), p.run())] == [[[0], [0]], [[10], [10]]]
    with pytest.raises(StopIteration):
        p.run()
    p.reset()
    assert values(p.run()[1]) == [[0], [0]]


def test_exhausted_iterable_next_to_a_callback_keeps_stopping(api):
    data = [batch(i, i) for i in range(2)]
    p = make(api, outputs=lambda fn: (fn.external_source(data),
                                       fn.external_source(lambda i: batch(i, i))))
    assert run_all(p, 3) == [[[0], [0]], [[1], [1]], "Stop"]
    p.reset()
    assert run_all(p, 2) == ["Stop", "Stop"]
