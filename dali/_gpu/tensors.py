"""TensorGPU and TensorListGPU: the device tensor types GPU pipelines return.

A TensorListGPU is a batch in device memory (a `DeviceBatch`); `tl[i]` and `tl.at(i)` are
TensorGPU views of sample i, `as_tensor()` a TensorGPU view of a dense batch, `as_cpu()` a
host copy.  A TensorGPU exposes `__cuda_array_interface__` and `__dlpack__`, so CuPy, PyTorch
and JAX take it without a copy (`torch.as_tensor(t, device="cuda")`, `cupy.asarray(t)`,
`torch.from_dlpack(t)`).  As in DALI, a TensorListGPU has neither: take `as_tensor()` or its
samples.  Outputs are handed out after the pipeline's stream has finished the iteration, so
they are ready on any stream.
"""

from __future__ import annotations

import numpy as np

from dali import _types
from dali._gpu.batch import DeviceBatch
from dali.tensors import TensorCPU, TensorListCPU, _check_layout, _TensorList

_KDLCUDA = 2


def _description(kind, dtype, layout, device_id, *fields):
    lines = [f"dtype={dtype}"]
    if layout:
        lines.append(f'layout="{layout}"')
    lines += ['device="gpu"', f"device_id={device_id}", *fields]
    return f"{kind}(\n    " + ",\n    ".join(lines) + ")"


class TensorGPU:
    """One sample in device memory (a view into a batch's buffer)."""

    __slots__ = ("_device", "_buffer", "_offset", "_shape", "_dtype", "_layout", "_source_info")

    @classmethod
    def _view(cls, device, buffer, offset, shape, dtype, layout="", source_info=""):
        t = cls.__new__(cls)
        t._device, t._buffer, t._offset = device, buffer, int(offset)
        t._shape, t._dtype = tuple(int(x) for x in shape), np.dtype(dtype)
        t._layout, t._source_info = layout, source_info
        return t

    @property
    def dtype(self) -> _types.DALIDataType:
        return _types.dali_type_of(self._dtype)

    def device_id(self) -> int:
        return self._device.device_id

    @property
    def stream(self) -> int:
        """The handle of the pipeline's CUDA stream (0 where there is none)."""
        return getattr(getattr(self._device, "stream", None), "ptr", 0)

    def shape(self) -> list:
        return list(self._shape)

    def ndim(self) -> int:
        return len(self._shape)

    def layout(self) -> str:
        return self._layout

    def set_layout(self, layout):
        self._layout = _check_layout(layout, len(self._shape), "Tensor")

    def source_info(self) -> str:
        return self._source_info

    def get_property(self, key):
        if key == "source_info":
            return self._source_info
        if key == "layout":
            return self._layout
        raise ValueError(f"Unknown property '{key}'; known: 'source_info', 'layout'")

    def reinterpret(self, dtype):
        """View the bytes as another type of the same size."""
        dt = _types.dtype_of(dtype)
        if dt.itemsize != self._dtype.itemsize:
            raise RuntimeError("Cannot reinterpret the tensor as having a different element "
                               "size.")
        self._dtype = dt

    def data_ptr(self) -> int:
        return self._buffer.ptr + self._offset

    def _nbytes(self):
        return int(np.prod(self._shape, dtype=np.int64)) * self._dtype.itemsize

    def as_cpu(self) -> TensorCPU:
        """A host copy."""
        raw = self._device.download(self.data_ptr(), self._nbytes())
        return TensorCPU._view(raw.view(self._dtype).reshape(self._shape), self._layout,
                               self._source_info)

    def copy_to_external(self, ptr):
        """Copy the data to device address `ptr` (on the pipeline's stream, then waited for)."""
        self._device.copy(int(ptr), self.data_ptr(), self._nbytes())
        self._device.wait()

    @property
    def __cuda_array_interface__(self):
        return {"shape": self._shape, "typestr": self._dtype.str, "descr": [("", self._dtype.str)],
                "data": (self.data_ptr(), False), "strides": None, "version": 3}

    def _array(self):
        return self._device.array(self._buffer, self._offset, self._shape, self._dtype)

    def __dlpack__(self, *args, **kwargs):
        return self._array().__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._array().__dlpack_device__()

    def __repr__(self):
        return _description("TensorGPU", self.dtype, self._layout, self.device_id(),
                            f"shape={self._shape}")

    __str__ = __repr__


class TensorListGPU(_TensorList):
    """A batch of samples in device memory.

    Parameters
    ----------
    data : TensorListCPU, TensorListGPU, or list of TensorGPU
        A host batch is uploaded to device `device_id` (default 0); device data is copied.
    layout : str, optional
    device_id : int, optional
    """

    __slots__ = ()

    def __init__(self, data=None, layout=None, device_id=None):
        from dali._gpu import runtime

        if isinstance(data, TensorListGPU):
            storage, layout = data._storage, data._layout if layout is None else layout
        elif isinstance(data, (list, tuple)) and data and all(
                isinstance(t, TensorGPU) for t in data):
            dev = data[0]._device
            storage = DeviceBatch.empty(dev, data[0]._dtype, [t._shape for t in data])
            for i, t in enumerate(data):
                if t._dtype != storage.dtype:
                    raise TypeError("TensorListGPU: the tensors have different types")
                dev.copy(storage.sample_ptr(i), t.data_ptr(), t._nbytes())
            layout = data[0]._layout if layout is None else layout
        else:
            host = data if isinstance(data, TensorListCPU) else TensorListCPU(data, layout)
            dev = runtime.device(0 if device_id is None else device_id)
            storage = DeviceBatch.from_host(dev, host._storage)
            dev.fence().wait()      # the staging goes back now: no executor fences this thread
            layout = host.layout() if layout is None else layout
        self._storage = storage
        self._layout = _check_layout(layout, storage.ndim, "TensorList")
        self._source_info = None

    def device_id(self) -> int:
        return self._storage.device.device_id

    @property
    def stream(self) -> int:
        """The handle of the pipeline's CUDA stream (0 where there is none)."""
        return getattr(getattr(self._storage.device, "stream", None), "ptr", 0)

    def reinterpret(self, dtype):
        """View the bytes as another type of the same size."""
        dt = _types.dtype_of(dtype)
        if dt.itemsize != self._storage.dtype.itemsize:
            raise RuntimeError("Cannot reinterpret the tensor as having a different element "
                               "size.")
        self._storage = self._storage.viewed_as(dt, self._storage.shapes)

    def is_dense_tensor(self) -> bool:
        st = self._storage
        return not st.num_samples or bool((st.shapes == st.shapes[0]).all())

    def data_ptr(self) -> int:
        return self._storage.ptr

    def __getitem__(self, i):
        n = self._storage.num_samples
        if not isinstance(i, (int, np.integer)):
            raise TypeError(f"TensorListGPU indices must be integers, not {type(i).__name__}")
        if i < -n or i >= n:
            raise IndexError("TensorListGPU index out of range")
        i = int(i) % n
        st = self._storage
        return TensorGPU._view(st.device, st.buffer, st.offsets[i], st.shape_of(i), st.dtype,
                               self._layout, self.source_info(i))

    def at(self, i) -> TensorGPU:
        """Sample i (a TensorGPU view, as in DALI)."""
        return self[i]

    def as_tensor(self) -> TensorGPU:
        """The batch as one TensorGPU view (layout prefixed with "N"); needs uniform shapes."""
        if not self.is_dense_tensor():
            raise RuntimeError(
                "The batch must be representable as a tensor - it must have uniform shape and "
                "be allocated in contiguous memory.")
        st = self._storage
        shape = (st.num_samples, *(st.shape_of(0) if st.num_samples else (0,) * st.ndim))
        return TensorGPU._view(st.device, st.buffer, 0, shape, st.dtype,
                               "N" + self._layout if self._layout else "")

    def as_reshaped_tensor(self, shape) -> TensorGPU:
        t = self.as_tensor()
        if int(np.prod(shape, dtype=np.int64)) != int(np.prod(t._shape, dtype=np.int64)):
            raise ValueError(f"cannot reshape a tensor of shape {t._shape} to {tuple(shape)}")
        return TensorGPU._view(t._device, t._buffer, 0, shape, t._dtype)

    def as_cpu(self) -> TensorListCPU:
        """A host copy (waits for the pipeline's stream)."""
        return TensorListCPU._wrap(self._storage.to_host(), self._layout, self._source_info)

    def copy_to_external(self, ptr):
        st = self._storage
        st.device.copy(int(ptr), st.ptr, st.nbytes)
        st.device.wait()

    def __repr__(self):
        return _description("TensorListGPU", self.dtype, self._layout, self.device_id(),
                            f"num_samples={len(self)}", f"shape={self.shape()}")

    __str__ = __repr__
