"""`python -m dali demo`: the Getting Started pipeline on the bundled photographs."""

from __future__ import annotations

import numpy as np
import pytest

from dali import __main__ as cli
from dali import _demo, _ext

cv2 = pytest.importorskip("cv2")


def test_demo_prints_the_batch_and_writes_the_contact_sheet(tmp_path, capsys):
    out = tmp_path / "sheet.png"
    assert cli.main(["demo", "--out", str(out), "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert "a batch of 12 images (uint8, layout HWC)" in text
    assert "reader: epoch of 12 files" in text
    assert f"contact sheet: {out.resolve()}" in text
    assert len(text.splitlines()) == 6          # a summary, not the pixels
    sheet = cv2.imread(str(out))
    assert sheet.shape == (3 * (160 + 22), 4 * 160, 3)
    assert (sheet < 250).mean() > 0.3          # mostly photographs, not background


def test_contact_sheet_centres_each_image_in_its_cell():
    img = np.zeros((10, 20, 3), np.uint8)
    img[..., 0] = 255                           # RGB red
    sheet = _demo.contact_sheet([img, img], [0, 1], [1.5, -2.0], ["cats", "dogs"], cell=40,
                                columns=2)
    assert sheet.shape == (40 + 22, 80, 3)
    np.testing.assert_array_equal(sheet[15:25, 10:30], np.broadcast_to([0, 0, 255], (10, 20, 3)))
    assert (sheet[:15, :] == 255).all()         # above the centred image: background


def test_demo_warns_when_built_without_libjpeg_turbo(monkeypatch):
    monkeypatch.setattr(_ext, "has_libjpeg_turbo", lambda: True)
    assert _demo.build_warning() is None
    monkeypatch.setattr(_ext, "has_libjpeg_turbo", lambda: False)
    assert "without libjpeg-turbo" in _demo.build_warning()


def test_docs_outside_a_checkout_says_what_it_needs(tmp_path, capsys):
    with pytest.raises(SystemExit):
        cli.main(["docs", "--dir", str(tmp_path)])
    assert "differences.md not found: `docs` regenerates the docs of a dali checkout" in \
        capsys.readouterr().err
    assert not (tmp_path / "operators.md").exists()
