"""``tune`` confirms before it claims (issue 49, item 1) and takes ``--subject-to``
constraints (item 2), on the cheap example game Pig.

The winner and the base are played again on fresh games (the same seed, game indices
past every game the search played) and the verdict comes from those games alone. A
*null* search, where every candidate is the base in distribution, is built by making
``pig.target`` inert: a candidate with target T plays the standard rules on the games
``(T - 100) * SHIFT`` further on (other games of the same distribution), so the search
picks its winner by noise alone."""

import json

import pytest
from cli_helpers import run

SHIFT = 10_000_000




@pytest.fixture
def inert_target(monkeypatch):
    """``pig.target`` changes nothing but which games are played (see the module doc)."""
    from sheepsim.game import get
    from sheepsim.harness import metrics as HM

    real = HM.metric_jobs
    standard = get("pig").load_rules(None)

    def jobs(rules, players, seed, policies, keys):
        shift = (int(rules.kernel_array()[0]) - 100) * SHIFT
        out = real(standard, players, seed, policies, keys)
        for job in out.values():
            inner = job.run
            job.run = (lambda seed, first_game, n_games, *a, _inner=inner, **k:
                       _inner(seed, first_game + shift, n_games, *a, **k))
        return out

    monkeypatch.setattr(HM, "metric_jobs", jobs)


def _tune(capsys, tmp_path, *more, seed=0):
    out = tmp_path / "best.toml"
    code, stdout, err = run(capsys, "pig", "tune", "--vary", "pig.target=101..130", "--target",
                            "mean_turns=min", "--budget", "20000", "--trials", "8", "--seed",
                            str(seed), "--out-rules", str(out), "--format", "json", "--quiet", *more)
    return code, (json.loads(stdout) if stdout else None), err, out


def test_a_winner_picked_by_noise_is_not_confirmed(capsys, tmp_path, inert_target):
    """Seed 5: the search's own games call the luckiest candidate significantly better
    than the base (before this change: the file written, exit 0); on fresh games it is
    not, so no file and exit 3."""
    code, doc, err, out = _tune(capsys, tmp_path, seed=5)
    meta = doc["meta"]
    assert meta["search_verdict"].startswith("the winner beats the base rules")  # the search's claim
    assert code == 3, err
    assert not out.exists() and meta["out_rules_written"] is False and meta["winner_beats_base"] is False
    assert meta["verdict"].startswith("not confirmed") and "not confirmed" in err
    assert "search-time" in meta["verdict"]
    conf = doc["confirm"]
    assert len(conf) == 1 and conf[0]["pvalue"] >= 0.05
    # fresh games: past every game the search played, as many for winner and base
    assert meta["confirm"]["first_game"] >= max(row["games"] for row in doc["best"])
    assert meta["confirm"]["first_game"] >= meta["trial_games"]
    assert conf[0]["games"] == meta["confirm"]["games_each"] == 4 * meta["trial_games"]
    assert meta["games"] == meta["search_games"] + meta["confirm"]["games_played"]


def test_a_real_optimum_is_confirmed_on_fresh_paired_games(capsys, tmp_path):
    """Target 20..100 for the fewest turns: 20 (the range's end) is far better than the
    standard 100; the confirmation says so on its own games, and the file is written."""
    out = tmp_path / "best.toml"
    code, stdout, err = run(capsys, "pig", "tune", "--vary", "pig.target=20..100:10", "--target",
                            "mean_turns=min", "--budget", "20000", "--trials", "8", "--confirm-games",
                            "2000", "--out-rules", str(out), "--format", "json", "--quiet")
    assert code == 0, err
    doc = json.loads(stdout)
    meta, conf = doc["meta"], doc["confirm"][0]
    assert meta["verdict"].startswith("confirmed: the winner beats the base rules on 2,000 fresh games")
    assert out.exists() and meta["winner_beats_base"] is True
    assert doc["best"][0]["pig.target"] == 20
    # the difference is about -29.7 turns with a standard error near 0.1 (the jackknife's
    # on 2,000 paired games): p < 1e-6 is some 200 standard errors from failing
    assert conf["games"] == 2000 and conf["pvalue"] < 1e-6 and conf["diff_hi"] < 0
    # the confirmation's values are its own games', not the search's (which they would
    # equal exactly had the same games been replayed)
    assert conf["winner"] != doc["best"][0]["mean_turns"]
    assert conf["diff"] == pytest.approx(conf["winner"] - conf["base"])
    assert "fresh" in out.read_text().splitlines()[1]


def test_constraints_exclude_winners_in_the_search_and_on_the_confirmation(capsys, tmp_path):
    """skill_gradient (hold-20 against random) falls as the target shrinks; with a floor
    the winner is the smallest target that keeps it, never one below."""
    out = tmp_path / "best.toml"
    argv = ["pig", "tune", "--vary", "pig.target=20..100:10", "--target", "mean_turns=min", "--budget",
            "20000", "--trials", "8", "--confirm-games", "2000", "--format", "json", "--quiet"]
    code, stdout, err = run(capsys, *argv, "--subject-to", "skill_gradient>=0.3", "--out-rules", str(out))
    assert code == 0, err
    doc = json.loads(stdout)
    best = doc["best"]
    assert best[0]["feasible"] is True and best[0]["skill_gradient"] >= 0.3
    assert best[0]["pig.target"] > 20  # 20 alone would win without the floor
    trials = doc["trials"]
    assert all(t["feasible"] == (t["skill_gradient"] >= 0.3) for t in trials)
    conf = {r["metric"]: r for r in doc["confirm"]}
    assert conf["skill_gradient"]["role"] == "constraint" and conf["skill_gradient"]["constraint_met"] is True
    assert doc["meta"]["constraints"] == ["skill_gradient>=0.3"]
    # a bound no candidate meets: no winner, no file, exit 3
    out2 = tmp_path / "none.toml"
    code, stdout, err = run(capsys, *argv, "--subject-to", "skill_gradient>=0.9", "--out-rules", str(out2))
    assert code == 3 and not out2.exists()
    assert "no candidate met the constraints skill_gradient>=0.9" in err
    assert json.loads(stdout)["meta"]["confirm"]["played"] is False


def test_a_winner_that_breaks_a_constraint_on_the_confirmation_games_is_not_written(capsys, tmp_path):
    """A bound between the winner's search value and its confirmation value: met in the
    search, broken on the confirmation games. The first run's bound (<= 1) is met by
    every candidate, and so is the second's in the search (seed 0: it lies below every
    candidate's search value), so both runs take the same path."""
    out = tmp_path / "best.toml"
    argv = ["pig", "tune", "--vary", "pig.target=20..100:10", "--target", "mean_turns=min", "--budget",
            "20000", "--trials", "8", "--confirm-games", "2000", "--format", "json", "--quiet"]
    code, stdout, _ = run(capsys, *argv, "--subject-to", "skill_gradient<=1")
    doc = json.loads(stdout)
    assert code == 0 and doc["meta"]["winner_beats_base"] is True
    search_value = doc["best"][0]["skill_gradient"]
    confirm_value = next(r["winner"] for r in doc["confirm"] if r["metric"] == "skill_gradient")
    op = ">=" if confirm_value < search_value else "<="
    bound = f"skill_gradient{op}{(search_value + confirm_value) / 2:.6f}"
    code, stdout, err = run(capsys, *argv, "--subject-to", bound, "--out-rules", str(out))
    doc2 = json.loads(stdout)
    assert doc2["best"][0]["skill_gradient"] == search_value and doc2["best"][0]["feasible"] is True
    assert code == 3 and not out.exists()
    assert f"breaks {bound}" in err and doc2["meta"]["verdict"].startswith("not confirmed")
    row = next(r for r in doc2["confirm"] if r["metric"] == "skill_gradient")
    assert row["constraint_met"] is False and row["winner"] == confirm_value
    # the target alone is confirmed: only the bound stops the claim
    assert doc2["confirm"][0]["pvalue"] < 0.05


@pytest.mark.parametrize(("bound", "words"), [
    ("skill_gradient<0.3", "give METRIC<=NUMBER or METRIC>=NUMBER"),
    ("skill_gradient>=", "give METRIC<=NUMBER or METRIC>=NUMBER"),
    ("skill_gradient>=x", "give METRIC<=NUMBER or METRIC>=NUMBER"),
    ("nosuch<=1", "--subject-to: no metric 'nosuch'"),
])
def test_a_bad_constraint_is_one_line_and_exit_2_before_any_game(capsys, tmp_path, monkeypatch, bound, words):
    from sheepsim import driver

    def no_games(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(driver, "run", no_games)
    out = tmp_path / "o.json"
    code, _, err = run(capsys, "pig", "tune", "--vary", "pig.target=20..100", "--target", "mean_turns=min",
                       "--budget", "20000", "--trials", "8", "--subject-to", bound, "--out", str(out))
    assert code == 2 and words in err and err.count("\n") == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_too_few_confirmation_games_is_refused(capsys):
    code, _, err = run(capsys, "pig", "tune", "--vary", "pig.target=20..100", "--target", "mean_turns=min",
                       "--budget", "20000", "--trials", "8", "--confirm-games", "999")
    assert code == 2 and "--confirm-games 999: give at least 1,000" in err and err.count("\n") == 1


def test_the_tune_chart_plots_value_against_each_varied_key_and_a_pareto_front(capsys, tmp_path):
    """Item 3: a panel per target and varied key, its x axis the key's values (not the
    trial order), and with two targets a Pareto scatter of both."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from sheepsim.designer import tune_panels

    code, stdout, err = run(capsys, "pig", "tune", "--vary", "pig.target=20..100:10", "--vary",
                            "pig.die_faces=4..8", "--target", "mean_turns=min", "--target",
                            "first_player_edge=0", "--budget", "5000", "--trials", "4", "--confirm-games",
                            "1000", "--quiet", "--format", "json", "--plot", str(tmp_path / "t.png"))
    assert code == 0, err
    assert (tmp_path / "t.png").stat().st_size > 0
    doc = json.loads(stdout)
    trials, best = pd.DataFrame(doc["trials"]), pd.DataFrame(doc["best"])
    panels = tune_panels(trials, ["mean_turns", "first_player_edge"], best, ["pig.target", "pig.die_faces"])
    assert len(panels) == 2 * 2 + 1
    labels = []
    for panel in panels:
        fig, ax = plt.subplots()
        panel(ax)
        labels.append((ax.get_xlabel(), ax.get_ylabel()))
        if ax.get_xlabel() == "pig.target":  # every distinct candidate at its key's value
            xs = sorted(float(x) for x in ax.containers[0].lines[0].get_xdata())  # the errorbar's points
            own = trials[trials["repeat_of"].isna()]
            assert xs == sorted(own["pig.target"].astype(float))
        plt.close(fig)
    assert labels[:4] == [("pig.target", "mean_turns"), ("pig.die_faces", "mean_turns"),
                          ("pig.target", "first_player_edge"), ("pig.die_faces", "first_player_edge")]
    assert labels[4] == ("mean_turns", "first_player_edge")


def test_several_targets_confirm_only_a_winner_worse_in_none(capsys, tmp_path):
    """Two targets: the winner has far fewer turns but a larger first-player edge on the
    confirmation games; better in one target is no claim when worse in another."""
    out = tmp_path / "best.toml"
    code, stdout, err = run(capsys, "pig", "tune", "--vary", "pig.target=20..100:10", "--vary",
                            "pig.die_faces=4..8", "--target", "mean_turns=min", "--target",
                            "first_player_edge=0", "--budget", "5000", "--trials", "4", "--quiet",
                            "--format", "json", "--out-rules", str(out))
    doc = json.loads(stdout)
    conf = {r["metric"]: r for r in doc["confirm"]}
    assert conf["mean_turns"]["objective_diff"] < 0 and conf["mean_turns"]["pvalue_holm"] < 0.05
    assert conf["first_player_edge"]["objective_diff"] > 0 and conf["first_player_edge"]["pvalue"] < 0.05
    assert code == 3 and not out.exists()
    assert doc["meta"]["verdict"].startswith("not confirmed: the winner does worse than the base rules in "
                                             "first_player_edge")


def test_the_objectives_print_with_their_metrics_decimals():
    """``objective_<metric>`` and ``objective_<metric>_corrected`` are the target metric's
    value (negated for max) and printed at 2 decimals whatever its interval (-1.00 beside
    0.9977): now with the metric's decimals in the best and trials tables, and the
    confirmation's objective_diff with diff's."""
    import sheepsim
    from sheepsim.tableview import table_view

    res = sheepsim.tune("pig", vary=["pig.target=20..100:10"], target=["outcome_uniformity=max"],
                        budget=20000, trials=8, quiet=True)
    for name, cols in (("best", ["objective_outcome_uniformity",
                                 "objective_outcome_uniformity_corrected"]),
                       ("trials", ["objective_outcome_uniformity"]), ("confirm", ["objective_diff"])):
        table = res.tables[name]
        if not len(table):
            continue
        view = table_view(table, all_columns=True)
        base = "diff" if name == "confirm" else "outcome_uniformity"
        shown = view.rows[0][view.headers.index(base)]
        assert len(shown.split(".")[1]) >= 4, (name, shown)  # its interval's: 0.9977
        for col in cols:
            for row in view.rows:
                cell = row[view.headers.index(col)]
                assert len(cell.split(".")[1]) == len(shown.split(".")[1]), (name, col, cell)
