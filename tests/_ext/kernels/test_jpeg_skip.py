"""dali's entropy decoder (jpeg_skip.h: codes skipped where nothing reads them, one or two
coefficients a lookup elsewhere): the pixels and errors of every decode are those of libjpeg
decoding every code (`skip_codes=False`), on the subsamplings, with and without restart
markers, and on corrupt data (where the decoder hands the scan back to libjpeg), and with its
tables taken from its thread's cache."""
import io

import cv2
import numpy as np
import pytest
from dali._ext.thread_pool import ThreadPool
from PIL import Image

jpeg = pytest.importorskip("dali._ext.kernels.jpeg", reason="built without libjpeg-turbo")

# Large enough that the skip decoder is installed (it needs 8192 blocks to skip where its
# tables are not cached).
H, W = 968, 1304


def photo(seed=0):
    """A textured image: smooth gradients, edges and noise, as a photo has."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    img = np.stack([128 + 100 * np.sin(xx / 37 + c) * np.cos(yy / 53 - c) for c in range(3)], -1)
    img[(xx // 97 + yy // 61) % 2 == 0] *= 0.6
    img += rng.normal(0, 12, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def pil_jpeg(img, quality=90, **kw):
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "JPEG", quality=quality, **kw)
    return np.frombuffer(buf.getvalue(), np.uint8)


def cv2_jpeg(img, *params):
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90, *params])
    assert ok
    return buf.reshape(-1)


def corpus():
    img = photo()
    gray = img[:, :, 1].copy()
    return {
        "444": pil_jpeg(img, subsampling=0),
        "422": pil_jpeg(img, subsampling=1),
        "420": pil_jpeg(img, subsampling=2),
        "gray": pil_jpeg(gray),
        "420 rst 1": cv2_jpeg(img, cv2.IMWRITE_JPEG_RST_INTERVAL, 1),
        "420 rst 7": cv2_jpeg(img, cv2.IMWRITE_JPEG_RST_INTERVAL, 7),
        "444 rst 3": cv2_jpeg(img, cv2.IMWRITE_JPEG_RST_INTERVAL, 3,
                              cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
                              cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444),
        "gray rst 5": cv2_jpeg(gray, cv2.IMWRITE_JPEG_RST_INTERVAL, 5),
        "progressive": pil_jpeg(img, progressive=True),
    }


CORPUS = corpus()

# Regions as fractions of the scaled image: rows above, columns either side, both, all.
REGIONS = [(0, 0, 1, 1), (0, 0.6, 1, 0.3), (0.3, 0, 0.4, 1), (0.35, 0.7, 0.3, 0.25),
           (0.9, 0.95, 0.1, 0.05), (0.02, 0.3, 0.05, 0.4)]


def region(data, scale, frac):
    height, width = jpeg.info(data)[:2]
    h, w = jpeg.scaled_size(height, scale), jpeg.scaled_size(width, scale)
    fx, fy, fw, fh = frac
    x, y = int(fx * w), int(fy * h)
    return x, y, max(1, min(w - x, int(fw * w))), max(1, min(h - y, int(fh * h)))


def outcome(data, x, y, w, h, color, scale, skip):
    try:
        return jpeg.decode_roi(data, x, y, w, h, color=color, scale=scale, skip_codes=skip)
    except jpeg.JpegError as e:
        return str(e)


def assert_same(data, scale, frac, color):
    x, y, w, h = region(data, scale, frac)
    skipped = outcome(data, x, y, w, h, color, scale, True)
    every = outcome(data, x, y, w, h, color, scale, False)
    if isinstance(every, str) or isinstance(skipped, str):
        assert skipped == every
    else:
        np.testing.assert_array_equal(skipped, every)


@pytest.mark.parametrize("name", list(CORPUS))
@pytest.mark.parametrize("scale", [1, 2, 4, 8])
def test_skipping_gives_libjpegs_pixels(name, scale):
    for frac in REGIONS:
        for color in (jpeg.RGB, jpeg.GRAY):
            assert_same(CORPUS[name], scale, frac, color)


def test_symbols_past_a_lookup_give_libjpegs_pixels():
    # Strong noise at quality 100: most AC symbols have a code within the skip table's lookup
    # and value bits past it (skipped by the code's own length), some a code longer than it.
    rng = np.random.default_rng(7)
    noisy = photo(3).astype(np.float64) + rng.normal(0, 60, (H, W, 3))
    data = pil_jpeg(np.clip(noisy, 0, 255).astype(np.uint8), quality=100, subsampling=2)
    for scale in (1, 8):
        for frac in REGIONS:
            assert_same(data, scale, frac, jpeg.RGB)


def test_blocks_that_end_without_an_end_of_block_give_libjpegs_pixels():
    """A one-pixel checkerboard puts a coefficient at the last zigzag index of every block, so
    that no end-of-block follows it: the bits after it are the next block's DC code, which a
    lookup of two symbols must not take as the block's.  Weak noise at quality 100 gives
    small coefficients, two to a lookup."""
    rng = np.random.default_rng(11)
    yy, xx = np.mgrid[0:H, 0:W]
    img = photo(4).astype(np.float64) * 0.5 + 64 + 24 * ((xx + yy) % 2)[:, :, None]
    img += rng.normal(0, 2, img.shape)
    for subsampling in (0, 2):
        data = pil_jpeg(np.clip(img, 0, 255).astype(np.uint8), quality=100,
                        subsampling=subsampling)
        for frac in REGIONS[:4]:
            assert_same(data, 1, frac, jpeg.RGB)


def corruptions(data, rng):
    """Damaged copies that still end with EOI (so the skip decoder takes them): flipped bytes,
    a stray marker, a wrong restart marker, the scan cut short, garbage before a marker."""
    n = len(data)
    start = n // 20
    out = []
    for _ in range(4):
        d = data.copy()
        at = rng.integers(start, n - 2, 3)
        d[at] ^= rng.integers(1, 256, 3).astype(np.uint8)
        out.append(d)
    d = data.copy()
    at = int(rng.integers(n // 3, n - 4))
    d[at:at + 2] = (0xFF, 0xD5)
    out.append(d)
    rst = np.flatnonzero((data[:-1] == 0xFF) & (data[1:] >= 0xD0) & (data[1:] <= 0xD7))
    if len(rst):
        d = data.copy()
        k = rst[len(rst) // 2] + 1
        d[k] = 0xD0 + (d[k] - 0xD0 + 3) % 8
        out.append(d)
        d = np.concatenate([data[:k - 1], np.array([0x12, 0x34, 0x56], np.uint8), data[k - 1:]])
        out.append(d)
    cut = int(rng.integers(n // 2, n - 2))
    out.append(np.concatenate([data[:cut], np.array([0xFF, 0xD9], np.uint8)]))
    out.append(np.concatenate([data[:cut], np.array([0xFF, 0xFF, 0xD9], np.uint8)]))
    return out


@pytest.mark.parametrize("name", [n for n in CORPUS if n != "progressive"])
def test_corrupt_data_gives_libjpegs_pixels_and_errors(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    for d in corruptions(CORPUS[name], rng):
        for scale in (1, 8):
            for frac in REGIONS[1:4]:
                assert_same(d, scale, frac, jpeg.RGB)


def test_truncated_data_is_left_to_libjpeg():
    data = CORPUS["420"]
    for cut in (len(data) // 2, len(data) - 3):
        assert_same(data[:cut].copy(), 1, (0.3, 0.2, 0.4, 0.3), jpeg.RGB)
        assert_same(data[:cut].copy(), 8, (0, 0, 1, 1), jpeg.RGB)


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b) ** 2)
    return np.inf if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


@pytest.mark.parametrize("name", list(CORPUS))
def test_approximate_whole_scale_decodes_are_exact(name):
    for frac in REGIONS[:4]:
        x, y, w, h = region(CORPUS[name], 1, frac)
        np.testing.assert_array_equal(
            jpeg.decode_roi(CORPUS[name], x, y, w, h, approximate=True),
            jpeg.decode_roi(CORPUS[name], x, y, w, h, skip_codes=False))


@pytest.mark.parametrize("name", list(CORPUS))
@pytest.mark.parametrize("scale", [2, 4, 8])
def test_approximate_reduced_decodes_are_close(name, scale):
    """Decode scaling drops the high frequencies of reduced blocks: other pixels, close to
    libjpeg's reduced IDCT of every coefficient.  These images carry white noise (sigma 12),
    the worst case: at 1/2 scale they come within 34-36 dB (the pipelines, which reduce them
    further, are held to 35 dB in tests/ops/test_regions_scaling.py).  The whole image at 1/4
    scale has enough blocks for the skip decoder and differs; the progressive one, which it
    never takes, does not."""
    for frac in REGIONS:
        for color in (jpeg.RGB, jpeg.GRAY):
            x, y, w, h = region(CORPUS[name], scale, frac)
            approx = jpeg.decode_roi(CORPUS[name], x, y, w, h, color=color, scale=scale,
                                     approximate=True)
            exact = jpeg.decode_roi(CORPUS[name], x, y, w, h, color=color, scale=scale,
                                    skip_codes=False)
            assert approx.shape == exact.shape
            assert psnr(approx, exact) >= 30
            if frac == REGIONS[0] and scale == 4:
                assert np.isinf(psnr(approx, exact)) == (name == "progressive")


@pytest.mark.parametrize("name", [n for n in CORPUS if n != "progressive"])
def test_approximate_corrupt_data_gives_libjpegs_errors(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    for d in corruptions(CORPUS[name], rng):
        for scale in (2, 8):
            for frac in REGIONS[:4]:
                x, y, w, h = region(d, scale, frac)
                try:
                    approx = jpeg.decode_roi(d, x, y, w, h, scale=scale, approximate=True)
                except jpeg.JpegError as e:
                    approx = str(e)
                every = outcome(d, x, y, w, h, jpeg.RGB, scale, False)
                if isinstance(every, str) or isinstance(approx, str):
                    assert approx == every
                else:
                    assert approx.shape == every.shape


def huffman_tables(data):
    """The DHT segments of a JPEG's header, joined."""
    data, i, out = bytes(data), 2, b""
    while data[i + 1] != 0xDA:
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if data[i + 1] == 0xC4:
            out += data[i + 4:i + 2 + length]
        i += 2 + length
    return out


def builds():
    return jpeg.skip_cache_info()[1]


def installs():
    return jpeg.skip_cache_info()[2]


needs_skip_decoder = pytest.mark.skipif(not jpeg.SKIP_DECODER, reason="built without jpegint.h")


@needs_skip_decoder
def test_cached_tables_give_fresh_tables_pixels():
    """Two images with other tables, alternating: decoded with tables from the cache, they give
    the pixels of tables built for them alone and of libjpeg decoding every code."""
    a = CORPUS["420"]
    b = pil_jpeg(photo(1), subsampling=2, optimize=True)
    assert huffman_tables(a) != huffman_tables(b)
    frac = (0.35, 0.7, 0.3, 0.25)
    fresh = {}
    for name, data in (("a", a), ("b", b)):
        jpeg.skip_cache_clear()
        before = builds()
        fresh[name] = jpeg.decode_roi(data, *region(data, 1, frac))
        assert builds() == before + 4
    jpeg.skip_cache_clear()
    for data in (a, b):
        jpeg.decode_roi(data, *region(data, 1, frac))
    assert jpeg.skip_cache_info()[0] == 8
    before = builds()
    for _ in range(2):
        for name, data in (("a", a), ("b", b)):
            np.testing.assert_array_equal(jpeg.decode_roi(data, *region(data, 1, frac)),
                                          fresh[name])
            assert_same(data, 1, frac, jpeg.RGB)
    assert builds() == before


@needs_skip_decoder
def test_cache_stays_bounded():
    """Images with tables of their own each: the cache keeps 8 tables, evicts the oldest, and
    an image whose tables were evicted builds them again, with the same pixels."""
    images = [pil_jpeg(photo(2), subsampling=2, optimize=True, quality=q)
              for q in (60, 70, 80, 95)]
    assert len({huffman_tables(d) for d in images}) == len(images)
    frac = (0.3, 0, 0.4, 1)
    jpeg.skip_cache_clear()
    for i, data in enumerate(images):
        before = builds()
        assert_same(data, 1, frac, jpeg.RGB)
        assert builds() == before + 4
        assert jpeg.skip_cache_info()[0] == min(8, 4 * (i + 1))
    before = builds()
    assert_same(images[0], 1, frac, jpeg.RGB)
    assert builds() == before + 4
    assert jpeg.skip_cache_info()[0] == 8


@needs_skip_decoder
def test_whole_images_are_decoded_with_the_cached_tables():
    """Nothing to skip in a whole-image decode: the decoder still takes it (its lookups are
    faster than libjpeg's), once its tables are cached, with libjpeg's pixels."""
    data = CORPUS["420"]
    jpeg.skip_cache_clear()
    assert_same(data, 1, (0.3, 0, 0.4, 1), jpeg.RGB)
    before = installs()
    assert_same(data, 1, (0, 0, 1, 1), jpeg.RGB)
    assert installs() == before + 1


def small_photo(seed):
    return photo(seed)[:224, :224].copy()


@needs_skip_decoder
def test_small_images_skip_with_cached_tables():
    """An image with fewer than 8192 blocks to skip builds no tables the first time a thread
    sees them, builds them the second time and takes them from the cache afterwards; the
    pixels are libjpeg's each time.  Images that each have their own tables never build."""
    shared = [cv2_jpeg(small_photo(seed)) for seed in range(3)]
    assert len({huffman_tables(d) for d in shared}) == 1
    jpeg.skip_cache_clear()
    start, installed = builds(), installs()
    decodes = [(data, frac) for data in shared
               for frac in ((0.25, 0.25, 0.5, 0.5), (0.9, 0.95, 0.1, 0.05))]
    for i, (data, frac) in enumerate(decodes):
        assert_same(data, 1, frac, jpeg.RGB)
        assert builds() == start + (4 if i else 0)
        assert installs() == installed + i
    own = [pil_jpeg(small_photo(seed), subsampling=2, optimize=True) for seed in range(4)]
    assert len({huffman_tables(d) for d in own}) == len(own)
    start, installed = builds(), installs()
    for data in own:
        assert_same(data, 1, (0.25, 0.25, 0.5, 0.5), jpeg.RGB)
    assert (builds(), installs()) == (start, installed)


def test_threads_decode_with_their_own_caches():
    """A batch of small images with shared and with own tables, decoded by a pool (each thread
    builds and keeps its own tables), gives libjpeg's pixels."""
    samples = [cv2_jpeg(small_photo(seed)) for seed in range(12)]
    samples += [pil_jpeg(small_photo(seed), subsampling=2, optimize=True) for seed in range(4)]
    samples *= 3
    regions = np.array([(*region(d, 1, REGIONS[3 + i % 3]), 1) for i, d in enumerate(samples)],
                       np.int32)
    outs = [np.empty((r[3], r[2], 3), np.uint8) for r in regions]
    assert jpeg.decode_batch(ThreadPool(2), samples, regions, outs) == []
    for data, r, out in zip(samples, regions, outs, strict=True):
        np.testing.assert_array_equal(out, jpeg.decode_roi(data, *r[:4], skip_codes=False))
