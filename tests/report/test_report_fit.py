"""The report page fits a 1280 px window (issue 33: "Tables fit 1280 px; the semifinal
lanes table and the cards table are cut at the right edge now"), measured in Chromium:
the widest tables of the default report (race cards and the dealt semifinal's lanes)."""

from __future__ import annotations

from sheepsim.report.build import run_report
from tests.serve.test_serve_browser import browser  # noqa: F401 - the Chromium fixture

from .helpers import write_config

WIDE = """
title = "the widest tables"

[[study]]
type = "race-fairness"
name = "race-fairness"
seed = 3
games = 4_000

[[study]]
type = "race-odds"
name = "race-semifinal-deal"
lanes = ["Requeijao", "Crowdie", "Feta", "Karoo", "Roquefort", "Limburger"]
stage = "semifinal"
method = "exact"
"""


def test_every_table_fits_a_1280_px_window(tmp_path, browser):  # noqa: F811 - the fixture
    out = tmp_path / "out"
    run_report(write_config(tmp_path, WIDE), out, quiet=True, charts=False)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto((out / "index.html").as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        rights = page.evaluate("Array.from(document.querySelectorAll('table'))"
                               ".map(t => t.getBoundingClientRect().right)")
        assert len(rights) >= 4 and max(rights) <= 1280, rights
    finally:
        page.close()
