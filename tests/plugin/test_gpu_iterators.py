"""The framework plugins with GPU pipelines (on the emulated device, `emulated_gpu` of
tests/conftest.py): the JAX iterator takes GPU outputs through DLPack, feed_ndarray checks the
devices.  Here, not in tests/gpu, so that torch and JAX are imported after the tests that fork
worker processes."""

import numpy as np
import pytest

from dali import fn, pipeline_def
from dali.tensors import TensorListCPU


def _images(seed, n):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 255, (int(rng.integers(5, 40)), int(rng.integers(5, 40)), 3))
            .astype(np.uint8) for _ in range(n)]


def _flipped_on_gpu(data):
    """A pipeline on device 0 whose output is `data` (a batch of 2) flipped on the GPU."""
    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def pipe():
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        return fn.flip(x.gpu())

    return pipe()


def test_jax_iterator_takes_gpu_outputs_through_dlpack(emulated_gpu):
    pytest.importorskip("jax")
    from dali.plugin.jax import DALIGenericIterator

    data = _images(10, 1) * 2
    with pytest.warns(Warning, match="Please set `reader_name`"):
        it = DALIGenericIterator([_flipped_on_gpu(data)], ["images"], size=2)
    batch = next(iter(it))["images"]
    np.testing.assert_array_equal(np.asarray(batch), np.stack(data)[:, :, ::-1])


def test_feed_ndarray_refuses_a_target_on_the_other_device(emulated_gpu):
    torch = pytest.importorskip("torch")
    from dali.plugin.pytorch import feed_ndarray
    from dali.tensors import TensorListGPU

    tl = TensorListGPU(TensorListCPU(np.zeros((2, 3), np.float32)))
    with pytest.raises(RuntimeError, match="the DALI tensor is on the GPU but the target is a "
                                           "cpu tensor"):
        feed_ndarray(tl, torch.empty((2, 3), dtype=torch.float32))


@pytest.mark.gpu
def test_pytorch_iterator_gives_cuda_tensors_of_the_gpu_outputs():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("this torch has no CUDA")
    from dali.plugin.pytorch import DALIGenericIterator

    data = _images(11, 1) * 2
    with pytest.warns(Warning, match="Please set `reader_name`"):
        it = DALIGenericIterator([_flipped_on_gpu(data)], ["images"], size=2)
    batch = next(iter(it))[0]["images"]
    assert batch.device.type == "cuda" and batch.device.index == 0
    np.testing.assert_array_equal(batch.cpu().numpy(), np.stack(data)[:, :, ::-1])
