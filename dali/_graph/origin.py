"""Where the user created an operator: the stack frames outside the dali package."""

from __future__ import annotations

import os
import sys
import traceback

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _is_internal(filename: str) -> bool:
    return filename.startswith(_PACKAGE_DIR) or filename.startswith("<frozen ")


def user_stack(limit: int = 8) -> list[traceback.FrameSummary]:
    """The innermost `limit` frames of the caller's stack that are not dali's own."""
    frames = []
    f = sys._getframe(1)
    while f is not None:
        if not _is_internal(f.f_code.co_filename):
            frames.append((f, f.f_lineno))
        f = f.f_back
    frames = frames[: limit]
    frames.reverse()
    return list(traceback.StackSummary.extract(frames, lookup_lines=True))


def format_stack(frames) -> str:
    return "".join(traceback.format_list(frames)).rstrip("\n")


def short(frames) -> str:
    """`file:line` of the innermost user frame, or "" when unknown."""
    if not frames:
        return ""
    f = frames[-1]
    return f"{f.filename}:{f.lineno}"
