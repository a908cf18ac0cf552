"""readers.file's `file_list` parsed in one pass over its bytes, without Python objects per
line: a data set of millions of lines becomes three arrays (where each name starts in the
bytes, its length, its label).

A line is "name label": the label is the digits after the line's last space, the name what
precedes that space, both with trailing spaces, tabs and carriage returns removed (the name
keeps its leading ones); lines empty after that are skipped.  This is what the reader's Python
rules (`str.rstrip`, `str.rpartition(" ")`, `str.isdigit`) give for lines split at newlines,
as long as the bytes hold no other character that Python counts as a line boundary or as
whitespace (\\v, \\f, \\x1c-\\x1f, a lone \\r, Unicode spaces and separators), a label of other
digits than ASCII ones, or a label beyond int32: `parse` then answers UNUSUAL and the caller
uses the Python rules.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t

cnp.import_array()

cdef enum:
    _OK = 0
    _BAD_LINE = 1
    _UNUSUAL = 2

OK, BAD_LINE, UNUSUAL = _OK, _BAD_LINE, _UNUSUAL


cdef inline bint _blank(uint8_t b) noexcept nogil:
    return b == 32 or b == 9 or b == 13


cdef inline bint _unusual(const uint8_t* p, Py_ssize_t i, Py_ssize_t end) noexcept nogil:
    """Whether the character at p[i] (before `end`, the line's end) is a line boundary or
    whitespace for Python other than space, tab and a \\r ending the line (UTF-8)."""
    cdef uint8_t b = p[i], c1 = p[i + 1] if i + 1 < end else 0
    cdef uint8_t c2 = p[i + 2] if i + 2 < end else 0
    if b == 11 or b == 12 or 28 <= b <= 31:
        return True
    if b == 13:
        return i + 1 != end
    if b < 0x80:
        return False
    if b == 0xC2:
        return c1 == 0x85 or c1 == 0xA0
    if b == 0xE1:
        return c1 == 0x9A and c2 == 0x80
    if b == 0xE2:
        return (c1 == 0x80 and (c2 <= 0x8A or c2 == 0xA8 or c2 == 0xA9 or c2 == 0xAF)) or \
            (c1 == 0x81 and c2 == 0x9F)
    if b == 0xE3:
        return c1 == 0x80 and c2 == 0x80
    return False


def parse(const uint8_t[::1] data):
    """(status, line, starts, lengths, labels) of the file list `data`: status OK with the
    int64 start and int32 length of each name in `data` and its int32 label; BAD_LINE with the
    (1-based) number of the first line that is not "name label"; UNUSUAL (see the module
    docstring)."""
    cdef Py_ssize_t size = data.shape[0], i, s, e, te, ls, ne, k = 0, lines = 1, line = 0
    cdef const uint8_t* p = &data[0] if size else NULL
    cdef int64_t value
    cdef int status = _OK
    for i in range(size):
        if p[i] == 10:
            lines += 1
    starts = np.empty(lines, np.int64)
    lengths = np.empty(lines, np.int32)
    labels = np.empty(lines, np.int32)
    cdef int64_t[::1] st = starts
    cdef int32_t[::1] ln = lengths, lb = labels
    with nogil:
        s = 0
        while s < size:
            line += 1
            e = s
            while e < size and p[e] != 10:
                e += 1
            for i in range(s, e):
                if _unusual(p, i, e):
                    status = _UNUSUAL
                    break
            if status != _OK:
                break
            te = e
            while te > s and _blank(p[te - 1]):
                te -= 1
            if te > s:
                ls = te - 1
                while ls >= s and p[ls] != 32:
                    ls -= 1
                ne = ls
                while ne > s and _blank(p[ne - 1]):
                    ne -= 1
                if ls < s or ne == s or ls + 1 == te:
                    status = _BAD_LINE
                    break
                value = 0
                for i in range(ls + 1, te):
                    if p[i] >= 0x80:
                        status = _UNUSUAL
                        break
                    if not 48 <= p[i] <= 57:
                        status = _BAD_LINE
                        break
                    value = value * 10 + (p[i] - 48)
                    if value > 2147483647:
                        status = _UNUSUAL
                        break
                if status != _OK:
                    break
                st[k] = s
                ln[k] = <int32_t>(ne - s)
                lb[k] = <int32_t>value
                k += 1
            s = e + 1
    return status, line, starts[:k], lengths[:k], labels[:k]
