"""The exact policies of whole games (issue 13 parts 3 and 4) against the Python tools.

* the one lane-graph builder (numba) builds the very graphs of a plain-Python
  exploration (``graph_reference.py``), for built-in and user own-state policies, and
  refuses a user policy that is not own-state; run as Python (the solver's builder for
  the built-in policies), its source gives the kernel's output and compiles nothing;
* ``ev`` bets in whole games (the race machine's bet rounds, ``machine.exact_bets``) are
  ``race ev``'s recommendation (``exact_bets.best_bets``, itself checked against the
  ``race ev`` tables in test_exact_bets.py) on random deals, for every seat in turn order;
* ``lookahead-exact`` values every option as ``race advise`` does and plays its best one.
Exact quantities: tolerances are rounding (1e-9 on points of order 10).
"""

import sys
import textwrap

import numpy as np
import pytest

from sheepsim.errors import SheepsimError
from sheepsim.games.race import engine
from sheepsim.games.race import layout as L
from sheepsim.games.race import policies as P
from sheepsim.games.race.advise import advise
from sheepsim.games.race.exact import exact_odds, pace_function, start_position
from sheepsim.games.race.exact import game as exact_game
from sheepsim.games.race.exact.bets import best_bets, set_ev
from sheepsim.games.race.exact.from_position import board_from
from sheepsim.games.race.exact.graphs import build_graphs
from sheepsim.games.race.exact.lanegraph import build_lane_graphs
from sheepsim.games.race.rules import load_rules

from .graph_reference import python_lane_graphs
from .helpers import load_text
from .machine_bets import bet_rounds
from .test_exact_solver import tiny_rules_text

PACE_ID = {"greedy": P.GREEDY, "saver": P.SAVER, "steady": P.STEADY}
#: Mid-race positions: crossings in both orders, an exhausted sheep, a final.
POSITIONS = [
    "semifinal supply=14 7.101 9.110 6.020 8.201 12.110 10.111",
    "semifinal supply=15 6.011 10.010 8.000 10.001 12.020 F1",
    "semifinal supply=15 F2 14.010 9.010 X17 17.010 F1",
    "semifinal supply=13 F1 14.010 9.020 16.001 17.100 F2",
    "final supply=13 9.011 12.010 10.010 15.001 8.020 13.010",
]


def _random_walk(rules, gen, stage, steps):
    """A reachable position: random legal moves from the starting line."""
    board, race = start_position(rules, gen.permutation(len(rules.cards))[:6], stage)
    legal = np.zeros(L.N_OPTIONS, np.bool_)
    for _ in range(steps):
        lane, _ = engine.select_sheep(board, int(gen.integers(1, 10)))
        engine.legal_options(board, race, lane, legal)
        b, r = board.copy(), race.copy()
        engine.apply_option(b, r, lane, int(gen.choice(np.flatnonzero(legal))))
        if engine.race_over(b, r):
            break
        board, race = b, r
    return board, race


def _positions(tmp_path, seed: int, step: int) -> list:
    """(board, race) pairs: the start of a semifinal and a final under a supply that binds
    from the start, later and never; 8 random walks (``seed``, ``step * k`` moves); and
    the worked positions ``POSITIONS``."""
    cases = []
    for blue in (4, 5, 12):  # the supply binds from the start, later, never
        rules = load_text(tmp_path, tiny_rules_text(blue))
        cases += [start_position(rules, np.arange(6), s) for s in ("semifinal", "final")]
    rules = load_rules()
    gen = np.random.default_rng(seed)
    cases += [_random_walk(rules, gen, ("semifinal", "final")[k % 2], k * step)
              for k in range(8)]
    return cases + [board_from(p, rules)[:2] for p in POSITIONS]


@pytest.mark.parametrize("policy", ["greedy", "saver", "steady"])
def test_numba_lane_graphs_equal_the_python_builder(tmp_path, policy):
    cases = _positions(tmp_path, 7, 4)
    for board, race in cases:
        want, binds = python_lane_graphs(board, race, pace_function(policy))
        states, nxt, sizes, roots, binding = build_graphs(board, race, PACE_ID[policy], -1,
                                                          board[0:1])
        assert binding == binds
        assert np.array_equal(sizes, want.sizes)
        assert np.array_equal(states, want.states) and np.array_equal(nxt, want.nxt)
        assert roots.tolist() == [0]
        # the solver's entry is the same builder
        got, got_binds = build_lane_graphs(board, race, policy)
        assert got_binds == binds and np.array_equal(got.states, want.states)
        assert np.array_equal(got.nxt, want.nxt) and np.array_equal(got.sizes, want.sizes)


@pytest.mark.parametrize("policy", ["greedy", "saver", "steady"])
def test_the_solvers_builder_run_as_python_is_the_kernel_and_compiles_nothing(tmp_path,
                                                                              policy):
    """The solver runs the builder's source as Python for a built-in policy
    (``jit.in_python``): the kernel's very output, a selected lane's roots (the rows after
    each of its legal options) and a binding supply included, and no compilation."""
    from numba.core import event

    from sheepsim.games.race.exact.lanegraph import _python_builder

    cases = _positions(tmp_path, 11, 3)
    runs = []
    legal = np.zeros(L.N_OPTIONS, np.bool_)
    for k, (board, race) in enumerate(cases):
        sel = k % 7 - 1  # -1 (every lane from its row) and each lane in turn
        roots = board[0:1]
        if sel >= 0 and board[sel, L.STATUS] == L.RUNNING:
            engine.legal_options(board, race, sel, legal)
            rows = []
            for option in np.flatnonzero(legal):
                b, r = board.copy(), race.copy()
                engine.apply_option(b, r, sel, int(option))
                rows.append(b[sel])
            roots = np.array(rows)
        elif sel >= 0:
            roots = board[sel:sel + 1]
        want = build_graphs(board, race, PACE_ID[policy], sel, roots)
        runs.append((board, race, sel, roots, want))

    compiled = []

    class Compiles(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"])

        def on_end(self, ev):
            pass

    build = _python_builder()
    with event.install_listener("numba:compile", Compiles()):
        got = [build(board, race, PACE_ID[policy], sel, roots, None)
               for board, race, sel, roots, _ in runs]
    assert compiled == []
    for (*_, want), out in zip(runs, got, strict=True):
        for w, g in zip(want[:4], out[:4], strict=True):
            assert g.dtype == w.dtype and np.array_equal(g, w)
        assert out[4] is want[4]


PEEKING = textwrap.dedent("""
    import numba

    from sheepsim.games.race import layout as L
    from sheepsim.games.race.exact import own_state
    from sheepsim.games.race.policies import GREEDY, decide


    @own_state  # a false claim: it looks at the next lane's sheep
    @numba.njit
    def peeks(kind, view, opts, n, rand):
        lane = int(view[L.V_LANE])
        pos = L.V_BOARD + L.POS
        if view[pos + L.N_BOARD * ((lane + 1) % 6)] > view[pos + L.N_BOARD * lane]:
            for i in range(n):
                if opts[i, 0] == L.REST:
                    return i
        return decide(GREEDY, kind, view, opts, n, rand)
""")


def test_user_own_state_graphs_equal_the_python_exploration(tmp_path):
    from sheepsim.games.race.examples import always_gallop

    # the oracle asks the plug-in as the engine does (pace_function: its legal options
    # as rows, copies of its inputs); the numba builder gets the plug-in itself
    asked = pace_function("sheepsim.games.race.examples:always_gallop")

    rules = load_rules()
    cases = [start_position(rules, np.arange(6), s) for s in ("semifinal", "final")]
    cases += [board_from(p, rules)[:2] for p in POSITIONS[:3]]
    for board, race in cases:
        want, binds = python_lane_graphs(board, race, asked)
        got, got_binds = build_lane_graphs(board, race, always_gallop)
        assert got_binds == binds and np.array_equal(got.sizes, want.sizes)
        assert np.array_equal(got.states, want.states) and np.array_equal(got.nxt, want.nxt)


def test_a_user_policy_falsely_declared_own_state_is_refused(tmp_path, monkeypatch):
    name = f"race_peeks_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(PEEKING)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(SheepsimError, match="it is not own-state"):
            exact_odds(None, None, "semifinal", f"{name}:peeks")
        board, race = start_position(load_rules(), np.arange(6), "semifinal")
        with pytest.raises(SheepsimError, match="it is not own-state"):
            python_lane_graphs(board, race, pace_function(f"{name}:peeks"))
    finally:
        sys.modules.pop(name, None)


def _game_bets(rules, lane_cards, stage, n_players, first, pace_ids):
    """``(bets (n, 6), open lanes (n,))`` whole games' betting (the race machine's bet
    rounds) gives ``ev`` seats."""
    bets, opened, _ = bet_rounds(rules, lane_cards, stage == "final",
                                 np.full(n_players, P.EV, np.int64), first, pace_ids)
    return bets, opened


def test_ev_bets_in_whole_games_are_what_race_ev_recommends():
    rules = load_rules()
    gen = np.random.default_rng(2013)
    for deal in range(24):
        lanes = gen.permutation(len(rules.cards))[:6]
        stage = ("semifinal", "semifinal", "final")[deal % 3]
        n = int(gen.integers(2, 7))
        first = int(gen.integers(0, n))
        policy = ("greedy", "saver", "steady", "mixed")[deal % 4]
        pace_ids = (None if policy == "greedy" else np.array([P.GREEDY, P.SAVER] * 3)[:n]
                    if policy == "mixed" else np.full(n, PACE_ID[policy], np.int64))
        res = exact_odds(rules, lanes, stage, "greedy" if policy == "mixed" else policy)
        bets, opened = _game_bets(rules, lanes, stage, n, first, pace_ids)
        taken = []
        for i in range(n):
            p = (first + i) % n
            want = best_bets(res, taken)
            mine = tuple(np.flatnonzero(bets[p]).tolist())
            if stage == "final":
                assert mine == want.hidden
                continue
            if opened[p] != want.open_lane:  # only a tie of EVs may differ
                assert set_ev(res, mine) == pytest.approx(want.ev, abs=1e-9)
            else:
                assert mine == tuple(sorted((want.open_lane, *want.hidden)))
            taken.append(int(opened[p]))


def test_ev_odds_assume_the_common_own_state_pace_else_greedy():
    assert exact_game.odds_pace(None) == P.GREEDY
    for pid in (P.GREEDY, P.SAVER, P.STEADY):
        assert exact_game.odds_pace(np.full(4, pid, np.int64)) == pid
    for ids in ([P.SAVER, P.STEADY, P.SAVER], [P.PARTISAN] * 3, [P.LOOKAHEAD] * 3,
                [P.RANDOM_PACE] * 3):
        assert exact_game.odds_pace(np.array(ids, np.int64)) == P.GREEDY


def _advice_args(mine, stage):
    lanes = [m + 1 for m in mine]
    if stage == "final":
        return dict(hidden=lanes)
    return dict(open_bet=lanes[0], hidden=lanes[1:])


@pytest.mark.parametrize("position", POSITIONS)
def test_lookahead_exact_values_every_option_as_race_advise(position):
    rules = load_rules()
    board, race, _, stage = board_from(position, rules)
    gen = np.random.default_rng(len(position))
    legal = np.zeros(L.N_OPTIONS, np.bool_)
    for lane in np.flatnonzero(board[:, L.STATUS] == L.RUNNING):
        mine = sorted(gen.choice(6, size=2 if stage == "final" else 3, replace=False).tolist())
        held = np.zeros(6, np.int64)
        held[mine] = 1
        values = exact_game.option_values(lane, board, race, held, rules.kernel_rules(), P.GREEDY)
        table = advise(position, lane + 1, rules, **_advice_args(mine, stage)).table
        engine.legal_options(board, race, lane, legal)
        assert set(table["option"]) == {L.OPTION_NAMES[o] for o in np.flatnonzero(legal)}
        for name, ev in zip(table["option"], table["expected_points"], strict=True):
            assert values[L.OPTION_NAMES.index(name)] == pytest.approx(ev, abs=1e-9)
        assert np.isnan(values[~legal]).all()
        seen = np.zeros((2, 6), np.int64)
        seen[L.MY_BETS] = held
        choice = exact_game.lookahead(lane, board, race, seen, legal, rules.kernel_rules())
        assert values[choice] == pytest.approx(table["expected_points"].max(), abs=1e-9)
        # it sees its own bets only: rivals' open bets change nothing
        seen[L.RIVAL_OPEN] = 1 - held
        assert exact_game.lookahead(lane, board, race, seen, legal, rules.kernel_rules()) == choice


def test_whole_games_with_exact_policies_do_not_depend_on_threads_or_chunks():
    from sheepsim.games.race.jobs import play_games

    kw = dict(players=4, bet_policy="ev,ev-approx,random,favourite",
              pace_policy="lookahead-exact,lookahead,saver,partisan", games=8, seed=3,
              progress=False)
    a = play_games(threads=1, chunk_size=8, **kw)
    b = play_games(threads=2, chunk_size=3, **kw)
    for name in ("wins", "score_sum", "score_sq", "wins_by_order", "score_hist", "turns"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_meta_says_which_odds_the_bets_read(capsys):
    import json

    from sheepsim.cli import main
    from sheepsim.games.race.exact.bets import bet_odds_meta

    assert bet_odds_meta(["ev"] * 4, ["saver"] * 4)["ev_odds"] == {
        "method": "exact", "solved": "each dealt race from the start", "pace": "saver"}
    mixed = bet_odds_meta(["ev", "ev-approx"], ["greedy", "partisan"])
    assert mixed["ev_odds"]["pace"] == "greedy" and "unavailable" in mixed["ev_odds"]["note"]
    assert mixed["odds_table"]["bet_policies"] == ["ev-approx"]
    assert mixed["odds_table"]["method"] == "monte carlo"
    assert "ev_odds" not in bet_odds_meta(["ev-approx"], ["greedy"])
    assert main(["race", "play", "--players", "2", "--games", "2", "--bet-policy", "ev",
                 "--pace-policy", "lookahead,greedy", "--format", "json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["meta"]["bet_policies"] == ["ev", "ev"]
    assert doc["meta"]["ev_odds"]["pace"] == "greedy" and "note" in doc["meta"]["ev_odds"]
    assert sum(r["wins"] for r in doc["seats"]) == 2


def test_compare_records_the_odds_its_bet_policies_read_as_play_does():
    from sheepsim.games.race.exact.bets import bet_odds_meta
    from sheepsim.games.race.jobs import head_to_head

    meta = head_to_head(None, 3, "ev,greedy", "favourite,greedy", "ev-approx,greedy").meta()
    want = bet_odds_meta(["ev", "ev-approx", "ev-approx"], ["greedy"] * 3)["ev_odds"]
    assert meta["ev_odds_a"] == want and "ev_odds_b" not in meta and "ev_odds" not in meta
    assert meta["odds_table_b"]["bet_policies"] == ["ev-approx", "favourite"]
    # both line-ups read the same exact odds (saver everywhere): recorded once
    same = head_to_head(None, 3, "ev,saver", "random,saver", "ev,saver").meta()
    assert same["ev_odds"] == bet_odds_meta(["ev"], ["saver"])["ev_odds"]
    mixed = head_to_head(None, 3, "ev,greedy", "ev,saver", "ev,greedy").meta()
    assert mixed["ev_odds_a"]["pace"] == "greedy" and "note" not in mixed["ev_odds_a"]
    assert mixed["ev_odds_b"]["pace"] == "greedy" and "note" in mixed["ev_odds_b"]
