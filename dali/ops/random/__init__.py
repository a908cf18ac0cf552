"""Random distribution operators (`dali.fn.random.*`).

Each operator draws its numbers only through the workspace's counter-based streams, so a
sample's values depend on the operator seed, the epoch, the sample's index in the epoch and the
stream - never on the batch size, on how the epoch is split into batches, or on the number of
threads.
"""
