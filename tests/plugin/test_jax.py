"""dali.plugin.jax: jax arrays per batch, DALI's epochs and policies (PARTIAL refused), one
pipeline per device with `devices` or `sharding`, and resuming from checkpoints."""

import json
import os
import subprocess
import sys
import textwrap

import labelled_files
import numpy as np
import pytest

jax = pytest.importorskip("jax")

from dali import fn, pipeline_def  # noqa: E402
from dali.plugin.jax import DALIGenericIterator, LastBatchPolicy, data_iterator  # noqa: E402


@pytest.fixture(scope="module")
def file_list(tmp_path_factory):
    return labelled_files.write(tmp_path_factory.mktemp("files"), 11)


def _labels(file_list, pad, **kwargs):
    root, listing = file_list

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, **kwargs)
    def pipe():
        return fn.readers.file(file_root=root, file_list=listing, pad_last_batch=pad,
                               name="Reader")[1]

    return pipe()


@pytest.mark.parametrize("policy, pad, last, first_next", [
    (LastBatchPolicy.FILL, True, [10, 10], [0, 1]),
    (LastBatchPolicy.FILL, False, [10, 0], [1, 2]),
    (LastBatchPolicy.DROP, True, [8, 9], [0, 1]),
])
def test_epochs_and_policies(file_list, policy, pad, last, first_next):
    it = DALIGenericIterator(_labels(file_list, pad), ["label"], reader_name="Reader",
                             last_batch_policy=policy)
    epoch = [b["label"] for b in it]
    assert all(isinstance(x, jax.Array) for x in epoch)
    assert np.asarray(epoch[-1]).reshape(-1).tolist() == last
    it.reset()
    assert np.asarray(next(it)["label"]).reshape(-1).tolist() == first_next


def test_partial_is_refused(file_list):
    with pytest.raises(AssertionError, match="does not support partial last batch"):
        DALIGenericIterator(_labels(file_list, False), ["label"], reader_name="Reader",
                            last_batch_policy=LastBatchPolicy.PARTIAL)


def test_data_iterator_resumes_from_checkpoints(file_list):
    root, listing = file_list

    @data_iterator(output_map=["label", "noise"], reader_name="Reader")
    def iterator():
        _, labels = fn.readers.file(file_root=root, file_list=listing, random_shuffle=True,
                                    name="Reader")
        return labels, fn.random.uniform(range=[0, 1])

    it = iterator(batch_size=3, seed=4, enable_checkpointing=True)
    next(it)
    checkpoints = it.checkpoints()
    rest = [(np.asarray(b["label"]).tolist(), np.asarray(b["noise"]).tolist()) for b in it]
    again = iterator(batch_size=3, seed=4, enable_checkpointing=True, checkpoints=checkpoints)
    assert [(np.asarray(b["label"]).tolist(), np.asarray(b["noise"]).tolist())
            for b in again] == rest


SHARDED = textwrap.dedent("""
    import json, os, sys
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    import jax, numpy as np
    from dali import fn
    from dali.plugin.jax import data_iterator
    root, listing = sys.argv[1], sys.argv[2]

    def graph(shard_id=0, num_shards=1):
        return fn.readers.file(file_root=root, file_list=listing, shard_id=shard_id,
                               num_shards=num_shards, pad_last_batch=True, name="Reader")[1]

    out = {}
    pmapped = data_iterator(graph, output_map=["label"], reader_name="Reader",
                            devices=jax.devices())(batch_size=4)
    batch = next(pmapped)["label"]
    out["devices"] = [batch.shape, np.asarray(batch).reshape(2, -1).tolist(),
                      sorted(d.id for d in batch.devices())]
    mesh = jax.sharding.Mesh(jax.devices(), ("batch",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("batch"))
    sharded = data_iterator(graph, output_map=["label"], reader_name="Reader",
                            sharding=sharding)(batch_size=4)
    batch = next(sharded)["label"]
    out["sharding"] = [batch.shape, np.asarray(batch).reshape(-1).tolist()]
    print(json.dumps(out))
""")


def test_one_pipeline_per_device(file_list):
    done = subprocess.run([sys.executable, "-c", SHARDED, *file_list], capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    shape, values, device_ids = out["devices"]
    assert shape == [2, 2, 1] and device_ids == [0, 1]
    assert values == [[0, 1], [5, 6]]             # shard 0 starts at 0, shard 1 at 11 // 2
    shape, values = out["sharding"]
    assert shape == [4, 1] and values == [0, 1, 5, 6]
