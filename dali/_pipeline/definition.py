"""`@pipeline_def`: turn a graph-defining function into a pipeline factory.

Calling the decorated function creates a Pipeline and runs the function inside `with pipe:`,
so operator errors that DALI reports at definition appear at that call.  Call-time keyword
arguments go to the function when it takes them (a warning is printed when one also names a
Pipeline constructor argument: the function wins), otherwise to the Pipeline constructor,
overriding the decorator's.
"""

from __future__ import annotations

import functools
import inspect

from dali import _autograph as autograph
from dali._debug import parity
from dali._debug import pipeline as debug_pipeline
from dali._pipeline import pipeline as _pipeline

_CTOR_ARGS = set(inspect.signature(_pipeline.Pipeline.__init__).parameters) - {"self"}


def _takes(spec, name):
    return name in spec.args or name in spec.kwonlyargs


def split_kwargs(func, kwargs):
    """(Pipeline constructor kwargs, function kwargs) of a call of the decorated function."""
    spec = inspect.getfullargspec(func)
    if spec.varkw is not None:
        raise TypeError(f"Using variadic keyword argument `**{spec.varkw}` in a  "
                        "graph-defining function is not allowed.")
    kwargs = dict(kwargs)
    for special in ("debug", "enable_conditionals"):
        if not _takes(spec, special):
            kwargs.pop(special, None)
    ctor, fn = {}, {}
    for k, v in kwargs.items():
        if _takes(spec, k):
            fn[k] = v
            if k in _CTOR_ARGS:
                print(f"Warning: the argument `{k}` shadows a Pipeline constructor argument of "
                      "the same name.")
        elif k in _CTOR_ARGS:
            ctor[k] = v
        else:
            raise TypeError(f"{func.__name__}() got an unexpected keyword argument '{k}': it is "
                            "neither a parameter of the function nor a Pipeline argument")
    return ctor, fn


def _factory(func, pipeline_kwargs, enable_conditionals, debug):
    if getattr(func, "_dali_do_not_convert", False):
        raise ValueError("Pipeline definition cannot be marked with @do_not_convert.")

    @functools.wraps(func)
    def create_pipeline(*args, **kwargs):
        conditionals = kwargs.get("enable_conditionals", enable_conditionals)
        # Only the experimental decorator (debug is not None) has debug mode; the plain one
        # drops a call-time `debug=` like DALI does.
        debug_on = debug is not None and kwargs.get("debug", debug)
        ctor, fn_kwargs = split_kwargs(func, kwargs)
        body = autograph.convert_pipeline_function(func) if conditionals else func
        definition = parity.Definition(body, args, fn_kwargs, {**pipeline_kwargs, **ctor},
                                       conditionals)
        if debug_on:
            return debug_pipeline.DebugPipeline(definition, **definition.ctor)
        pipe = _pipeline.Pipeline(**definition.ctor)
        pipe._define(definition)
        return pipe

    create_pipeline._is_pipeline_def = True
    return create_pipeline


def pipeline_def(fn=None, *, enable_conditionals=False, **pipeline_kwargs):
    """Decorator: make a function that defines a graph into a factory of Pipelines.

    Parameters
    ----------
    fn : callable
        Returns the pipeline outputs: a DataNode, a tuple of them, or None.
    enable_conditionals : bool
        Allow `if`, `and`, `or`, `not` on per-sample DataNodes in the function (and the
        functions it calls), rewritten by `dali._autograph`.
    **pipeline_kwargs
        Default Pipeline constructor arguments; call-time arguments override them.
    """

    def decorator(func):
        return _factory(func, pipeline_kwargs, enable_conditionals, debug=None)

    return decorator(fn) if fn is not None else decorator


def experimental_pipeline_def(fn=None, *, enable_conditionals=False, debug=False,
                              **pipeline_kwargs):
    """`pipeline_def` with experimental features: `debug=True` runs the function eagerly at
    every iteration (operators return DataNodeDebug objects whose `.get()` gives the data)."""

    def decorator(func):
        return _factory(func, pipeline_kwargs, enable_conditionals, debug)

    return decorator(fn) if fn is not None else decorator


def do_not_convert(func=None):
    """Mark a function so that conditionals rewriting (`enable_conditionals`) leaves it as is."""

    def mark(f):
        if getattr(f, "_is_pipeline_def", False):
            raise ValueError("Pipeline definition cannot be marked with @do_not_convert.")
        f._dali_do_not_convert = True
        return f

    return mark(func) if func is not None else mark
