"""The designers' report studies (variants, sweep, tune): config checks before any game,
and the command's own tables (the numbers of ``sheepsim <game> variants|sweep|tune``)
with its charts and a key finding each."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import sheepsim
from sheepsim.cli import main
from sheepsim.output import format_csv
from sheepsim.report import execute
from sheepsim.report.build import run_report
from sheepsim.report.config import load_config
from sheepsim.report.designer_studies import sweep_findings, variants_findings

from .helpers import csvs, race_rules_text, tree, write_config

VARIANTS = '[[study]]\ntype = "variants"\ngame = "race"\ngames = 100\n'
SWEEP = '[[study]]\ntype = "sweep"\ngame = "race"\ngames = 100\n'
TUNE = ('[[study]]\ntype = "tune"\ngame = "race"\nbudget = 20000\ntrials = 6\n'
        'vary = "race.payoffs.semifinal[0][5]=0..12"\ntarget = "lane_ev_spread=min"\n')
BONUS = 'set = ["race.payoffs.bonus_three=2"]\n'

BAD = {
    # case: (config text, words the error line must contain)
    "no game": ('[[study]]\ntype = "variants"\ngames = 100\n' + BONUS, ["game", "missing", "race, panic"]),
    "unknown game": (VARIANTS.replace('"race"', '"chess"') + BONUS, ["game", "chess"]),
    "no variant": (VARIANTS, ["set", "give a variant"]),
    "unknown rules key": (VARIANTS + 'set = ["race.payoffs.bonus_thre=2"]\n', ["set", "bonus_three"]),
    "bad rules value": (VARIANTS + 'set = ["race.payoffs.bonus_three=x"]\n', ["set", "whole number"]),
    "set wrong type": (VARIANTS + "set = 3\n", ["set", "list"]),
    "unknown metric": (VARIANTS + BONUS + 'metric = "fairness"\n', ["metric", "fairness"]),
    "players out of range": (VARIANTS + BONUS + "players = 9\n", ["players", "2 to 6"]),
    "unknown bet policy": (VARIANTS + BONUS + 'bet_policy = "yolo"\n', ["bet_policy", "yolo"]),
    "policy per seat": (VARIANTS + BONUS + 'bet_policy = "ev,random"\n', ["bet_policy", "one"]),
    "missing file": (VARIANTS + 'files = ["nowhere.toml"]\n', ["files", "nowhere.toml", "not found"]),
    "rules in variants": (VARIANTS + BONUS + 'rules = "x.toml"\n', ["rules", "files"]),
    "variants precision": ('[[study]]\ntype = "variants"\ngame = "race"\nprecision = 0.01\n'
                           'max_games = 1000\n' + BONUS, ["precision", "give games"]),
    "panic policy": ('[[study]]\ntype = "variants"\ngame = "panic"\ngames = 100\npolicy = "smart"\n'
                     'set = ["scoring.ram_row_points=[5,3,2,1]"]\n', ["policy", "smart"]),
    "awsheep players": ('[[study]]\ntype = "sweep"\ngame = "awsheep"\ngames = 100\nplayers = 1\n'
                        'set = "scoring.golden_worth=1,2"\n', ["players", "got 1"]),
    "unknown key": (VARIANTS + BONUS + "lanes = 3\n", ["lanes", "unknown key"]),
    "sweep without set": (SWEEP, ["set", "missing"]),
    "sweep of three keys": (SWEEP + 'set = ["race.payoffs.bonus_three=1,2", "race.payoffs.bonus_two=1,2", '
                                   '"race.track_length=1,2"]\n', ["set", "one or two"]),
    "sweep bad value": (SWEEP + 'set = "race.payoffs.bonus_three=1,x"\n', ["set", "whole number"]),
    "sweep without games": ('[[study]]\ntype = "sweep"\ngame = "race"\n'
                            'set = "race.payoffs.bonus_three=1,2"\n', ["games", "missing"]),
    "tune with games": (TUNE + "games = 100\n", ["games", "budget"]),
    "tune budget too small": (TUNE.replace("20000", "2000"), ["budget", "too small"]),
    "tune empty range": (TUNE.replace("0..12", "12..0"), ["vary", "LO must be below HI"]),
    "tune key out of range": (TUNE.replace("semifinal[0][5]", "semifinal[0][9]"), ["vary", "[9]"]),
    "tune unknown target": (TUNE.replace("lane_ev_spread=min", "lane_spread=min"), ["target", "lane_spread"]),
    "tune without budget": (TUNE.replace("budget = 20000\n", ""), ["budget", "missing"]),
    "tune pace policy": (TUNE + 'pace_policy = "sprint"\n', ["pace_policy", "sprint"]),
    "tune zero finalists": (TUNE + "finalists = 0\n", ["finalists", "at least 1"]),
    "tune unknown constraint metric": (TUNE + 'subject_to = ["nosuch<=1"]\n', ["subject_to", "nosuch"]),
    "tune malformed constraint": (TUNE + 'subject_to = "mean_turns<1"\n', ["subject_to", "METRIC<=NUMBER"]),
    "tune too few confirmation games": (TUNE + "confirm_games = 500\n", ["confirm_games", "at least 1,000"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_designer_study_is_one_line_before_anything_runs(case, tmp_path, capsys, monkeypatch):
    text, words = BAD[case]
    config = write_config(tmp_path, text)
    out = tmp_path / "out"

    def no_simulation(*a, **k):
        raise AssertionError("simulated before validating")

    for name in ("simulate", "solve", "run_direct"):
        monkeypatch.setattr(f"sheepsim.report.build.{name}", no_simulation)
    code = main(["report", str(config), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("sheepsim: error: "), err
    assert str(config) in err and "study 1" in err
    for w in words:
        assert w in err, (w, err)
    assert tree(out) == {}


def test_one_study_type_per_command_bound_to_each_game(tmp_path):
    """Written once, the types read every game's keys; the bound study belongs to its game
    (the report groups its findings there) and is never in the default report."""
    text = "".join(
        f'[[study]]\ntype = "variants"\nname = "v-{g}"\ngame = "{g}"\ngames = 30\n{edit}{policy}\n'
        for g, edit, policy in (
            ("race", BONUS, 'bet_policy = "favourite"\n'),
            ("panic", 'set = ["scoring.ram_row_points=[5,3,2,1]"]\n', 'policy = "random"\n'),
            ("awsheep", 'set = ["scoring.golden_worth=4"]\n', 'policy = "counter"\n')))
    cfg = load_config(write_config(tmp_path, text))
    assert [s.game for s in cfg.studies] == ["sheep-race", "shear-panic", "aw-sheep"]
    assert [s.type_name for s in cfg.studies] == ["variants"] * 3
    assert [s.sampling.games for s in cfg.studies] == [40] * 3  # rounded as the command does
    assert cfg.studies[0].params()["bet_policy"] == "favourite"
    assert cfg.studies[2].params()["policy"] == "counter"
    default = load_config(None)
    assert not {"variants", "sweep", "tune"} & {s.type_name for s in default.studies}


def test_a_rules_file_changes_the_digest_not_its_path(tmp_path):
    (tmp_path / "a").mkdir()
    text = race_rules_text()
    (tmp_path / "base.toml").write_text(text)
    (tmp_path / "a" / "base.toml").write_text(text)
    study = VARIANTS + BONUS + 'files = ["{}"]\n'
    one = load_config(write_config(tmp_path, study.format("base.toml"), "one.toml"))
    two = load_config(write_config(tmp_path, study.format("a/base.toml"), "two.toml"))
    assert one.studies[0].rules.sha256 == two.studies[0].rules.sha256
    (tmp_path / "base.toml").write_text(text.replace("bonus_three = 3", "bonus_three = 1"))
    three = load_config(write_config(tmp_path, study.format("base.toml"), "three.toml"))
    assert three.hash != one.hash
    assert three.studies[0].rules.sha256 != one.studies[0].rules.sha256


def _csv(out, study, table) -> str:
    return (out / study / f"{table}.csv").read_text()


def test_variants_and_sweep_studies_are_the_commands_numbers(tmp_path):
    """The report's tables are what `sheepsim race variants|sweep` print for the same
    options; one chart each; a key finding each."""
    text = (
        '[[study]]\ntype = "variants"\nname = "payoffs"\ngame = "race"\nseed = 4\ngames = 1000\n'
        'set = ["race.payoffs.bonus_three=2", "race.payoffs.semifinal[0][5]=12"]\n'
        'metric = ["lane_ev_spread", "lane_win_spread"]\n\n'
        '[[study]]\ntype = "sweep"\nname = "last-lane"\ngame = "race"\nseed = 4\ngames = 990\n'
        'set = "race.payoffs.semifinal[0][5]=4,8,12"\nmetric = "lane_ev_spread"\n')
    out = tmp_path / "out"
    doc = run_report(write_config(tmp_path, text), out, quiet=True, threads=1)
    api = sheepsim.variants("race", set=["race.payoffs.bonus_three=2", "race.payoffs.semifinal[0][5]=12"],
                            metric="lane_ev_spread,lane_win_spread", games=1000, seed=4, threads=1)
    for table in ("metrics", "differences"):
        assert _csv(out, "payoffs", table) == format_csv(api.tables[table])
    api = sheepsim.sweep("race", set="race.payoffs.semifinal[0][5]=4,8,12", metric="lane_ev_spread",
                         games=1000, seed=4, threads=1)  # 990 rounds up to 1,000 as in the report
    for table in ("sweep", "metrics", "differences"):
        assert _csv(out, "last-lane", table) == format_csv(api.tables[table])
    studies = {s["name"]: s for s in doc["studies"]}
    assert studies["payoffs"]["games"] == 1000 and studies["last-lane"]["games"] == 1000
    assert (out / "payoffs" / "by_variant.png").is_file() and (out / "last-lane" / "by_point.svg").is_file()
    md = (out / "report.md").read_text()
    findings = md.split("## Key findings")[1].split("## Methods")[0]
    # the payoff edit of the last lane moves its EV spread; bonus_three cannot (same counts)
    assert "lane_ev_spread: the largest significant difference to the base" in findings
    assert "race.payoffs.semifinal[0][5]=12" in findings
    assert "No difference to the base is significant for lane_win_spread" in findings
    sweep = pd.read_csv(out / "last-lane" / "sweep.csv")
    best = sweep.loc[sweep["value"].idxmin(), "race.payoffs.semifinal[0][5]"]
    assert f"lane_ev_spread is lowest at race.payoffs.semifinal[0][5]={best}:" in findings


def test_variants_study_resumes_from_its_checkpoint_to_the_same_numbers(tmp_path, monkeypatch):
    """A variants study is checkpointed like every simulated study (its counts keep the
    jackknife's blocks apart): interrupted and resumed, the same CSVs."""
    text = ('[[study]]\ntype = "variants"\nname = "v"\ngame = "race"\nseed = 1\ngames = 1200\n'
            'set = ["race.payoffs.semifinal[0][0]=20"]\nmetric = "lane_ev_spread,lane_win_spread"\n')
    config = write_config(tmp_path, text)
    ref = tmp_path / "ref"
    run_report(config, ref, quiet=True, charts=False, threads=1)
    real, calls = execute.save_checkpoint, {"n": 0}

    def save(path, cp):
        real(path, cp)
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(execute, "save_checkpoint", save)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_report(config, out, quiet=True, charts=False, chunk_size=500, threads=1)
    monkeypatch.undo()
    path = out / ".checkpoints" / "v.npz"
    with np.load(path) as z:
        identity = str(z["identity"])
    cp = execute.load_checkpoint(path, identity)
    assert cp is not None and cp.done == 1000 and not cp.finished
    assert any(k.startswith("0/lanes/") for k in cp.totals)
    doc = run_report(config, out, quiet=True, charts=False, resume=True, chunk_size=300, threads=1)
    assert doc["studies"][0]["games"] == 1200
    assert csvs(out) == csvs(ref)


def test_tune_study_is_the_commands_search_and_runs_again_on_resume(tmp_path):
    config = write_config(tmp_path, TUNE.replace("trials = 6", "trials = 6\nfinalists = 2\nseed = 2"))
    out = tmp_path / "out"
    doc = run_report(config, out, quiet=True, threads=1)
    api = sheepsim.tune("race", vary="race.payoffs.semifinal[0][5]=0..12", target="lane_ev_spread=min",
                        budget=20000, trials=6, finalists=2, seed=2, threads=1, quiet=True)
    for table in ("best", "trials"):
        assert _csv(out, "tune-1", table) == format_csv(api.tables[table])
    entry = doc["studies"][0]
    assert entry["games"] == api.meta["games"] and "simulate_seconds" in entry
    assert (out / "tune-1" / "search.png").is_file()
    md = (out / "report.md").read_text()
    winner = api.tables["best"].iloc[0]
    assert (f"Best variant for lane_ev_spread=min (after racing the finalists): "
            f"race.payoffs.semifinal[0][5]={winner['race.payoffs.semifinal[0][5]']} "
            f"(trial {winner['trial']})") in md
    assert "on the base rules" in md
    # an unfinished run continued with --resume searches again, to the same numbers
    before = {p: _csv(out, "tune-1", p) for p in ("best", "trials")}
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["complete"] = False
    (out / "manifest.json").write_text(json.dumps(manifest))
    run_report(config, out, quiet=True, resume=True, threads=1)
    assert {p: _csv(out, "tune-1", p) for p in ("best", "trials")} == before


def _diffs(pvalues):
    return pd.DataFrame({"variant": [f"v{i}" for i in range(len(pvalues))], "metric": "m",
                         "diff": [0.5 * (i + 1) for i in range(len(pvalues))],
                         "diff_lo": 0.1, "diff_hi": 2.0, "pvalue_holm": pvalues, "unit": "points"})


def _metrics(better="lower"):
    return pd.DataFrame({"variant": ["base"], "metric": ["m"], "value": [1.0], "value_lo": [0.9],
                         "value_hi": [1.1], "unit": ["points"], "better": [better]})


def test_variants_finding_is_the_largest_significant_difference():
    notes = variants_findings({"metrics": _metrics(), "differences": _diffs([0.01, 0.03, 0.2])})
    assert len(notes) == 1 and "is v1, +1.0 points" in notes[0]  # v2 is larger, not significant
    notes = variants_findings({"metrics": _metrics(), "differences": _diffs([0.3, 0.06])})
    assert notes == ["No difference to the base is significant for any metric (Holm-adjusted "
                     "p ≥ 0.05 across the 2 variants)."]


@pytest.mark.parametrize(("better", "word", "point"), [("lower", "lowest", 1), ("higher", "highest", 3),
                                                       ("zero", "closest to 0", 2)])
def test_sweep_finding_is_the_best_point_in_its_direction(better, word, point):
    sweep = pd.DataFrame({"point": [1, 2, 3], "k": [10, 20, 30], "metric": "m",
                          "value": [-0.5, 0.1, 0.9], "value_lo": 0.0, "value_hi": 1.0, "diff": 0.0,
                          "diff_lo": 0.0, "diff_hi": 0.0, "pvalue_holm": 1.0, "unit": "points"})
    findings, ranges = sweep_findings(sweep, _metrics(better), ["k"])
    assert len(findings) == 1 and not ranges
    assert findings[0].startswith(f"m is {word} at k={10 * point}: ")
    findings, ranges = sweep_findings(sweep, _metrics("none"), ["k"])
    assert findings == [] and ranges == ["m (neither way is better in itself) goes from -0.5 to "
                                         "0.9 points over the grid."]


def test_the_reports_guide_designer_config_validates(tmp_path):
    from pathlib import Path

    guide = (Path(__file__).parents[2] / "docs" / "guides" / "reports.md").read_text()
    section = guide[guide.index("The designers' commands are report studies"):]
    block = section.split("```toml")[1].split("```")[0]
    cfg = load_config(write_config(tmp_path, block))
    assert [(s.type_name, s.game) for s in cfg.studies] == [("sweep", "sheep-race"), ("tune", "sheep-race")]
