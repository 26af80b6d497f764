"""What the table-based ``ev-approx`` bet policy loses against the exact ``ev``.

Run: ``python benchmarks/ev_policy_gap.py [--deals N] [--seed S]``. For random semifinal
deals (the first bettor: no lane taken) it compares the set ``ev-approx`` picks (its
open bet by single-lane EV, then the best hidden pair with the bonus from independent
marginals, reading the deal-averaged public odds table; the ``ev`` of earlier versions)
with the set ``race ev`` recommends from this deal's exact joint distribution
(``sheepsim.games.race.exact.bets.best_bets``), both valued exactly; and checks that an
``ev`` seat of whole games (the race machine's bet rounds: ``machine.to_move``'s rows,
``decide_rules``, ``apply``) places exactly that set. Pace: ``greedy``. The numbers in
benchmarks/README.md come from this script.
"""

from __future__ import annotations

import argparse

import numpy as np

from sheepsim.games.race import layout as L
from sheepsim.games.race.engine import race_odds
from sheepsim.games.race.exact import exact_odds
from sheepsim.games.race.exact.bets import best_bets, set_ev
from sheepsim.games.race.policies import EV_APPROX, builtin_bets
from sheepsim.games.race.rules import load_rules
from sheepsim.games.race.simulate import odds_tables
from sheepsim.rng import new_streams


def table_ev_choice(rules, card_odds, lane_cards) -> tuple[int, ...]:
    """The built-in ``ev`` policy's open bet and hidden pair for this deal."""
    odds = np.zeros((6, 3))
    race_odds(card_odds, lane_cards, L.SEMIFINAL, odds)
    payoffs = np.vstack([rules.payoff_semifinal, rules.payoff_final[None, :]])
    bonus = np.array([rules.bonus_two, rules.bonus_three], dtype=np.int64)
    taken, pick, streams = np.zeros(6, np.bool_), np.zeros(2, np.int64), new_streams()
    builtin_bets(EV_APPROX, L.BET_OPEN, odds, payoffs, bonus, taken, -1, pick, streams)
    first = int(pick[0])
    builtin_bets(EV_APPROX, L.BET_HIDDEN, odds, payoffs, bonus, taken, first, pick, streams)
    return first, int(pick[0]), int(pick[1])


def game_ev_choice(rules, lane_cards) -> tuple[int, ...]:
    """The set an ``ev`` seat of whole games places as the first bettor: the race
    machine's open and hidden bet rounds of one seat, its slots called from Python as
    the harness calls them (the bet policy, ``machine_bets``, compiled)."""
    from sheepsim.games.race import machine as M
    from sheepsim.games.race.policies import EV, GREEDY

    def py(fn):
        return getattr(fn, "py_func", fn)

    zero = np.zeros((len(rules.cards), 6, 3))
    R = M.make_R(rules, 1, (zero, zero), np.array([EV, GREEDY]))
    st = np.zeros(M.state_size(1), np.int64)
    st[M.N] = 1
    R[M.X_DECK][:6] = lane_cards  # the first semifinal's lanes
    py(M.begin_race)(st, R[M.X_LANES], R[M.X_DECK], R[M.X_FINALC], R[M.X_CO_SEMI],
                     R[M.X_CO_FINAL], R[M.X_ODDS], R[M.X_W])
    py(M.seated)(st, R, np.array([EV, GREEDY]))
    opts, streams = np.zeros((M.MAX_OPTIONS, M.OPTION_WIDTH), np.int64), new_streams()
    while True:
        seat, kind, m = py(M.to_move)(st, R, opts)
        if kind == M.PACE:  # the bets are done
            break
        choice = py(M.decide_rules)(EV, kind, None, opts[:m], m, streams[:1], R)
        py(M.apply)(st, R, seat, kind, opts, choice, streams)
    return tuple(np.flatnonzero(R[M.X_BETS][0]).tolist())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=25)
    ap.add_argument("--seed", type=int, default=2013)
    args = ap.parse_args()
    rules = load_rules()
    card_odds = odds_tables(rules)[0]
    gen = np.random.default_rng(args.seed)
    losses, open_differs, game_gap = [], 0, 0.0
    for _ in range(args.deals):
        lanes = gen.permutation(len(rules.cards))[:6]
        res = exact_odds(rules, lanes, "semifinal", "greedy")
        best = best_bets(res)
        chosen = table_ev_choice(rules, card_odds, lanes)
        losses.append(best.ev - set_ev(res, chosen))
        game_gap = max(game_gap, abs(best.ev - set_ev(res, game_ev_choice(rules, lanes))))
        open_differs += chosen[0] != best.open_lane
    losses = np.array(losses)
    print(f"deals: {args.deals} (seed {args.seed}), first bettor, greedy pace")
    print(f"ev-approx set not the best: {(losses > 1e-9).sum()} deals")
    print(f"open bet differs from race ev's: {open_differs} deals")
    print(f"ev-approx loss (points per race): mean {losses.mean():.3f}, max {losses.max():.3f}")
    print(f"whole games' ev seat: largest loss against race ev's set {game_gap:.2g}")


if __name__ == "__main__":
    main()
