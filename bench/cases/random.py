"""Random generators."""

from bench.opcase import SIDE, OpCase, unary

CASE_LIST = [
    unary("random.uniform", op="random.uniform"),
    unary("random.normal", op="random.normal"),
    OpCase("random.beta", "random.beta",
           lambda fn, types, size: fn.random.beta(shape=(SIDE[size],) if size == "image" else ()),
           (), "idle"),
    unary("random.coin_flip", op="random.coin_flip"),
    OpCase("random.choice", "random.choice",
           lambda fn, types, size: fn.random.choice(256, shape=(SIDE[size], SIDE[size], 3)),
           (), "idle"),
]
