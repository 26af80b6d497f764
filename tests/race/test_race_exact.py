"""An exactly enumerable race checked against the Monte Carlo estimate.

A short track (4 squares, End Zone of 2) and cards with few cubes keep the state space
small. The exact placing distribution is computed by recursion over every dice total
(with its exact probability) and the greedy policy's deterministic choice, using the
engine's own rule functions; the simulation must agree within 4 standard errors.
"""

import itertools
from functools import cache

import numpy as np

from sheepsim.games.race import engine
from sheepsim.games.race import layout as L
from sheepsim.games.race import policies as P
from sheepsim.games.race.jobs import race_counts
from sheepsim.rng import new_streams

from .helpers import load_text, standard_text

CARDS = [  # name, red, blue, white, trot, gallop
    ("A", 1, 0, 0, 2, 3), ("B", 0, 1, 0, 2, 3), ("C", 0, 0, 1, 1, 2),
    ("D", 1, 1, 0, 1, 3), ("E", 0, 2, 0, 2, 2), ("F", 1, 0, 1, 2, 4),
]


def short_rules_text():
    head = standard_text()
    head = head[: head.index("[[race.cards]]")]
    head = head.replace("track_length = 20", "track_length = 4").replace("end_zone = 5", "end_zone = 2")
    blocks = "".join(
        f'\n[[race.cards]]\nname = "{n}"\nnation = "Test"\nred = {r}\nblue = {b}\nwhite = {w}\n'
        f"trot = {t}\ngallop = {g}\n" for n, r, b, w, t, g in CARDS)
    return head + blocks


def exact_places(rules, stage):
    faces = rules.dice_semifinal if stage == "semifinal" else rules.dice_final
    totals: dict[int, float] = {}
    combos = list(itertools.product(*faces))
    for c in combos:
        totals[sum(c)] = totals.get(sum(c), 0.0) + 1.0 / len(combos)
    table = engine.new_table()
    board0, race0 = table.board, table.race
    engine.setup_race(table, rules.kernel_rules(), np.arange(6),
                      L.FINAL if stage == "final" else L.SEMIFINAL)
    legal = np.zeros(L.N_OPTIONS, np.bool_)
    seen = np.zeros((2, 6), np.int64)
    rand = P.policy_stream(new_streams())

    @cache
    def solve(state):
        board = np.array(state[0], dtype=np.int64).reshape(6, L.N_BOARD)
        race = np.array(state[1], dtype=np.int64)
        out = np.zeros((6, 3))
        if engine.race_over(board, race):
            engine.place_remaining(board, race)
            for lane in range(6):
                if 1 <= board[lane, L.PLACE] <= 3:
                    out[lane, board[lane, L.PLACE] - 1] = 1.0
            return out
        for total, p in totals.items():
            b, r = board.copy(), race.copy()
            lane, _ = engine.select_sheep(b, total)
            engine.legal_options(b, r, lane, legal)
            option = P.greedy(lane, b, r, seen, legal, rand)
            engine.apply_option(b, r, lane, option)
            r[L.TURN] = 0  # the turn count does not change what happens next
            out += p * solve((tuple(b.ravel()), tuple(r)))
        return out

    return solve((tuple(board0.ravel()), tuple(race0)))


def test_short_race_exact_vs_monte_carlo(tmp_path):
    rules = load_text(tmp_path, short_rules_text())
    for stage in ("semifinal", "final"):
        exact = exact_places(rules, stage)
        n = 100_000
        counts = race_counts(rules, None, stage, "greedy", n, seed=2024, progress=False)
        mc = counts.place_counts / n
        places = 3 if stage == "semifinal" else 1
        assert np.allclose(exact[:, :places].sum(axis=0), 1.0)
        se = np.sqrt(exact * (1 - exact) / n)
        # 4 standard errors of a binomial proportion at the exact p (deterministic seed);
        # where p is 0 or 1 the simulation must match exactly.
        diff = np.abs(mc[:, :places] - exact[:, :places])
        assert np.all(diff <= 4 * se[:, :places] + 1e-12), (stage, mc, exact)
