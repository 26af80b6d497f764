"""Could one exact sweep per race serve the exact policies' decisions? (issue 34)

Run: ``python benchmarks/exact_reuse.py [--games N] [--seed S]``.

**`lookahead`.** Plays ``N`` 4-player games' races in Python, seat 1 ``lookahead`` (its
choice from :func:`~sheepsim.games.race.exact.game.option_values`, one backward sweep per
decision, as the whole-game kernel does), the other seats ``greedy``, random deals and
bets, dice from numpy (this measures costs, not results). At the start of every race
it also runs the prototype: one backward sweep of the player's points over the race's
own ``greedy`` lane graphs from the starting line, and then counts, at every decision,
whether that sweep holds every value the decision needs: every other lane's current
state and the selected lane's state after each legal option in that lane's graph.
Prints CPU seconds per game of the per-decision sweeps (and of the first decision of
each race alone) and of the one sweep per race, and the share of decisions the
race-start sweep could have served.

**What a sweep serving every decision would need.** Every lane's graph would have to
hold every state its sheep can reach under *any* sequence of options (the player's
decisions may move any lane off ``greedy``), each with its ``greedy`` successors. The
script counts those states per lane for the standard semifinal on the first six cards
(a search over every legal option at every supply class) against the ``greedy`` graph,
and the joint states of both.

**`ev`.** CPU time per dealt race of the numba lane-graph builder against the whole
exact solve (graphs + forward sweep) that ``ev`` bets make once per race for every
seat (:func:`~sheepsim.games.race.exact.game.deal_joint`).

CPU seconds of this process (``time.process_time``); kernels are loaded (or compiled)
before timing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sheepsim.games.race import engine
from sheepsim.games.race import layout as L
from sheepsim.games.race.exact import game as exact_game
from sheepsim.games.race.exact import graphs as exact_graphs
from sheepsim.games.race.exact import sweep as exact_sweep
from sheepsim.games.race.policies import GREEDY
from sheepsim.games.race.rules import load_rules

COLS = (L.POS, L.RED, L.BLUE, L.WHITE, L.STATUS)


def lane_key(row, track: int) -> tuple:
    """A lane state as the lane graphs key it (a finished sheep's cubes forgotten)."""
    if row[L.STATUS] == L.FINISHED:
        return (track + 1, 0, 0, 0, L.FINISHED)
    return tuple(int(row[c]) for c in COLS)


def race_start_sweep(board, race, kr, stage, pts):
    """The prototype: one backward sweep from the starting line; returns the lane-state
    keys of each lane's graph."""
    states, nxt, sizes, _, binding = exact_graphs.build_graphs(board, race, GREEDY, -1,
                                                               board[0:1])
    faces, nfaces = engine.stage_dice(kr, stage)
    dice = exact_game.dice_table(faces, nfaces)
    exact_sweep.backward((states, nxt, sizes), np.zeros(6, np.int64), dice, race,
                         exact_sweep.NO_LIMIT, binding, pts)
    return [{tuple(int(x) for x in states[ln, i]) for i in range(sizes[ln])} for ln in range(6)]


def lookahead_games(rules, games: int, seed: int) -> None:
    kr = rules.kernel_rules()
    gen = np.random.default_rng(seed)
    table = engine.new_table()
    board, race, seen, legal = table
    rand = np.zeros((1, 2), np.uint64)
    t_dec = t_first = t_race = 0.0
    n_dec = served = 0
    for g in range(games + 1):  # game 0 loads the kernels, untimed
        for stage in (L.SEMIFINAL, L.SEMIFINAL, L.FINAL):
            cards = gen.permutation(len(rules.cards))[:6].astype(np.int64)
            engine.setup_race(table, kr, cards, stage)
            mine = np.zeros(6, np.int64)
            mine[gen.choice(6, 2 if stage == L.FINAL else 3, replace=False)] = 1
            pts = exact_game.points_table(mine, kr.payoffs, kr.bonus, stage == L.FINAL)
            t0 = time.process_time()
            keys = race_start_sweep(board, race, kr, stage, pts)
            if g:
                t_race += time.process_time() - t0
            faces, nfaces = engine.stage_dice(kr, stage)
            track = int(race[L.TRACK])
            player, first = 0, True
            while not engine.race_over(board, race):
                total = sum(int(faces[d, gen.integers(nfaces[d])]) for d in range(faces.shape[0]))
                lane, _ = engine.select_sheep(board, total)
                engine.legal_options(board, race, lane, legal)
                if player == 0 and legal.sum() > 1:
                    ok = all(lane_key(board[ln], track) in keys[ln] for ln in range(6) if ln != lane)
                    for o in np.flatnonzero(legal):
                        b, r = board.copy(), race.copy()
                        engine.apply_option(b, r, lane, o)
                        ok = ok and lane_key(b[lane], track) in keys[lane]
                    t0 = time.process_time()
                    values = exact_game.option_values(lane, board, race, mine, kr, GREEDY)
                    dt = time.process_time() - t0
                    if g:
                        n_dec += 1
                        served += ok
                        t_dec += dt
                        t_first += dt if first else 0.0
                    first = False
                    option = int(np.nanargmax(np.where(legal, values, -np.inf)))
                else:
                    option = exact_graphs.own_state_pace(GREEDY, lane, board, race, seen, legal,
                                                         rand)
                engine.apply_option(board, race, lane, option)
                player = (player + 1) % 4
    print(f"lookahead, {games} games ({n_dec / games:.1f} decisions per game), CPU s per game: "
          f"per-decision sweeps {t_dec / games:.3f} (the first decision of each race "
          f"{t_first / games:.3f}); one race-start sweep per race {t_race / games:.3f}; "
          f"decisions the race-start sweep holds every value for: {served} of {n_dec}")


def option_closure(rules) -> None:
    kr = rules.kernel_rules()
    table = engine.new_table()
    board, race = table.board, table.race
    engine.setup_race(table, kr, np.arange(6, dtype=np.int64), L.SEMIFINAL)
    _, _, sizes, _, _ = exact_graphs.build_graphs(board, race, GREEDY, -1, board[0:1])
    track = int(race[L.TRACK])
    legal = np.zeros(L.N_OPTIONS, np.bool_)
    joint_all = joint_greedy = 1.0
    for lane in range(6):
        seen, todo = set(), [board[lane].copy()]
        while todo:
            row = todo.pop()
            key = lane_key(row, track)
            if key in seen:
                continue
            seen.add(key)
            if row[L.STATUS] != L.RUNNING:
                continue
            for supply in range(3):  # the supply classes 0, 1, 2+
                b, r = board.copy(), race.copy()
                b[lane] = row
                r[L.SUPPLY_BLUE], r[L.N_RUNNING], r[L.N_PLACED] = supply, 6, 0
                engine.legal_options(b, r, lane, legal)
                for option in np.flatnonzero(legal):
                    b2, r2 = b.copy(), r.copy()
                    engine.apply_option(b2, r2, lane, option)
                    todo.append(b2[lane].copy())
        print(f"lane {lane + 1}: greedy graph {sizes[lane]} states, every option {len(seen)}")
        joint_all *= len(seen)
        joint_greedy *= sizes[lane]
    print(f"joint states: greedy {joint_greedy:.3g}, every option {joint_all:.3g} "
          f"({joint_all / joint_greedy:.3g} times as many)")


def ev_split(rules, seed: int, deals: int = 20) -> None:
    kr = rules.kernel_rules()
    gen = np.random.default_rng(seed)
    table = engine.new_table()
    board, race = table.board, table.race
    for stage, label in ((L.SEMIFINAL, "semifinal"), (L.FINAL, "final")):
        t_graphs = t_solve = 0.0
        for i in range(deals + 1):
            cards = gen.permutation(len(rules.cards))[:6].astype(np.int64)
            engine.setup_race(table, kr, cards, stage)
            t0 = time.process_time()
            exact_graphs.build_graphs(board, race, GREEDY, -1, board[0:1])
            t1 = time.process_time()
            exact_game.deal_joint(kr, cards, stage, GREEDY, table)
            t2 = time.process_time()
            if i:  # the first call loads the kernels
                t_graphs += t1 - t0
                t_solve += t2 - t1
        print(f"ev, {label}, {deals} deals: lane graphs {1000 * t_graphs / deals:.2f} ms, whole "
              f"exact solve (graphs + forward sweep) {1000 * t_solve / deals:.1f} ms per race")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rules = load_rules()
    option_closure(rules)
    ev_split(rules, args.seed)
    lookahead_games(rules, args.games, args.seed)


if __name__ == "__main__":
    main()
