"""Checkpoints: a pipeline restored from the checkpoint taken after any consumed batch gives,
byte for byte, the batches the uninterrupted pipeline gave after it, inside and across epochs,
whatever was prefetched; DALI's errors and warnings; malformed checkpoints refused."""

import pathlib
import sys
import warnings

import numpy as np
import pytest

from dali import _registry, _roles, fn, pipeline_def, types
from dali._pipeline import checkpointing

REPO = pathlib.Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import opcase, operators  # noqa: E402


def _arrays(outs):
    return [[np.array(t).copy() for t in tl] for tl in outs]


def _drive(pipe, steps):
    """Run `steps` steps (a batch, or a reset at the end of an epoch); returns the outputs
    and the checkpoint taken before each step and after the last."""
    results, cps = [], [pipe.checkpoint()]
    for _ in range(steps):
        try:
            results.append(_arrays(pipe.run()))
        except StopIteration:
            pipe.reset()
            results.append("reset")
        cps.append(pipe.checkpoint())
    return results, cps


def _assert_resumes(make, steps, cuts=None):
    """`make(**pipe_kwargs)` pipelines restored at each cut continue as the original did."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = make(enable_checkpointing=True)
        pipe.build()
        expected, cps = _drive(pipe, steps)
        for cut in (range(steps) if cuts is None else cuts):
            again = make(checkpoint=cps[cut], enable_checkpointing=True)
            assert not again.is_restored_from_checkpoint
            again.build()
            assert again.is_restored_from_checkpoint
            got, later = _drive(again, steps - cut)
            assert len(got) == len(expected[cut:])
            for i, (g, e) in enumerate(zip(got, expected[cut:], strict=True)):
                if isinstance(e, str):
                    assert g == e, (cut, i)
                    continue
                for x, y in zip(g, e, strict=True):
                    for s, t in zip(x, y, strict=True):
                        assert s.dtype == t.dtype and s.shape == t.shape
                        assert s.tobytes() == t.tobytes(), f"cut {cut}, step {cut + i}"
            assert later[-1] == cps[-1]          # the same state at the end
    return cps


_IMPLS = _registry.all_operators()
_STATEFUL_CASES = [c for c in operators.CASE_LIST if c.op and (
    _IMPLS[c.op].schema.random or issubclass(_IMPLS[c.op], _roles.Reader))]


@pytest.mark.parametrize("case", _STATEFUL_CASES, ids=lambda c: c.name)
def test_every_random_operator_and_reader_resumes_exactly(case):
    if case.missing_modules():
        pytest.skip(f"needs {', '.join(case.missing_modules())}")
    graph = opcase.op_graph(case, "small", 4)

    def make(**kwargs):
        @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=11, **kwargs)
        def pipe():
            return graph(fn, types)

        return pipe()

    _assert_resumes(make, 22)


def _counting_pipeline(batches_per_epoch, prefetch=2, exec_async=True):
    def source(info):
        if info.iteration >= batches_per_epoch:
            raise StopIteration
        return [np.array([info.epoch_idx, info.iteration, j], np.int32) for j in range(3)]

    def make(**kwargs):
        @pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=4,
                      prefetch_queue_depth=prefetch, exec_async=exec_async,
                      exec_pipelined=exec_async, **kwargs)
        def pipe():
            data = fn.external_source(source=source, batch_info=True)
            noise = fn.random.normal(data, dtype=types.FLOAT)
            return data, noise, fn.random.uniform(range=[0, 100], dtype=types.INT32)

        return pipe()

    return make


@pytest.mark.parametrize("prefetch, exec_async", [(1, False), (2, True), (3, True)])
def test_sources_and_random_draws_resume_across_epochs(prefetch, exec_async):
    cps = _assert_resumes(_counting_pipeline(5, prefetch, exec_async), 21)
    assert len(cps[-1]) < 1024                  # counters and seeds, not data


def test_conditionals_with_random_predicates_resume():
    def make(**kwargs):
        @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=9,
                      enable_conditionals=True, **kwargs)
        def pipe():
            x = fn.random.uniform(range=[0.0, 1.0])
            if fn.random.coin_flip(probability=0.5):
                y = x * 10 + fn.random.uniform(range=[0.0, 1.0])
            else:
                y = x - 1
            return y

        return pipe()

    _assert_resumes(make, 20)


def test_checkpoint_right_after_build_is_a_fresh_start():
    make = _counting_pipeline(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = make(enable_checkpointing=True)
        a.build()
        restored = make(enable_checkpointing=True, checkpoint=a.checkpoint())
        fresh = make(enable_checkpointing=True)
        for _ in range(3):
            for x, y in zip(_arrays(restored.run()), _arrays(fresh.run()), strict=True):
                assert all(s.tobytes() == t.tobytes() for s, t in zip(x, y, strict=True))


def test_checkpoint_to_file_and_pipeline_def_argument(tmp_path):
    make = _counting_pipeline(4)
    path = tmp_path / "cp.bin"
    pipe = make(enable_checkpointing=True)
    pipe.run()
    data = pipe.checkpoint(filename=str(path))
    assert path.read_bytes() == data
    restored = checkpointing.decode(data)
    assert restored.consumer_iter == 1 and restored.epoch_idx == 0
    assert restored.names == [op.spec.name for op in pipe._executor.ops]


def test_checkpoint_needs_enable_checkpointing():
    pipe = _counting_pipeline(4)()
    pipe.build()
    with pytest.raises(RuntimeError, match="Cannot save the checkpoint. The "
                                           "`enable_checkpointing` was not specified"):
        pipe.checkpoint()


def test_checkpoint_of_another_pipeline_is_refused():
    pipe = _counting_pipeline(4)(enable_checkpointing=True)
    pipe.build()
    data = pipe.checkpoint()

    @pipeline_def(batch_size=3, num_threads=1, device_id=None, enable_checkpointing=True)
    def other():
        return fn.random.uniform()

    with pytest.raises(RuntimeError, match="doesn't recognize \"__ExternalSource_0\" as a name "
                                           "of an operator.\nThe checkpoint might come from "
                                           "another pipeline"):
        other(checkpoint=data).build()


@pytest.mark.parametrize("data, match", [
    (b"\xff\xff", "Not a checkpoint of a dali pipeline"),
    (b"", "no pipeline context"),
    (checkpointing.pb.encode(checkpointing.CHECKPOINT, {"external_ctx_cpt": {
        "pipeline_data": '{"iter": 3, "epoch_idx": 0}'}}), "no dali state"),
])
def test_malformed_or_foreign_checkpoints_are_refused(data, match):
    with pytest.raises(ValueError, match=match):
        _counting_pipeline(4)(enable_checkpointing=True, checkpoint=data)


def test_tampered_state_is_refused():
    pipe = _counting_pipeline(4)(enable_checkpointing=True)
    pipe.run()
    msg = checkpointing.pb.decode(checkpointing.CHECKPOINT, pipe.checkpoint())
    msg["cpts"][0]["operator_state"] = b'{"iteration": -3}'
    bad = checkpointing.pb.encode(checkpointing.CHECKPOINT, msg)
    with pytest.raises(ValueError, match="checkpointed iteration is -3"):
        _counting_pipeline(4)(enable_checkpointing=True, checkpoint=bad).build()
    msg["cpts"][0]["operator_state"] = b"Philox_0000"
    with pytest.raises(ValueError, match="is not dali's"):
        _counting_pipeline(4)(enable_checkpointing=True,
                              checkpoint=checkpointing.pb.encode(checkpointing.CHECKPOINT, msg))


def test_sources_without_a_position_warn_at_build():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, enable_checkpointing=True)
    def pipe():
        return (fn.external_source(source=lambda: [np.zeros(1)] * 2),
                fn.external_source(source=iter([[np.zeros(1)] * 2] * 3)))

    p = pipe()
    with pytest.warns(UserWarning) as record:
        p.build()
    texts = [str(w.message) for w in record]
    assert any("with parameterless callable as a 'source'" in t for t in texts)
    assert any("with SourceKind.ITERABLE as a 'source'" in t for t in texts)


@pytest.fixture(scope="module")
def numbered_files(tmp_path_factory):
    """13 one-byte files in two class folders."""
    root = tmp_path_factory.mktemp("numbered")
    for i in range(13):
        d = root / f"c{i % 2}"
        d.mkdir(exist_ok=True)
        (d / f"{i:02d}.jpg").write_bytes(bytes([i]))      # the reader lists images only
    return str(root)


@pytest.mark.parametrize("options", [
    {"random_shuffle": True, "initial_fill": 5},
    {"random_shuffle": True, "initial_fill": 3, "num_shards": 3, "shard_id": 1,
     "pad_last_batch": True},
    {"num_shards": 2, "shard_id": 1, "stick_to_shard": True},
    {"shuffle_after_epoch": True},
    {"random_shuffle": True, "prefetch_queue_depth": 3, "read_ahead": True},
], ids=["shuffle", "shards-pad", "stick", "reshuffle", "read-ahead"])
def test_file_reader_resumes_across_epochs(numbered_files, options):
    def make(**kwargs):
        @pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=21, **kwargs)
        def pipe():
            data, labels = fn.readers.file(file_root=numbered_files, **options)
            return data, labels, fn.random.uniform(range=[0, 1])

        return pipe()

    cps = _assert_resumes(make, 14, cuts=range(0, 14, 1))
    assert len(cps[-1]) < 2048


def test_reader_state_is_a_few_numbers(numbered_files):
    @pipeline_def(batch_size=3, num_threads=1, device_id=None, enable_checkpointing=True)
    def pipe():
        return fn.readers.file(file_root=numbered_files, random_shuffle=True, name="R")[1]

    p = pipe()
    for _ in range(7):
        p.run()
    restored = checkpointing.decode(p.checkpoint())     # the state after the batches consumed
    state = restored.snapshot.op_states[restored.names.index("R")]
    assert state == {"calls": [[3, 7]], "taken": 21, "epoch_end": 13, "pending": []}


def test_operators_defined_outside_the_pipeline_are_refused():
    outside = fn.random.uniform()

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, enable_checkpointing=True)
    def pipe():
        return outside + 1

    with pytest.raises(RuntimeError, match=r"defined outside the pipeline scope:\n"
                                           r"\['__Uniform_detached_\d+'\]"):
        pipe().build()
