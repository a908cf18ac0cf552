"""torchvision's DataLoader doing the work of P2 (training) and P3 (validation), for comparison.

The usual recipe: `ImageFolder` (PIL decoding) with torchvision transforms, `num_workers`
worker processes, batches of 64.  Imported only where torch and torchvision are installed.
"""

from __future__ import annotations

import torch.utils.data
import torchvision.datasets
import torchvision.transforms as T

from bench import pipelines

_NORMALIZE = T.Normalize(mean=[m / 255 for m in pipelines.IMAGENET_MEAN],
                         std=[s / 255 for s in pipelines.IMAGENET_STD])
TRANSFORMS = {
    "P2": T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(),
                     _NORMALIZE]),
    "P3": T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), _NORMALIZE]),
}


def batches(root, case, batch_size=pipelines.BATCH_SIZE, num_workers=pipelines.NUM_THREADS):
    """An endless iterator over batches of `case` ("P2" or "P3") from the corpus at `root`;
    close it to stop the worker processes."""
    dataset = torchvision.datasets.ImageFolder(root, transform=TRANSFORMS[case])
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=case == "P2",
                                         num_workers=num_workers, persistent_workers=True)
    while True:
        yield from loader
