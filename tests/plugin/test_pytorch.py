"""dali.plugin.pytorch: the iterators' epochs, shards and last-batch policies sample for sample
as real DALI's iterators (oracle) and as written out, tensors, ragged outputs, checkpoints and
state_dict, feed_ndarray and torch_python_function."""

import importlib
import math

import labelled_files
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dali import fn, pipeline_def, types  # noqa: E402
from dali.plugin.pytorch import (  # noqa: E402
    DALIClassificationIterator,
    DALIGenericIterator,
    DALIRaggedIterator,
    LastBatchPolicy,
    feed_ndarray,
)
from dali.plugin.pytorch.fn import torch_python_function  # noqa: E402


def _sized(cls, *args, **kwargs):
    """An iterator given `size` instead of `reader_name` (DALI's warning says to prefer it)."""
    with pytest.warns(Warning, match="Please set `reader_name`"):
        return cls(*args, **kwargs)


@pytest.fixture(scope="module")
def file_list(tmp_path_factory):
    return labelled_files.write(tmp_path_factory.mktemp("files"), 11)


def _pipes(pkg_name, file_list, num_shards, batch_size, pad, stick, shuffle=False):
    pkg = importlib.import_module(pkg_name)
    root, listing = file_list
    pipes = []
    for shard in range(num_shards):
        @pkg.pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, seed=3)
        def pipe(shard=shard):
            _, labels = pkg.fn.readers.file(file_root=root, file_list=listing, shard_id=shard,
                                            num_shards=num_shards, pad_last_batch=pad,
                                            stick_to_shard=stick, random_shuffle=shuffle,
                                            name="Reader")
            return labels

        pipes.append(pipe())
    return pipes


def _epochs(iterator_cls, pipes, policy, epochs=3):
    """Per epoch: len() and the labels of every batch of every pipeline (or the class of the
    error the iterator raised when made)."""
    try:
        it = iterator_cls(pipes, ["label"], reader_name="Reader", last_batch_policy=policy)
    except RuntimeError as e:
        return type(e).__name__
    out = []
    for _ in range(epochs):
        batches = [[b["label"].reshape(-1).tolist() for b in step] for step in it]
        out.append((len(it), batches))
        it.reset()
    return out


CONFIGS = [(policy, shards, bs, pad, stick)
           for policy in LastBatchPolicy for shards in (1, 2, 3) for bs in (2, 4)
           for pad in (False, True) for stick in (False, True)]


@pytest.mark.oracle
@pytest.mark.parametrize("policy, shards, bs, pad, stick", CONFIGS,
                         ids=lambda v: str(v).replace("LastBatchPolicy.", ""))
def test_epochs_as_real_dali(file_list, policy, shards, bs, pad, stick):
    real = pytest.importorskip("nvidia.dali.plugin.pytorch")
    theirs = _epochs(real.DALIGenericIterator, _pipes("nvidia.dali", file_list, shards, bs,
                                                      pad, stick),
                     real.LastBatchPolicy[policy.name])
    ours = _epochs(DALIGenericIterator, _pipes("dali", file_list, shards, bs, pad, stick),
                   policy)
    assert ours == theirs


@pytest.mark.parametrize("policy, last, first_of_next", [
    (LastBatchPolicy.FILL, [[10, 10]], [0, 1]),
    (LastBatchPolicy.PARTIAL, [[10]], [0, 1]),
    (LastBatchPolicy.DROP, [[8, 9]], [0, 1]),
])
def test_documented_policies_with_padding(file_list, policy, last, first_of_next):
    it = DALIGenericIterator(_pipes("dali", file_list, 1, 2, True, False), ["label"],
                             reader_name="Reader", last_batch_policy=policy)
    epoch = [b[0]["label"].reshape(-1).tolist() for b in it]
    assert epoch[-1] == last[0]
    assert len(it) == len(epoch) == (5 if policy == LastBatchPolicy.DROP else 6)
    it.reset()
    assert next(it)[0]["label"].reshape(-1).tolist() == first_of_next


def test_unpadded_fill_wraps_into_the_next_epoch(file_list):
    it = DALIGenericIterator(_pipes("dali", file_list, 1, 2, False, False), ["label"],
                             reader_name="Reader")
    epoch = [b[0]["label"].reshape(-1).tolist() for b in it]
    assert epoch[-1] == [10, 0]
    it.reset()
    assert next(it)[0]["label"].reshape(-1).tolist() == [1, 2]


def test_classification_iterator_and_tensors(tmp_path):
    @pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=1)
    def pipe():
        data = fn.random.uniform(shape=[2, 4], dtype=types.FLOAT)
        return data, fn.cast(fn.random.uniform(range=[0, 10]), dtype=types.INT64)

    it = _sized(DALIClassificationIterator, pipe(), size=7,
                last_batch_policy=LastBatchPolicy.PARTIAL)
    kept = []
    for step in it:
        batch = step[0]
        assert batch["data"].dtype == torch.float32 and batch["label"].dtype == torch.int64
        kept.append((batch["data"], batch["data"].clone()))
    assert [d.shape[0] for d, _ in kept] == [3, 3, 1] and len(it) == 3
    for view, copy in kept:                     # zero-copy views stay valid
        assert torch.equal(view, copy)


def test_ragged_outputs():
    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe():
        n = fn.external_source(source=lambda i: [np.arange(k + 1, dtype=np.float32)
                                                 for k in range(3)])
        return n, n

    tags = [DALIRaggedIterator.SPARSE_LIST_TAG, DALIRaggedIterator.SPARSE_COO_TAG]
    it = _sized(DALIRaggedIterator, pipe(), ["list", "coo"], output_types=tags, size=3)
    batch = next(it)[0]
    assert [t.tolist() for t in batch["list"]] == [[0.0], [0.0, 1.0], [0.0, 1.0, 2.0]]
    dense = batch["coo"].to_dense()
    assert dense.tolist() == [[0, 0, 0], [0, 1, 0], [0, 1, 2]]
    with pytest.raises(AssertionError, match="Only DENSE_TAG"):
        DALIRaggedIterator(pipe(), ["a", "b"], output_types=["bad", "dense"], reader_name="R")


def test_argument_errors(file_list):
    pipes = _pipes("dali", file_list, 1, 2, False, False)
    with pytest.raises(AssertionError, match="output_map names should be distinct"):
        DALIGenericIterator(pipes, ["a", "a"], reader_name="Reader")
    with pytest.raises(AssertionError, match="size should not be set"):
        DALIGenericIterator(pipes, ["a"], reader_name="Reader", size=5)
    with pytest.raises(ValueError, match="Wrong type for `last_batch_policy`"):
        DALIGenericIterator(pipes, ["a"], reader_name="Reader", last_batch_policy=1)
    with pytest.raises(ValueError, match="Unsupported value for `auto_reset`"):
        DALIGenericIterator(pipes, ["a"], reader_name="Reader", auto_reset="maybe")


def _stateful_pipe(enable=True, checkpoint=None):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=5,
                  enable_checkpointing=enable)
    def pipe():
        x = fn.external_source(source=lambda info: [np.array([info.iteration * 2 + j],
                                                              np.int64) for j in range(2)],
                               batch_info=True)
        return x, fn.random.uniform(range=[0, 1])

    return pipe(checkpoint=checkpoint) if checkpoint is not None else pipe()


def test_checkpoints_and_state_dict_resume_exactly():
    it = _sized(DALIGenericIterator, _stateful_pipe(), ["x", "r"], size=12)
    for _ in range(2):
        next(it)
    state = it.state_dict()
    rest = [(b[0]["x"].tolist(), b[0]["r"].tolist()) for b in it]
    assert len(rest) == 4

    restored = _sized(DALIGenericIterator,
                      _stateful_pipe(checkpoint=state["dali_checkpoints"][0]), ["x", "r"],
                      size=12)
    assert [(b[0]["x"].tolist(), b[0]["r"].tolist()) for b in restored] == rest

    fresh = _sized(DALIGenericIterator, _stateful_pipe(), ["x", "r"], size=12)
    fresh.load_state_dict(state)
    assert [(b[0]["x"].tolist(), b[0]["r"].tolist()) for b in fresh] == rest
    with pytest.raises(ValueError, match="checkpointing disabled"):
        _sized(DALIGenericIterator, _stateful_pipe(enable=False), ["x", "r"],
               size=12).checkpoints()


def test_feed_ndarray_and_torch_python_function():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=2)
    def pipe():
        x = fn.random.uniform(shape=[3], range=[0, 1])
        return x, torch_python_function(x, function=lambda t: torch.sqrt(t) + 1)

    x, y = pipe().run()
    target = torch.empty((2, 3), dtype=torch.float32)
    feed_ndarray(x, target)
    assert np.allclose(target.numpy(), np.asarray(x.as_tensor()))
    assert np.allclose(np.asarray(y.as_tensor()), np.sqrt(target.numpy()) + 1, rtol=1e-6)
    with pytest.raises(AssertionError, match="Shapes do not match"):
        feed_ndarray(x, torch.empty((3, 3), dtype=torch.float32))
    with pytest.raises(AssertionError, match="element type"):
        feed_ndarray(x, torch.empty((2, 3), dtype=torch.float64))


def test_len_under_every_policy(file_list):
    for policy in LastBatchPolicy:
        for shards in (1, 2, 3):
            pipes = _pipes("dali", file_list, shards, 4, False, False)
            if policy == LastBatchPolicy.DROP and 11 // shards < 4:   # no whole batch
                with pytest.raises(RuntimeError, match="no data in the pipeline"):
                    DALIGenericIterator(pipes, ["label"], reader_name="Reader",
                                        last_batch_policy=policy)
                continue
            it = DALIGenericIterator(pipes, ["label"], reader_name="Reader",
                                     last_batch_policy=policy)
            largest = math.ceil(11 / shards)
            want = (11 // shards) // 4 if policy == LastBatchPolicy.DROP else \
                math.ceil(math.ceil(largest / 4) * 4 / 4)
            assert len(it) == want == len(list(it))
