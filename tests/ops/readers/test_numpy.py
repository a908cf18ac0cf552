"""fn.readers.numpy: listing, order, whole arrays and regions of interest (against NumPy
slicing and real DALI), Fortran order, headers and their errors; files.read_regions itself."""

from __future__ import annotations

import importlib
import os

import numpy as np
import pytest

from dali._ext import files
from dali.ops import _npy

DTYPES = [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64, np.bool_]


def read(iterations=1, batch_size=2, pkg="dali", seed=7, arg_inputs=None, **kwargs):
    """Per iteration: (arrays, source infos); plus the reader's meta."""
    mod = importlib.import_module(pkg)
    fns = importlib.import_module(pkg + ".fn")

    @mod.pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, seed=seed)
    def pipe():
        extra = {k: fns.external_source(source=v, batch=True)
                 for k, v in (arg_inputs or {}).items()}
        out = fns.readers.numpy(name="R", **kwargs, **extra)
        return out, out.source_info()

    p = pipe()
    p.build()
    result = []
    for _ in range(iterations):
        out, si = p.run()
        result.append(([np.array(t) for t in out],
                       [bytes(np.array(si[i])).decode() for i in range(len(si))]))
    return result, p.reader_meta("R")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("npy")
    for d in ("a", "B", "b/c"):
        (root / d).mkdir(parents=True)
    arrays = {"z.npy": np.arange(12, dtype=np.int16).reshape(3, 4),
              "a.npy": np.arange(12, 24, dtype=np.int16).reshape(3, 4),
              "a/y.npy": np.arange(6, dtype=np.int16).reshape(3, 2),
              "B/y.npy": -np.arange(6, dtype=np.int16).reshape(2, 3),
              "b/f.npy": np.asfortranarray(np.arange(20, dtype=np.int16).reshape(4, 5)),
              "b/c/deep.npy": np.zeros((1, 1), np.int16),         # two levels down: not listed
              "b/other.txt": None}
    for name, a in arrays.items():
        if a is None:
            (root / name).write_text("x")
        else:
            with open(root / name, "wb") as f:
                np.save(f, a)
    (root / "list.txt").write_text("a.npy\n\nb/f.npy\n")
    return str(root), arrays


def test_scan_lists_the_root_and_its_subdirectories_sorted(tree):
    root, arrays = tree
    (batch, infos), = read(batch_size=5, file_root=root)[0]
    assert infos == ["./a.npy", "./z.npy", "B/y.npy", "a/y.npy", "b/f.npy"]
    for a, name in zip(batch, infos, strict=True):
        ref = arrays[name.removeprefix("./")]
        assert a.dtype == ref.dtype and a.flags.c_contiguous
        np.testing.assert_array_equal(a, ref)


def test_file_list_and_files(tree):
    root, arrays = tree
    (batch, infos), = read(file_list=os.path.join(root, "list.txt"))[0]
    assert infos == ["a.npy", "b/f.npy"]
    np.testing.assert_array_equal(batch[1], arrays["b/f.npy"])
    (batch, infos), = read(batch_size=1, file_root=root, files=["B/y.npy"])[0]
    np.testing.assert_array_equal(batch[0], arrays["B/y.npy"])


def _save(path, a):
    with open(path, "wb") as f:
        np.save(f, a)


def _reference(a, start, end, policy, fill):
    """NumPy's version of the region [start, end) of `a` under `policy`."""
    start, end = np.array(start), np.array(end)
    if policy == "trim_to_shape":
        lo, hi = np.clip(start, 0, a.shape), np.clip(end, 0, a.shape)
        return a[tuple(slice(x, y) for x, y in zip(lo, hi, strict=True))]
    out = np.full(tuple(end - start), fill, a.dtype)
    lo, hi = np.clip(start, 0, a.shape), np.clip(end, 0, a.shape)
    if np.all(hi > lo):
        out[tuple(slice(x - s, y - s) for x, y, s in zip(lo, hi, start, strict=True))] = \
            a[tuple(slice(x, y) for x, y in zip(lo, hi, strict=True))]
    return out


@pytest.mark.parametrize("seed", range(12))
def test_random_regions_match_numpy_slicing(tmp_path, seed):
    rng = np.random.default_rng(seed)
    dtype = DTYPES[seed % len(DTYPES)]
    ndim = 1 + seed % 4
    policy = ["pad", "trim_to_shape", "error"][seed % 3]
    paths, arrays = [], []
    for i in range(3):
        shape = tuple(rng.integers(1, 9, ndim))
        a = (rng.integers(0, 100, shape) % (2 if dtype is np.bool_ else 100)).astype(dtype)
        if i == 1:
            a = np.asfortranarray(a)
        paths.append(str(tmp_path / f"{i}.npy"))
        _save(paths[-1], a)
        arrays.append(a)
    # one region for all three, inside every array for "error"
    smallest = np.min([a.shape for a in arrays], axis=0)
    axes = list(rng.permutation(ndim)[:rng.integers(1, ndim + 1)])
    if policy == "error":
        start = [int(rng.integers(0, smallest[k])) for k in axes]
        shape = [int(rng.integers(0, smallest[k] - s + 1)) for k, s in zip(axes, start,
                                                                           strict=True)]
    else:
        start = [int(rng.integers(-3, 8)) for _ in axes]
        shape = [int(rng.integers(0, 8)) for _ in axes]
    (batch, _), = read(batch_size=3, files=paths, roi_start=start, roi_shape=shape,
                       roi_axes=[int(k) for k in axes], out_of_bounds_policy=policy,
                       fill_value=1.0)[0]
    for a, got in zip(arrays, batch, strict=True):
        lo, hi = [0] * ndim, list(a.shape)
        for k, s, n in zip(axes, start, shape, strict=True):
            lo[k], hi[k] = s, s + n
        ref = _reference(a, lo, hi, policy, 1)
        assert got.dtype == a.dtype and got.shape == ref.shape
        np.testing.assert_array_equal(got, ref)


def test_relative_regions_round_half_away_from_zero(tmp_path):
    _save(tmp_path / "a.npy", np.arange(10, dtype=np.int16))
    files_ = [str(tmp_path / "a.npy")]
    for kw, ref in [(dict(rel_roi_start=[0.25], rel_roi_end=[0.75]), [3, 4, 5, 6, 7]),
                    (dict(rel_roi_start=[0.35], rel_roi_shape=[0.31]), [4, 5, 6]),
                    (dict(rel_roi_start=[0.05], rel_roi_end=[0.45]), [1, 2, 3, 4]),
                    (dict(roi_start=[-2], roi_shape=[5], out_of_bounds_policy="pad",
                          fill_value=7.6), [8, 8, 0, 1, 2])]:
        (batch, _), = read(batch_size=1, files=files_, **kw)[0]
        np.testing.assert_array_equal(batch[0], ref)


def test_fill_value_saturates(tmp_path):
    _save(tmp_path / "a.npy", np.arange(4, dtype=np.uint8))
    for fill, ref in [(300, 255), (-3.5, 0), (2.5, 3)]:
        (batch, _), = read(batch_size=1, files=[str(tmp_path / "a.npy")], roi_start=[-1],
                           roi_end=[2], out_of_bounds_policy="pad", fill_value=fill)[0]
        np.testing.assert_array_equal(batch[0], [ref, 0, 1])


def test_per_sample_regions_from_argument_inputs(tmp_path):
    paths = []
    for i in range(2):
        paths.append(str(tmp_path / f"{i}.npy"))
        _save(paths[-1], np.arange(30, dtype=np.int32).reshape(5, 6) + 100 * i)
    starts = [np.array([1, 2], np.int32), np.array([3, 0], np.int32)]
    (batch, _), = read(files=paths, roi_shape=[2, 3],
                       arg_inputs={"roi_start": lambda: starts})[0]
    np.testing.assert_array_equal(batch[0], np.arange(30).reshape(5, 6)[1:3, 2:5])
    np.testing.assert_array_equal(batch[1], np.arange(30).reshape(5, 6)[3:5, 0:3] + 100)


def test_cached_headers_are_not_read_again(tmp_path):
    path = tmp_path / "a.npy"
    _save(path, np.arange(6, dtype=np.float32))
    result, _ = read(iterations=2, batch_size=1, files=[str(path)],
                     cache_header_information=True, prefetch_queue_depth=1)
    np.testing.assert_array_equal(result[1][0][0], np.arange(6))


@pytest.mark.parametrize("shape,roi", [
    ((64, 300, 3), ((5, 7, 0), (60, 250, 3))),          # rows close together: the window
    ((4, 3000, 400), ((1, 10, 5), (3, 2900, 9))),       # far apart: one read per run
    ((2, 5000, 1000), ((0, 0, 1), (2, 5000, 999))),     # a span larger than the window
    ((7,), ((2,), (5,))),
    ((), ((), ())),
])
def test_read_regions_reads_the_region(tmp_path, shape, roi):
    a = np.arange(int(np.prod(shape)), dtype=np.uint16).reshape(shape)
    path = str(tmp_path / "r.bin")
    with open(path, "wb") as f:
        f.write(b"x" * 13 + a.tobytes())
    lo, hi = np.array(roi[0], np.int64), np.array(roi[1], np.int64)
    out_shape = tuple(hi - lo + 2)               # a border of 1 around the region
    out = np.zeros(out_shape, np.uint16)
    rows = [np.array(v, np.int64).reshape(1, len(shape)) for v in
            (shape, lo, hi, out_shape, [1] * len(shape))]
    assert files.read_regions([path], out.reshape(-1).view(np.uint8), [0], [13], [2],
                              *rows) is None
    ref = np.zeros(out_shape, np.uint16)
    ref[tuple(slice(1, -1) for _ in shape)] = a[tuple(slice(x, y) for x, y in
                                                      zip(lo, hi, strict=True))]
    np.testing.assert_array_equal(out, ref)


def test_read_regions_reports_a_short_file_and_rejects_bad_regions(tmp_path):
    path = str(tmp_path / "short.bin")
    with open(path, "wb") as f:
        f.write(bytes(100))
    out = np.zeros(60, np.uint8)
    one = [np.array([[v]], np.int64) for v in (200, 0, 60, 60, 0)]
    assert files.read_regions([path], out, [0], [50], [1], *one) == (0, 0, 100)
    bad = [np.array([[v]], np.int64) for v in (200, 0, 61, 60, 0)]
    with pytest.raises(ValueError, match="does not fit"):
        files.read_regions([path], out, [0], [0], [1], *bad)
    with pytest.raises(ValueError, match="do not fit out"):
        files.read_regions([path], out, [1], [0], [1], *one)
    assert files.read_regions([str(tmp_path / "none")], out, [0], [0], [1], *one)[1] == 2


# -- headers and errors ----------------------------------------------------------------------
def test_header_parser_accepts_numpy_spellings_and_rejects_others():
    text = b"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }    \n"
    assert _npy.parse(text) == (np.dtype(np.float32), (3, 4), False)
    assert _npy.parse(b"{'shape': (), 'fortran_order': True, 'descr': '|u1'}") == \
        (np.dtype(np.uint8), (), True)
    assert _npy.parse(b'{"descr": "<i8", "fortran_order": false, "shape": [2]}'.replace(
        b"false", b"False").replace(b"[2]", b"(2,)")) == (np.dtype(np.int64), (2,), False)
    for text, message in [
            (b"{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", "Big Endian"),
            (b"{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }",
             "Unknown Numpy type string: c8"),
            (b"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,)}",
             "structured"),
            (b"{'descr': '<f4', 'fortran_order': 0, 'shape': (3,)}", "fortran_order"),
            (b"{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}", "shape"),
            (b"{'descr': '<f4', 'shape': (3,)}", "expected a dict"),
            (b"garbage", "corrupted"), (b"\xff\xfe", "corrupted")]:
        with pytest.raises(_npy.HeaderError, match=message):
            _npy.parse(text)
    with pytest.raises(_npy.HeaderError, match="not a numpy file"):
        _npy.text_span(b"XXXXXX\x01\x00\x10\x00")
    with pytest.raises(_npy.HeaderError, match="version 7"):
        _npy.text_span(b"\x93NUMPY\x07\x00\x10\x00")


def test_long_headers_and_version_2(tmp_path):
    a = np.arange(2 * 3 * 4, dtype=np.float64).reshape((2, 3, 4))
    path = str(tmp_path / "v2.npy")
    with open(path, "wb") as f:
        np.lib.format.write_array(f, a, version=(2, 0))
    big = np.zeros((1,) * 30, np.uint8)           # a header longer than the first read
    path_big = str(tmp_path / "big.npy")
    _save(path_big, big)
    (batch, _), = read(batch_size=1, files=[path])[0]
    np.testing.assert_array_equal(batch[0], a)
    (batch, _), = read(batch_size=1, files=[path_big])[0]
    assert batch[0].shape == big.shape


def _bad_files(tmp_path):
    good = tmp_path / "good.npy"
    _save(good, np.arange(10, dtype=np.int16))
    raw = good.read_bytes()
    made = {"trunc.npy": raw[:-3], "bad.npy": raw[:10] + b"garbage garbage" + raw[25:],
            "magic.npy": b"XXXXXX" + raw[6:], "empty.npy": b""}
    for name, data in made.items():
        (tmp_path / name).write_bytes(data)
    _save(tmp_path / "big_endian.npy", np.arange(3, dtype=">i4"))
    _save(tmp_path / "float.npy", np.arange(10, dtype=np.float32))
    _save(tmp_path / "matrix.npy", np.arange(10, dtype=np.int16).reshape(2, 5))
    return str(tmp_path)


@pytest.mark.parametrize("names,message", [
    (["trunc.npy"], "trunc.npy"), (["bad.npy"], "Header is corrupted.*bad.npy"),
    (["magic.npy"], "not a numpy file.*magic.npy"), (["empty.npy"], "empty.npy"),
    (["big_endian.npy"], "Big Endian.*big_endian.npy"),
    (["missing.npy"], "Failed to open file: missing.npy"),
    (["good.npy", "float.npy"], "same data type"),
    (["good.npy", "matrix.npy"], "same number of dimensions")])
def test_bad_files_fail_naming_the_file(tmp_path, names, message):
    root = _bad_files(tmp_path)
    with pytest.raises(RuntimeError, match=message) as e:
        read(batch_size=len(names), file_root=root, files=names)
    assert "readers.numpy" in str(e.value)


def test_regions_of_later_batches_check_their_types(tmp_path):
    root = _bad_files(tmp_path)            # the plan of a region is kept between batches
    with pytest.raises(RuntimeError, match="same data type.*good.npy"):
        read(iterations=2, batch_size=2, file_root=root, roi_start=[1],
             files=["good.npy", "good.npy", "float.npy", "good.npy"], prefetch_queue_depth=1)


@pytest.mark.parametrize("kwargs,message", [
    (dict(roi_start=[8], roi_end=[4]), "end coordinates can't be before start"),
    (dict(roi_start=[-2], roi_shape=[5]), "out of bounds"),
    (dict(roi_start=[1, 2, 3]), 'Argument "roi_start" expected shape 1 but got 3'),
    (dict(roi_start=[1], roi_axes=[5]), "Axis 5 out of range"),
])
def test_bad_regions(tmp_path, kwargs, message):
    root = _bad_files(tmp_path)
    with pytest.raises(RuntimeError, match=message):
        read(batch_size=1, file_root=root, files=["good.npy"], **kwargs)


@pytest.mark.parametrize("kwargs,message", [
    (dict(out_of_bounds_policy="bogus"), "Not supported out_of_bounds_policy: bogus"),
    (dict(roi_start=[1], rel_roi_start=[0.1]), "mutually exclusive"),
    (dict(roi_end=[1], rel_roi_shape=[0.1]), "mutually exclusive"),
    (dict(files=["good.npy"], file_list="x"), "not both"),
])
def test_bad_arguments(tmp_path, kwargs, message):
    root = _bad_files(tmp_path)
    kwargs.setdefault("files", ["good.npy"])
    with pytest.raises(RuntimeError, match=message):
        read(batch_size=1, file_root=root, **kwargs)


# -- the oracle --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def many(tmp_path_factory):
    root = tmp_path_factory.mktemp("many")
    rng = np.random.default_rng(3)
    for i in range(23):
        a = rng.integers(0, 255, (4 + i % 3, 5, 3)).astype(np.uint8)
        _save(root / f"{i:02d}.npy", np.asfortranarray(a) if i % 4 == 0 else a)
    return str(root)


ORDER_CASES = [dict(), dict(random_shuffle=True, initial_fill=7),
               dict(num_shards=3, shard_id=1), dict(num_shards=4, shard_id=3,
                                                    pad_last_batch=True),
               dict(num_shards=3, shard_id=2, stick_to_shard=True, random_shuffle=True,
                    initial_fill=5),
               dict(roi_start=[1, 1], rel_roi_shape=[0.6, 0.5], roi_axes=[0, 1]),
               dict(roi_start=[-1, 2], roi_end=[3, 7], roi_axes=[1, 0],
                    out_of_bounds_policy="pad", fill_value=9),
               dict(rel_roi_start=[0.3], rel_roi_end=[0.8], out_of_bounds_policy="trim_to_shape")]


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", ORDER_CASES)
def test_order_data_and_meta_match_the_oracle(many, kwargs):
    pytest.importorskip("nvidia.dali")
    ours, meta = read(iterations=9, batch_size=4, file_root=many, **kwargs)
    theirs, real_meta = read(iterations=9, batch_size=4, pkg="nvidia.dali", file_root=many,
                             **kwargs)
    assert meta == real_meta
    for (a, ia), (b, ib) in zip(ours, theirs, strict=True):
        assert ia == ib
        for x, y in zip(a, b, strict=True):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)


def test_use_o_direct_needs_dont_use_mmap(tmp_path):
    root = _bad_files(tmp_path)
    with pytest.raises(RuntimeError, match="Cannot use use_o_direct with ``dont_use_mmap=False``"):
        read(batch_size=1, file_root=root, files=["good.npy"], use_o_direct=True)
    (batch, _), = read(batch_size=1, file_root=root, files=["good.npy"], use_o_direct=True,
                       dont_use_mmap=True)[0]
    np.testing.assert_array_equal(batch[0], np.arange(10))


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(shuffle_after_epoch_seed=11, num_shards=2, shard_id=1),
    dict(num_shards=3, shard_id=2, pad_last_batch=True)])
def test_shuffle_after_epoch_matches_the_oracle(tree, kwargs):
    pytest.importorskip("nvidia.dali")
    root, _ = tree
    ours = read(file_root=root, iterations=7, batch_size=3, shuffle_after_epoch=True, **kwargs)
    theirs = read(file_root=root, pkg="nvidia.dali", iterations=7, batch_size=3,
                  shuffle_after_epoch=True, **kwargs)
    assert ours[1] == theirs[1]
    assert [si for _, si in ours[0]] == [si for _, si in theirs[0]]
    for (a, _), (b, _) in zip(ours[0], theirs[0], strict=True):
        assert [x.tolist() for x in a] == [y.tolist() for y in b]
