"""Issue 49, item 6: a report of designer studies fits, measured in Chromium. At 390 px
the page does not scroll sideways (a study's header held the unbroken ``set`` string);
at 1280 px every table lies within its column (the metrics table was 1716 px wide, the
differences table 1209 px). One study of each designer type (variants with long
labels, a two-key sweep, tune) and a skill ladder."""

from __future__ import annotations

import pytest

from sheepsim.report.build import run_report
from tests.serve.test_serve_browser import browser  # noqa: F401 - the Chromium fixture

from .helpers import write_config

DESIGNERS = """
title = "designer studies"

[[study]]
type = "variants"
name = "variants"
game = "race"
games = 200
set = ["race.payoffs.bonus_three=2;race.payoffs.bonus_two=1;race.cards.Stilton.gallop=5",
       "race.payoffs.semifinal[0][5]=3"]
metric = ["lane_ev_spread", "seat_win_spread", "first_player_edge", "mean_turns"]

[[study]]
type = "sweep"
name = "sweep"
game = "race"
games = 200
set = ["race.payoffs.bonus_three=1,2", "race.payoffs.bonus_two=0,1"]
metric = ["lane_ev_spread", "first_player_edge"]

[[study]]
type = "tune"
name = "tune"
game = "race"
budget = 20000
trials = 4
vary = "race.payoffs.semifinal[0][5]=0..12"
target = "lane_ev_spread=min"

[[study]]
type = "ladder"
name = "ladder"
game = "pig"
players = 3
games = 400
"""


@pytest.fixture(scope="module")
def designer_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("designers")
    out = tmp / "out"
    run_report(write_config(tmp, DESIGNERS), out, quiet=True, charts=False)
    return out


def _tables_past_their_column(page) -> list:
    """Tables whose right edge passes the right edge of the page's content column (the
    element holding the studies), with their widths."""
    return page.evaluate("""() => {
        const col = (document.querySelector('main') || document.body).getBoundingClientRect();
        return Array.from(document.querySelectorAll('table'))
          .map(t => [t.closest('section,figure,div')?.id || '', Math.round(t.getBoundingClientRect().right),
                     Math.round(t.getBoundingClientRect().width), Math.round(col.right)])
          .filter(([id, right, width, colRight]) => right > colRight + 1);
    }""")


def test_designer_studies_fit_1280_px(designer_report, browser):  # noqa: F811 - the fixture
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto((designer_report / "index.html").as_uri())
        assert page.evaluate("document.querySelectorAll('table').length") >= 5
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        assert _tables_past_their_column(page) == []
        # the edits column repeated the variant label on every row (--set variants)
        heads = page.evaluate("Array.from(document.querySelectorAll('table')[0].querySelectorAll('th'))"
                              ".map(h => h.textContent)")
        assert heads[0] == "variant" and "edits" not in heads
    finally:
        page.close()


def test_designer_studies_do_not_scroll_sideways_at_390_px(designer_report, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto((designer_report / "index.html").as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        page.close()


def test_designer_studies_mark_exact_values_in_every_format(designer_report):
    """The page and the Markdown say which values are exact (issue 49: "an exact column
    or marker in every format"); here none is (no --lanes)."""
    html = (designer_report / "index.html").read_text()
    md = (designer_report / "report.md").read_text()
    for text in (html, md):
        assert text.count(">exact<" if text is html else "exact") >= 3


CHARTED = DESIGNERS.split("[[study]]\ntype = \"tune\"")[0]  # variants and the two-key sweep


@pytest.fixture(scope="module")
def charted_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("charted")
    out = tmp / "out"
    run_report(write_config(tmp, CHARTED), out, quiet=True, charts=True)
    return out


def test_charts_stay_readable_at_390_px_without_scrolling_the_page(charted_report, browser):  # noqa: F811
    """Charts shrank to the page's width (about 3 px text at 390 px): on a narrow screen
    each keeps at least 0.5 of its pixel width (its 8-point text about 7 px or more at
    120 dpi) and scrolls in its own box; at 1280 px it fits the column as before."""
    sizes = "Array.from(document.images).map(i => [i.getBoundingClientRect().width, i.naturalWidth])"
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto((charted_report / "index.html").as_uri())
        shown = page.evaluate(sizes)
        assert len(shown) >= 2 and all(w >= 0.5 * n for w, n in shown), shown
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        page.close()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto((charted_report / "index.html").as_uri())
        assert all(w <= 1240 for w, _ in page.evaluate(sizes))
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    finally:
        page.close()
