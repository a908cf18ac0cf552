import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage


def test_allocate_offsets_and_views():
    s = BatchStorage.allocate(np.float32, [(2, 3), (4, 3), (0, 3)])
    assert s.num_samples == 3 and s.ndim == 2 and s.is_contiguous
    assert s.offsets.tolist() == [0, 24, 72]
    assert s.nbytes == 72
    views = s.samples()
    views[1][...] = 5
    assert [v.shape for v in views] == [(2, 3), (4, 3), (0, 3)]
    assert s.sample(1).sum() == 60
    assert s.dense() is None and not s.is_uniform()


def test_from_arrays_copies_contiguously():
    a = [np.arange(4, dtype=np.int16), np.arange(4, 8, dtype=np.int16)]
    s = BatchStorage.from_arrays(a)
    a[0][0] = 99
    np.testing.assert_array_equal(s.dense(), [[0, 1, 2, 3], [4, 5, 6, 7]])


def test_from_arrays_copies_strided_and_empty_samples():
    # C-contiguous samples are copied as bytes, the others element-wise
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = [base.T, base[::2, 1::2], np.zeros((0, 3), np.float32), base[:2, :3].copy()]
    got = BatchStorage.from_arrays(a).samples()
    for g, want in zip(got, a, strict=True):
        assert g.shape == want.shape
        np.testing.assert_array_equal(g, want)


def test_from_dense_wraps_without_copy():
    arr = np.arange(12, dtype=np.int32).reshape(3, 4)
    s = BatchStorage.from_dense(arr)
    arr[2, 0] = -1
    assert s.sample(2)[0] == -1
    assert s.data_ptr == arr.ctypes.data


def test_per_sample_storage_and_contiguous_copy():
    s = BatchStorage.from_samples([np.ones((2,), np.uint8), np.zeros((3,), np.uint8)])
    assert not s.is_contiguous and s.data_ptr == 0
    c = s.contiguous()
    assert c.is_contiguous and c.shapes.tolist() == [[2], [3]]
    np.testing.assert_array_equal(c.sample(0), [1, 1])


def test_kind_checks():
    with pytest.raises(TypeError, match="same type"):
        BatchStorage.from_arrays([np.zeros(2, np.uint8), np.zeros(2, np.int8)])
    with pytest.raises(ValueError, match="same number of dimensions"):
        BatchStorage.from_arrays([np.zeros(2), np.zeros((2, 2))])
    with pytest.raises(IndexError):
        BatchStorage.allocate(np.uint8, [(1,)]).sample(3)
    with pytest.raises(ValueError, match="negative"):
        BatchStorage.allocate(np.uint8, [(-1,)])


def test_empty_batch_keeps_ndim():
    s = BatchStorage.allocate(np.float32, [], ndim=3)
    assert s.num_samples == 0 and s.ndim == 3 and s.samples() == []


def test_viewed_as_shares_bytes_with_new_shapes_and_type():
    s = BatchStorage.from_arrays([np.arange(6, dtype=np.int32).reshape(2, 3),
                                  np.arange(6, 10, dtype=np.int32).reshape(1, 4)])
    shapes = np.array([[6, 4], [4, 4]], dtype=np.int64)
    v = s.viewed_as(np.uint8, shapes)
    assert v.base is s.base and v.offsets is s.offsets and v.nbytes == s.nbytes
    assert v.ndim == 2 and v.shapes.tolist() == shapes.tolist() and not v.is_uniform()
    assert shapes.flags.writeable and not v.shapes.flags.writeable   # the caller's stays
    for a, b in zip(v.samples(), s.samples(), strict=True):
        assert np.shares_memory(a, b)
        np.testing.assert_array_equal(a.reshape(-1), b.reshape(-1).view(np.uint8))
    u = s.viewed_as(np.int32, np.array([[6], [4]]))
    assert u.uniform_shape is None and u.sample(1).tolist() == [6, 7, 8, 9]
    w = BatchStorage.from_dense(np.zeros((3, 2, 2), np.float32)).viewed_as(
        np.float32, np.full((3, 1), 4))
    assert w.uniform_shape == (4,) and w.dense().shape == (3, 4)


def test_viewed_as_checks_sizes():
    s = BatchStorage.from_arrays([np.zeros((2, 3), np.int16)])
    with pytest.raises(ValueError, match="cannot be viewed"):
        s.viewed_as(np.int16, np.array([[5]]))
    with pytest.raises(ValueError, match="rows"):
        s.viewed_as(np.int16, np.array([[6], [6]]))
    with pytest.raises(ValueError, match="negative"):
        s.viewed_as(np.int16, np.array([[-6, -1]]))
    with pytest.raises(ValueError, match="contiguous"):
        BatchStorage.from_samples([np.zeros(2)]).viewed_as(np.float64, np.array([[2]]))


BIG = 2**60


@pytest.mark.parametrize("shapes, message", [
    ([(2, 3), (2**40, 2**40)], r"sample 1 of shape \(1099511627776, 1099511627776\) with "
                               r"4-byte elements: it would take more than 2\*\*63 - 1 bytes"),
    ([(2**31, 2**31)] * 4, r"sample 0 of shape \(2147483648, 2147483648\) with 4-byte "
                           r"elements: it would take"),
    ([(1,), (BIG,), (BIG,)], r"sample 2 of shape \(1152921504606846976,\) with 4-byte "
                             r"elements: the batch, up to this sample, would take more than"),
    ([(BIG,)] * 3, r"sample 1 of shape \(1152921504606846976,\) .* the batch, up to this"),
    (np.array([[1], [BIG * 2], [1]]), r"sample 1 of shape \(2305843009213693952,\) .* it would"),
    (np.array([[BIG], [BIG], [1]]), r"sample 1 of shape .* the batch, up to this sample"),
])
def test_sizes_that_overflow_64_bits_name_the_sample(shapes, message):
    with pytest.raises(OverflowError, match=message):
        BatchStorage.allocate(np.float32, shapes)


def test_largest_sizes_that_fit_are_computed_exactly():
    s = BatchStorage.allocate(np.uint8, np.array([[2**20, 0], [0, 2**40], [3, 5]]))
    assert s.offsets.tolist() == [0, 0, 0] and s.nbytes == 15


def test_viewed_as_refuses_shapes_whose_size_overflows():
    s = BatchStorage.allocate(np.uint8, [(4,), (4,)])
    with pytest.raises(OverflowError, match=r"sample 0 of shape \(4611686018427387904, 4\)"):
        s.viewed_as(np.uint8, np.array([[2**62, 4], [2, 2]]))


def test_allocate_from_a_shape_array_checks_it_in_place_and_keeps_a_copy():
    uniform = np.array([(8, 8, 3)] * 5, np.int64)
    st = BatchStorage.allocate(np.uint8, uniform)
    assert st.uniform_shape == (8, 8, 3) and st.nbytes == 5 * 192
    varied = np.array([(2, 3), (4, 1), (0, 7)], np.int64)
    st = BatchStorage.allocate(np.float32, varied)
    assert st.uniform_shape is None and [st.shape_of(i) for i in range(3)] == [(2, 3), (4, 1),
                                                                               (0, 7)]
    assert list(st.offsets) == [0, 24, 40] and not np.shares_memory(st.shapes, varied)
    varied[0, 0] = 9                        # the caller's array stays the caller's
    assert st.shape_of(0) == (2, 3) and not st.shapes.flags.writeable
    with pytest.raises(ValueError, match="negative extent"):
        BatchStorage.allocate(np.uint8, np.array([(1, 2), (1, -2)], np.int64))
    with pytest.raises(ValueError, match="negative extent"):
        BatchStorage.allocate(np.uint8, np.array([(1, -2)] * 3, np.int64))
