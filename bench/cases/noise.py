"""Noise operators: Gaussian, salt-and-pepper and shot noise on images."""

from bench.opcase import unary

CASE_LIST = [
    unary("noise.gaussian", stddev=10.0),
    unary("noise.salt_and_pepper", prob=0.1),
    unary("noise.shot", factor=4.0),
]
