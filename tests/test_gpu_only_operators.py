"""The operators real DALI 2.4 has on the GPU only: their schemas match DALI's, graphs using
them are defined and serialized, and building one raises DALI's error naming the operator."""

import importlib
import inspect
import warnings

import numpy as np
import pytest

from dali import _registry, fn, pipeline_def
from dali.pipeline import experimental

GPU_ONLY = ["experimental.median_blur", "experimental.dilate", "experimental.erode",
            "experimental.remap", "experimental.resize", "experimental.inflate",
            "decoders.inflate", "optical_flow", "readers.video", "readers.video_resize",
            "video_reader", "video_reader_resize"]
WITH_KERNEL = {"experimental.median_blur", "experimental.dilate", "experimental.erode",
               "experimental.remap", "experimental.resize", "decoders.inflate",
               "experimental.inflate", "readers.video", "video_reader", "readers.video_resize",
               "video_reader_resize"}
SCHEMA_NAMES = {"experimental.median_blur": "experimental__MedianBlur",
                "experimental.inflate": "decoders__Inflate",
                "readers.video_resize": "readers__VideoResize",
                "video_reader": "VideoReader", "optical_flow": "OpticalFlow"}


def lookup(module, path):
    for part in path.split("."):
        module = getattr(module, part)
    return module


def call(fn_module, name, x):
    """A call with DALI's required arguments."""
    if name.startswith(("readers.video", "video_reader")):
        return lookup(fn_module, name)(filenames=["clip.mp4"], sequence_length=2)
    if name == "experimental.remap":
        return lookup(fn_module, name)(x, x, x)
    if name.endswith("inflate"):
        return lookup(fn_module, name)(x, shape=[2, 2])
    return lookup(fn_module, name)(x)


def graph(name, fn_module=fn, pipeline_def=pipeline_def):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn_module.external_source(lambda: [np.zeros((4, 4, 3), np.uint8)], layout="HWC")
        out = call(fn_module, name, x)
        return out[0] if isinstance(out, list) else out
    return pipe()


def test_the_list_is_every_gpu_only_operator():
    gpu_only = {n for n, impl in _registry.all_operators().items() if not impl.schema.cpu}
    assert gpu_only == set(GPU_ONLY)
    for name in GPU_ONLY:
        assert lookup(fn, name)._schema.devices == ("gpu",)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", GPU_ONLY)
def test_defined_serialized_and_refused_at_build(name):
    pipe = graph(name)
    assert pipe.serialize()
    schema = SCHEMA_NAMES.get(name, lookup(fn, name)._schema_name)
    with pytest.raises(RuntimeError) as e:
        pipe.build()
    msg = str(e.value)
    assert f'Operator "{schema}" not registered for cpu.' in msg
    assert f"dali.fn.{name} runs on the GPU only in DALI 2.4" in msg
    assert ("dali has no GPU kernel for it yet" in msg) == (name not in WITH_KERNEL)


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", GPU_ONLY)
def test_real_dali_refuses_them_the_same_way(name):
    nd = pytest.importorskip("nvidia.dali")
    pipe = graph(name, nd.fn, nd.pipeline_def)
    schema = SCHEMA_NAMES.get(name, lookup(fn, name)._schema_name)
    with pytest.raises(RuntimeError, match=f'Operator "{schema}" not registered for cpu.'):
        pipe.build()


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", GPU_ONLY)
def test_arguments_and_defaults_match_real_dali(name):
    real = importlib.import_module("nvidia.dali.fn")
    ours = inspect.signature(lookup(fn, name)).parameters
    theirs = inspect.signature(lookup(real, name)).parameters
    # DALI's signatures leave out removed and renamed arguments (image_type, output_format);
    # on_error is dali's own (not in DALI 2.4)
    hidden = {k for k, p in ours.items() if k not in theirs and
              (lookup(fn, name)._schema.arg_map[k].deprecated or k == "on_error")}
    assert {k: str(p.default) for k, p in ours.items() if k not in hidden} == \
        {k: str(p.default) for k, p in theirs.items()}


@pytest.mark.oracle
def test_serialized_graph_is_real_dalis():
    nd = pytest.importorskip("nvidia.dali")
    serialized = graph("experimental.dilate").serialize()
    with pytest.raises(RuntimeError, match='Operator "experimental__Dilate" not registered'):
        nd.Pipeline.deserialize(serialized, device_id=None).build()   # deserialize builds


@pytest.mark.parametrize("kwargs, outputs", [
    ({}, 1), ({"labels": []}, 2), ({"file_root": "videos"}, 2),
    ({"labels": [1], "enable_frame_num": True, "enable_timestamps": True}, 4),
    ({"enable_frame_num": "sequence"}, 2), ({"enable_frame_num": False}, 1),
])
def test_video_reader_outputs(kwargs, outputs):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        out = fn.readers.video(sequence_length=2, filenames=["a.mp4"], **kwargs)
        assert len(out) == outputs if isinstance(out, list) else outputs == 1
        return out[0] if isinstance(out, list) else out
    pipe()


def test_debug_mode_refuses_them():
    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(lambda: [np.zeros((4, 4, 3), np.uint8)], layout="HWC")
        return fn.experimental.erode(x)

    with pytest.raises(RuntimeError, match='"experimental__Erode" not registered for cpu'):
        pipe().run()


def test_deprecated_names_warn():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError):
            graph("video_reader_resize").build()
    assert any("`dali.fn.video_reader_resize` is now deprecated" in str(x.message) for x in w)


def test_gpu_device_needs_the_gpu_backend():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: [np.zeros((4, 4, 3), np.uint8)], layout="HWC")
        return fn.experimental.median_blur(x, device="gpu")

    with pytest.raises(RuntimeError, match="no GPU backend"):
        pipe().build()


def test_documented_as_gpu_only():
    assert "GPU only (as in DALI 2.4)" in fn.optical_flow.__doc__
    assert "until its kernel is written" in fn.optical_flow.__doc__
    assert "and it runs on the GPU." in fn.experimental.dilate.__doc__
    assert " * 'gpu'" in fn.readers.video.__doc__ and " * 'cpu'" not in fn.readers.video.__doc__
