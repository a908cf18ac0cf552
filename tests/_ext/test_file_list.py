"""_ext/file_list: readers.file's list parsed in C gives what the reader's Python rules give
(str.splitlines, rstrip, rpartition(" "), isdigit), or says the text needs those rules."""

from __future__ import annotations

import numpy as np
import pytest

from dali._ext import file_list


def python_rules(text):
    """[(name, label)] of the lines of `text`, or ("bad", line number)."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        t = line.rstrip()
        if not t:
            continue
        name, _, label = t.rpartition(" ") if " " in t else ("", "", t)
        name = name.rstrip()
        if not name or not label.isdigit() or len(t.split()) < 2:
            return "bad", n
        out.append((name, int(label)))
    return out


def c_rules(data):
    status, n, starts, lengths, labels = file_list.parse(data)
    if status == file_list.UNUSUAL:
        return "unusual"
    if status == file_list.BAD_LINE:
        return "bad", n
    names = [data[s:s + k].decode() for s, k in zip(starts.tolist(), lengths.tolist(),
                                                     strict=True)]
    assert starts.dtype == np.int64 and labels.dtype == np.int32
    return list(zip(names, labels.tolist(), strict=True))


@pytest.mark.parametrize("text", [
    "", "\n", "a.jpg 1", "a.jpg 1\n", "a.jpg 1\r\nb c.jpg  22 \t\r\n\n  d.jpg 3\n",
    " lead.jpg 7\n", "x\t 5\n", "x\t5\n", "noLabel\n", "a.jpg 1x\n", "a.jpg \n", "a.jpg 1\n b",
    "é ü.jpg 4\n", "a.jpg 2147483647\n", "a.jpg 007\n", "a 1 2\n", "  \t \n a 1"])
def test_examples(text):
    assert c_rules(text.encode()) == python_rules(text)


@pytest.mark.parametrize("text", [
    "a.jpg 1\rb.jpg 2", "a\x0bb 1", "a\x0cb 1\n", "a.jpg 1\x1c", "a\xa0b 1", "a.jpg 1\u2028",
    "a\u3000 1", "a.jpg \u0663", "a.jpg 2147483648"])
def test_unusual_text_is_left_to_python(text):
    assert c_rules(text.encode()) == "unusual"


def test_random_lists_agree_with_python():
    """Lists of random characters: what C decides is Python's answer (a label with non-ASCII
    characters is left to Python, rarely)."""
    rng = np.random.default_rng(0)
    alphabet = list("ab.j/_- \t0123456789é") + ["\r\n", "\n", "\n", " 1\n"]
    decided = 0
    for _ in range(3000):
        text = "".join(rng.choice(alphabet, int(rng.integers(0, 40))).tolist())
        got = c_rules(text.encode())
        if got != "unusual":
            decided += 1
            assert got == python_rules(text), repr(text)
    assert decided > 2800
