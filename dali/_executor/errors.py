"""Errors raised while a pipeline runs, naming the operator, the user's line and the sample.

An operator error costs exactly one batch: the message names the first failing sample, every
failing sample the operator found, and the samples of the batch that is lost, and says that the
pipeline goes on with the next batch (the scheduler keeps the batches already prefetched; see
docs/executor.md, "Errors").
"""

from __future__ import annotations

import functools

from dali._graph import origin

_LISTED = 16                  # samples named in a message before "... and N more"
_INFO_CHARS = 80              # a longer source_info keeps its end (the file name)


class SampleError(Exception):
    """Raised by an operator about one sample; the executor adds the operator and file.

    Parameters
    ----------
    index : int
        The first failing sample of the batch (the one the message is about).
    message : str
    exc_type : type
    failures : sequence of (int, str)
        Every failing sample of the batch with its message, in sample order, when the operator
        checked more than the first; empty otherwise.
    """

    def __init__(self, index, message, exc_type=ValueError, failures=()):
        super().__init__(message)
        self.index = index
        self.exc_type = exc_type
        self.failures = tuple(failures)


class PipelineError(RuntimeError):
    """An operator failed while the pipeline ran.

    The error raised is of a subclass that also derives from the class of the operator's own
    exception where that is a plain built-in one (`ValueError` for an integer division by zero,
    `OverflowError` for an out-of-range constant, as DALI raises them), so `except ValueError`
    written against DALI catches it, and so does `except RuntimeError`, DALI's class for the
    rest.

    Attributes
    ----------
    operator : str
        Instance name of the failing operator.
    sample : int or None
        Index of the first failing sample in its batch, where known.
    source_info : str
        That sample's origin (usually its file), where known.
    failed_samples : tuple of int
        Every failing sample the operator reported (`(sample,)` when it reported one).
    batch_source_info : list of str
        The source_info of every sample of the lost batch (empty strings where unknown).
    """

    __str__ = RuntimeError.__str__      # the message as is, also where KeyError is mixed in

    def __init__(self, message, operator=None, sample=None, source_info="", failed_samples=(),
                 batch_source_info=()):
        super().__init__(message)
        self.operator = operator
        self.sample = sample
        self.source_info = source_info
        self.failed_samples = tuple(failed_samples)
        self.batch_source_info = list(batch_source_info)


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


def operator_error(spec, exc, sample=None, source_info="", batch_info=None, batch_size=None):
    """A PipelineError describing `exc` raised by the operator of `spec`.

    Parameters
    ----------
    sample, source_info
        The first failing sample and its origin, when the error is about one sample.
    batch_info : list of str or None
        The source_info of every sample of the failed batch (None: the operator has no input).
    batch_size : int or None
        Samples in the failed batch.
    """
    backend = {"cpu": "CPU", "gpu": "GPU", "mixed": "Mixed"}[spec.device]
    where = origin.format_stack(spec.origin) if spec.origin else "  (unknown location)"
    what = str(exc) if not isinstance(exc, SampleError) else exc.args[0]
    if not isinstance(exc, SampleError) and type(exc) not in (ValueError, RuntimeError):
        what = f"{type(exc).__name__}: {what}"
    if sample is not None:
        what += f"\n(in sample {sample} of the batch"
        what += f", from '{shorten(source_info)}')" if source_info else ")"
    infos = list(batch_info) if batch_info is not None else [""] * (batch_size or 0)
    failures = exc.failures if isinstance(exc, SampleError) else ()
    if len(failures) > 1:
        what += "\nFailing samples of the batch:" + _listing(
            [f"  {i}{_quoted(infos, i)}: {message}" for i, message in failures], "\n")
    msg = (f"Critical error in pipeline:\nError in {backend} operator "
           f"`{spec.display_name}` (instance \"{spec.name}\"),\n"
           f"which was used in the pipeline definition with the following traceback:\n"
           f"{where}\nencountered:\n{what}\n{_lost(infos, batch_size)}"
           "The pipeline stays usable: the next run() returns the next batch.")
    failed = tuple(i for i, _ in failures) or ((sample,) if sample is not None else ())
    cause = exc.exc_type if isinstance(exc, SampleError) else type(exc)
    return error_class(cause)(msg, spec.name, sample, source_info, failed, infos)


# built-in classes an operator error keeps (the ones DALI raises, and their plain relatives);
# others (OSError and its subclasses, with their own constructor) give a plain PipelineError
_KEPT = (ValueError, TypeError, OverflowError, ZeroDivisionError, ArithmeticError, IndexError,
         KeyError, LookupError, NotImplementedError, AttributeError, AssertionError)


@functools.cache
def error_class(cause):
    """The PipelineError class for an operator exception of class `cause`: one deriving from
    both PipelineError and `cause` where `cause` is one of the built-in classes kept, else
    PipelineError."""
    if cause not in _KEPT:
        return PipelineError
    return type(f"PipelineError_{cause.__name__}", (PipelineError, cause),
                {"__module__": __name__, "__qualname__": "PipelineError",
                 "__doc__": f"A PipelineError that is also a {cause.__name__}."})
    try:
        return type(f"PipelineError_{cause.__name__}", (PipelineError, cause),
                    {"__module__": __name__, "__qualname__": "PipelineError",
                     "__doc__": f"A PipelineError that is also a {cause.__name__}."})
    except TypeError:          # instance layout conflict (OSError, StopIteration, ...)
        return PipelineError


def shorten(text, limit=_INFO_CHARS):
    """`text`, or "..." and its last `limit - 3` characters when longer (paths end in the
    part that tells files apart)."""
    return text if len(text) <= limit else "..." + text[len(text) - limit + 3:]


def _quoted(infos, i):
    return f" '{shorten(infos[i])}'" if i < len(infos) and infos[i] else ""


def _listing(items, sep):
    shown = items[:_LISTED]
    more = f"{sep}... and {len(items) - len(shown)} more" if len(items) > len(shown) else ""
    return sep + sep.join(shown) + more


def _lost(infos, batch_size):
    """The line naming the samples of the lost batch ('' when its size is unknown)."""
    if batch_size is None:
        return ""
    if not any(infos):
        return f"This batch of {batch_size} samples is lost.\n"
    items = [f"{i}{_quoted(infos, i)}" for i in range(len(infos))]
    return f"This batch of {batch_size} samples is lost:{_listing(items, ', ')[1:]}.\n"
