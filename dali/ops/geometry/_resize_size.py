"""The output size and source region of fn.resize, shared by the operators that resize the
way it does (fn.resize, fn.resize_crop_mirror): the size arguments and the per-sample
geometry (see fn.resize's module docstring for the rules: region of interest, requested sizes,
modes, `max_size`, rounding, `subpixel_scale`, mirroring).
"""

from __future__ import annotations

import math

import numpy as np

from dali._schema import Arg
from dali._types import DALIDataType as T

MODES = ("default", "stretch", "not_larger", "not_smaller")
ZERO_EXTENT = np.float32(0.0005)        # half the width a zero-extent region is widened to


def size_args():
    """The arguments that give the output size and the source region."""
    return [
        Arg("resize_x", T.FLOAT, 0.0, tensor=True,
            doc="Output width. Alone (with `resize_y` unset or 0), the aspect ratio is "
                "kept. A negative value mirrors the image horizontally."),
        Arg("resize_y", T.FLOAT, 0.0, tensor=True,
            doc="Output height; see `resize_x`."),
        Arg("resize_z", T.FLOAT, 0.0, tensor=True,
            doc="Output depth of volumes; see `resize_x`."),
        Arg("resize_shorter", T.FLOAT, 0.0, tensor=True,
            doc="Length of the shorter dimension; the aspect ratio is kept (the same size "
                "for every axis in mode \"not_smaller\"). `max_size` bounds the longer "
                "one."),
        Arg("resize_longer", T.FLOAT, 0.0, tensor=True,
            doc="Length of the longer dimension; the aspect ratio is kept (the same size "
                "for every axis in mode \"not_larger\")."),
        Arg("size", T._FLOAT_VEC, None, tensor=True,
            doc="Output size: one value per spatial dimension (layout order, no frames or "
                "channels) or one value for all. 0 leaves an extent to `mode`; a negative "
                "value mirrors that axis."),
        Arg("mode", T.STRING, "default",
            doc='"default": missing extents scale by the geometric mean of the given '
                'scales; "stretch": missing extents are kept; "not_larger": keep the '
                'aspect ratio, no extent above the size; "not_smaller": keep the aspect '
                "ratio, no extent below the size. Excludes `resize_shorter` and "
                "`resize_longer`."),
        Arg("max_size", T._FLOAT_VEC, None,
            doc="Limit of the output size, per axis or one for all (values <= 0: no "
                "limit). In the aspect-keeping modes the aspect ratio is kept."),
        Arg("roi_start", T._FLOAT_VEC, None, tensor=True,
            doc="Start of the input region of interest, per spatial axis (layout order); "
                "given together with `roi_end`. roi_start > roi_end mirrors the axis."),
        Arg("roi_end", T._FLOAT_VEC, None, tensor=True,
            doc="End of the input region of interest; see `roi_start`."),
        Arg("roi_relative", T.BOOL, False,
            doc="ROI coordinates are fractions of the input extent (0..1), not pixels."),
        Arg("subpixel_scale", T.BOOL, True,
            doc="Keep the exact scale of fractional output sizes by adjusting the input "
                "region; otherwise the scale follows the rounded size."),
    ]


class SizeLogic:
    """Per-sample output extents and source regions from the size arguments (`self.args`,
    `self.error` of the operator it is mixed into)."""

    def _sample_geometry(self, ws, i, layout, shape):
        """(output extents, region start, region end) of sample i's spatial axes."""
        spatial = [c for c in layout if c in "DHW"]
        n = len(spatial)
        in_sizes = [shape[k] for k, c in enumerate(layout) if c in "DHW"]
        lo, hi = self._region(ws, i, in_sizes)
        requested, mode = self._requested(ws, i, spatial)
        max_size = self._per_axis(ws, i, "max_size", self.args["max_size"], n)
        empty = 0 in in_sizes
        ext = [abs(float(np.float32(b) - np.float32(a))) for a, b in zip(lo, hi, strict=True)]
        out_f = output_size(ext, requested, mode, max_size,
                             [s == 0 for s in in_sizes] if empty else None)
        out = [0 if in_sizes[d] == 0 else max(1, math.floor(out_f[d] + 0.5)) for d in range(n)]
        subpixel = self.args["subpixel_scale"]
        src_lo, src_hi = [], []
        for d in range(n):
            a, b = min(lo[d], hi[d]), max(lo[d], hi[d])
            if subpixel and out_f[d] > 0 and out[d] > 0:
                centre, half = (a + b) / 2, out[d] * ext[d] / out_f[d] / 2
                a, b = centre - half, centre + half
            mirrored = requested[d] != 0 and ((requested[d] < 0) != (hi[d] < lo[d]))
            src_lo.append(b if mirrored else a)
            src_hi.append(a if mirrored else b)
        return out, src_lo, src_hi

    def _region(self, ws, i, in_sizes):
        n = len(in_sizes)
        has_start, has_end = ws.arg_given("roi_start"), ws.arg_given("roi_end")
        if has_start != has_end:
            raise self.error("arguments `roi_start` and `roi_end` must be given together")
        if not has_start:
            lo, hi = [0.0] * n, [float(s) for s in in_sizes]
        else:
            lo = self._per_axis(ws, i, "roi_start", ws.arg("roi_start")[i], n)
            hi = self._per_axis(ws, i, "roi_end", ws.arg("roi_end")[i], n)
            if self.args["roi_relative"]:
                lo = [v * s for v, s in zip(lo, in_sizes, strict=True)]
                hi = [v * s for v, s in zip(hi, in_sizes, strict=True)]
        for d in range(n):
            if lo[d] == hi[d] and in_sizes[d] > 0:
                c = np.float32(lo[d])
                lo[d], hi[d] = float(c - ZERO_EXTENT), float(c + ZERO_EXTENT)
        return lo, hi

    def _requested(self, ws, i, spatial):
        """Signed requested size per spatial axis (0: not given) and the effective mode."""
        n = len(spatial)
        given = ws.arg_given
        separate = any(given(a) for a in ("resize_x", "resize_y", "resize_z"))
        methods = separate + given("size") + given("resize_shorter") + given("resize_longer")
        if methods != 1:
            raise self.error(
                "give the output size in exactly one way: `size`, `resize_x`/`resize_y`/"
                "`resize_z`, `resize_shorter` or `resize_longer`"
                + (" (none was given)" if methods == 0 else ""))
        if given("resize_shorter") + given("resize_longer") + given("mode") > 1:
            raise self.error("arguments `resize_shorter`, `resize_longer` and `mode` are "
                             "mutually exclusive")
        mode = self.args["mode"]
        if mode not in MODES:
            raise self.error(f"argument `mode`: invalid resize mode \"{mode}\"; valid modes "
                             f"are: {', '.join(MODES)}")
        if separate:
            axis_arg = {"W": "resize_x", "H": "resize_y", "D": "resize_z"}
            req = [float(ws.arg(axis_arg[c])[i]) for c in spatial]
        elif given("size"):
            req = self._per_axis(ws, i, "size", ws.arg("size")[i], n)
        else:
            name = "resize_shorter" if given("resize_shorter") else "resize_longer"
            req = [float(ws.arg(name)[i])] * n
            mode = "not_smaller" if name == "resize_shorter" else "not_larger"
        for v in req:
            if not math.isfinite(v):
                raise ws.sample_error(i, f"the requested output size must be finite, got {v}")
        return req, mode

    def _per_axis(self, ws, i, name, value, n):
        """A per-axis vector argument: one value for every axis, or exactly `n` values."""
        if value is None:
            return [0.0] * n
        v = [float(x) for x in np.asarray(value, dtype=np.float64).reshape(-1)]
        if len(v) == 1:
            v = v * n
        if len(v) != n:
            raise ws.sample_error(i, f"argument `{name}` expects one value or {n} values "
                                     f"(one per spatial dimension), got {len(v)}")
        for x in v:
            if not math.isfinite(x):
                raise ws.sample_error(i, f"argument `{name}` must be finite, got {x}")
        return v


def plan_of(layout, shape, geometry):
    """(output shape, (lo, hi)) of an input of `shape` from its (extents, lo, hi)."""
    out, lo, hi = geometry
    out_shape = list(shape)
    for k, n in zip([k for k, c in enumerate(layout) if c in "DHW"], out, strict=True):
        out_shape[k] = n
    return tuple(out_shape), (lo, hi)


def output_size(ext, requested, mode, max_size, skip=None):
    """Fractional output extents (see the module docstring); `skip` marks empty axes."""
    n = len(ext)
    skip = skip or [False] * n
    scales = {d: abs(requested[d]) / ext[d] for d in range(n)
              if requested[d] != 0 and not skip[d]}
    if mode in ("default", "stretch"):
        if mode == "stretch" or not scales:
            other = 1.0
        else:
            other = math.exp(sum(math.log(s) for s in scales.values()) / len(scales))
        out = [abs(requested[d]) if d in scales else ext[d] * other for d in range(n)]
        return [min(o, m) if m > 0 else o for o, m in zip(out, max_size, strict=True)]
    if not scales:
        scale = 1.0
    else:
        scale = (min if mode == "not_larger" else max)(scales.values())
    for d in range(n):
        if max_size[d] > 0 and not skip[d]:
            scale = min(scale, max_size[d] / ext[d])
    return [e * scale for e in ext]
