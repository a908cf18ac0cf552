"""TensorCPU and TensorListCPU: the host tensor types pipelines return (TensorGPU and
TensorListGPU, the device ones, live in `dali._gpu.tensors` and are exported here).

A TensorListCPU is a batch: samples of one dtype and number of dimensions, with per-sample shapes,
kept in a `BatchStorage` (`_ext/tensor_storage`).  `tl[i]` is a TensorCPU *view* of sample i;
`tl.at(i)` and `tl.as_array()` are numpy *copies*, as in DALI.  The layout never includes the batch
dimension.
"""

from __future__ import annotations

import ctypes

import numpy as np

from dali import _types
from dali._ext.tensor_storage import BatchStorage

__all__ = ["TensorCPU", "TensorListCPU"]    # TensorGPU, TensorListGPU: __getattr__ below


def _check_layout(layout, ndim, what):
    layout = "" if layout is None else str(layout)
    if layout and len(layout) != ndim:
        raise ValueError(
            "A non-empty layout must have the same number of dimensions as the number of "
            f"dimensions of the {what}.\nGot: {len(layout)} ({layout})\nExpected: {ndim}.")
    return layout


class _Capsule:
    """A bare DLPack capsule (`x.__dlpack__()`) as a producer NumPy can import."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)       # kDLCPU: a CPU tensor's capsule (NumPy refuses others)


def _from_producer(data):
    """An ndarray of a DLPack producer or capsule; anything else is returned as it is."""
    if type(data).__name__ == "PyCapsule":
        return np.from_dlpack(_Capsule(data))
    if hasattr(data, "__dlpack__") and not isinstance(data, np.ndarray):
        return np.from_dlpack(data)
    return data


def _check_reinterpret(old, new):
    if new.itemsize != old.itemsize:
        raise RuntimeError("Cannot reinterpret the tensor as having a different element size.")


# How DALI prints: lines of 75 characters, indent included; arrays of more than 1000 elements
# show 2 items at each edge; a batch of more than 1000 elements and more than 5 samples shows its
# first and last 2 samples, a list of more than 16 shapes its first and last 2, and a list of
# shapes longer than 77 characters has one shape a line.
_PRINT = {"threshold": 1000, "edgeitems": 2, "linewidth": 71}   # 75 less the indent
_MAX_SAMPLES = 5
_MAX_SHAPES = 16
_SHAPES_WIDTH = 77


def _edges(items, limit):
    """`items` as strings, the middle ones replaced by "..." when there are more than
    `limit`."""
    items = [str(x) for x in items]
    return items if len(items) <= limit else [*items[:2], "...", *items[-2:]]


def _indent(text, by="    "):
    """Lines after the first indented by `by` (blank lines stay empty, as in DALI)."""
    first, *rest = text.split("\n")
    return "\n".join([first, *(by + line if line else line for line in rest)])


def _description(kind, data, dtype, layout, *fields):
    """`kind(...)` as DALI prints a tensor (list): the data (when not None), dtype, layout,
    device and `fields`, one a line."""
    lines = [] if data is None else [_indent(data)]
    lines.append(f"dtype={dtype}")
    if layout:
        lines.append(f'layout="{layout}"')
    lines += ['device="cpu"', *fields]
    return f"{kind}(\n    " + ",\n    ".join(lines) + ")"


class TensorCPU:
    """One sample on the host.

    Parameters
    ----------
    array : array-like
        Anything numpy can view (ndarray, `__array_interface__`, buffer) or a DLPack producer.
        The tensor shares memory with it when it is C-contiguous.
    layout : str, optional
        One character per dimension, e.g. "HWC".
    """

    __slots__ = ("_array", "_layout", "_source_info")

    def __init__(self, array=None, layout=None, is_pinned=False):
        arr = np.asarray(_from_producer(array))
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"TensorCPU: unsupported element type {arr.dtype}")
        self._array = np.require(arr, requirements="C")
        self._layout = _check_layout(layout, arr.ndim, "Tensor")
        self._source_info = ""

    @classmethod
    def _view(cls, array, layout, source_info=""):
        t = cls.__new__(cls)
        t._array = array
        t._layout = layout
        t._source_info = source_info
        return t

    # -- properties DALI users read -----------------------------------------------------------
    @property
    def dtype(self) -> _types.DALIDataType:
        return _types.dali_type_of(self._array.dtype)

    def shape(self) -> list:
        return list(self._array.shape)

    def ndim(self) -> int:
        return self._array.ndim

    def layout(self) -> str:
        return self._layout

    def set_layout(self, layout):
        self._layout = _check_layout(layout, self._array.ndim, "Tensor")

    def source_info(self) -> str:
        return self._source_info

    def get_property(self, key):
        if key == "source_info":
            return self._source_info
        if key == "layout":
            return self._layout
        raise ValueError(f"Unknown property '{key}'; known: 'source_info', 'layout'")

    def data_ptr(self) -> int:
        return self._array.ctypes.data

    def squeeze(self, dim=None) -> bool:
        """Remove unit dimensions (all, or `dim`); True if the shape changed."""
        old = self._array.shape
        if dim is None:
            keep = [i for i, s in enumerate(old) if s != 1]
        else:
            d = dim + len(old) if dim < 0 else dim
            if not 0 <= d < len(old) or old[d] != 1:
                raise RuntimeError(f"Requested a dimension {dim} to squeeze, which has extent "
                                   f"{old[d] if 0 <= d < len(old) else 'out of range'}")
            keep = [i for i in range(len(old)) if i != d]
        self._array = self._array.reshape([old[i] for i in keep])
        if self._layout:
            self._layout = "".join(self._layout[i] for i in keep)
        return self._array.shape != old

    def reinterpret(self, dtype):
        """View the bytes as another type of the same size."""
        dt = _types.dtype_of(dtype)
        _check_reinterpret(self._array.dtype, dt)
        self._array = self._array.view(dt)

    def as_cpu(self) -> TensorCPU:
        return self

    def copy_to_external(self, ptr):
        _copy_to_address(self._array, ptr)

    # -- interop ------------------------------------------------------------------------------
    @property
    def __array_interface__(self):
        return self._array.__array_interface__

    def __array__(self, dtype=None, copy=None):
        if copy:
            return np.array(self._array, dtype=dtype)
        return self._array if dtype is None else self._array.astype(dtype)

    def __dlpack__(self, *args, **kwargs):
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()

    def __repr__(self):
        return self._describe(with_data=False)

    def __str__(self):
        return self._describe(with_data=True)

    def _describe(self, with_data):
        data = None
        if with_data:
            with np.printoptions(**_PRINT):
                data = str(self._array)
        return _description("TensorCPU", data, self.dtype,
                            self._layout, f"shape={tuple(self._array.shape)}")


class _TensorList:
    """What the host and device batch types share: the storage (`BatchStorage` or the GPU's
    `DeviceBatch`, both with dtype, ndim, num_samples and shapes), layout and source info."""

    __slots__ = ("_storage", "_layout", "_source_info")

    @classmethod
    def _wrap(cls, storage, layout="", source_info=None):
        tl = cls.__new__(cls)
        tl._storage = storage
        tl._layout = layout
        tl._source_info = source_info
        return tl

    @property
    def dtype(self) -> _types.DALIDataType:
        return _types.dali_type_of(self._storage.dtype)

    def ndim(self) -> int:
        return self._storage.ndim

    def shape(self) -> list:
        return [tuple(int(x) for x in s) for s in self._storage.shapes]

    def layout(self) -> str:
        return self._layout

    def set_layout(self, layout):
        self._layout = _check_layout(layout, self._storage.ndim, "TensorList")

    def __len__(self):
        return self._storage.num_samples

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def source_info(self, i=None):
        if self._source_info is None:
            return "" if i is not None else [""] * len(self)
        return self._source_info[i] if i is not None else list(self._source_info)


class TensorListCPU(_TensorList):
    """A batch of samples on the host.

    Parameters
    ----------
    data : ndarray, list of arrays / TensorCPU, TensorListCPU or DLPack producer
        An array's outer dimension is the batch.  A list of samples is copied into one
        contiguous block.
    layout : str, optional
        Layout of each sample (no batch dimension).
    """

    __slots__ = ()

    def __init__(self, data=None, layout=None, is_pinned=False, contiguous=True):
        if isinstance(data, TensorListCPU):
            storage = data._storage
            layout = data._layout if layout is None else layout
        elif isinstance(data, (list, tuple)):
            if data and layout is None and isinstance(data[0], TensorCPU):
                layout = data[0].layout()
            arrays = [np.asarray(x) for x in data]
            storage = (BatchStorage.from_arrays(arrays) if contiguous
                       else BatchStorage.from_samples(arrays))
        else:
            arr = np.asarray(_from_producer(data))
            if arr.ndim == 0:
                raise ValueError("TensorListCPU needs at least one (batch) dimension")
            storage = BatchStorage.from_dense(arr)
        if storage.dtype.kind not in "biuf":
            raise TypeError(f"TensorListCPU: unsupported element type {storage.dtype}")
        self._storage = storage
        self._layout = _check_layout(layout, storage.ndim, "TensorList")
        self._source_info = None

    @classmethod
    def broadcast(cls, tensor, num_samples):
        """A batch of `num_samples` copies of `tensor`."""
        arr = np.asarray(tensor)
        layout = tensor.layout() if isinstance(tensor, TensorCPU) else ""
        return cls(np.ascontiguousarray(np.broadcast_to(arr, (num_samples,) + arr.shape)), layout)

    @classmethod
    def from_dlpack_list(cls, capsules, layout=None):
        return cls([_from_producer(c) for c in capsules], layout)

    # -- properties DALI users read (the others: _TensorList) ---------------------------------
    def is_dense_tensor(self) -> bool:
        return self._storage.is_contiguous and self._storage.is_uniform()

    def data_ptr(self) -> int:
        if not self._storage.is_contiguous:
            raise RuntimeError("data_ptr() needs contiguous storage")
        return self._storage.data_ptr

    def __getitem__(self, i):
        n = self._storage.num_samples
        if isinstance(i, slice):
            idx = range(*i.indices(n))
            info = None if self._source_info is None else [self._source_info[k] for k in idx]
            return TensorListCPU._wrap(
                BatchStorage.from_samples([self._storage.sample(k) for k in idx]),
                self._layout, info)
        if not isinstance(i, (int, np.integer)):
            raise TypeError(f"TensorListCPU indices must be integers or slices, not "
                            f"{type(i).__name__}")
        if i < -n or i >= n:
            raise IndexError("TensorListCPU index out of range")
        i = int(i) % n if n else 0
        return TensorCPU._view(self._storage.sample(i), self._layout, self.source_info(i))

    def at(self, i) -> np.ndarray:
        """Sample i as a numpy array (a copy)."""
        return np.array(self[i]._array)

    def as_array(self) -> np.ndarray:
        """The whole batch as one numpy array (a copy); needs uniform shapes."""
        dense = self._dense()
        if dense is None:
            raise RuntimeError(
                "Cannot produce a numpy array: the tensors in the list do not all have the "
                "same shape. Pad or crop the samples to a common shape, or check "
                "is_dense_tensor() beforehand.")
        return np.array(dense)

    def as_tensor(self) -> TensorCPU:
        """The batch as one TensorCPU view (layout prefixed with "N"); needs a dense batch."""
        dense = self._dense() if self._storage.is_contiguous else None
        if dense is None:
            raise RuntimeError(
                "The batch must be representable as a tensor - it must have uniform shape and "
                "be allocated in contiguous memory.")
        return TensorCPU._view(dense, "N" + self._layout if self._layout else "")

    def as_reshaped_tensor(self, shape) -> TensorCPU:
        return TensorCPU._view(self.as_tensor()._array.reshape(shape), "")

    def as_cpu(self) -> TensorListCPU:
        return self

    def reinterpret(self, dtype):
        dt = _types.dtype_of(dtype)
        _check_reinterpret(self._storage.dtype, dt)
        samples = [s.view(dt) for s in self._storage.samples()]
        self._storage = BatchStorage.from_samples(samples) if samples else self._storage

    def reset(self):
        self._storage = BatchStorage.allocate(self._storage.dtype, [], ndim=self._storage.ndim)
        self._source_info = None

    def copy_to_external(self, ptr):
        _copy_to_address(self._dense_or_concat(), ptr)

    # -- helpers ------------------------------------------------------------------------------
    def _dense(self):
        st = self._storage
        if not st.is_uniform():
            return None
        if st.is_contiguous:
            return st.dense()
        return np.stack(st.samples()) if len(st.samples()) else np.empty((0,), st.dtype)

    def _dense_or_concat(self):
        samples = self._storage.samples()
        if not samples:
            return np.empty((0,), self._storage.dtype)
        return np.concatenate([s.reshape(-1) for s in samples])

    @property
    def __array_interface__(self):
        dense = self._dense() if self._storage.is_contiguous else None
        if dense is None:
            raise TypeError("a non-dense TensorListCPU has no array interface; use at(i)")
        return dense.__array_interface__

    def __array__(self, dtype=None, copy=None):
        dense = self._dense()
        if dense is None:
            raise TypeError("a non-dense TensorListCPU cannot be converted to one array; "
                            "use at(i) or as_array() after padding")
        return np.array(dense, dtype=dtype) if copy or dtype is not None else dense

    def __repr__(self):
        return self._describe(with_data=False)

    def __str__(self):
        return self._describe(with_data=True)

    def _describe(self, with_data):
        data = None
        samples = self._storage.samples()
        if with_data:
            sep = ",\n" + "\n" * max(0, self._storage.ndim - 1)
            limit = _MAX_SAMPLES if sum(x.size for x in samples) > _PRINT["threshold"] \
                else len(samples)
            shown = samples if len(samples) <= limit else [*samples[:2], "...", *samples[-2:]]
            with np.printoptions(**_PRINT):
                data = "[" + sep.join(str(x) for x in shown) + "]"
        shapes = _edges(self.shape(), _MAX_SHAPES)
        one_line = "[" + ", ".join(shapes) + "]"
        shapes = one_line if len(one_line) <= _SHAPES_WIDTH else \
            "[" + ", \n           ".join(shapes) + "]"     # aligned under `shape=[`
        return _description("TensorListCPU", data, self.dtype, self._layout,
                            f"num_samples={len(self)}", f"shape={shapes}")


def __getattr__(name):
    """The GPU tensor types (`dali._gpu.tensors`), imported on first use."""
    if name in ("TensorGPU", "TensorListGPU"):
        from dali._gpu import tensors as gpu_tensors

        return getattr(gpu_tensors, name)
    raise AttributeError(f"module 'dali.tensors' has no attribute '{name}'")


def storage_of(tl: TensorListCPU) -> BatchStorage:
    """The storage behind a batch: the internal API operators use to reach its memory.

    `BatchStorage` (`_ext/tensor_storage.pxd`) has `dtype` (numpy), `ndim`, `num_samples`,
    `shapes` (int64 array), `offsets` and `base` (None for per-sample storage), `samples()`
    (numpy views), `is_contiguous`, `contiguous()`, `dense` (the (n, *shape) view of a uniform
    batch) and `uniform_shape()`.  `TensorListCPU._wrap(storage, layout, source_info)` makes a
    batch of a storage without copying.
    """
    return tl._storage


def _copy_to_address(array, ptr):
    src = np.require(array, requirements="C")
    ctypes.memmove(int(ptr), src.ctypes.data, src.nbytes)
