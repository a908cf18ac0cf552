"""fn.debayer: Bayer mosaics to RGB, as OpenCV's demosaicing computes them."""

import cv2
import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from pipeline_utils import run_op

from dali import fn, pipeline_def
from dali._executor.errors import PipelineError
from dali._ext.kernels import debayer as kernel

CODES = {(0, 0): "BayerBG", (0, 1): "BayerGB", (1, 0): "BayerGR", (1, 1): "BayerRG"}
SUFFIX = {"bilinear_ocv": "2RGB", "edgeaware_ocv": "2RGB_EA", "vng_ocv": "2RGB_VNG",
          "gray_ocv": "2GRAY"}


def reference(x, pos, algorithm="bilinear_ocv"):
    out = cv2.cvtColor(x, getattr(cv2, f"COLOR_{CODES[tuple(pos)]}{SUFFIX[algorithm]}"))
    return out if out.ndim == 3 else out[..., None]


def bilinear(x, pos):
    """The bilinear rule in NumPy: OpenCV's integer averages, borders copied inwards."""
    x = x.astype(np.int64)
    h, w = x.shape
    out = np.zeros((h, w, 3), np.int64)
    if h <= 2 or w <= 2:
        return out
    c = x[1:-1, 1:-1]
    up, down, left, right = x[:-2, 1:-1], x[2:, 1:-1], x[1:-1, :-2], x[1:-1, 2:]
    diag = (x[:-2, :-2] + x[:-2, 2:] + x[2:, :-2] + x[2:, 2:] + 2) >> 2
    cross = (up + down + left + right + 2) >> 2
    horiz, vert = (left + right + 1) >> 1, (up + down + 1) >> 1
    yy, xx = np.mgrid[1:h - 1, 1:w - 1]
    red_row, red_col = (yy % 2) == pos[0], (xx % 2) == pos[1]
    red = np.where(red_row & red_col, c, np.where(red_row, horiz, np.where(red_col, vert, diag)))
    blue = np.where(~red_row & ~red_col, c,
                    np.where(red_row & red_col, diag, np.where(red_row, vert, horiz)))
    green = np.where(red_row == red_col, cross, c)
    out[1:-1, 1:-1] = np.stack([red, green, blue], -1)
    out[:, 0], out[:, -1] = out[:, 1], out[:, -2]
    out[0], out[-1] = out[1], out[-2]
    return out


@pytest.fixture(params=[True, False], ids=["simd", "scalar"])
def simd(request):
    """Both row paths of the kernel (the SSE4.1 one for uint8 where the build has it)."""
    if request.param and not kernel.simd(True):
        pytest.skip("the build has no SSE4.1 path")
    kernel.simd(request.param)
    yield request.param
    kernel.simd(True)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_kernel_against_numpy_and_opencv(dtype, simd):
    rng = np.random.default_rng(int(np.dtype(dtype).itemsize))
    for _ in range(40):
        h, w = rng.integers(1, 30, 2) * 2
        w += int(rng.integers(0, 2)) * 64            # several 16-pixel blocks and a tail
        x = rng.integers(0, np.iinfo(dtype).max + 1, (h, w)).astype(dtype)
        for pos in CODES:
            src = BatchStorage.from_arrays([x])
            dst = BatchStorage.from_arrays([np.empty((h, w, 3), dtype)])
            kernel.bilinear_batch(None, src, dst, src.offsets, dst.offsets, [(h, w)], [pos])
            out = dst.samples()[0]
            np.testing.assert_array_equal(out, bilinear(x, pos))
            np.testing.assert_array_equal(out, reference(x, pos))


def test_kernel_rows_of_odd_widths(simd):
    """The kernel takes odd widths (the operator does not): a row's last SIMD block, which
    overlaps the one before, then starts a pixel earlier so that it starts on an odd x."""
    rng = np.random.default_rng(9)
    for w in (19, 21, 35, 37, 51, 69, 99):
        x = rng.integers(0, 256, (5, w)).astype(np.uint8)
        for pos in CODES:
            src = BatchStorage.from_arrays([x])
            dst = BatchStorage.from_arrays([np.empty((5, w, 3), np.uint8)])
            kernel.bilinear_batch(None, src, dst, src.offsets, dst.offsets, [(5, w)], [pos])
            np.testing.assert_array_equal(dst.samples()[0], bilinear(x, pos))


@pytest.mark.parametrize("algorithm", list(SUFFIX))
@pytest.mark.parametrize("layout, shape", [("HW", (6, 10)), ("HWC", (8, 4, 1)), (None, (4, 6))])
def test_algorithms_and_layouts(algorithm, layout, shape):
    rng = np.random.default_rng(5)
    xs = [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(4)]
    pos = [np.array(p, np.int32) for p in CODES]
    (out,) = run_op(lambda fn, x, b: fn.debayer(x, blue_position=b, algorithm=algorithm),
                    [xs, pos], layouts=[layout, None], num_threads=2)
    for o, x, p in zip(out, xs, pos, strict=True):
        assert o.dtype == np.uint8
        np.testing.assert_array_equal(o, reference(x.reshape(x.shape[:2]), p, algorithm))


def test_sequences_with_per_frame_positions_and_uint16():
    rng = np.random.default_rng(6)
    seq = rng.integers(0, 65536, (3, 6, 8), dtype=np.uint16)
    pos = np.array([[0, 0], [0, 1], [1, 1]], np.int32)

    def build(fn, x, b):
        return fn.debayer(x, blue_position=fn.per_frame(b))

    (out,) = run_op(build, [[seq], [pos]], layouts=["FHW", None])
    expected = [reference(f, p) for f, p in zip(seq, pos, strict=True)]
    np.testing.assert_array_equal(out[0], np.stack(expected))
    (out,) = run_op(lambda fn, x: fn.debayer(x, blue_position=[1, 0]), [[seq]], layouts=["FHW"])
    np.testing.assert_array_equal(out[0], np.stack([reference(f, (1, 0)) for f in seq]))


def test_output_layout():
    x = np.zeros((4, 6), np.uint8)

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.debayer(fn.external_source(source=lambda: [x], layout="HW"),
                          blue_position=[0, 0])

    p = pipe()
    p.build()
    (tl,) = p.run()
    assert tl.layout() == "HWC" and np.array(tl[0]).shape == (4, 6, 3)


@pytest.mark.oracle
@pytest.mark.parametrize("algorithm", [None, "edgeaware_ocv", "gray_ocv"])
def test_against_dali(algorithm):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(9)
    xs = [rng.integers(0, 256, (2, 6, 8), dtype=np.uint8) for _ in range(2)]
    pos = [np.array([[0, 1], [1, 0]], np.int32), np.array([[1, 1], [0, 0]], np.int32)]
    kw = {} if algorithm is None else {"algorithm": algorithm}

    def build(fn, x, b):
        return fn.debayer(x, blue_position=fn.per_frame(b), **kw)

    ours = run_op(build, [xs, pos], layouts=["FHW", None])
    real = run_op(build, [xs, pos], layouts=["FHW", None], real=True)
    for o, r in zip(ours[0], real[0], strict=True):
        np.testing.assert_array_equal(o, r)


@pytest.mark.parametrize("x, kwargs, message", [
    (np.zeros((5, 6), np.uint8), {}, "must be even"),
    (np.zeros((4, 6, 2), np.uint8), {}, "expects grayscale"),
    (np.zeros((4, 6), np.int16), {}, "Unsupported input type: int16"),
    (np.zeros((4, 6), np.uint16), {"algorithm": "vng_ocv"},
     "VNG debayering only supported with UINT8"),
    (np.zeros((4, 6), np.uint8), {"blue_position": [0, 2]},
     "The `blue_position` position must lie within 2x2 tile, got: 0 x 2"),
    (np.zeros((4, 6), np.uint8), {"blue_position": [0]}, "needs 2 values"),
])
def test_sample_errors(x, kwargs, message):
    kwargs = {"blue_position": [0, 0], **kwargs}
    with pytest.raises(PipelineError, match=f"debayer.*{message}"):
        run_op(lambda fn, x: fn.debayer(x, **kwargs), [[x]], layouts=["HWC"[:x.ndim]])


@pytest.mark.parametrize("algorithm, message", [
    ("foo", "Unsupported debayer algorithm was specified: `foo`"),
    ("default_npp", "default_npp algorithm is not supported on CPU"),
])
def test_bad_algorithm(algorithm, message):
    with pytest.raises(RuntimeError, match=f"debayer: {message}"):
        run_op(lambda fn, x: fn.debayer(x, blue_position=[0, 0], algorithm=algorithm),
               [[np.zeros((4, 4), np.uint8)]], layouts=["HW"])


def test_deprecated_experimental_name():
    x = np.random.default_rng(4).integers(0, 256, (6, 8), dtype=np.uint8)
    with pytest.warns(DeprecationWarning, match="fn.experimental.debayer` is now deprecated"):
        (out,) = run_op(lambda fn, x: fn.experimental.debayer(x, blue_position=[0, 1]), [[x]],
                        layouts=["HW"])
    np.testing.assert_array_equal(out[0], reference(x, (0, 1)))
