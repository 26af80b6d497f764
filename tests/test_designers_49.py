"""Designers' commands that cannot mislead (issue 49): the pairing note reads right both
ways, ``--out`` writes every table, the long-run advice is one the command takes,
``tune`` writes only a winner that beat the base (and flags one at the edge of its range),
and ``card-value`` Holm-adjusts its p-values."""

import json
from types import SimpleNamespace

import numpy as np
import pytest
from cli_helpers import run

import sheepsim


# ------------------------------------------------------------------ pairing note
def _two_variant_job(blocks=20):
    rules = SimpleNamespace(sha256="0" * 64)
    return SimpleNamespace(
        blocks=blocks, games=blocks * 100,
        variants=[SimpleNamespace(label="base", edits="", rules=rules),
                  SimpleNamespace(label="edit", edits="k=1", rules=rules)],
        metrics=[SimpleNamespace(name="m", job="games", unit="points", better="lower")],
        source=[{"games": 0}, {"games": 1}])  # each variant simulated on its own


@pytest.mark.parametrize(("sign", "word", "not_word"), [(1, "narrowed", "widened"),
                                                        (-1, "widened", "narrowed")])
def test_the_pairing_note_says_narrowed_or_widened_as_the_ratio_says(sign, word, not_word):
    """Leave-one-block-out values moving together (sign 1) make the paired standard
    error smaller than the unpaired one; moving against each other (sign -1), larger:
    the note must say which, not "narrowed to 1.41" (issue 49)."""
    from sheepsim.variant_runs import metric_tables

    rng = np.random.default_rng(1)
    noise = rng.normal(size=20)
    base = np.concatenate([[1.0], 1.0 + 0.01 * noise])
    other = np.concatenate([[1.2], 1.2 + sign * 0.01 * noise + 0.001 * rng.normal(size=20)])
    d = metric_tables(_two_variant_job(), {(0, "m"): base, (1, "m"): other})["differences"]
    ratio = float(d["se_ratio"].iloc[0])
    assert (ratio < 1) if sign == 1 else (ratio > 1)
    note = d["pairing_note"].iloc[0]
    assert word in note and not_word not in note
    assert f"{ratio:.2f}" in note


# ------------------------------------------------------------------ --out writes every table
def test_variants_out_csv_writes_every_table_and_says_where(capsys, tmp_path):
    import pandas as pd

    out = tmp_path / "v.csv"
    argv = ["awsheep", "variants", "--set", "scoring.golden_worth=4", "--games", "200",
            "--metric", "mean_turns", "--quiet", "--policy", "random"]
    code, _, err = run(capsys, *argv, "--out", str(out))
    assert code == 0, err
    diffs = tmp_path / "v.differences.csv"
    assert pd.read_csv(out).columns[0] == "variant" and "value" in pd.read_csv(out)
    assert pd.read_csv(diffs)["diff"].tolist() == [0]
    assert (tmp_path / "v.differences.csv.meta.json").is_file()
    assert f"table metrics to {out}" in err and f"table differences to {diffs}" in err
    # CSV to stdout holds one table: stderr says which, and how to get the other
    code, stdout, err = run(capsys, *argv, "--format", "csv")
    assert code == 0 and stdout.startswith("variant,metric,value,")
    assert "this is metrics" in err and "--table differences" in err
    # --table still writes just that one, with no note
    code, _, err = run(capsys, *argv, "--out", str(tmp_path / "d.csv"), "--table", "differences")
    assert code == 0 and err == "" and not (tmp_path / "d.metrics.csv").exists()
    assert "diff" in pd.read_csv(tmp_path / "d.csv")


# ------------------------------------------------------------------ long-run advice
@pytest.mark.parametrize("argv", [
    ["variants", "--set", "scoring.golden_worth=4"],
    ["sweep", "--set", "scoring.golden_worth=2,4"],
])
def test_the_long_run_advice_of_variants_and_sweep_is_an_option_they_take(argv, capsys, monkeypatch):
    """Every threshold 0: the estimate is said at once. It must not suggest --precision,
    which variants and sweep refuse (every variant plays the same, fixed games)."""
    from sheepsim import driver

    for name in ("ESTIMATE_AFTER_SECONDS", "PROGRESS_LINE_SECONDS", "LONG_RUN_SECONDS"):
        monkeypatch.setattr(driver, name, 0)
    code, _, err = run(capsys, "awsheep", *argv, "--games", "400", "--metric", "mean_turns",
                       "--format", "json")
    assert code == 0, err
    notes = [x for x in err.splitlines() if "this run will take" in x]
    assert len(notes) == 1 and "--precision" not in notes[0]
    assert "fewer --games" in notes[0]
    # and what it suggests is refused by neither: --precision is
    code, _, err = run(capsys, "awsheep", *argv, "--precision", "0.01", "--quiet")
    assert code == 2 and "--precision" in err


# ------------------------------------------------------------------ tune: claims it can back
LANES = "Requeijao,Pecorino,Feta,Manchego,Roquefort,Stilton"


def _tune(capsys, tmp_path, vary, target, *more):
    out = tmp_path / "best.toml"
    code, stdout, err = run(capsys, "race", "tune", "--vary", vary, "--target", target,
                            "--budget", "1000", "--trials", "6", "--lanes", LANES,
                            "--out-rules", str(out), "--format", "json", "--quiet", *more)
    return code, (json.loads(stdout) if stdout else None), err, out


def test_tune_writes_no_rules_file_when_no_candidate_beat_the_base(capsys, tmp_path):
    """The semifinal bonus is not part of a lane's single-bet EV: every candidate equals
    the base exactly. No rules file (it would claim a winner), one line, exit 3."""
    from sheepsim.options import EXIT_NO_WINNER

    code, doc, err, out = _tune(capsys, tmp_path, "race.payoffs.bonus_three=0..6", "lane_ev_spread=min")
    assert code == EXIT_NO_WINNER == 3
    assert not out.exists()
    assert err.count("\n") == 1 and "not written" in err and "no candidate did better" in err
    assert doc["meta"]["out_rules_written"] is False and doc["meta"]["winner_beats_base"] is False
    assert len(doc["best"]) >= 2  # the tables are printed as usual


def test_tune_flags_a_winner_at_the_edge_and_records_the_written_files_hash(capsys, tmp_path):
    """Lane 6's first-place payoff over 7..20 for the *largest* lane EV spread: the
    spread grows with the payoff, so the winner is 20, the top of the range (flagged),
    and it beats the base's 6 exactly (the file is written, exit 0). The recorded hash
    is the one every command reports for the written file (header comments included)."""
    import hashlib

    from sheepsim.game import get

    key = "race.payoffs.semifinal[0][5]"
    code, doc, err, out = _tune(capsys, tmp_path, f"{key}=7..20", "lane_ev_spread=max")
    assert code == 0, err
    best = doc["best"]
    assert best[0][key] == 20 and best[0]["at_range_edge"] == f"{key}=20"
    assert all(row["at_range_edge"] == "" for row in best if row[key] not in (7, 20))
    assert doc["meta"]["winner_at_range_edge"] == [f"{key}=20"]
    assert "end of its range" in doc["meta"]["verdict"]
    assert out.exists() and doc["meta"]["out_rules_written"] is True
    sha = doc["meta"]["winner_rules_sha256"]
    assert sha == hashlib.sha256(out.read_bytes()).hexdigest()
    assert sha == get("race").load_rules(str(out)).sha256
    # the text table shows the flag
    code, text, _ = run(capsys, "race", "tune", "--vary", f"{key}=7..20", "--target", "lane_ev_spread=max",
                        "--budget", "1000", "--trials", "6", "--lanes", LANES, "--quiet", "--table", "best")
    assert code == 0 and "at_range_edge" in text and "end of its range" in text


# ------------------------------------------------------------------ card-value: Holm
def test_card_value_p_values_are_holm_adjusted_over_every_row(capsys):
    """Five kinds in each of two player counts: ten tests, one family (issue 49)."""
    import pandas as pd

    from sheepsim.stats import holm_adjusted

    code, out, err = run(capsys, "awsheep", "card-value", "--players", "3,4", "--field", "greedy",
                         "--games", "60", "--format", "json", "--quiet")
    assert code == 0, err
    doc = json.loads(out)
    cv = pd.DataFrame(doc["card_value"])
    assert len(cv) == 10
    assert np.allclose(cv["pvalue_holm"], holm_adjusted(cv["pvalue"]))
    assert (cv["pvalue_holm"] >= cv["pvalue"]).all() and (cv["pvalue_holm"] <= 1).all()
    golden = pd.DataFrame(doc["golden_value"])
    assert golden["pvalue_holm"].tolist() == cv.loc[cv["kind"] == "golden", "pvalue_holm"].tolist()


# ------------------------------------------------------------------ exact values print as exact
def test_exact_values_print_as_exact_in_every_format(capsys):
    """With --lanes the lane metrics are solved exactly: no fake [x, x] interval, no
    p-value, an exact marker in every format, no game count where none was played, and
    a title and note that say so when everything is exact (issue 49)."""
    argv = ["race", "variants", "--set", "race.payoffs.semifinal[0][5]=3", "--lanes", LANES,
            "--games", "200", "--quiet"]
    code, out, err = run(capsys, *argv, "--metric", "lane_ev_spread,lane_win_spread", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    for row in doc["metrics"]:
        assert row["exact"] is True and row["value_lo"] is None and row["value_hi"] is None
        assert row["games"] is None
    for row in doc["differences"]:
        assert row["exact"] is True and row["pvalue"] is None and row["pvalue_holm"] is None
        assert row["diff_lo"] is None and row["games"] is None
        assert "every metric here is exact" in row["pairing_note"]
    assert doc["meta"]["games"] == 0 and set(doc["meta"]["exact_metrics"]) == {"lane_ev_spread",
                                                                               "lane_win_spread"}
    code, text, _ = run(capsys, *argv, "--metric", "lane_ev_spread,lane_win_spread")
    assert "every metric exact (no games played)" in text.splitlines()[0] and "games=0" in text
    assert "4.24 [4.24" not in text and "< 1e-300" not in text and "exact" in text
    assert "no metric changed" not in text
    # an exact metric beside a simulated one: the exact rows alone lose interval and p-value
    code, text, _ = run(capsys, *argv, "--metric", "lane_ev_spread,mean_turns", "--format", "csv",
                        "--table", "metrics")
    import io

    import pandas as pd

    m = pd.read_csv(io.StringIO(text)).set_index(["variant", "metric"])
    assert m.xs("lane_ev_spread", level="metric")[["value_lo", "value_hi", "games"]].isna().all().all()
    assert m.xs("mean_turns", level="metric")["games"].eq(200).all()
    assert m["exact"].tolist() == [True, False, True, False]
    code, text, _ = run(capsys, *argv, "--metric", "lane_ev_spread,mean_turns")
    assert "[, ]" not in text and "3.60 [3.60" not in text and "no simulated metric changed" in text


def test_the_variants_chart_draws_paired_differences_with_a_zero_line():
    """Issue 49, item 2: the chart plots each variant's paired difference to the base with
    its interval and a zero line (two variants' own intervals overlap where their
    difference is clearly not 0); a long label becomes V1, V2 with its key."""
    import matplotlib

    matplotlib.use("Agg")
    from sheepsim.designer import variants_panels
    from sheepsim.plots import panel_figure, plt

    long = "pig.target=80;pig.die_faces=8;pig.bust_face=2"
    res = sheepsim.variants("pig", set=["pig.target=50", long], metric="mean_turns",
                            games=400, quiet=True)
    fig = panel_figure(variants_panels(res.tables), res.meta, "t")
    ax = fig.axes[0]
    d = res.tables["differences"]
    points = [line for line in ax.lines if line.get_marker() == "o"]
    assert np.allclose(points[0].get_ydata(), d["diff"])
    assert any(list(line.get_ydata()) == [0, 0] for line in ax.lines)  # the zero line
    assert [t.get_text() for t in ax.get_xticklabels()] == ["V1", "V2"]
    assert "V2: pig.target=80" in ax.get_xlabel()
    plt.close(fig)



def test_the_differences_table_keeps_the_metric_and_the_difference_when_labels_are_long(tmp_path):
    """Issue 49, item 2: with long variant labels the CLI's table dropped the difference
    and its interval; it now drops the other columns first."""
    from sheepsim.output import render

    base = tmp_path / "pig.toml"
    base.write_text("[pig]\ntarget = 100\ndie_faces = 6\nbust_face = 1\n")
    other = tmp_path / ("a-variant-of-pig-with-a-long-descriptive-file-name-as-designers-"
                        "write-them-target-80.toml")
    other.write_text("[pig]\ntarget = 80\ndie_faces = 6\nbust_face = 1\n")
    res = sheepsim.variants("pig", files=[str(base), str(other)],
                            metric="mean_turns,first_player_edge", games=200, quiet=True)
    text = render({"differences": res.tables["differences"]}, "table", res.meta, "t")
    header = next(line for line in text.splitlines() if line.startswith("variant"))
    assert "metric" in header and "diff (95% CI)" in header, header
