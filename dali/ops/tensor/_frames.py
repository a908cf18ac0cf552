"""What fn.element_extract, fn.sequence_rearrange and fn.permute_batch share: checking a
sequence input and copying frames (slices along the outermost axis) or whole samples with the
nogil `gather` kernel, or on the GPU with the byte-range copies of `copy_samples.cu` (one
range per output frame)."""

from __future__ import annotations

import numpy as np

from dali._ext.kernels import gather as _kernel
from dali.ops._conditional import _copy_samples_gpu


def frame_bytes(storage):
    """Bytes of one frame (outermost slice) of every sample; 0 for samples without frames."""
    shapes = storage.shapes
    total = np.prod(shapes, axis=1, dtype=np.int64) * storage.dtype.itemsize
    extent = shapes[:, 0]
    return np.floor_divide(total, extent, out=np.zeros_like(total), where=extent > 0)


def check_sequence(op, tl, message):
    """The input's layout, checked to be empty or to start with 'F' (`message` is the error,
    formatted with `layout`)."""
    layout = tl.layout() or ""
    if layout and layout[0] != "F":
        raise op.error(message.format(layout=layout), RuntimeError)
    return layout


def gather(ws, src, dst, sources, fbytes, frames, start):
    _kernel.gather_batch(ws.thread_pool, src, dst, sources, fbytes, frames, start)


def frame_copies(src_offsets, dst_offsets, sources, fbytes, frames, start, base_align=16):
    """The launches of `copy_samples.cu` doing what `gather` does: output sample i is frames
    `frames[start[i]:start[i + 1]]` of input sample `sources[i]`, each `fbytes[sources[i]]`
    bytes; the samples lie at byte offsets `src_offsets` and `dst_offsets` of buffers whose
    base addresses are multiples of `base_align`.  One launch per `MAX_RANGES` frames (none
    when nothing is copied)."""
    start = np.asarray(start, np.int64)
    frames = np.asarray(frames, np.int64)
    counts = np.diff(start)
    if len(frames) != start[-1] or (counts < 0).any():
        raise ValueError("start must cut the frames into one run per output sample")
    owner = np.repeat(np.asarray(sources, np.int64), counts)
    size = np.asarray(fbytes, np.int64)[owner]
    src_at = np.asarray(src_offsets, np.int64)[owner] + frames * size
    within = np.arange(len(frames), dtype=np.int64) - np.repeat(start[:-1], counts)
    dst_at = np.repeat(np.asarray(dst_offsets, np.int64)[:len(counts)], counts) + within * size
    launches = []
    for lo in range(0, len(frames), _copy_samples_gpu.MAX_RANGES):
        part = slice(lo, lo + _copy_samples_gpu.MAX_RANGES)
        launch = _copy_samples_gpu.copies(0, src_at[part], 0, dst_at[part], size[part],
                                          base_align)
        if launch is not None:
            launches.append(launch)
    return launches


def gather_gpu(ws, src, dst, sources, fbytes, frames, start):
    """`gather` of device batches `src` into `dst`, on the pipeline's stream."""
    for launch in frame_copies(src.offsets, dst.offsets, sources, fbytes, frames, start,
                               _copy_samples_gpu.alignment(src.ptr, dst.ptr)):
        ws.gpu.launch(_copy_samples_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, src, dst, dst, launch.ranges))
