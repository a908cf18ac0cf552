import numpy as np
import pytest

from dali import types
from dali.tensors import TensorCPU, TensorListCPU


def test_dense_list_from_array():
    arr = np.arange(12, dtype=np.int16).reshape(3, 4)
    tl = TensorListCPU(arr, "X")
    assert len(tl) == 3
    assert tl.shape() == [(4,), (4,), (4,)]
    assert tl.layout() == "X" and tl.dtype == types.INT16 and tl.ndim() == 1
    assert tl.is_dense_tensor()
    np.testing.assert_array_equal(tl.as_array(), arr)
    t = tl.as_tensor()
    assert t.layout() == "NX" and t.shape() == [3, 4]
    np.testing.assert_array_equal(np.array(t), arr)
    np.testing.assert_array_equal(np.asarray(tl), arr)


def test_at_copies_and_getitem_views():
    tl = TensorListCPU(np.zeros((2, 3), np.float32))
    a = tl.at(0)
    a[0] = 5
    assert tl.at(0)[0] == 0
    view = np.asarray(tl[1])
    view[0] = 7
    assert tl.at(1)[0] == 7
    assert tl[-1].shape() == [3]
    with pytest.raises(IndexError, match="out of range"):
        tl[2]
    with pytest.raises(TypeError):
        tl["a"]


def test_non_uniform_batch():
    tl = TensorListCPU([np.zeros((2, 3), np.uint8), np.ones((1, 3), np.uint8)], "HW")
    assert not tl.is_dense_tensor()
    assert tl.shape() == [(2, 3), (1, 3)]
    np.testing.assert_array_equal(tl.at(1), np.ones((1, 3)))
    with pytest.raises(RuntimeError, match="do not all have the same shape"):
        tl.as_array()
    with pytest.raises(RuntimeError, match="representable as a tensor"):
        tl.as_tensor()
    assert [t.shape() for t in tl] == [[2, 3], [1, 3]]


def test_slicing_gives_a_list():
    tl = TensorListCPU([np.full((2,), i, np.int32) for i in range(5)])
    sub = tl[1:4:2]
    assert isinstance(sub, TensorListCPU)
    assert [int(s.at(0)[0]) if False else int(x[0]) for s in [sub] for x in
            [sub.at(0), sub.at(1)]] == [1, 3]


def test_layout_validation():
    with pytest.raises(ValueError, match="same number of dimensions"):
        TensorListCPU(np.zeros((2, 3)), "ABC")
    with pytest.raises(ValueError):
        TensorCPU(np.zeros((2, 3)), "A")


def test_repr_and_str_like_dali():
    tl = TensorListCPU(np.arange(12, dtype=np.int16).reshape(3, 4), "X")
    assert repr(tl) == ('TensorListCPU(\n    dtype=DALIDataType.INT16,\n    layout="X",\n'
                        '    device="cpu",\n    num_samples=3,\n    shape=[(4,), (4,), (4,)])')
    assert str(tl).startswith("TensorListCPU(\n    [[0 1 2 3],\n    [4 5 6 7],\n"
                              "    [ 8  9 10 11]],\n    dtype=DALIDataType.INT16,")
    t = tl[1]
    assert repr(t) == ('TensorCPU(\n    dtype=DALIDataType.INT16,\n    layout="X",\n'
                       '    device="cpu",\n    shape=(4,))')
    assert str(t).startswith("TensorCPU(\n    [4 5 6 7],\n")
    labels = TensorListCPU(np.zeros((2, 1), np.int32))
    assert 'layout' not in repr(labels)


def test_tensor_cpu_interop():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = TensorCPU(arr, "HW")
    assert t.shape() == [2, 3] and t.dtype == types.FLOAT and t.ndim() == 2
    assert t.__array_interface__["shape"] == (2, 3)
    np.testing.assert_array_equal(np.from_dlpack(t), arr)
    assert t.__dlpack_device__() == (1, 0)
    assert t.data_ptr() == arr.ctypes.data
    t2 = TensorCPU(np.zeros((1, 3, 1), np.uint8), "ABC")
    assert t2.squeeze() and t2.shape() == [3] and t2.layout() == "B"


def test_from_dlpack_and_tensor_list_copy():
    arr = np.arange(8, dtype=np.int32).reshape(2, 4)
    tl = TensorListCPU(TensorCPU(arr))
    np.testing.assert_array_equal(tl.as_array(), arr)
    tl2 = TensorListCPU(tl, "X")
    assert tl2.layout() == "X" and tl2.shape() == tl.shape()
    b = TensorListCPU.broadcast(TensorCPU(np.array([1, 2], np.uint8)), 3)
    np.testing.assert_array_equal(b.as_array(), [[1, 2]] * 3)


def test_copy_to_external():
    tl = TensorListCPU(np.arange(6, dtype=np.int32).reshape(3, 2))
    out = np.zeros(6, np.int32)
    tl.copy_to_external(out.ctypes.data)
    np.testing.assert_array_equal(out, np.arange(6))


def test_rejects_non_numeric():
    with pytest.raises(TypeError, match="unsupported element type"):
        TensorListCPU(np.array([["a"]]))
