"""Random cases of the image operators' GPU backends (fn.paste, fn.multi_paste, fn.grid_mask,
fn.sphere, fn.water), shared by the emulated (test_emulation_*.py, `emulated_gpu` fixture) and
the device (test_cupy_*.py) tests: each case is a graph run twice, on device 0 (the image moved
there with `.gpu()`, argument inputs on the CPU) and on the CPU, whose outputs must agree.

A case is (build, inputs, layouts): `build(fn, image, *args)` makes the operator's outputs from
the external sources of `inputs` (one list of samples each; the first is the image batch).
"""

from __future__ import annotations

import numpy as np

from dali import fn, pipeline_def, types


def outputs(case, on_gpu, empty=False):
    """The case's outputs (lists of numpy samples), its image on device 0 when `on_gpu`.  With
    `empty`, the operator runs in a branch that no sample takes (an empty batch)."""
    build, inputs, layouts = case

    @pipeline_def(batch_size=len(inputs[0]), num_threads=2, device_id=0 if on_gpu else None,
                  seed=7, prefetch_queue_depth=1, enable_conditionals=empty)
    def pipe():
        nodes = [fn.external_source(source=_constant(s), batch=True, layout=layout)
                 for s, layout in zip(inputs, layouts, strict=True)]
        if on_gpu:
            nodes[0] = nodes[0].gpu()
        if not empty:
            out = build(fn, *nodes)
            return out if isinstance(out, tuple) else (out,)
        never = fn.external_source(source=lambda: [np.bool_(False)] * len(inputs[0]),
                                   batch=True)
        if never:
            out = build(fn, *nodes)
        else:
            out = nodes[0]
        return (out,)

    p = pipe()
    p.build()
    result = []
    for tl in p.run():
        assert (type(tl).__name__ == "TensorListGPU") == on_gpu
        result.append((tl.layout(), tl.dtype,
                       [np.array(t) for t in (tl.as_cpu() if on_gpu else tl)]))
    return result


def _constant(batch):
    return lambda: batch


def check_equal(case, atol=0, empty=False):
    """The case on device 0 equals it on the CPU: layout, type, shapes and values (bit for bit,
    or within `atol`)."""
    gpu, cpu = outputs(case, True, empty), outputs(case, False, empty)
    assert len(gpu) == len(cpu)
    for (g_layout, g_type, g), (c_layout, c_type, c) in zip(gpu, cpu, strict=True):
        assert g_layout == c_layout and g_type == c_type and len(g) == len(c)
        for a, b in zip(g, c, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            if atol:
                np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64),
                                           atol=atol, rtol=0)
            else:
                np.testing.assert_array_equal(a, b)


def _images(rng, n, dtypes=(np.uint8,), channels=None, empty=True):
    """n HWC images (one of them empty when `empty` and n > 2)."""
    dtype = dtypes[int(rng.integers(len(dtypes)))]
    c = int(rng.integers(1, 5)) if channels is None else channels
    out = []
    for i in range(n):
        h = 0 if empty and i == 2 else int(rng.integers(1, 24))
        shape = (h, int(rng.integers(1, 24)), c)
        if np.dtype(dtype).kind == "f":
            out.append(rng.normal(0, 60, shape).astype(dtype))
        else:
            info = np.iinfo(dtype)
            out.append(rng.integers(max(info.min, -1000), min(info.max, 1000) + 1,
                                    shape).astype(dtype))
    return out


def _per_sample(rng, n, lo, hi, dtype=np.float32):
    return [np.array(rng.uniform(lo, hi), dtype) for _ in range(n)]


# ---- fn.paste ------------------------------------------------------------------------------
def paste_case(seed):
    """uint8 images of 1..4 channels, constant or per-sample ratio, positions and minimum
    canvas sizes, one fill value or one per channel."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    c = int(rng.integers(1, 5))
    images = _images(rng, n, channels=c)
    fill = [int(v) for v in rng.integers(0, 256, c if seed % 2 else 1)]
    ratio = _per_sample(rng, n, 1, 2.5)
    px, py = _per_sample(rng, n, 0, 1), _per_sample(rng, n, 0, 1)
    if seed % 3 == 0:
        minimum = float(rng.integers(0, 30))

        def build(fn, x, r, a, b):
            return fn.paste(x, ratio=r, paste_x=a, paste_y=b, fill_value=fill, n_channels=c,
                            min_canvas_size=minimum)
        return build, [images, ratio, px, py], ["HWC", None, None, None]
    scalar = float(ratio[0])

    def build(fn, x):
        return fn.paste(x, ratio=scalar, paste_x=float(px[0]), fill_value=fill, n_channels=c)
    return build, [images], ["HWC"]


# ---- fn.multi_paste ------------------------------------------------------------------------
def multi_paste_case(seed):
    """Regions of one batch (in_ids) or of several batches, absolute or relative anchors and
    shapes, overlapping regions, an output size or uniform inputs, other output types."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5))
    c = int(rng.integers(1, 4))
    dtypes = (np.uint8, np.int16, np.float32, np.int32)
    dtype = dtypes[seed % len(dtypes)]
    out_dtype = (None, types.FLOAT, types.UINT8, types.INT32)[seed // 4 % 4]
    canvas = (int(rng.integers(1, 20)), int(rng.integers(1, 20)))
    use_ids = seed % 2 == 0
    k = 1 if use_ids else int(rng.integers(1, 4))

    def batch():
        out = []
        for _ in range(n):
            shape = (int(rng.integers(1, 16)), int(rng.integers(1, 16)), c)
            out.append((rng.integers(0, 200, shape) if dtype != np.float32 else
                        rng.normal(0, 50, shape)).astype(dtype))
        return out

    batches = [batch() for _ in range(k)]
    counts = [int(rng.integers(0, 4)) if use_ids else k for _ in range(n)]
    ids = [rng.integers(0, n, m).astype(np.int32) for m in counts]
    shapes, in_anchors, out_anchors = [], [], []
    for i in range(n):
        sh, ia, oa = [], [], []
        for r in range(counts[i]):
            src = batches[0][ids[i][r]] if use_ids else batches[r][i]
            h = int(rng.integers(0, min(src.shape[0], canvas[0]) + 1))
            w = int(rng.integers(0, min(src.shape[1], canvas[1]) + 1))
            sh.append((h, w))
            ia.append((int(rng.integers(0, src.shape[0] - h + 1)),
                       int(rng.integers(0, src.shape[1] - w + 1))))
            oa.append((int(rng.integers(0, canvas[0] - h + 1)),
                       int(rng.integers(0, canvas[1] - w + 1))))
        shapes.append(np.array(sh, np.int32).reshape(-1, 2))
        in_anchors.append(np.array(ia, np.int32).reshape(-1, 2))
        out_anchors.append(np.array(oa, np.int32).reshape(-1, 2))
    sizes = [np.array(canvas, np.int32)] * n
    kwargs = {} if out_dtype is None else {"dtype": out_dtype}

    def build(fn, *nodes):
        images, (ia, oa, sh, size, *rest) = nodes[:k], nodes[k:]
        if use_ids:
            return fn.multi_paste(images[0], in_ids=rest[0], in_anchors=ia, out_anchors=oa,
                                  shapes=sh, output_size=size, **kwargs)
        return fn.multi_paste(*images, in_anchors=ia, out_anchors=oa, shapes=sh,
                              output_size=size, **kwargs)

    inputs = batches + [in_anchors, out_anchors, shapes, sizes] + ([ids] if use_ids else [])
    return build, inputs, ["HWC"] * k + [None] * (len(inputs) - k)


def multi_paste_relative_case(seed):
    """Uniform inputs (no output size), relative anchors, default shapes."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5))
    shape = (int(rng.integers(1, 16)), int(rng.integers(1, 16)), 3)
    images = [rng.integers(0, 256, shape).astype(np.uint8) for _ in range(n)]
    ids = [rng.integers(0, n, 2).astype(np.int32) for _ in range(n)]
    rel = [rng.uniform(0, 0.5, (2, 2)).astype(np.float32) for _ in range(n)]
    srel = [np.full((2, 2), 0.5, np.float32) for _ in range(n)]

    def build(fn, x, i, a, s):
        return fn.multi_paste(x, in_ids=i, in_anchors_rel=a, out_anchors_rel=a, shapes_rel=s)
    return build, [images, ids, rel, srel], ["HWC", None, None, None]


# ---- fn.grid_mask --------------------------------------------------------------------------
def grid_mask_case(seed):
    """uint8, int16, int32 and float images; constant or per-sample tile, ratio, angle and
    shifts."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    images = _images(rng, n, dtypes=(np.uint8, np.int16, np.int32, np.float32))
    tile = [np.array(rng.integers(1, 12), np.int32) for _ in range(n)]
    ratio = _per_sample(rng, n, 0, 1)
    angle = _per_sample(rng, n, -4, 4)
    sx, sy = _per_sample(rng, n, -10, 10), _per_sample(rng, n, -10, 10)
    if seed % 2:
        def build(fn, x, t, r, a, b, d):
            return fn.grid_mask(x, tile=t, ratio=r, angle=a, shift_x=b, shift_y=d)
        return build, [images, tile, ratio, angle, sx, sy], ["HWC"] + [None] * 5
    kwargs = {"tile": int(tile[0]), "ratio": float(ratio[0]), "angle": float(angle[0]),
              "shift_x": float(sx[0])}

    def build(fn, x):
        return fn.grid_mask(x, **kwargs)
    return build, [images], ["HWC"]


# ---- fn.sphere, fn.water ---------------------------------------------------------------------
def displace_case(seed, op):
    """uint8 or float images, NN or linear, fill values, per-sample masks; water's waves."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    images = _images(rng, n, dtypes=((np.uint8, np.float32)[seed % 2],))
    kwargs = {"interp_type": (types.INTERP_NN, types.INTERP_LINEAR)[seed // 2 % 2],
              "fill_value": float(rng.uniform(-20, 300))}
    if op == "water":
        kwargs.update(ampl_x=float(rng.uniform(-8, 8)), ampl_y=float(rng.uniform(-8, 8)),
                      freq_x=float(rng.uniform(0, 1)), freq_y=float(rng.uniform(0, 1)),
                      phase_x=float(rng.uniform(-3, 3)), phase_y=float(rng.uniform(-3, 3)))
    mask = [np.array(rng.random() < 0.8, np.int32) for _ in range(n)]

    def build(fn, x, m):
        return getattr(fn, op)(x, mask=m, **kwargs)
    return build, [images, mask], ["HWC", None]


# ---- fn.experimental.warp_perspective ------------------------------------------------------
def _homography(rng, h, w):
    """An output->input matrix near a random similarity with a little perspective."""
    m = np.eye(3)
    a = rng.uniform(-0.5, 0.5)
    s = rng.uniform(0.6, 1.5)
    m[:2, :2] = s * np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    m[:2, 2] = rng.uniform(-0.3, 0.3, 2) * (w, h)
    m[2, :2] = rng.uniform(-2e-3, 2e-3, 2)
    return m.astype(np.float32)


def warp_perspective_case(seed):
    """uint8, uint16, int16 and float images of 1-4 channels (both of the CPU's algorithms),
    HWC, HW or CHW, NN or linear, every border, constant or per-sample matrices (an argument
    input or the second input), output sizes, inverse_map and pixel_origin."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5))
    dtype = (np.uint8, np.uint16, np.int16, np.float32)[seed % 4]
    layout = ("HWC", "HWC", "HW", "CHW")[seed // 4 % 4]
    c = int(rng.integers(1, 5))
    images = []
    for _ in range(n):
        h, w = int(rng.integers(1, 20)), int(rng.integers(1, 20))
        shape = {"HWC": (h, w, c), "HW": (h, w), "CHW": (c, h, w)}[layout]
        if dtype == np.float32:
            images.append(rng.normal(0, 100, shape).astype(dtype))
        else:
            images.append(rng.integers(0, 1000 if dtype != np.uint8 else 256,
                                       shape).astype(dtype))
    mats = [_homography(rng, 16, 16) for _ in range(n)]
    borders = ("constant", "replicate", "reflect", "reflect_101", "wrap")
    kwargs = {"interp_type": (types.INTERP_NN, types.INTERP_LINEAR)[seed % 2],
              "border_mode": borders[seed % 5],
              "inverse_map": bool(seed % 3),
              "pixel_origin": ("corner", "center")[seed // 2 % 2]}
    if seed % 5 == 0 and layout != "CHW":
        kwargs["fill_value"] = [float(v) for v in rng.uniform(-5, 300, c if layout == "HWC"
                                                                 else 1)]
    elif seed % 5 == 0:
        kwargs["fill_value"] = [7.0]
    if seed % 3 == 1:
        kwargs["size"] = [float(rng.integers(1, 25)), float(rng.integers(1, 25))]
    how = seed % 3
    if how == 0:
        matrix = [float(v) for v in mats[0].reshape(-1)]

        def build(fn, x):
            return fn.experimental.warp_perspective(x, matrix=matrix, **kwargs)
        return build, [images], [layout]
    if how == 1:
        def build(fn, x, m):
            return fn.experimental.warp_perspective(x, matrix=m, **kwargs)
        return build, [images, mats], [layout, None]

    def build(fn, x, m):
        return fn.experimental.warp_perspective(x, m, **kwargs)
    return build, [images, mats], [layout, None]


# ---- fn.equalize ---------------------------------------------------------------------------
def equalize_case(seed, op="equalize"):
    """uint8 images and videos in every layout equalize takes, narrow value ranges, channels
    of one value and empty samples."""
    rng = np.random.default_rng(seed)
    layouts = ("HW", "HWC", "CHW", "FHW", "FHWC", "FCHW")
    layout = layouts[seed % len(layouts)]
    n = int(rng.integers(1, 5))
    c = int(rng.integers(1, 5))
    images = []
    for i in range(n):
        ext = {"H": int(rng.integers(0 if i == 2 else 1, 20)), "W": int(rng.integers(1, 20)),
               "C": c, "F": int(rng.integers(1, 4))}
        lo = int(rng.integers(0, 200))
        x = rng.integers(lo, lo + int(rng.integers(1, 56)), [ext[a] for a in layout])
        images.append(x.astype(np.uint8))
    if op == "experimental.equalize":
        def build(fn, x):
            return fn.experimental.equalize(x)
    else:
        def build(fn, x):
            return fn.equalize(x)
    return build, [images], [layout]


# ---- fn.debayer ----------------------------------------------------------------------------
def debayer_case(seed, op="debayer"):
    """uint8 and uint16 mosaics in HW, HWC, FHW and FHWC (one channel), even sizes from 2 (a
    black image) up, blue positions constant, per sample or per frame, the algorithm given
    as bilinear_ocv, default_npp or not at all."""
    rng = np.random.default_rng(seed)
    layout = ("HW", "HWC", "FHW", "FHWC")[seed % 4]
    dtype = (np.uint8, np.uint16)[seed // 4 % 2]
    n = int(rng.integers(1, 5))
    frames = [int(rng.integers(1, 4)) for _ in range(n)]
    images = []
    for i in range(n):
        ext = {"H": 2 * int(rng.integers(1, 10)), "W": 2 * int(rng.integers(1, 10)), "C": 1,
               "F": frames[i]}
        images.append(rng.integers(0, 256 if dtype == np.uint8 else 65536,
                                   [ext[a] for a in layout]).astype(dtype))
    kwargs = {}
    if seed % 3:
        kwargs["algorithm"] = ("bilinear_ocv", "default_npp")[seed % 3 - 1]
    per_frame = layout.startswith("F") and seed % 2
    positions = [rng.integers(0, 2, (frames[i], 2) if per_frame else 2).astype(np.int32)
                 for i in range(n)]

    def build(fn, x, b):
        op_fn = fn.experimental.debayer if op == "experimental.debayer" else fn.debayer
        args = dict(kwargs)
        if args.get("algorithm") == "default_npp" and x.device == "cpu":
            args["algorithm"] = "bilinear_ocv"      # the CPU's name of the GPU's rule here
        return op_fn(x, blue_position=fn.per_frame(b) if per_frame else b, **args)
    return build, [images, positions], [layout, None]


# ---- fn.clahe, fn.jpeg_compression_distortion (computed on the host) -----------------------
def clahe_case(seed):
    """Gray and RGB uint8 images (an empty one too), luma only or per channel, tile grids that
    do or do not divide the images, clip limits with and without clipping."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5))
    c = (1, 3)[seed % 2]
    images = []
    for i in range(n):
        shape = (0 if i == 3 else int(rng.integers(1, 30)), int(rng.integers(1, 30)), c)
        lo = int(rng.integers(0, 128))
        images.append(rng.integers(lo, lo + int(rng.integers(1, 128)), shape).astype(np.uint8))
    kwargs = {"tiles_x": int(rng.integers(1, 9)), "tiles_y": int(rng.integers(1, 9)),
              "clip_limit": float(rng.uniform(-1, 4)), "luma_only": bool(seed // 2 % 2)}

    def build(fn, x):
        return fn.clahe(x, **kwargs)
    return build, [images], ["HWC"]


def jpeg_distortion_case(seed):
    """RGB images and sequences, per-sample qualities (some out of 1..100)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 4))
    layout = ("HWC", "FHWC")[seed % 2]
    images = [rng.integers(0, 256, ((2,) if layout == "FHWC" else ()) +
                           (int(rng.integers(1, 30)), int(rng.integers(1, 30)), 3))
              .astype(np.uint8) for _ in range(n)]
    quality = [np.array(rng.integers(-5, 110), np.int32) for _ in range(n)]

    def build(fn, x, q):
        return fn.jpeg_compression_distortion(x, quality=q)
    return build, [images, quality], [layout, None]
