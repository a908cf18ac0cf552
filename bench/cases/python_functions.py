"""The Python-function operators beyond python_function (whose case is in tensor.py): each
runs the identity, the cost of the escape hatch itself."""

from bench.opcase import unary


def _same_capsules(capsules):
    return capsules


CASE_LIST = [
    unary("dl_tensor_python_function", function=_same_capsules),
]
