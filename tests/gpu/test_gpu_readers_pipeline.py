"""fn.readers.numpy and fn.experimental.readers.fits with device="gpu" (DALI's GPU readers) on the
emulated device: the files read on the host as on the CPU, uploaded; the outputs, their source
info and the sample order (shuffling, sharding, padding) equal the CPU reader's over an epoch
and a half."""

import numpy as np
import pytest

from dali import fn, pipeline_def


def _epochs(make, device_id, batch_size=3, iterations=5):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id, seed=11,
                  prefetch_queue_depth=1)
    def pipe():
        out = make("gpu" if device_id is not None else "cpu")
        return tuple(out) if isinstance(out, list) else out

    p = pipe()
    p.build()
    return [p.run() for _ in range(iterations)]


def _assert_same_as_cpu(make, **kwargs):
    for gpu, cpu in zip(_epochs(make, 0, **kwargs), _epochs(make, None, **kwargs), strict=True):
        for g, c in zip(gpu, cpu, strict=True):
            assert type(g).__name__ == "TensorListGPU"
            assert g.dtype == c.dtype and g.shape() == c.shape() and g.layout() == c.layout()
            host = g.as_cpu()
            for i, (a, b) in enumerate(zip(host, c, strict=True)):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
                assert g.source_info(i) == c.source_info(i) != ""


@pytest.fixture(scope="module")
def npy_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("npy")
    rng = np.random.default_rng(0)
    for k in range(7):
        a = rng.integers(0, 1000, (int(rng.integers(2, 9)), int(rng.integers(2, 9)), 3))
        np.save(root / f"a{k}.npy", a.astype(np.int16))
    np.save(root / "fortran.npy", np.asfortranarray(rng.standard_normal((5, 4, 3))
                                                    .astype(np.int16)))
    return str(root)


@pytest.mark.parametrize("kwargs", [
    {},
    {"random_shuffle": True, "shard_id": 1, "num_shards": 2},
    {"roi_start": [1, 1], "roi_end": [2, 2], "roi_axes": [0, 1], "out_of_bounds_policy": "pad"},
    {"pad_last_batch": True, "stick_to_shard": True, "num_shards": 3, "shard_id": 2},
])
def test_numpy_reader_on_gpu_equals_cpu(emulated_gpu, npy_dir, kwargs):
    _assert_same_as_cpu(lambda device: fn.readers.numpy(device=device, file_root=npy_dir, **kwargs))


def _card(key, value):
    text = f"{key:<8}= {value:>20}" if value is not None else f"{key:<8}"
    return text.ljust(80).encode()


def _write_fits(path, data, extra=None):
    """A primary HDU holding `data` (big-endian), and an image extension holding `extra`."""
    def hdu(a, primary):
        bitpix = {np.dtype(np.uint8): 8, np.dtype(">i2"): 16, np.dtype(">f4"): -32}[a.dtype]
        cards = [_card("SIMPLE", "T") if primary else _card("XTENSION", "'IMAGE   '"),
                 _card("BITPIX", bitpix), _card("NAXIS", a.ndim)]
        cards += [_card(f"NAXIS{k + 1}", n) for k, n in enumerate(a.shape[::-1])]
        if not primary:
            cards += [_card("PCOUNT", 0), _card("GCOUNT", 1)]
        header = b"".join(cards) + b"END".ljust(80)
        header += b" " * (-len(header) % 2880)
        body = a.tobytes()
        return header + body + b"\0" * (-len(body) % 2880)

    blob = hdu(data, True) + (b"" if extra is None else hdu(extra, False))
    with open(path, "wb") as f:
        f.write(blob)


@pytest.fixture(scope="module")
def fits_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("fits")
    rng = np.random.default_rng(1)
    for k in range(5):
        shape = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        _write_fits(root / f"f{k}.fits", rng.integers(-500, 500, shape).astype(">i2"),
                    rng.standard_normal((3, int(rng.integers(1, 5)))).astype(">f4"))
    return str(root)


@pytest.mark.parametrize("kwargs", [
    {},
    {"hdu_indices": [1, 2], "random_shuffle": True},
    {"hdu_indices": [2], "num_shards": 2, "shard_id": 1, "pad_last_batch": True},
])
def test_fits_reader_on_gpu_equals_cpu(emulated_gpu, fits_dir, kwargs):
    _assert_same_as_cpu(lambda device: fn.experimental.readers.fits(
        device=device, file_root=fits_dir, **kwargs), batch_size=2)
