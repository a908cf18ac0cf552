"""Noise operators (`dali.fn.noise.*`): gaussian, salt_and_pepper, shot.

Like the random distributions, each draws its numbers only from the workspace's counter-based
streams (the operator's key and the sample ids), so the noise of a sample never depends on the
number of threads or on how samples are batched."""
