"""Two processes launched by `torchrun --nproc_per_node=2` (gloo, CPU): per epoch the ranks
together see every sample exactly once, each rank the same number of batches, and every rank
resumes from its checkpoint."""

import json
import pathlib
import shutil
import subprocess
import sys

import labelled_files
import pytest

pytest.importorskip("torch")

WORKER = pathlib.Path(__file__).with_name("distributed_worker.py")


@pytest.fixture(scope="module")
def file_list(tmp_path_factory):
    return labelled_files.write(tmp_path_factory.mktemp("files"), 17)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("torchrun") is None, reason="torchrun is not installed")
@pytest.mark.parametrize("shuffle, stick", [(False, False), (True, False), (False, True)])
def test_ranks_together_see_every_sample_once(tmp_path, file_list, shuffle, stick):
    out = tmp_path / "gathered.json"
    root, listing = file_list
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
           str(WORKER), str(out), root, listing, str(int(shuffle)),
           str(int(stick)), "PARTIAL"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    ranks = sorted(json.loads(out.read_text()), key=lambda r: r["rank"])
    assert [r["rank"] for r in ranks] == [0, 1]
    assert all(r["resumed"] for r in ranks)
    for epoch in range(2):
        batches = [r["epochs"][epoch] for r in ranks]
        assert len(batches[0]) == len(batches[1]) == 3           # ceil(9 / 3): padded shards
        seen = sorted(s for b in batches for batch in b for s in batch)
        assert seen == list(range(17))                            # PARTIAL drops the padding
