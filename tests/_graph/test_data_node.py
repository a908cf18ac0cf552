"""DataNode: not iterable, and not an Iterable (DALI's helpers flatten outputs by that test)."""

import collections.abc

import numpy as np
import pytest

from dali import fn, pipeline_def


def test_a_data_node_is_not_iterable():
    seen = []

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [np.zeros(3, np.float32)])
        seen.append(isinstance(x, collections.abc.Iterable))
        with pytest.raises(TypeError, match="'DataNode' object is not iterable"):
            iter(x)
        return x

    pipe()
    assert seen == [False]
