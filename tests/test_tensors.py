import numpy as np
import pytest

from dali import tensors as tensors_module
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


# -- DLPack capsules, reinterpret, printing ------------------------------------------------------

def test_tensors_from_a_dlpack_capsule_share_memory():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = TensorCPU(a.__dlpack__())
    tl = TensorListCPU(a.__dlpack__())
    a[0, 0] = 7
    assert t.shape() == [2, 3] and np.asarray(t)[0, 0] == 7
    assert tl.shape() == [(3,), (3,)] and tl.at(0)[0] == 7


def test_reinterpret_to_another_element_size_raises():
    msg = "^Cannot reinterpret the tensor as having a different element size.$"
    with pytest.raises(RuntimeError, match=msg):
        TensorCPU(np.arange(6, dtype=np.int64)).reinterpret(types.INT32)
    with pytest.raises(RuntimeError, match=msg):
        TensorListCPU(np.arange(6, dtype=np.int64).reshape(2, 3)).reinterpret(types.INT32)
    t = TensorCPU(np.arange(6, dtype=np.int32))
    t.reinterpret(types.UINT32)
    assert t.dtype == types.UINT32 and t.shape() == [6]


def _printed(module):
    tl, t = module.TensorListCPU, module.TensorCPU
    return [str(tl(np.arange(5000, dtype=np.int32).reshape(100, 50))),
            repr(tl(np.zeros((17, 1), np.uint8))), repr(tl(np.zeros((16, 1), np.uint8))),
            str(t(np.arange(5000, dtype=np.int32).reshape(100, 50))),
            str(tl(np.linspace(0, 1, 1400, dtype=np.float32).reshape(7, 2, 100))),
            str(tl(np.zeros((5, 201), np.uint8))), str(tl(np.zeros((2, 1001), np.uint8))),
            repr(tl(np.zeros((12, 1), np.uint8))), repr(tl(np.zeros((13, 1), np.uint8))),
            repr(tl(np.zeros((20, 10, 10, 10, 10, 10), np.uint8)))]


def test_large_batches_print_shortened():
    big = _printed(tensors_module)
    assert big[0].count("\n") == 19 and "    ...,\n" in big[0]
    assert big[1].endswith("shape=[(1,), (1,), ..., (1,), (1,)])")
    assert "..." not in big[2]
    assert "[[   0    1 ...   48   49]\n" in big[3]
    assert "..." not in big[5].split("dtype")[0]
    assert "[[0 0 ... 0 0],\n    [0 0 ... 0 0]]" in big[6]
    assert big[7].endswith("shape=[" + ", ".join(["(1,)"] * 12) + "])")
    assert big[8].endswith("shape=[" + ", \n           ".join(["(1,)"] * 13) + "])")
    assert big[9].endswith("shape=[(10, 10, 10, 10, 10), \n           (10, 10, 10, 10, 10), "
                           "\n           ..., \n           (10, 10, 10, 10, 10), \n"
                           "           (10, 10, 10, 10, 10)])")


@pytest.mark.oracle
def test_printing_matches_dali():
    from nvidia.dali import tensors as dali_tensors
    assert _printed(tensors_module) == _printed(dali_tensors)
