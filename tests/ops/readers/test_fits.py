"""fn.experimental.readers.fits: FITS files written by hand here (80-character cards in
2880-byte blocks, big-endian data), read back against NumPy: every BITPIX with and without
BZERO/BSCALE (the output types CFITSIO gives), several HDUs per file, long headers, listing,
DALI's order (against real DALI's readers.numpy over files of the same names: DALI's FITS
reader needs CUDA here), Rice-compressed images (compressed here by a small encoder), errors
naming the file, on_error="skip"."""

from __future__ import annotations

import os
import struct

import numpy as np
import pytest

from dali import fn, pipeline_def, types
from dali.ops.readers import _fits

BITPIX = {np.dtype(np.uint8): 8, np.dtype(np.int16): 16, np.dtype(np.int32): 32,
          np.dtype(np.int64): 64, np.dtype(np.float32): -32, np.dtype(np.float64): -64}


def card(key, value=None):
    if value is None:
        return f"{key:<8}".ljust(80)
    if isinstance(value, bool):
        v = ("T" if value else "F").rjust(20)
    elif isinstance(value, str):
        v = f"'{value:<8}'".ljust(20)
    elif isinstance(value, int):
        v = str(value).rjust(20)
    else:
        v = repr(float(value)).upper().rjust(20)
    return f"{key:<8}= {v} / a comment".ljust(80)[:80]


def hdu(data=None, primary=False, bzero=None, bscale=None, extra=(), kind="IMAGE",
        bitpix=None):
    """The bytes of one HDU holding `data` (stored as is, big-endian)."""
    data = None if data is None else np.asarray(data)
    cards = [card("SIMPLE", True) if primary else card("XTENSION", kind)]
    cards.append(card("BITPIX", bitpix or (BITPIX[data.dtype] if data is not None else 8)))
    shape = () if data is None else data.shape
    cards.append(card("NAXIS", len(shape)))
    cards += [card(f"NAXIS{k + 1}", n) for k, n in enumerate(shape[::-1])]
    if not primary:
        cards += [card("PCOUNT", 0), card("GCOUNT", 1)]
    if bzero is not None:
        cards.append(card("BZERO", bzero))
    if bscale is not None:
        cards.append(card("BSCALE", bscale))
    cards += [card(k, v) for k, v in extra]
    text = "".join(cards) + "END".ljust(80)
    text += " " * (-len(text) % 2880)
    raw = b"" if data is None else data.astype(data.dtype.newbyteorder(">")).tobytes()
    return text.encode() + raw + b"\0" * (-len(raw) % 2880)


def write(path, *hdus):
    with open(path, "wb") as f:
        for h in hdus:
            f.write(h)


def read(iterations=1, batch_size=2, seed=7, **kwargs):
    """Per iteration: ([arrays of each output], source infos); plus the reader's meta."""
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=seed)
    def pipe():
        out = fn.experimental.readers.fits(name="R", **kwargs)
        outs = out if isinstance(out, list) else [out]
        return (*outs, outs[0].source_info())

    p = pipe()
    p.build()
    result = []
    for _ in range(iterations):
        *outs, si = p.run()
        result.append(([[np.array(t) for t in o] for o in outs],
                       [bytes(np.array(si[i])).decode() for i in range(len(si))]))
    return result, p.reader_meta("R")


# (stored dtype, BZERO, BSCALE, the output type CFITSIO gives)
TYPE_CASES = [
    (np.uint8, None, None, np.uint8), (np.int16, None, None, np.int16),
    (np.int32, None, None, np.int32), (np.int64, None, None, np.int64),
    (np.float32, None, None, np.float32), (np.float64, None, None, np.float64),
    (np.uint8, -128, None, np.int8), (np.int16, 32768, None, np.uint16),
    (np.int32, 2147483648, None, np.uint32), (np.int64, 9223372036854775808, None, np.uint64),
    (np.uint8, 10, 1.0, np.int16), (np.int16, -100, None, np.int32),
    (np.int32, 2**40, None, np.int64),
    (np.uint8, 0.5, None, np.float32), (np.int16, 1.0, 0.25, np.float32),
    (np.int32, -3.0, 2.0, np.float64), (np.int64, 0, 1.5, np.float64),
    (np.float32, 1.5, 2.0, np.float32), (np.float64, -2.0, 0.5, np.float64),
]


def _stored(dtype, rng, shape):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = rng.standard_normal(shape).astype(dtype)
        a.flat[:2] = [np.inf, np.nan][:a.size]
        return a
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    a.flat[:2] = [info.min, info.max][:a.size]
    return a


def _physical(stored, bzero, bscale, out):
    if np.dtype(out).kind in "iu":
        return (stored.astype(object) + int(bzero or 0)).astype(out)
    return (stored.astype(np.float64) * (1 if bscale is None else bscale)
            + (bzero or 0)).astype(out)


@pytest.mark.parametrize("stored, bzero, bscale, out", TYPE_CASES)
def test_values_and_types_match_the_physical_values(tmp_path, stored, bzero, bscale, out):
    rng = np.random.default_rng(abs(hash((np.dtype(stored).str, bzero, bscale))) % 2**32)
    shapes = [(3, 5), (7, 2), (1, 1), (0, 4), (60, 70)]        # the last: beyond the head
    arrays = [_stored(stored, rng, shape) for shape in shapes]
    for i, a in enumerate(arrays):
        write(tmp_path / f"{i}.fits", hdu(primary=True), hdu(a, bzero=bzero, bscale=bscale))
    ((outs, infos),), _ = read(batch_size=5, file_root=str(tmp_path))
    assert infos == [f"./{i}.fits" for i in range(5)]
    for got, a in zip(outs[0], arrays, strict=True):
        want = _physical(a, bzero, bscale, out)
        assert got.dtype == np.dtype(out) and got.shape == a.shape
        np.testing.assert_array_equal(got, want)


def test_output_dtype_table():
    assert _fits.output_dtype(8, 1, 0) == (np.dtype(np.uint8), True)
    assert _fits.output_dtype(8, 1, -128) == (np.dtype(np.int8), True)
    assert _fits.output_dtype(16, 1, 32768) == (np.dtype(np.uint16), True)
    assert _fits.output_dtype(16, 1, 32768.5) == (np.dtype(np.float32), False)
    assert _fits.output_dtype(32, 1, -2**31) == (np.dtype(np.int64), True)
    assert _fits.output_dtype(64, 1, 2**64) == (np.dtype(np.float64), False)
    assert _fits.output_dtype(-32, 2, 0) == (np.dtype(np.float32), False)


def test_hdu_indices_pick_outputs_from_several_hdus(tmp_path):
    rng = np.random.default_rng(1)
    files = []
    for i in range(3):
        prim = rng.integers(0, 255, (2, 3), dtype=np.uint8)
        a = rng.integers(-9, 9, (4, 2 + i), dtype=np.int16)
        b = rng.standard_normal((2, 3, 4)).astype(np.float64)
        long_header = [(f"KEY{k}", k * 1.5) for k in range(60)]      # a 2-block header
        write(tmp_path / f"f{i}.fits", hdu(prim, primary=True, extra=long_header),
              hdu(a, extra=long_header), hdu(b))
        files.append((prim, a, b))
    ((outs, infos),), _ = read(batch_size=3, file_root=str(tmp_path), hdu_indices=[3, 1, 2])
    assert infos == ["./f0.fits", "./f1.fits", "./f2.fits"]
    for k, which in enumerate([2, 0, 1]):
        for i in range(3):
            np.testing.assert_array_equal(outs[k][i], files[i][which])
    ((outs, _),), _ = read(batch_size=3, file_root=str(tmp_path))       # default: [2]
    for i in range(3):
        np.testing.assert_array_equal(outs[0][i], files[i][1])


def test_file_list_files_and_filter(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deeper").mkdir()
    for name in ("b.fits", "a.fits", "sub/c.fits", "sub/deeper/d.fits", "x.fit"):
        write(tmp_path / name, hdu(primary=True), hdu(np.full((2,), len(name), np.int32)))
    ((_, infos),), meta = read(batch_size=3, file_root=str(tmp_path))
    assert infos == ["./a.fits", "./b.fits", "sub/c.fits"] and meta["epoch_size"] == 3
    ((_, infos),), _ = read(batch_size=1, file_root=str(tmp_path), file_filter="*.fit")
    assert infos == ["./x.fit"]
    (tmp_path / "list.txt").write_text("sub/c.fits\n\nx.fit\n")
    ((outs, infos),), _ = read(batch_size=2, file_list=str(tmp_path / "list.txt"))
    assert infos == ["sub/c.fits", "x.fit"]
    assert [int(o[0]) for o in outs[0]] == [10, 5]
    ((outs, infos),), _ = read(batch_size=2, file_root=str(tmp_path),
                               files=["sub/deeper/d.fits", "a.fits"])
    assert infos == ["sub/deeper/d.fits", "a.fits"] and int(outs[0][0][0]) == 17


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """17 FITS files and .npy files of the same names (for the oracle's readers.numpy)."""
    root = tmp_path_factory.mktemp("many")
    for i in range(17):
        name = f"{(i * 7) % 17:02d}"
        a = np.full((2, 3), i, np.int32)
        write(root / f"{name}.fits", hdu(primary=True), hdu(a))
        np.save(root / f"{name}.npy", a)
    return str(root)


ORDER_CASES = [dict(), dict(random_shuffle=True, initial_fill=7),
               dict(num_shards=3, shard_id=1), dict(num_shards=4, shard_id=3,
                                                    pad_last_batch=True),
               dict(num_shards=3, shard_id=2, stick_to_shard=True, random_shuffle=True,
                    initial_fill=5),
               dict(shuffle_after_epoch=True)]


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", ORDER_CASES)
def test_order_and_meta_match_the_oracle_file_loader(many, kwargs):
    """DALI's FITS reader lists and orders files with the FileLoader its numpy reader uses."""
    real = pytest.importorskip("nvidia.dali")

    @real.pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=7)
    def pipe():
        out = real.fn.readers.numpy(file_root=many, name="R", **kwargs)
        return out, out.source_info()

    p = pipe()
    p.build()
    theirs = []
    for _ in range(9):
        out, si = p.run()
        theirs.append(([int(np.array(t)[0, 0]) for t in out],
                       [bytes(np.array(si[i])).decode().replace(".npy", ".fits")
                        for i in range(len(si))]))
    ours, meta = read(iterations=9, batch_size=4, file_root=many, **kwargs)
    assert meta == p.reader_meta("R")
    for (outs, infos), (values, names) in zip(ours, theirs, strict=True):
        assert infos == names
        assert [int(o[0, 0]) for o in outs[0]] == values


def _bad(tmp_path, name, data):
    write(tmp_path / "a.fits", hdu(primary=True), hdu(np.zeros((2, 2), np.int16)))
    with open(tmp_path / name, "wb") as f:
        f.write(data)


GOOD = hdu(primary=True) + hdu(np.zeros((2, 2), np.int16))
BAD_FILES = [
    ("b.fits", GOOD[:5764], r"the data of HDU 2 ends at byte 5768, the file has 5764 bytes"),
    ("b.fits", GOOD[:5660], r"The header of HDU 2 \(at byte 2880\) has no END card"),
    ("b.fits", GOOD[:2000], r"The header of HDU 1 \(at byte 0\) has no END card"),
    ("b.fits", b"\0" * 2880, r"Not a FITS file: it does not start with SIMPLE = T"),
    ("b.fits", hdu(primary=True), r"Failed to read HDU 2: the file has 1 HDUs"),
    ("b.fits", hdu(primary=True) + hdu(np.zeros((2, 2), np.int16), kind="BINTABLE"),
     r"Only IMAGE_HDUs are supported!"),
    ("b.fits", hdu(primary=True) + hdu(np.zeros((2,), np.int16), bitpix=12),
     r"Bad BITPIX: 12"),
    ("b.fits", GOOD.replace(b"NAXIS1  =                    2", b"NAXIS1  =                   -2"),
     r"Bad NAXIS1: -2"),
]


@pytest.mark.parametrize("name, data, message", BAD_FILES,
                         ids=["data", "header", "header2", "simple", "hdus", "table", "bitpix",
                              "naxis1"])
def test_bad_files_fail_naming_the_file(tmp_path, name, data, message):
    _bad(tmp_path, name, data)
    with pytest.raises(RuntimeError, match=message + r".*File: \./b\.fits"):
        read(batch_size=2, file_root=str(tmp_path))


def test_no_data_in_the_primary_hdu(tmp_path):
    write(tmp_path / "a.fits", hdu(primary=True), hdu(np.zeros(3, np.uint8)))
    with pytest.raises(RuntimeError, match=r"NAXIS \(image dimensions\) value for each HDU "
                                           r"has to be greater than 0!\. File: \./a\.fits"):
        read(batch_size=1, file_root=str(tmp_path), hdu_indices=[1])


def test_a_batch_of_mixed_types_or_dimensions_fails(tmp_path):
    write(tmp_path / "a.fits", hdu(primary=True), hdu(np.zeros((2, 2), np.int16)))
    write(tmp_path / "b.fits", hdu(primary=True), hdu(np.zeros((2, 2), np.int32)))
    write(tmp_path / "c.fits", hdu(primary=True), hdu(np.zeros((2, 2, 1), np.int16)))
    with pytest.raises(RuntimeError, match=r'same data type .* Got "\./a\.fits" with data '
                                           r'type int16 and "\./b\.fits" with data type int32'):
        read(batch_size=2, file_root=str(tmp_path))
    with pytest.raises(RuntimeError, match=r'same number of dimensions .* Got "a\.fits" with 2 '
                                           r'dimensions and "c\.fits" with 3 dimensions on '
                                           r"output with idx = 0"):
        read(batch_size=2, file_root=str(tmp_path), files=["a.fits", "c.fits"])


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(dtypes=[np.bool_]), RuntimeError, r"Unsupported output dtype bool\. Supported types "
                                            r"are: uint8, uint16, .*, float16, float, double"),
    (dict(hdu_indices=[2, 3], dtypes=[np.int16]), RuntimeError,
     r"Number of extensions does not match the number of provided types"),
    (dict(hdu_indices=[0]), RuntimeError, r"hdu_indices count from 1 \(the primary HDU\), got 0"),
    (dict(files=["a.fits"], file_list="x"), RuntimeError, r"``files`` or ``file_list``"),
    (dict(skip_cached_images=True), NotImplementedError, r"skip_cached_images"),
])
def test_bad_arguments(tmp_path, kwargs, error, message):
    write(tmp_path / "a.fits", hdu(primary=True), hdu(np.zeros((2, 2), np.int16)),
          hdu(np.zeros(2, np.int16)))
    kwargs = {k: ([types.to_dali_type(np.dtype(t)) if not isinstance(t, int) else t
                   for t in v] if k == "dtypes" else v) for k, v in kwargs.items()}
    with pytest.raises(error, match=message):
        read(batch_size=1, file_root=str(tmp_path), **kwargs)


def test_dtypes_are_checked_but_do_not_change_the_outputs(tmp_path):
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    write(tmp_path / "a.fits", hdu(primary=True), hdu(a))
    ((outs, _),), _ = read(batch_size=1, file_root=str(tmp_path), dtypes=[types.FLOAT])
    assert outs[0][0].dtype == np.int16
    np.testing.assert_array_equal(outs[0][0], a)


def test_on_error_skip_replaces_bad_files(tmp_path):
    for i in range(6):
        write(tmp_path / f"{i}.fits", hdu(primary=True), hdu(np.full((2,), i, np.int32)))
    (tmp_path / "2.fits").write_bytes(b"SIMPLE  = garbage")
    os.truncate(tmp_path / "4.fits", 3000)
    with pytest.warns(RuntimeWarning, match="2 sample"):
        runs, meta = read(iterations=2, batch_size=4, file_root=str(tmp_path), on_error="skip")
    values = [int(o[0]) for outs, _ in runs for o in outs[0]]
    assert values == [0, 1, 3, 5, 0, 1, 3, 5]
    assert [s["sample"] for s in meta["skipped"]][:2] == ["./2.fits", "./4.fits"]
    assert "File: ./4.fits" in meta["skipped"][1]["reason"]


# -- Rice-compressed images ----------------------------------------------------------------------
def rice_encode(values, block, bytepix):
    """FITS RICE_1 bytes of the integers `values` (any split positions: the decoder reads them
    from the data; raw blocks where the unary codes would be long)."""
    fsbits, fsmax, bbits = {1: (3, 6, 8), 2: (4, 14, 16), 4: (5, 25, 32)}[bytepix]
    mask = (1 << bbits) - 1
    vals = [int(v) & mask for v in values]
    if not vals:
        return b""
    bits, last = [], vals[0]
    for start in range(0, len(vals), block):
        pd = []
        for v in vals[start:start + block]:
            d = (v - last) & mask
            d = d - (1 << bbits) if d >> (bbits - 1) else d
            last = v
            pd.append((d << 1) & mask if d >= 0 else ~(d << 1) & mask)
        if not any(pd):
            bits.append("0" * fsbits)
            continue
        fs = max((sum(pd) // len(pd)).bit_length() - 1, 0)
        if fs >= fsmax or max(pd) >> fs > 64:
            bits.append(format(fsmax + 1, f"0{fsbits}b"))
            bits += [format(p, f"0{bbits}b") for p in pd]
            continue
        bits.append(format(fs + 1, f"0{fsbits}b"))
        for p in pd:
            bits.append("0" * (p >> fs) + "1" + (format(p & ((1 << fs) - 1), f"0{fs}b")
                                                 if fs else ""))
    text = "".join(bits)
    text += "0" * (-len(text) % 8)
    return vals[0].to_bytes(bytepix, "big") + int(text, 2).to_bytes(len(text) // 8, "big")


def rice_hdu(image, ztile, block=32, bzero=None, cmptype="RICE_1", columns=()):
    """A tile-compressed image HDU (binary table, one row per tile, heap after it)."""
    bytepix = image.dtype.itemsize
    axes = image.shape[::-1]                        # fastest first
    grid = [-(-n // t) for n, t in zip(axes, ztile, strict=True)]
    heap, rows = bytearray(), []
    for tile in np.ndindex(*grid[::-1]):
        tile = tile[::-1]
        part = image[tuple(slice(t * z, min((t + 1) * z, n))
                           for t, z, n in zip(tile, ztile, axes, strict=True))[::-1]]
        coded = rice_encode(part.ravel(), block, bytepix)
        rows.append((len(coded), len(heap)))
        heap += coded
    cards = [card("XTENSION", "BINTABLE"), card("BITPIX", 8), card("NAXIS", 2),
             card("NAXIS1", 8), card("NAXIS2", len(rows)), card("PCOUNT", len(heap)),
             card("GCOUNT", 1), card("TFIELDS", 1 + len(columns)),
             card("TTYPE1", "COMPRESSED_DATA"),
             card("TFORM1", f"1PB({max((n for n, _ in rows), default=0)})")]
    cards += [card(f"{key}{k + 2}", v) for k, (name, form) in enumerate(columns)
              for key, v in (("TTYPE", name), ("TFORM", form))]
    cards += [card("ZIMAGE", True), card("ZBITPIX", BITPIX[image.dtype]),
              card("ZNAXIS", image.ndim)]
    cards += [card(f"ZNAXIS{k + 1}", n) for k, n in enumerate(axes)]
    cards += [card(f"ZTILE{k + 1}", t) for k, t in enumerate(ztile)]
    cards += [card("ZCMPTYPE", cmptype), card("ZNAME1", "BLOCKSIZE"), card("ZVAL1", block),
              card("ZNAME2", "BYTEPIX"), card("ZVAL2", bytepix)]
    if bzero is not None:
        cards.append(card("BZERO", bzero))
    text = "".join(cards) + "END".ljust(80)
    text += " " * (-len(text) % 2880)
    data = b"".join(struct.pack(">ii", n, o) for n, o in rows) + bytes(heap)
    return text.encode() + data + b"\0" * (-len(data) % 2880)


def _rice_image(dtype, shape, rng):
    info = np.iinfo(dtype)
    smooth = (np.cumsum(rng.integers(-3, 4, shape), axis=-1) + (info.min + info.max) // 2)
    image = np.clip(smooth, info.min, info.max).astype(dtype)
    flat = image.reshape(-1)
    flat[: flat.size // 4] = 7                                     # blocks of no difference
    noisy = flat[flat.size // 2: flat.size // 2 + 40]                # raw blocks
    noisy[...] = rng.integers(info.min, info.max, noisy.size, endpoint=True)
    return image


@pytest.mark.parametrize("dtype, bzero, out", [(np.uint8, None, np.uint8),
                                               (np.int16, None, np.int16),
                                               (np.int16, 32768, np.uint16),
                                               (np.int32, None, np.int32),
                                               (np.int32, 0.5, np.float64)])
@pytest.mark.parametrize("shape, ztile", [((13, 50), (50, 1)), ((13, 50), (16, 5)),
                                          ((3, 4, 70), (70, 1, 1)), ((1, 1), (1, 1))])
def test_rice_compressed_images(tmp_path, dtype, bzero, out, shape, ztile):
    rng = np.random.default_rng(len(shape) * 100 + np.dtype(dtype).itemsize)
    images = [_rice_image(dtype, shape, rng) for _ in range(3)]
    for i, image in enumerate(images):
        write(tmp_path / f"{i}.fits", hdu(primary=True),
              rice_hdu(image, ztile, block=16 if i else 32, bzero=bzero),
              hdu(np.full(3, i, np.int16)))
    ((outs, _),), _ = read(batch_size=3, file_root=str(tmp_path), hdu_indices=[2, 3])
    for got, image, tail, i in zip(outs[0], images, outs[1], range(3), strict=True):
        assert got.dtype == np.dtype(out) and got.shape == image.shape
        np.testing.assert_array_equal(got, _physical(image, bzero, None, out))
        np.testing.assert_array_equal(tail, np.full(3, i, np.int16))


def test_unsupported_compressions_fail_only_where_read(tmp_path):
    image = np.arange(20, dtype=np.int16).reshape(4, 5)
    write(tmp_path / "a.fits", hdu(primary=True), rice_hdu(image, (5, 1), cmptype="GZIP_1"),
          hdu(image))
    ((outs, _),), _ = read(batch_size=1, file_root=str(tmp_path), hdu_indices=[3])
    np.testing.assert_array_equal(outs[0][0], image)
    with pytest.raises(NotImplementedError, match=r"Tile-compressed images \(ZCMPTYPE = "
                                                  r"'GZIP_1', ZBITPIX = 16\) are not supported"
                                                  r"\. File: \./a\.fits"):
        read(batch_size=1, file_root=str(tmp_path))
    write(tmp_path / "a.fits", hdu(primary=True),
          rice_hdu(image, (5, 1), columns=[("ZSCALE", "1D"), ("ZZERO", "1D")]))
    with pytest.raises(NotImplementedError, match=r"'RICE_1', ZBITPIX = 16\) are not"):
        read(batch_size=1, file_root=str(tmp_path))


def test_corrupt_rice_data_fails_naming_the_tile(tmp_path):
    image = _rice_image(np.int16, (6, 40), np.random.default_rng(3))
    data = bytearray(hdu(primary=True) + rice_hdu(image, (40, 1)))
    table_end = 2 * 2880 + 6 * 8
    first = struct.unpack(">i", data[2 * 2880 + 3 * 8:2 * 2880 + 3 * 8 + 4])[0]   # tile 4
    struct.pack_into(">i", data, 2 * 2880 + 3 * 8, 1)                # 1 byte: ends early
    assert first > 1 and table_end < len(data)
    (tmp_path / "a.fits").write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match=r"The Rice-compressed data of tile 4 is corrupt\. "
                                           r"File: \./a\.fits"):
        read(batch_size=1, file_root=str(tmp_path))


def test_resumes_from_a_checkpoint(many):
    """A reader restored from a checkpoint (DALI's FITS reader refuses them) goes on with the
    same samples, with the shuffle buffer replayed."""
    def pipe(checkpoint=None):
        @pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=5,
                      enable_checkpointing=True)
        def p():
            return fn.experimental.readers.fits(file_root=many, random_shuffle=True,
                                                initial_fill=6, num_shards=2, shard_id=1)

        built = p(checkpoint=checkpoint) if checkpoint is not None else p()
        built.build()
        return built

    def values(p, n):
        return [[int(np.array(x)[0, 0]) for x in p.run()[0]] for _ in range(n)]

    expected = values(pipe(), 10)
    first = pipe()
    assert values(first, 4) == expected[:4]
    assert values(pipe(first.checkpoint()), 6) == expected[4:]
