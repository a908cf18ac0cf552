"""Errors raised while a pipeline runs, naming the operator, the user's line and the sample."""

from __future__ import annotations

from dali._graph import origin


class SampleError(Exception):
    """Raised by an operator about one sample; the executor adds the operator and file."""

    def __init__(self, index, message, exc_type=ValueError):
        super().__init__(message)
        self.index = index
        self.exc_type = exc_type


class PipelineError(RuntimeError):
    """An operator failed while the pipeline ran.

    Attributes
    ----------
    operator : str
        Instance name of the failing operator.
    sample : int or None
        Index of the failing sample in its batch, where known.
    source_info : str
        That sample's origin (usually its file), where known.
    """

    def __init__(self, message, operator=None, sample=None, source_info=""):
        super().__init__(message)
        self.operator = operator
        self.sample = sample
        self.source_info = source_info


def build_error(spec, exc):
    """`exc`, raised by the operator of `spec` while the pipeline was built, as the same
    exception type with DALI's framing: the operator and the user's line that created it."""
    where = origin.format_stack(spec.origin) if spec.origin else "  (unknown location)"
    backend = {"cpu": "CPU", "gpu": "GPU", "mixed": "Mixed"}[spec.device]
    msg = (f"Critical error when building pipeline:\nError in {backend} operator "
           f"`{spec.display_name}` (instance \"{spec.name}\"),\n"
           f"which was used in the pipeline definition with the following traceback:\n"
           f"{where}\nencountered:\n{exc}")
    try:
        return type(exc)(msg)
    except Exception:
        return RuntimeError(msg)


def operator_error(spec, exc, sample=None, source_info=""):
    """A PipelineError describing `exc` raised by the operator of `spec`."""
    backend = {"cpu": "CPU", "gpu": "GPU", "mixed": "Mixed"}[spec.device]
    where = origin.format_stack(spec.origin) if spec.origin else "  (unknown location)"
    what = str(exc) if not isinstance(exc, SampleError) else exc.args[0]
    if not isinstance(exc, (SampleError, ValueError, RuntimeError, OSError)) or \
            type(exc).__module__ not in ("builtins", __name__):
        what = f"{type(exc).__name__}: {what}"
    if sample is not None:
        what += f"\n(in sample {sample} of the batch"
        what += f", from '{source_info}')" if source_info else ")"
    msg = (f"Critical error in pipeline:\nError in {backend} operator "
           f"`{spec.display_name}` (instance \"{spec.name}\"),\n"
           f"which was used in the pipeline definition with the following traceback:\n"
           f"{where}\nencountered:\n{what}\n"
           "The pipeline can be used again after pipe.reset().")
    return PipelineError(msg, spec.name, sample, source_info)
