"""``scripts/screenshot_report.py``: the whole page by default (its height measured in
the browser), or the top ``--height`` pixels. Needs Chromium; skipped without it."""

from __future__ import annotations

import importlib.util
import shutil
import struct
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "screenshot_report.py"
pytestmark = pytest.mark.skipif(shutil.which("chromium") is None, reason="needs chromium")


def _script():
    spec = importlib.util.spec_from_file_location("screenshot_report", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _png_size(path: Path) -> tuple[int, int]:
    return struct.unpack(">II", path.read_bytes()[16:24])


def test_the_whole_page_by_default_or_the_top_pixels(tmp_path):
    mod = _script()
    page = tmp_path / "index.html"
    # 3,000 px of content plus the body's 8 px margins
    page.write_text('<!DOCTYPE html><html><body><div style="height:3000px">tall</div></body></html>')
    assert mod.page_height(page, 640) == 3016
    assert mod.main([str(tmp_path), "--out", str(tmp_path / "full.png"), "--width", "640"]) == 0
    assert _png_size(tmp_path / "full.png") == (640, 3016)
    assert mod.main([str(page), "--out", str(tmp_path / "top.png"), "--width", "640",
                     "--height", "500"]) == 0
    assert _png_size(tmp_path / "top.png") == (640, 500)


def test_bad_height_and_missing_page(tmp_path, capsys):
    mod = _script()
    with pytest.raises(SystemExit):
        mod.main([str(tmp_path), "--height", "tall"])
    assert mod.main([str(tmp_path / "nothing")]) == 2
    assert "no " in capsys.readouterr().err
