"""The operators real DALI 2.4 has on the GPU only (median_blur, dilate, erode, remap,
experimental.resize, decoders.inflate, optical_flow, readers.video, readers.video_resize and
their deprecated names): registered with DALI's complete schemas (`Schema(cpu=False)`) so that
graphs using them are defined, serialized and documented as in DALI; building one on the CPU
raises DALI's error for an operator that has no CPU backend, naming the operator.  Those with a
GPU backend (median_blur, dilate, erode, remap, experimental.resize, decoders.inflate,
readers.video) define `run_gpu` and build on the GPU; the others raise the same error on the
GPU until their kernel is written (docs/gpu.md).
"""

from __future__ import annotations

import dataclasses

from dali import _operator


class GpuOnly(_operator.Operator):
    """Base of the GPU-only operators: building one raises DALI's error."""

    registered_as = None
    """The schema name DALI's error names when it is not the operator's own (a deprecated
    name whose DALI schema is an alias of another: experimental.inflate)."""

    def setup(self):
        kernel = type(self).run_gpu is not _operator.Operator.run_gpu
        if self.spec.device == "gpu" and kernel:
            return
        schema = self.spec.schema
        name = self.registered_as or schema.dali_schema_name
        raise RuntimeError(
            f"Operator \"{name}\" not registered for {self.spec.device}. "
            f"{schema.display_name} runs on the GPU only in DALI 2.4"
            + ("." if kernel else ", and dali has no GPU kernel for it yet."))


def gpu_doc(doc, kernel=False):
    """An operator's doc with the note every GPU-only operator carries (`kernel`: it has its GPU
    kernel)."""
    gpu = ("runs on the GPU" if kernel else
           "raises the same error on the GPU until its kernel is written")
    return (f"{doc}\n\nGPU only (as in DALI 2.4): dali records and serializes it; building "
            "a pipeline that uses it raises DALI's \"not registered for cpu\" error on the "
            f"CPU, and it {gpu}.")


def as_declared(args):
    """CPU operators' argument declarations reused as DALI's plain schema: no argument of an
    operator that never runs here is 'ignored' or 'not implemented'."""
    return [dataclasses.replace(a, ignored="", implemented=True) for a in args]
