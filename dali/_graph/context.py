"""Thread-local stacks: the current pipeline and the current operator-call context.

Modes are context managers on these stacks, never global flags: `with pipe:` pushes a pipeline
(ops created inside get their ids and seeds from it); debug mode pushes a DebugContext, and
`Operator.__call__` hands every call to the top context (a graph context records a node, a debug
context runs the operator at once).
"""

from __future__ import annotations

import threading

_local = threading.local()


def _stack(name):
    s = getattr(_local, name, None)
    if s is None:
        s = []
        setattr(_local, name, s)
    return s


def current_pipeline():
    """The pipeline on top of this thread's stack, or None."""
    s = _stack("pipelines")
    return s[-1] if s else None


def push_pipeline(pipe):
    _stack("pipelines").append(pipe)


def pop_pipeline():
    s = _stack("pipelines")
    return s.pop() if s else None


def current_context():
    """The call context on top of this thread's stack, or None (record into a graph)."""
    s = _stack("contexts")
    return s[-1] if s else None


class CallContext:
    """Base of the contexts operator calls are handed to; used with `with`."""

    def __enter__(self):
        _stack("contexts").append(self)
        return self

    def __exit__(self, *exc):
        _stack("contexts").pop()
        return False
