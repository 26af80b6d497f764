"""``race-odds`` studies solved exactly (``method = "exact"``, the default where the pace
policy allows it) or simulated (``method = "mc"``): the same tables as ``race odds``/``race
ev`` with ``--exact`` or ``--mc``, and the method on the page and in the manifest."""

import json

import pytest

from sheepsim.cli import main
from sheepsim.report.build import run_report

from .helpers import write_config

SEMI = "Requeijao,Pecorino,Feta,Manchego,Roquefort,Stilton"
FINAL = "Pecorino,Manchego,Kikorangi,Stilton,Jumbuck,Crowdie"
MID = "semifinal supply=14 7.101 9.110 6.020 8.201 12.110 10.111"


def _lanes(names: str) -> str:
    return "[" + ", ".join(f'"{n}"' for n in names.split(",")) + "]"


EXACT = f"""
[[study]]
type = "race-odds"
name = "semi"
lanes = {_lanes(SEMI)}
taken = [6]

[[study]]
type = "race-odds"
name = "final"
lanes = {_lanes(FINAL)}
stage = "final"
method = "exact"

[[study]]
type = "race-odds"
name = "mid"
position = "{MID}"
taken = [5]
"""

MC = f"""
[[study]]
type = "race-odds"
name = "semi-mc"
lanes = {_lanes(SEMI)}
taken = [6]
method = "mc"
seed = 3
games = 6000
"""


def _cli(capsys, *argv) -> bytes:
    assert main(list(argv)) == 0
    return capsys.readouterr().out.encode()


@pytest.fixture(scope="module")
def exact_report(tmp_path_factory):
    base = tmp_path_factory.mktemp("exact")
    out = base / "out"
    return out, run_report(write_config(base, EXACT), out, quiet=True, charts=False)


def test_exact_study_csv_equals_race_odds_and_race_ev_exact(exact_report, capsys):
    out, _ = exact_report
    for name, race, taken in (("semi", ["--lanes", SEMI], ["--taken", "6"]),
                              ("final", ["--lanes", FINAL, "--stage", "final"], []),
                              ("mid", ["--position", MID], ["--taken", "5"])):
        lanes = (out / name / "lanes.csv").read_bytes()
        # `race odds` prints the first columns of `race ev`'s lanes table: those columns
        # of the study's CSV, cut from its text, are the same bytes
        odds = _cli(capsys, "race", "odds", "--exact", *race, "--format", "csv")
        width = odds.split(b"\n", 1)[0].count(b",") + 1
        cut = b"".join(b",".join(line.split(b",")[:width]) + b"\n"
                       for line in lanes.splitlines())
        assert cut == odds, name
        tables = {"lanes": "lanes", "bet_sets": "sets"}
        if name != "final":
            tables["open_bet"] = "open_bet"
        for csv, table in tables.items():
            ev = _cli(capsys, "race", "ev", "--exact", *race, *taken, "--table", table,
                      "--format", "csv")
            assert (out / name / f"{csv}.csv").read_bytes() == ev, (name, csv)
        assert not (out / "final" / "open_bet.csv").exists()


def test_exact_study_says_exact_in_the_manifest_and_on_the_page(exact_report):
    out, manifest = exact_report
    studies = {s["name"]: s for s in manifest["studies"]}
    for s in studies.values():
        assert s["params"]["method"] == "exact" and s["sampling"] == {} and s["seed"] is None
        assert s["games"] == 0 and s["solve_seconds"] >= 0 and "simulate_seconds" not in s
    assert studies["mid"]["params"]["position"] == MID
    assert json.loads((out / "manifest.json").read_text())["studies"] == manifest["studies"]
    page = (out / "report.md").read_text()
    findings = page.split("## Key findings", 1)[1].split("<a id=", 1)[0]
    assert findings.count("exact EV") == 6 and "95%" not in findings
    for name in ("semi", "final", "mid"):
        section = page.split(f'<a id="{name}"></a>', 1)[1].split("<a id=", 1)[0]
        meta = section.split("*", 2)[1]
        assert "method: exact" in meta and "games" not in meta and "seed" not in meta
        assert "95% CI" not in section and "95%" not in section
        assert "exact (solved from the rules, not simulated: no intervals)" in section


def test_mc_study_simulates_as_race_ev_mc(tmp_path, capsys):
    out = tmp_path / "out"
    manifest = run_report(write_config(tmp_path, MC), out, quiet=True, charts=False)
    (study,) = manifest["studies"]
    assert study["params"]["method"] == "mc" and study["games"] == 6000 and study["seed"] == 3
    for csv, table in (("lanes", "lanes"), ("bet_sets", "sets"), ("open_bet", "open_bet")):
        ev = _cli(capsys, "race", "ev", "--mc", "--lanes", SEMI, "--taken", "6", "--games",
                  "6000", "--seed", "3", "--quiet", "--table", table, "--format", "csv")
        assert (out / "semi-mc" / f"{csv}.csv").read_bytes() == ev, csv
    page = (out / "report.md").read_text()
    assert "method: mc" in page and "6,000 games" in page and "95% Wilson intervals" in page


def test_bad_method_is_one_line_exit_2_before_any_work(tmp_path, capsys, monkeypatch):
    def no_work(*a, **k):
        raise AssertionError("worked before validating")

    monkeypatch.setattr("sheepsim.report.build.simulate", no_work)
    monkeypatch.setattr("sheepsim.report.build.solve", no_work)
    config = write_config(tmp_path, EXACT + MC.replace('"mc"', '"montecarlo"'))
    assert main(["report", str(config), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "study 4 'semi-mc'" in err and "method" in err
    assert "must be one of exact, mc" in err and not (tmp_path / "out").exists()


WHOLE_GAMES = """
[[study]]
type = "race-balance"
name = "balance"
players = 2
bet_policies = ["ev", "ev-approx"]
seed = 1
games = 4

[[study]]
type = "race-head-to-head"
name = "h2h"
players = 2
a = "ev,greedy"
b = "favourite,greedy"
field = "ev-approx,saver"
seed = 2
games = 4
"""


def test_whole_game_studies_say_which_odds_their_bets_read(tmp_path):
    # ev bets read the exact odds of each dealt race, the table-based bets a simulated
    # table: the manifest says which per line-up, the page says so in the notes
    out = tmp_path / "out"
    manifest = run_report(write_config(tmp_path, WHOLE_GAMES), out, quiet=True, charts=False)
    studies = {s["name"]: s for s in manifest["studies"]}
    (balance,) = studies["balance"]["bet_odds"]
    assert balance["ev_odds"]["method"] == "exact" and balance["ev_odds"]["pace"] == "greedy"
    assert "note" not in balance["ev_odds"]
    assert balance["odds_table"]["method"] == "monte carlo"
    a, b = studies["h2h"]["bet_odds"]  # seat 1 plays ev (greedy) beside ev-approx (saver)
    assert a["ev_odds"]["method"] == "exact" and "unavailable" in a["ev_odds"]["note"]
    assert "ev_odds" not in b and b["odds_table"]["bet_policies"] == ["ev-approx", "favourite"]
    # how the numbers were made is said once, in the page's Methods section
    page = (out / "report.md").read_text()
    methods = page.split("## Methods", 1)[1]
    assert "ev bets read the exact odds of each dealt race" in methods
