"""``sheepsim report`` ends with one line saying where the report is and how long it took."""

from __future__ import annotations

import json
import re

import pytest

from sheepsim.cli import main
from sheepsim.report.render import duration_text

from .helpers import write_config

TINY = ('[[study]]\ntype = "race-odds"\nname = "odds"\nseed = 2\ngames = 2000\n')
LAST_LINE = re.compile(r"report written to (?P<out>.+)index\.html \((?P<files>\d+) files\) in "
                       r"(?P<time>\d+\.\d s|\d+ min \d+ s|\d+ h \d\d min)")


@pytest.mark.parametrize("quiet", [False, True])
def test_report_prints_where_it_is_and_the_time_it_took_last(tmp_path, capsys, quiet):
    config = write_config(tmp_path, TINY)
    out = tmp_path / "out"
    assert main(["report", str(config), "--out", str(out)] + (["--quiet"] if quiet else [])) == 0
    lines = capsys.readouterr().err.strip().splitlines()
    m = LAST_LINE.fullmatch(lines[-1])
    assert m, lines[-1]
    assert m["out"] == str(out) + "/" and (out / "index.html").is_file()
    assert int(m["files"]) >= 3
    if quiet:
        assert len(lines) == 1  # no study lines, no progress bars
    # the same figure as report.md's header and the manifest's (before 0.7.0 the header summed
    # the studies' times, without the start, the warm-up and the writing)
    total = json.loads((out / "manifest.json").read_text())["total_seconds"]
    assert m["time"] == duration_text(total)
    assert f"Total time {m['time']} for 1 study (" in (out / "report.md").read_text().splitlines()[3]


def test_duration_text():
    assert duration_text(0.04) == "0.0 s"
    assert duration_text(42.26) == "42.3 s"
    assert duration_text(59.94) == "59.9 s"
    assert duration_text(59.96) == "1 min 0 s"
    assert duration_text(192.4) == "3 min 12 s"
    assert duration_text(3599.6) == "1 h 00 min"
    assert duration_text(3900) == "1 h 05 min"
