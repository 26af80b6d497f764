"""Pig on sheepsim's harness: the shared conformance suite, the rules, the designers'
commands and a report study, run on the installed package (``pip install
./examples/pig``)."""

from __future__ import annotations

import json
import math
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

import sheepsim
from sheepsim import game
from sheepsim.testing.conformance import *  # noqa: F403 (the shared conformance tests)


@pytest.fixture
def g():
    """The conformance suite's game: Pig only."""
    return game.get("pig")


def _cli(argv, cwd, capsys, monkeypatch):
    """``sheepsim ARGV`` run in this process in ``cwd``: ``(exit code, stdout, stderr)``
    (:func:`sheepsim.testing.cli.run`: the code ``python -m sheepsim`` runs, without a
    new interpreter's imports and kernel loads; the conformance suite above runs Pig's
    ``play`` in a real process)."""
    from sheepsim.testing.cli import run

    monkeypatch.chdir(cwd)
    capsys.readouterr()  # only this command's lines
    return run(capsys, *argv)


def _rules(tmp_path, target, faces, bust):
    path = tmp_path / "pig.toml"
    path.write_text(f"[pig]\ntarget = {target}\ndie_faces = {faces}\nbust_face = {bust}\n")
    return path


def test_found_through_its_entry_point():
    assert "pig" in [x.name for x in game.games()]
    assert game.get("pig").machine == "sheepsim_pig.machine"


def test_first_seat_wins_two_thirds_of_a_two_point_race(tmp_path):
    """standard.toml: "rolling the bust face loses that total and ends the turn; banking
    adds it to your score"; seat 1 starts. With a 2-sided die (bust face 1) and a target
    of 2, each turn is one roll: a 2 wins (hold-20 banks what reaches the target), a 1
    passes the die. Seat 1 wins with P = 1/2 + P/4, so P = 2/3 exactly. 20,000 games:
    se = sqrt(2/9 / 20000) = 0.0033; the estimate must lie within 4 se."""
    res = sheepsim.play("pig", rules=str(_rules(tmp_path, 2, 2, 1)), players=2,
                        policy="hold-20", games=20_000, seed=5, quiet=True)
    seat = res.tables["by_seat"]
    p, n = seat["win_rate"].iloc[0], 20_000
    assert abs(p - 2 / 3) <= 4 * math.sqrt(2 / 9 / n), p
    assert seat["wins"].sum() == n  # somebody wins every game
    # every turn is one forced roll, then a bank after a 2: decisions = turns + wins
    length = res.tables["game_length"].iloc[0]
    assert length["mean_decisions"] == pytest.approx(length["mean_turns"] + 1)


def test_a_bust_ends_the_turn_and_loses_the_turn_total():
    """standard.toml: "rolling the bust face loses that total and ends the turn"."""
    tr = sheepsim.trace("pig", players=3, seed=2, policy="hold-20", quiet=True)
    rolls = [ln for ln in tr.lines if ": roll" in ln]
    assert rolls and tr.outcome["winner_seat"] in (1, 2, 3)
    banks = [ln for ln in tr.lines if ": bank" in ln]
    assert banks  # hold-20 banks at 20


def test_hold_20_beats_random_on_the_same_games():
    res = sheepsim.compare("pig", players=2, a="hold-20", b="random", games=2000, seed=1,
                           quiet=True)
    row = res.tables["comparison"].set_index("metric").loc["win_rate"]
    assert row["diff_lo"] > 0.2


def test_designer_commands_take_pig(tmp_path, capsys, monkeypatch):
    code, _, err = _cli(["pig", "variants", "--set", "pig.target=50", "--games", "400",
                         "--quiet", "--format", "json", "--out", str(tmp_path / "v.json")],
                        tmp_path, capsys, monkeypatch)
    assert code == 0, err
    doc = json.loads((tmp_path / "v.json").read_text())
    turns = {(row["variant"], row["metric"]): row["value"] for row in doc["metrics"]}
    assert turns[("pig.target=50", "mean_turns")] < turns[("base", "mean_turns")]
    code, _, err = _cli(["pig", "sweep", "--set", "pig.target=20,40", "--metric", "mean_turns",
                         "--games", "400", "--quiet"], tmp_path, capsys, monkeypatch)
    assert code == 0, err
    code, _, err = _cli(["pig", "variants", "--set", "pig.nosuch=1", "--games", "400"],
                        tmp_path, capsys, monkeypatch)
    assert code == 2 and len(err.strip().splitlines()) == 1, err


def test_a_report_study_of_pig(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "pig.toml"
    cfg.write_text('title = "Pig"\n\n[[study]]\ntype = "head-to-head"\ngame = "pig"\n'
                   'a = "hold-20"\nplayers = 3\ngames = 600\n')
    code, _, err = _cli(["report", str(cfg), "--out", str(tmp_path / "out"), "--quiet"],
                        tmp_path, capsys, monkeypatch)
    assert code == 0, err
    assert (tmp_path / "out" / "index.html").exists()


def test_the_harness_kernel_equals_a_plain_python_reading_of_the_loop():
    """sheepsim.testing.reference plays the same games in Python (the machine's functions
    as Python, the streams keyed the same way): the counts are equal, byte for byte."""
    from sheepsim.testing.reference import play_games

    for rotate in (False, True):
        job = game.get("pig").job("play", players=3, policies="hold-20,random,random",
                                  seed=9, rotate=rotate)
        assert np.array_equal(job.chunk(40, 60)["acc"], play_games(job, 9, 40, 60))


def test_pinned_results():
    """Pig's counts for a fixed seed, pinned: a change to the harness or the machine that
    moves any result must say so (CHANGELOG) and pin the new digest."""
    import hashlib

    res = sheepsim.play("pig", players=4, policy="hold-20,random,hold-20,random", games=3000,
                        seed=7, quiet=True)
    digests = {t: hashlib.sha256(df.to_csv().encode()).hexdigest()[:16]
               for t, df in res.tables.items()}
    assert digests == {"by_seat": "b358d1c5e998f253", "by_policy": "60b8656f6d0d43f1",
                       "outcomes": "391966c984748c92", "game_length": "4d557682ed042c4c",
                       "decisions": "4da86486fd2b0525", "course": "a1333350d874c762"}


PACKAGE = Path(__file__).resolve().parent.parent / "sheepsim_pig"
GUIDE = Path(__file__).resolve().parents[3] / "docs" / "guides" / "writing-a-game.md"


def _section():
    """docs/guides/writing-a-game.md (the README's "Writing a game" section until 0.2.0)."""
    return GUIDE.read_text()


def test_the_package_is_small_and_the_guide_says_its_size():
    """Issue 45: the example game is at most 150 lines of Python (rules, policies,
    declaration); docs/guides/writing-a-game.md gives the count."""
    lines = sum(len(p.read_text().splitlines()) for p in PACKAGE.glob("*.py"))
    assert lines <= 150
    assert f"package, {lines} lines of Python" in _section()


def test_the_guide_walk_through_is_this_package(capsys):
    """docs/guides/writing-a-game.md: its declaration is the package's, and its commands
    run (few games)."""
    from sheepsim import cli

    decl = textwrap.dedent(_section().split("```python")[1].split("```")[0]).strip()
    assert decl in (PACKAGE / "game.py").read_text()
    commands = re.findall(r"^sheepsim (.+)$", _section().split("```bash")[1].split("```")[0], re.M)
    assert len(commands) == 3
    for line in commands:
        argv = line.split() + ["--games", "300", "--quiet"]
        assert cli.main(argv) == 0, line
    capsys.readouterr()
