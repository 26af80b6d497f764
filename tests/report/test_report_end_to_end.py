"""A small config end to end: files, manifest, CSVs against the library, the HTML."""

from __future__ import annotations

import hashlib
import json
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from sheepsim.games.panic.balance import tile_usage_table
from sheepsim.games.panic.simulate import play_games as panic_play_games
from sheepsim.games.race.analysis import (
    bet_sets_table,
    game_tables,
    lane_ev_table,
    open_bet_table,
)
from sheepsim.games.race.jobs import estimate_balance, estimate_compare, play_games, race_counts
from sheepsim.report.render import duration_text

from .helpers import write_config


@pytest.fixture
def report(small_report):
    return small_report


def _csv(out, rel):
    return pd.read_csv(out / rel)


def _same(csv: pd.DataFrame, expected: pd.DataFrame):
    """CSV numbers equal the table's to the 10 significant digits CSVs keep; text and
    integers exactly (an empty string in the table reads back as a missing value)."""
    expected = expected.reset_index(drop=True)
    assert list(csv.columns) == list(expected.columns)
    for col in expected.columns:
        if pd.api.types.is_numeric_dtype(expected[col]) and not pd.api.types.is_bool_dtype(expected[col]):
            np.testing.assert_allclose(csv[col].to_numpy(float), expected[col].to_numpy(float),
                                       rtol=1e-9, atol=0, equal_nan=True, err_msg=col)
        else:
            got = csv[col].astype(object).fillna("").astype(str).tolist()
            assert got == expected[col].fillna("").astype(str).tolist(), col


def test_manifest_lists_every_file_with_its_hash(report):
    out, manifest = report
    on_disk = json.loads((out / "manifest.json").read_text())
    assert on_disk == json.loads(json.dumps(manifest))
    assert manifest["complete"] is True
    paths = [f["path"] for f in manifest["files"]]
    assert {"index.html", "report.md"} <= set(paths)
    for entry in manifest["files"]:
        assert hashlib.sha256((out / entry["path"]).read_bytes()).hexdigest() == entry["sha256"]
    # every file in the folder is listed (besides the manifest itself); no checkpoints left
    present = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert present == set(paths) | {"manifest.json"}


def test_no_charts_writes_the_same_tables_and_documents_without_charts(report, tmp_path, capsys):
    """``--no-charts`` is a CSV batch: the same numbers, no PNG/SVG, and the page says so."""
    from sheepsim.cli import main

    from .helpers import csvs

    ref_out, ref_manifest = report
    out = tmp_path / "out"
    assert main(["report", str(write_config(tmp_path)), "--out", str(out), "--quiet",
                 "--no-charts"]) == 0
    assert csvs(out) == csvs(ref_out)
    files = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert not [f for f in files if f.endswith((".png", ".svg"))]
    assert any(f.endswith(".png") for f in (e["path"] for e in ref_manifest["files"]))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["charts"] is False and ref_manifest["charts"] is True
    assert files == {e["path"] for e in manifest["files"]} | {"manifest.json"}
    html = (out / "index.html").read_text()
    assert "Charts were not drawn (--no-charts)" in html and "<img" not in html
    assert "Charts were not drawn" in (out / "report.md").read_text()


def test_manifest_records_provenance(report):
    _, m = report
    for key in ("sheepsim_version", "python", "numba", "numpy", "machine"):
        assert m[key]
    assert m["rules"][0]["sha256"] and m["rules"][0]["file"]
    by_name = {s["name"]: s for s in m["studies"]}
    assert by_name["semi"]["games"] == 6000 and by_name["semi"]["seed"] == 3
    assert by_name["balance"]["params"]["bet_policies"] == ["ev-approx", "random", "favourite"]
    assert by_name["panic"]["game"] == "shear-panic" and by_name["panic"]["rules_sha256"]
    for s in m["studies"]:
        assert s["status"] == "done" and s["wall_seconds"] >= s["simulate_seconds"] > 0
        assert s["files"] and s["rules"] and s["params"]


def _games(manifest, name):
    return next(s["games"] for s in manifest["studies"] if s["name"] == name)


def _all_csvs_equal(out, study, tables):
    files = sorted(p.stem for p in (out / study).glob("*.csv"))
    assert files == sorted(tables)
    for name, df in tables.items():
        _same(_csv(out, f"{study}/{name}.csv"), df)


def test_odds_csvs_are_the_library_tables(report):
    out, _ = report
    counts = race_counts(None, ["Requeijao", "Pecorino", "Feta", "Manchego", "Roquefort", "Stilton"],
                         "semifinal", "greedy", 6000, 3, progress=False)
    _all_csvs_equal(out, "semi", {"lanes": lane_ev_table(counts),
                                  "bet_sets": bet_sets_table(counts, [6]),
                                  "open_bet": open_bet_table(counts, [6])})


def test_precision_study_matches_the_sequential_driver(report):
    out, m = report
    est = estimate_balance(None, "greedy", 5, players=4, bet_policy="ev-approx", precision=0.2,
                           max_games=5000, block=1000, progress=False)
    assert _games(m, "fairness") == est.games and est.games % 1000 == 0
    stopping = _csv(out, "fairness/stopping.csv")
    _all_csvs_equal(out, "fairness", {**est.tables, "stopping": stopping})
    # the report checked the stopping rule at the same blocks with the same half-widths
    checks = est.trace.groupby("games", sort=True)["halfwidth_max"].first()
    assert stopping["games"].tolist() == checks.index.tolist()
    np.testing.assert_allclose(stopping["max_halfwidth"], checks.to_numpy(), rtol=1e-9)
    assert stopping["met"].tolist() == [False] * (len(stopping) - 1) + [True]


def test_balance_csvs_are_play_games(report):
    out, _ = report
    res = play_games(None, 3, ["ev-approx", "random", "favourite"], "greedy", 600, 7, progress=False)
    _all_csvs_equal(out, "balance", game_tables(res))


def test_head_to_head_csv_is_the_compare_driver(report):
    out, _ = report
    est = estimate_compare(None, 3, "ev-approx,greedy", "random,greedy", "ev-approx,greedy", 2, 8, games=500,
                           progress=False)
    _all_csvs_equal(out, "h2h", est.tables)


def test_panic_csvs_are_play_games(report):
    out, _ = report
    res = panic_play_games(None, 3, ["random"], 300, 9, progress=False)
    tables = dict(res.tables)
    # the report's tile table shows the means its caption promises, not the sums behind them
    tables["tiles"] = tables["tiles"].drop(columns=["counter_sum", "gain_sum"])
    # and the page's summary of them: pooled over seats, most used first
    tables["tile_summary"] = tile_usage_table(res.tables["tiles"], 300).sort_values(
        "chosen_per_seat_game", ascending=False, kind="stable").reset_index(drop=True)
    _all_csvs_equal(out, "panic", tables)


def test_panic_head_to_head_matches_separate_runs(report):
    # each configuration alone, same seed: the pair's win and points totals must match
    out, _ = report
    table = _csv(out, "panic-h2h/comparison.csv").set_index("metric")
    seat = 3
    runs = {k: panic_play_games(None, 4, ["random", "random", pol, "random"], 200, 10, progress=False)
            for k, pol in (("a", "greedy"), ("b", "random"))}
    for k, res in runs.items():
        by_seat = res.tables["by_seat"].set_index("seat")
        assert table.loc["win_rate", k] == pytest.approx(by_seat.loc[seat, "win_rate"], rel=1e-9)
        assert table.loc["mean_score", k] == pytest.approx(by_seat.loc[seat, "mean_points"], rel=1e-9)
    assert table.loc["mean_score", "diff"] == pytest.approx(
        table.loc["mean_score", "a"] - table.loc["mean_score", "b"], rel=1e-9, abs=1e-12)
    assert (table["games"] == 200).all()


class _Refs(HTMLParser):
    """Collects every src/href and the tags seen."""

    def __init__(self):
        super().__init__()
        self.src, self.href, self.tags, self.meta = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        if "src" in a:
            self.src.append(a["src"])
        if "href" in a:
            self.href.append(a["href"])
        if tag == "meta":
            self.meta.append(a)


def test_html_is_self_contained(report):
    out, m = report
    text = (out / "index.html").read_text(encoding="utf-8")
    p = _Refs()
    p.feed(text)
    p.close()
    assert "link" not in p.tags and "script" not in p.tags
    charts = [f for f in m["files"] if f["path"].endswith(".png")]
    assert len(p.src) == len(charts) > 0
    assert all(s.startswith("data:image/png;base64,") for s in p.src)
    assert any(meta.get("name") == "viewport" for meta in p.meta)
    listed = {f["path"] for f in m["files"]}
    for h in p.href:  # in-page anchors or files of this report, never URLs
        assert h.startswith("#") or h in listed, h
    assert "overflow-x: auto" in text
    for s in m["studies"]:
        assert f'id="{s["name"]}"' in text


def test_markdown_links_files_of_the_report(report):
    out, m = report
    md = (out / "report.md").read_text()
    for rel in (f["path"] for f in m["files"] if f["path"].endswith(".csv")):
        assert f"]({rel})" in md


def test_the_page_opens_with_key_findings_linking_their_studies(report):
    out, m = report
    text = (out / "index.html").read_text(encoding="utf-8")
    first_study = text.index(f'id="{m["studies"][0]["name"]}"')
    assert text.index('id="key-findings"') < first_study
    findings = text[text.index('id="key-findings"'):text.index("</section>")]
    for s in m["studies"]:  # every study has at least one finding, linked to it
        assert f'href="#{s["name"]}"' in findings
    assert "with the bonus" in findings  # the semifinal study's best set counts the bonus


def test_manifest_names_rules_files_by_game(report):
    _, m = report
    games = {r["game"] for r in m["rules"]}
    assert games == {"sheep-race", "shear-panic"}
    labels = [r["file"] for r in m["rules"]]
    assert len(set(labels)) == len(labels)  # no two games' files share a name
    assert all(f"shipped {r['game']} rules" in r["file"] for r in m["rules"])


def test_wide_tables_show_the_columns_a_reader_needs(report):
    out, _ = report
    md = (out / "report.md").read_text()
    lanes = md[md.index("### lanes"):]
    header = lanes[lanes.index("| lane"):].splitlines()[0]
    assert "p_first (95% CI)" in header and "ev (95% CI)" in header and "fair_first" in header
    assert "ev_se" not in header and "p_first_lo" not in header
    assert "the CSV has them all" in lanes.split("###")[1]


def test_the_header_shows_the_config_files_sha256_and_names_the_studies_digest(report, tmp_path):
    out, m = report
    text = (out / "report.md").read_text()
    config = write_config(tmp_path)  # the same text the fixture ran
    assert m["config"]["sha256"] == hashlib.sha256(config.read_bytes()).hexdigest()
    header = text.splitlines()[2]
    assert f"(SHA-256 {m['config']['sha256'][:12]})" in header
    assert f"studies digest {m['config']['hash'][:12]}" in header and "hash" not in header


def test_tables_keep_the_columns_their_caption_and_findings_quote(report):
    # Shear Panic tiles: the caption and the key finding are about the mean points per
    # use (mean_gain), the table's last column
    out, _ = report
    md = (out / "report.md").read_text()
    section = md[md.index('<a id="panic"></a>'):]
    tiles = section[section.index("### tile summary"):]
    header = tiles[tiles.index("| tile"):].splitlines()[0]
    assert "mean_gain" in header and "mean_counter" in header and "chosen_per_seat_game" in header


def test_the_page_groups_findings_by_game_and_keeps_methods_apart(report):
    """Key findings under one heading per game; how the numbers were made (which odds the
    bet policies read) in the Methods section, not among the findings; the header says
    the total time; Shear Panic's per-seat tile rows and a one-row by-policy table (every
    seat plays random) are not on the page, their CSVs are."""
    out, m = report
    md = (out / "report.md").read_text()
    findings = md[md.index("## Key findings"):md.index("## Methods")]
    assert findings.index("### The Sheep Race") < findings.index("### Shear Panic")
    methods = md[md.index("## Methods"):md.index('<a id="semi"></a>')]
    assert "ev-approx and near-ev bets read the public odds table" in methods
    assert "read the public odds table" not in findings
    assert "Cards are flagged over- or under-powered by Holm 5%" in methods
    total = m["total_seconds"]  # the studies and the rest of the command (start, writing)
    assert total >= sum(s["wall_seconds"] for s in m["studies"])
    assert f"Total time {duration_text(total)} for {len(m['studies'])} studies" in md.splitlines()[3]
    # the race turn-order finding: the position furthest from its fair share, its field
    assert "turn-order position" in findings and "Holm over the 3 positions" in findings
    assert "bet policies ev-approx, random, favourite and pace policy greedy" in findings
    panic = md[md.index('<a id="panic"></a>'):md.index('<a id="panic-h2h"></a>')]
    assert "### by policy" not in panic and (out / "panic" / "by_policy.csv").is_file()
    assert "CSV only: [by policy](panic/by_policy.csv)" in panic
    tiles = panic[panic.index("### tiles"):panic.index("### tile summary")]
    assert "rows, in the CSV" in tiles and "| seat" not in tiles


def _table_cells(md):
    """``(column header, cell)`` of every cell of every Markdown table in ``md``."""
    header = None
    for line in md.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not line.startswith("|---"):
            yield from zip(header, cells, strict=True)


def test_p_values_and_intervals_read_right_on_the_page(report):
    out, _ = report
    md = (out / "report.md").read_text()
    assert "p = 0)" not in md and "p = 0 " not in md
    # no probability, p-value or rate column shows a bare 0 (a count or a score may be 0)
    for col, cell in _table_cells(md):
        if col == "p" or col.startswith(("p_", "pvalue", "win_rate", "tie_rate", "share")):
            assert cell not in ("0", "0.0"), (col, cell)
    h2h = md[md.index('<a id="h2h"></a>'):]
    row = next(line for line in h2h.splitlines() if line.startswith("| win_rate"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    for cell in cells[1:4]:  # a, b, diff: each "x [lo, hi]" visibly apart
        x, rest = cell.split(" [")
        lo, hi = rest.rstrip("]").split(", ")
        assert float(lo) < float(x) < float(hi)
