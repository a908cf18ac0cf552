"""The shared decode path (dali.ops.decoders._decode): header errors."""

from __future__ import annotations

import numpy as np
import pytest

from dali.ops.decoders import _decode
from dali.types import DALIImageType as Image

from . import images


def test_broken_headers_name_the_sample():
    with pytest.raises(_decode.SampleHeaderError, match="unknown or unsupported") as e:
        _decode.read_headers([images.photo(), np.frombuffer(b"nope", np.uint8)], Image.RGB)
    assert e.value.index == 1
