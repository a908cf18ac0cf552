"""Random cases of remap.cu (fn.experimental.remap: GPU only, no CPU operator to compare with),
shared by test_emulation_remap.py and test_cupy_remap.py: a NumPy reference of the kernel's
float32 arithmetic (DALI's NPP remap: constant 0 border, maps shifted by -0.5 for the "corner"
pixel origin), and the kernel run by a backend with the launch `_remap_gpu` builds."""

from __future__ import annotations

import numpy as np
from gpu_cases import _pack, _unpack

from dali.ops.geometry import _remap_gpu

DTYPES = (np.uint8, np.int16, np.uint16, np.float32)
REMAP_CU = _remap_gpu.__file__.replace("_remap_gpu.py", "remap.cu")


def random_maps(rng, h, w, frames=None):
    """float32 maps reaching past the image on every side, a few exactly on pixel centres."""
    shape = (h, w) if frames is None else (frames, h, w)
    mx = rng.uniform(-2, w + 1, shape).astype(np.float32)
    my = rng.uniform(-2, h + 1, shape).astype(np.float32)
    whole = rng.random(shape) < 0.2
    mx[whole] = np.round(mx[whole])
    my[whole] = np.round(my[whole])
    return mx, my


def case(seed):
    """(samples, mapsx, mapsy, map_frames, linear, pixel_origin): HWC or FHWC samples of 1 or 3
    channels, an empty one sometimes; sequence maps per frame or one for all frames."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(DTYPES[seed % len(DTYPES)])
    seq = seed % 3 == 2
    samples, mxs, mys, framed = [], [], [], []
    for k in range(int(rng.integers(1, 4))):
        h = 0 if (seed % 5 == 0 and k == 1) else int(rng.integers(1, 12))
        w = int(rng.integers(1, 12))
        c = int(rng.choice([1, 3]))
        frames = int(rng.integers(1, 4)) if seq else None
        shape = (h, w, c) if frames is None else (frames, h, w, c)
        if dtype.kind == "f":
            x = (rng.standard_normal(shape) * 100).astype(dtype)
        else:
            info = np.iinfo(dtype)
            x = rng.integers(max(info.min, -3000), min(info.max, 3000), shape,
                             endpoint=True).astype(dtype)
        per_frame = seq and bool(rng.integers(0, 2))
        mx, my = random_maps(rng, h, w, frames if per_frame else None)
        samples.append(x)
        mxs.append(mx)
        mys.append(my)
        framed.append(per_frame)
    return samples, mxs, mys, framed, bool(seed % 2), ("corner", "center")[(seed // 2) % 2]


def _store(v, dtype):
    if np.dtype(dtype).kind == "f":
        return v.astype(dtype)
    info = np.iinfo(dtype)
    return np.rint(np.clip(v, np.float32(info.min), np.float32(info.max))).astype(dtype)


def reference_image(x, mx, my, linear, pixel_origin):
    """One HWC image remapped as remap.cu computes it (float32, the same operations)."""
    h, w, _ = x.shape
    shift = _remap_gpu.SHIFTS[pixel_origin]
    fx, fy = mx + shift, my + shift
    padded = np.zeros((h + 4, w + 4, x.shape[2]), np.float32)
    padded[2:h + 2, 2:w + 2] = x

    def at(iy, ix):            # pixels outside read 0 (coordinates far outside clamped there)
        return padded[np.clip(iy + 2, 0, h + 3), np.clip(ix + 2, 0, w + 3)]

    if not linear:
        rx = np.floor(fx + np.float32(0.5))
        ry = np.floor(fy + np.float32(0.5))
        return _store(at(ry.astype(np.int64), rx.astype(np.int64)), x.dtype)
    x0, y0 = np.floor(fx), np.floor(fy)
    ax, ay = (fx - x0)[..., None], (fy - y0)[..., None]
    ix, iy = x0.astype(np.int64), y0.astype(np.int64)
    one = np.float32(1)
    row0 = (one - ax) * at(iy, ix) + ax * at(iy, ix + 1)
    row1 = (one - ax) * at(iy + 1, ix) + ax * at(iy + 1, ix + 1)
    return _store((one - ay) * row0 + ay * row1, x.dtype)


def reference(samples, mxs, mys, framed, linear, pixel_origin):
    out = []
    for x, mx, my, f in zip(samples, mxs, mys, framed, strict=True):
        if x.ndim == 3:
            out.append(reference_image(x, mx, my, linear, pixel_origin))
            continue
        out.append(np.stack([reference_image(frame, mx[k] if f else mx, my[k] if f else my,
                                             linear, pixel_origin)
                             for k, frame in enumerate(x)]).reshape(x.shape))
    return out


def kernel(backend, samples, mxs, mys, framed, linear, pixel_origin):
    dtype = samples[0].dtype
    shapes = [s.shape for s in samples]
    launch = _remap_gpu.launch(shapes, framed, dtype, linear, pixel_origin)
    src = _pack(samples, dtype)
    if not len(launch.parts):
        return _unpack(np.zeros_like(src), shapes)
    args = backend(REMAP_CU, launch, [src, np.zeros_like(src), _pack(mxs, np.float32),
                                      _pack(mys, np.float32), launch.parts, launch.shift,
                                      launch.interp])
    return _unpack(args[1], shapes)
