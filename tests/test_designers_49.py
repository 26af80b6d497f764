"""Designers' commands that cannot mislead (issue 49): the pairing note reads right both
ways, ``--out`` writes every table, the long-run advice is one the command takes,
``tune`` writes only a winner that beat the base (and flags one at the edge of its range),
and ``card-value`` Holm-adjusts its p-values."""

from types import SimpleNamespace

import numpy as np
import pytest

from sheepsim.cli import main


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ pairing note
def _two_variant_job(blocks=20):
    rules = SimpleNamespace(sha256="0" * 64)
    return SimpleNamespace(
        blocks=blocks, games=blocks * 100,
        variants=[SimpleNamespace(label="base", edits="", rules=rules),
                  SimpleNamespace(label="edit", edits="k=1", rules=rules)],
        metrics=[SimpleNamespace(name="m", unit="points", better="lower")])


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
            "--metric", "mean_turns", "--quiet"]
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
