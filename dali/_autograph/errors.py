"""Where an error in a converted pipeline function happened, told as DALI tells it.

DALI (through AutoGraph) re-raises an exception that escapes a pipeline function written with
`enable_conditionals=True` with a message that begins "in user code:" and lists the frames from
the pipeline function down to the error: the user's lines, marked `*` where the code was
converted, `**` on the first frame of library code the user's code called, AutoGraph's own
frames left out.  A search for the error finds the user's line there.

Here the exception keeps its class, message and traceback (converted code is compiled at the
user's file and lines, so the traceback already points there) and gets that same block as a
note (PEP 678: printed under the message; `pytest.raises(match=...)` sees it too):

    ZeroDivisionError: division by zero
    in user code:

        File "train.py", line 16, in pipe  *
            z = 1 / 0

The frames of this package's `_autograph` (the runtime calls, split and merge) are left out,
and so is the frame of an `if` statement whose branch raised: the branch's line is shown, as
in DALI.  Which code objects are converted, and which are generated branch functions of which
user function, `converter` records with `record_converted` as it compiles them.
"""

import functools
import linecache
import os
import sys
import types
import weakref

HEADER = "in user code:"
_INTERNAL_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# Code object of converted code -> weak reference to the user function's converted code it
# belongs to (itself for that function, the enclosing function's for generated branches).
_converted = weakref.WeakKeyDictionary()


def record_converted(code):
    """Record `code`, the converted code of one user function, and the code objects nested in
    it, so that notes mark them `*` and drop an `if` line whose branch raised."""
    top = weakref.ref(code)
    todo = [code]
    while todo:
        c = todo.pop()
        _converted[c] = top
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType)
                    and k.co_name == code.co_name)


def annotate(func):
    """`func` (a converted pipeline function) wrapped so that an exception escaping it gets the
    "in user code:" note of the frames between the call and the error."""

    @functools.wraps(func)
    def pipeline_function(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except Exception as e:
            add_note(e, e.__traceback__.tb_next)
            raise

    return pipeline_function


def add_note(exc, tb):
    """Add the note for the traceback entries from `tb` on, unless `exc` has one already."""
    if any(str(n).startswith(HEADER) for n in getattr(exc, "__notes__", ())):
        return
    lines = [HEADER, ""]
    for filename, lineno, name, mark in _user_frames(tb):
        lines.append(f'    File "{filename}", line {lineno}, in {name}{mark}')
        source = linecache.getline(filename, lineno).strip()
        if source:
            lines.append(f"        {source}")
    note = "\n".join(lines)
    if sys.version_info >= (3, 11):
        exc.add_note(note)
    else:  # kept for code that reads it; 3.10 tracebacks do not print notes
        exc.__notes__ = [*getattr(exc, "__notes__", ()), note]


def _user_frames(tb):
    """(file, line, function, mark) of each frame to show, outermost first."""
    frames = []        # and the converted function each belongs to (None: not converted)
    library = False    # the last frame shown was library code called from converted code
    while tb is not None:
        code = tb.tb_frame.f_code
        tb, lineno = tb.tb_next, tb.tb_lineno
        if os.path.abspath(code.co_filename).startswith(_INTERNAL_DIR):
            continue
        top = _converted.get(code)
        top = top() if top is not None else None
        if top is not None and top is not code and frames and frames[-1][4] is top:
            frames.pop()   # the `if` line of the function whose branch this is
        mark = "  *" if top is not None else ("  **" if frames and not library else "")
        library = top is None
        frames.append((code.co_filename, lineno, code.co_name, mark, top))
    return [f[:4] for f in frames]
