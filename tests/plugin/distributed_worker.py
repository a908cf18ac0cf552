"""One rank of tests/plugin/test_pytorch_distributed.py, launched by torchrun: reads its
shard of a file list through DALIGenericIterator for two epochs, checks that iterators
restored from the checkpoints taken after the first batch return what followed it, and
gathers every rank's sample labels and check on rank 0, which writes them as JSON to the
path in argv[1]."""

import json
import sys

import torch.distributed as dist

from dali import fn, pipeline_def
from dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy, shard_info


def main(out_path, root, listing, shuffle, stick, policy):
    dist.init_process_group("gloo")
    shard_id, num_shards = shard_info()

    @pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=7,
                  enable_checkpointing=True)
    def pipe():
        _, labels = fn.readers.file(file_root=root, file_list=listing, shard_id=shard_id,
                                    num_shards=num_shards, random_shuffle=shuffle,
                                    stick_to_shard=stick, pad_last_batch=True, name="Reader")
        return labels

    def iterator(checkpoint=None):
        p = pipe(checkpoint=checkpoint) if checkpoint else pipe()
        return DALIGenericIterator(p, ["label"], reader_name="Reader",
                                   last_batch_policy=LastBatchPolicy[policy])

    def rest(it):
        out = [b[0]["label"].reshape(-1).tolist() for b in it]
        it.reset()
        return out + [b[0]["label"].reshape(-1).tolist() for b in it]

    it = iterator()
    first = next(it)[0]["label"].reshape(-1).tolist()
    checkpoint = it.checkpoints()[0]
    later = rest(it)
    epochs = [[first] + later[:len(later) // 2], later[len(later) // 2:]]
    resumed = rest(iterator(checkpoint)) == later
    gathered = [None] * num_shards
    dist.all_gather_object(gathered, {"rank": shard_id, "epochs": epochs,
                                      "resumed": resumed})
    if shard_id == 0:
        with open(out_path, "w") as f:
            json.dump(gathered, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5] == "1",
         sys.argv[6])
