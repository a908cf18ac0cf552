"""Convolution filters: Gaussian blur, Laplacian and a general 2-D filter (and its deprecated
alias experimental.filter, with the same case)."""

import numpy as np

from bench.opcase import OpCase, unary

_SHARPEN = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32)


def _filter(name):
    return OpCase(name, name, lambda fn, types, x, size: (
        fn.experimental.filter if name.startswith("experimental") else fn.filter)(x, _SHARPEN))


CASE_LIST = [
    unary("gaussian_blur", sigma=1.5),
    unary("laplacian", window_size=3),
    _filter("filter"),
    _filter("experimental.filter"),
]
