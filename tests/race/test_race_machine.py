"""The race machine (``sheepsim/games/race/machine.py``), the engine of the race's whole
games and harness metrics, plays the engine's games (every per-game row identical, for
all-``greedy`` pace and built-in pace policies mixed per seat with mixed bets, the
``lookahead`` pace policies and the ``ev``/``win`` bets among them: :data:`PINNED_ROWS`,
digests of the rows of the engine's own game kernel, ``engine.run_game``, removed in
0.8.0 once the machine played every line-up, pinned when the machine's equalled them)
and reports them to the harness's accumulator as they were played: decisions, turns,
legal options per kind and the course of every seat's score, cross-checked game by game
against the game's rows (turns per race, first player, final scores) and the engine's
decisions log of a race."""

import hashlib

import numpy as np
import pytest

from sheepsim.games.race import engine
from sheepsim.games.race.jobs import GamesJob, HarnessJob
from sheepsim.games.race.layout import SEMIFINAL
from sheepsim.games.race.policies import FIRST_USER_ID
from sheepsim.games.race.rules import load_rules
from sheepsim.games.race.simulate import lane_cards, odds_tables, resolve_policies
from sheepsim.games.race.trace import traced_race
from sheepsim.harness import layout as H
from sheepsim.harness import machine as M
from sheepsim.harness.jobs import run_games
from sheepsim.harness.tables import fields

from .helpers import rows_digest

MACHINE = "sheepsim.games.race.machine"
PACE = 3  # the machine's kind index of a pace decision (KINDS)


def machine_games(rules, pol, players, first, n, log_rows=0, seed=3, results=False):
    m = M.load(MACHINE)
    pids = np.array([*pol.bet_ids, *pol.pace_ids], dtype=np.int64)  # role-major
    R = m.module.make_R(rules, players, odds_tables(rules), pids)
    return run_games(m, m.kernel((), FIRST_USER_ID, pids), R, players, pids, False, seed, first,
                     n, outcomes=True, log_rows=log_rows, results=results)


LINEUPS = [
    (4, "greedy", "ev-approx,random,favourite,near-ev"),
    (3, "random,saver,steady", "ev-approx"),
    (6, "partisan,greedy,random,steady,saver,greedy", "random,longshot,ev-approx,random,"
                                                      "near-ev,favourite"),
]
#: line-ups with the policies that read the rules or the deal's exact odds (the machine's
#: R then holds the rules: slower games, a kernel of their own): the exact odds under
#: ``greedy`` (mixed pace, or every seat ``lookahead``), ``saver`` and ``steady``
#: (``exact.game.odds_pace``); ``win``'s final bets read the standings
EXACT_LINEUPS = [
    (4, "lookahead,greedy,lookahead-exact,saver", "win,ev,ev-approx,near-ev"),
    (3, "lookahead", "ev,random,win"),
    (2, "saver", "win"),
    (5, "steady", "ev,favourite,win,longshot,random"),
]
#: sha256 (first 16 hex digits) of the harness's accumulator of games 40-339 of seed 3 for
#: each line-up of LINEUPS: 0.6.0's, when the machine reported each race turn as a stretch
#: (since then each race is one stretch spanning its turns: the same counts)
PINNED_ACC = {4: "c01d88780d0387e9", 3: "a2ad657b4fb3cf9e", 6: "70ce085808d9b224"}
#: rows_digest of the engine's rows (scores, winner, first, turns, race_cards) of games
#: 40.. of seed 3, for each line-up of LINEUPS (300 games) and EXACT_LINEUPS (8)
PINNED_ROWS = {
    (4, "greedy", "ev-approx,random,favourite,near-ev"): "f94d6affa67913d1",
    (3, "random,saver,steady", "ev-approx"): "4fb429a28fec941c",
    (6, "partisan,greedy,random,steady,saver,greedy", "random,longshot,ev-approx,random,"
                                                      "near-ev,favourite"): "9129a7efd08becda",
    (4, "lookahead,greedy,lookahead-exact,saver", "win,ev,ev-approx,near-ev"): "e300bdb42e2a78a8",
    (3, "lookahead", "ev,random,win"): "95812750eb09ee04",
    (2, "saver", "win"): "be7cecac1332f2cd",
    (5, "steady", "ev,favourite,win,longshot,random"): "efebf6149a43ee22",
}


@pytest.mark.parametrize("players, pace, bets, games", [
    *((*lineup, 300) for lineup in LINEUPS), *((*lineup, 8) for lineup in EXACT_LINEUPS)])
def test_the_machine_plays_the_engines_games(players, pace, bets, games):
    rules = load_rules()
    pol = resolve_policies(pace, bets, players)
    acc, fail, winners, scores, _, res = machine_games(rules, pol, players, 40, games,
                                                       results=True)
    assert fail[0] == 0
    # (GamesJob.rows' layout of slot result: first, turns per race, the races' cards)
    rows = (scores, winners, res[:, 0], res[:, 1:4], res[:, 4:].reshape(games, 3, 3))
    assert rows_digest(*rows) == PINNED_ROWS[(players, pace, bets)]
    if (players, pace, bets) in LINEUPS:  # (the pinned line-ups, 300 games)
        # every harness metric's counts (the pace decisions' options and forced moves too)
        assert hashlib.sha256(acc.tobytes()).hexdigest()[:16] == PINNED_ACC[players]


def test_the_exact_tables_only_where_a_lineup_needs_them():
    """``make_R`` puts the rules for the exact solver and the lookahead in ``R`` only for a
    line-up with an ``ev``/``win`` bet or a ``lookahead`` pace policy (the others' kernel
    compiles neither), and such a line-up's bets refuse an ``R`` without them."""
    from sheepsim.games.race import machine

    rules = load_rules()
    for pace, bets, needs in [("greedy", "ev-approx,near-ev", False),
                              ("partisan,steady", "random", False),
                              ("greedy,lookahead", "random", True),
                              ("lookahead-exact,greedy", "random", True),
                              ("greedy", "random,ev", True), ("saver", "win", True)]:
        pol = resolve_policies(pace, bets, 2)
        pids = np.array([*pol.bet_ids, *pol.pace_ids], dtype=np.int64)
        assert machine.needs_exact(pids) is needs
        R = machine.make_R(rules, 2, odds_tables(rules), pids)
        assert (R[machine.X_EXACT] is not None) is needs
    pol = resolve_policies("greedy", "ev", 2)
    pids = np.array([*pol.bet_ids, *pol.pace_ids], dtype=np.int64)
    m = M.load(MACHINE)
    with pytest.raises(ValueError, match="made without the exact solver"):
        run_games(m, m.kernel((), FIRST_USER_ID, pids), m.module.make_R(rules, 2, odds_tables(rules)),
                  2, pids, False, 3, 0, 1)


def expected_game(players, bets, race_turns, first, final):
    """A game as the harness should count it, from the engine's rows (``race_turns`` per
    race, the ``first`` player, the ``final`` scores) and the bets the harness asked
    (``bets``: the traced rows' seat and every seat's score after the bet): the seat of
    every decision in order, and every seat's score at the end of each decision."""
    n = players
    seats, after = [], []
    row = 0
    for r in range(3):
        rounds = 1 if r == 2 else 2
        start = int(bets[row][0])
        if r == 0:
            assert start == first
        for _ in range(rounds):  # the open and hidden bets (the final: one round)
            for i in range(n):
                assert bets[row][0] == (start + i) % n  # clockwise from the race's first
                seats.append(bets[row][0])
                after.append(tuple(bets[row][1]))
                row += 1
        before = after[-1]
        payout = tuple(bets[row][1]) if r < 2 else tuple(final)  # the next race's bets see it
        for t in range(race_turns[r]):  # the race: turns clockwise from its first player
            seats.append((start + t) % n)
            after.append(payout if t == race_turns[r] - 1 else before)
    return seats, after


def course_by_definition(seats, after, win):
    """Turns (one seat's decisions in a row) and the course metrics of one won game by
    their definitions (:func:`sheepsim.harness.loop.course`), from every decision's seat
    and the scores after it."""
    ends = [after[i] for i in range(len(seats)) if i + 1 == len(seats) or seats[i + 1] != seats[i]]
    turns = len(ends)

    def sole(sc):
        top = max(sc)
        return sc.index(top) if sc.count(top) == 1 else -1

    changes, prev, last_not, deficit = 0, -1, -1, 0
    for t, sc in enumerate(ends):
        lead = sole(list(sc))
        if lead >= 0:
            changes += prev >= 0 and lead != prev
            prev = lead
        if lead != win:
            last_not = t
        deficit = max(deficit, max(sc) - sc[win])
    mid = ends[(turns - 1) // 2]
    return {"turns": turns, "lead_changes": changes,
            "decided_at": (last_not + 1) * H.COURSE_SCALE // turns, "deficit": deficit,
            "comeback": int(mid[win] < max(mid))}


@pytest.mark.parametrize("players, pace, bets, count", [
    *((*lineup, 12) for lineup in LINEUPS), *((*lineup, 3) for lineup in EXACT_LINEUPS)])
def test_the_harness_counts_the_engines_games(players, pace, bets, count):
    """Game by game (12 games a line-up, 3 of the slower ones), the harness's decisions,
    turns, bets' and pace decisions and the course of the scores equal those derived from
    the game's rows (turns per race, first player, final scores: the whole-game job's,
    the engine's rows of :data:`PINNED_ROWS`, a game's rows the same from any chunk) and
    the bets the harness asked; over the games, every pace decision is a turn of the
    game's races, asked unless forced."""
    rules = load_rules()
    pol = resolve_policies(pace, bets, players)
    first_game = 40
    e_scores, e_winners, e_first, e_turns, _ = GamesJob(rules, players, bets, pace, 3).rows(
        first_game, count)
    w = M.load(MACHINE).option_width
    kinds = len(M.load(MACHINE).kinds)
    for i in range(count):
        acc, fail, winners, _, log = machine_games(rules, pol, players, first_game + i, 1,
                                                  log_rows=100)
        assert fail[0] == 0 and winners[0] == e_winners[i]
        f = fields(acc, players, kinds)
        bets = [(int(r[H.L_SEAT]), r[H.LOG_HEAD + w:H.LOG_HEAD + w + players].tolist())
                for r in log]
        assert len(bets) == 5 * players  # every bet asked by the harness, no pace decision
        seats, after = expected_game(players, bets, e_turns[i], int(e_first[i]),
                                     e_scores[i].tolist())
        want = course_by_definition(seats, after, int(e_winners[i]))
        assert f["decisions"][0] == len(seats) == e_turns[i].sum() + 5 * players
        assert f["kind_decisions"][PACE] == e_turns[i].sum()
        assert f["kind_decisions"][:PACE].tolist() == [2 * players, 2 * players, players]
        # the bets' options: the lanes left open; every pair but one's open lane; any pair
        assert f["kind_options"][:PACE].tolist() == [
            2 * sum(6 - j for j in range(players)), 2 * players * 10, players * 15]
        assert f["asked"][0] + f["kind_forced"].sum() == f["decisions"][0]
        got = {"turns": f["turns"][0], "lead_changes": f["lead_changes"][0],
               "decided_at": f["decided_at"][0], "deficit": f["deficit"][0],
               "comeback": f["comeback"][0]}
        assert got == want, i


def test_pace_options_are_the_engines_decisions_log():
    """The legal options the turn loop counts per turn (the turn log's ``LOG_OPTIONS``;
    summed, ``run_race``'s ``options``, what the machine reports of its pace decisions)
    are those of a traced race's decisions log (``race trace``'s: the harness's): a turn
    with more than one is the next asked decision, with its option count; one option is a
    forced move."""
    rules = load_rules()
    pol = resolve_policies("random,saver,partisan", players=3)
    race = traced_race(rules, lane_cards(rules, None), SEMIFINAL, pol, 3, 5, 2)
    options = race.turns[:, engine.LOG_OPTIONS]
    assert (options >= 1).all() and (options == 1).any()
    asked = race.decisions
    assert len(asked) == int((options > 1).sum())
    np.testing.assert_array_equal(options[options > 1], asked[:, H.L_N])


PLUG_IN = "tests.harness.rungs:always_bank"  # (any game's plug-in: the last option)


@pytest.mark.parametrize("pace, bets", [
    (f"lookahead,{PLUG_IN}", "random"),
    ("greedy", f"ev,{PLUG_IN}"),
    (PLUG_IN, PLUG_IN),
])
def test_the_machine_takes_plugins(pace, bets):
    """The metrics job takes plug-ins in either role (tests/race/test_race_plugins.py: the
    machine plays them as the engine does)."""
    job = HarnessJob(None, 2, bets, pace, 0)
    assert PLUG_IN in job.pace_policy + job.bet_policy


# ------------------------------------------------------------------ the race's metrics
def test_race_metrics_lists_the_harness_metrics(capsys):
    """`race metrics` lists at least 15 metrics (issue 46), each with its meaning, unit and
    which way is better; the harness's come from job ``harness`` (the race machine)."""
    import json

    from sheepsim.cli import main

    assert main(["race", "metrics", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["metrics"]
    assert len(rows) >= 15
    assert all(r["meaning"] and r["unit"] and r["better"] for r in rows)
    harness = {r["metric"] for r in rows if r["from"] == "harness"}
    assert harness == {"tie_rate", "mean_decisions", "lead_changes", "decided_at",
                       "winner_deficit", "comeback_rate", "sd_turns", "sd_decisions",
                       "branching", "forced_share", "outcome_uniformity"}


def test_a_plugin_lineup_keeps_the_harness_metrics():
    """A line-up with a plug-in keeps every metric (the race machine plays plug-ins);
    under the ladder's top rung the lane and card metrics are left out, and the run's
    meta says which and why; the race's own are kept."""
    from sheepsim import balance_metrics as BM
    from sheepsim import variant_runs as V
    from sheepsim.game import get

    g = get("race")
    every = BM.pick(g, None)
    assert BM.usable(g, every, {"pace": "greedy", "bet": f"ev,{PLUG_IN}"}) == (every, "")
    assert BM.usable(g, every, {"pace": PLUG_IN, "bet": "near-ev"}) == (every, "")
    assert BM.usable(g, every, {"pace": "saver", "bet": "near-ev"}) == (every, "")
    # under the ladder's top rung: every metric of whole games, the harness's too; the lane
    # and card metrics' single races cannot take lookahead (it reads the seat's bets)
    kept, lookahead_note = BM.usable(g, every, {"pace": "lookahead", "bet": "win"})
    assert [m.name for m in kept] == [m.name for m in every if m.job not in ("lanes", "cards")]
    assert lookahead_note.startswith("left out (the lane and card metrics' single races cannot "
                                     "take the pace policy lookahead, which plays whole games "
                                     "only): lane_ev_spread, ")
    base = V.Variant("base", load_rules(), {})
    job = V.build_job(g, [base], [m for m in kept if m.job == "games"], games=20, seed=0,
                      players=2, policies={"pace": "lookahead", "bet": "win"},
                      left_out=lookahead_note)
    assert job.meta()["metrics_left_out"] == lookahead_note


def test_a_harness_metric_of_a_plugin_lineup(capsys):
    """``race variants`` measures a harness metric under a plug-in bet policy (the race
    machine asks it), with no metric left out."""
    import json

    from sheepsim.cli import main

    code = main(["race", "variants", "--set", "race.payoffs.bonus_three=2", "--bet-policy",
                 PLUG_IN, "--metric", "branching", "--games", "20", "--quiet", "--format",
                 "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and "metrics_left_out" not in out["meta"]
    assert {r["metric"] for r in out["metrics"]} == {"branching"}


def test_the_harness_metrics_under_the_ladders_top_rung(capsys):
    """``race variants`` under the race's top rung's pace (``lookahead``, with ``win`` bets
    here) reports the harness's metrics (measured by the race machine), each with an
    interval inside its range."""
    import json

    from sheepsim.cli import main

    code = main(["race", "variants", "--set", "race.payoffs.bonus_three=2", "--players", "3",
                 "--pace-policy", "lookahead", "--bet-policy", "win", "--metric",
                 "branching,forced_share,tie_rate", "--games", "20", "--quiet", "--format",
                 "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and "metrics_left_out" not in out["meta"]
    rows = {(r["variant"], r["metric"]): r for r in out["metrics"]}
    assert {m for _, m in rows} == {"branching", "forced_share", "tie_rate"}
    for r in rows.values():
        assert r["games"] == 20 and r["value_lo"] <= r["value"] <= r["value_hi"]
    assert rows[("base", "branching")]["value"] > 1 and 0 < rows[("base", "forced_share")]["value"] < 1
