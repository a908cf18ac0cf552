"""Convolution filters: Gaussian blur, Laplacian and a general 2-D filter."""

from bench.opcase import unary

CASE_LIST = [
    unary("gaussian_blur", sigma=1.5),
    unary("laplacian", window_size=3),
]
