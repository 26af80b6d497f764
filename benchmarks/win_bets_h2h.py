"""What the ``win`` bet policy gains over ``ev`` in whole games, and where it bets otherwise.

Run: ``python benchmarks/win_bets_h2h.py --games N [--first G] [--seed S] [--check K]
--out FILE.npz``, then ``--summarize FILE.npz [FILE.npz ...]`` (several runs over
disjoint game ranges, e.g. one process per core, are merged).

Four players, every seat ``greedy`` pace. Four line-ups play the *same* games (the same
seed and game index: the same deal and dice, as ``race compare`` plays them): A = seat 1
``win``, seats 2-4 ``ev``; B = every seat ``ev``; C = seat 1 ``ev``, seats 2-4 ``win``;
D = every seat ``win``. A against B is ``win`` against three ``ev``; D against C the
reverse (seat 1 ``win`` or ``ev`` among three ``win``). ``win`` bets as ``ev`` in the
semifinals and the pace never reads bets, so the four line-ups play the very same races
and semifinal bets: they differ only in the final's bets. This script therefore plays
each game once with the engine's own functions (``engine.deal``, ``bet_on_race``,
``run_race``, ``score_race``, ``leader``, called from Python in ``run_game``'s order)
and places the final's bets four times, once per line-up (``engine.place_bets``, the
policies as the kernel calls them), scoring each. ``--check K``: the first K games of
the range are also played by the game kernel (``GamesJob.outcomes``) for every line-up,
and the winners and scores must be identical (else it stops).

Per game it keeps the standings before the final (scores, token stack, first player),
the final's winning lane, seat 1's ``win`` and ``ev`` pairs with their exact chances
of winning the game against three ``ev`` rivals (:func:`final_pair_values`), and each
line-up's winner and seat-1 score. The summary: the paired win-rate differences with
95% intervals (``sheepsim.headtohead.compare_table``: Wilson intervals, the paired
normal interval, the exact McNemar p-value) and a table of how often and where (seat
1's score gap to the best rival before the final) ``win`` bets otherwise than ``ev``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sheepsim import rng
from sheepsim.games.race import engine
from sheepsim.games.race import layout as L
from sheepsim.games.race import policies as P
from sheepsim.games.race.exact import game as exact_game
from sheepsim.games.race.exact.win_bets import final_pair_values
from sheepsim.games.race.jobs import GamesJob
from sheepsim.games.race.kernels import new_asks, seed_seats
from sheepsim.games.race.rules import load_rules
from sheepsim.games.race.simulate import odds_tables
from sheepsim.headtohead import compare_table, paired_sums

N = 4
LINEUPS = {"A": ["win", "ev", "ev", "ev"], "B": ["ev"] * 4, "C": ["ev", "win", "win", "win"],
           "D": ["win"] * 4}
IDS = {"ev": P.EV, "win": P.WIN}
#: score gap (seat 1 minus the best rival before the final) bins: label, low, high
GAPS = [("trail by 15 or more", -999, -15), ("trail by 7-14", -14, -7),
        ("trail by 1-6", -6, -1), ("level", 0, 0), ("lead by 1-6", 1, 6),
        ("lead by 7 or more", 7, 999)]


def play_game(seed, g, rules, kr, card_odds):
    """One game as ``engine.run_game`` plays it, every seat ``ev`` in the semifinals and
    greedy pace; the final's bets placed per line-up. Returns a dict of per-game values."""
    streams = rng.new_streams()
    rng.seed_streams(streams, seed, g)
    asks = new_asks(N)
    seed_seats(asks, seed, g, N)
    scratch = engine.new_game_scratch(len(rules.cards), N)
    first = engine.deal(streams, scratch, N)
    counter = N
    scores = np.zeros(N, np.int64)
    seats = L.Seats(scratch.bets, scratch.rival_open)
    ev_ids = np.full(N, P.EV, np.int64)
    start = first
    for r in range(2):
        scratch.lane_cards[:] = scratch.deck[6 * r:6 * r + 6]
        engine.race_odds(card_odds[L.SEMIFINAL], scratch.lane_cards, L.SEMIFINAL, scratch.odds)
        assert engine.bet_on_race(ev_ids, L.SEMIFINAL, start, kr, seats, scratch, asks, None, kr,
                                  (scores, scratch.stamp))
        engine.setup_race(scratch.table, kr, scratch.lane_cards, L.SEMIFINAL)
        engine.fill_table_view(asks.pview, scratch.odds, kr.payoffs, kr.bonus,
                               scratch.bet_round.taken)
        assert engine.run_race(scratch.table, engine.stage_dice(kr, L.SEMIFINAL), streams, asks,
                               None, seats, start, scratch.log, kr) > 0
        engine.placed_lanes(scratch.table.board, scratch.places)
        engine.assign_final_lanes(r, scratch.lane_cards, scratch.places, scratch.final_cards)
        counter = engine.score_race(scratch.table.board, seats.bets, kr.payoffs, kr.bonus, False,
                                    start, scores, scratch.stamp, counter)
        start = engine.leader(scores, scratch.stamp)
    # the final: one exact solve, the bets per line-up, one race (greedy never reads bets)
    scratch.lane_cards[:] = scratch.final_cards
    engine.race_odds(card_odds[L.FINAL], scratch.lane_cards, L.FINAL, scratch.odds)
    joint = exact_game.deal_joint(kr, scratch.lane_cards, L.FINAL, P.GREEDY, scratch.table)
    stamp = scratch.stamp.copy()
    bets = {}
    for name, lineup in LINEUPS.items():
        scratch.bets[:] = 0
        scratch.rival_open[:] = 0
        scratch.bet_round.taken[:] = False
        scratch.bet_round.open_lane[:] = -1
        ids = np.array([IDS[x] for x in lineup], np.int64)
        assert engine.place_bets(ids, L.BET_FINAL, start, scratch.odds, kr, seats,
                                 scratch.bet_round, asks, joint, (scores, stamp))
        bets[name] = scratch.bets.copy()
    engine.setup_race(scratch.table, kr, scratch.lane_cards, L.FINAL)
    engine.fill_table_view(asks.pview, scratch.odds, kr.payoffs, kr.bonus, scratch.bet_round.taken)
    assert engine.run_race(scratch.table, engine.stage_dice(kr, L.FINAL), streams, asks, None,
                           seats, start, scratch.log, kr) > 0
    engine.placed_lanes(scratch.table.board, scratch.places)
    w = int(scratch.places[0])
    out = {"pre_scores": scores.copy(), "pre_stamp": stamp, "start": start, "first": first,
           "w": w}
    for name, b in bets.items():
        sc, st = scores.copy(), stamp.copy()
        engine.score_race(scratch.table.board, b, kr.payoffs, kr.bonus, True, start, sc, st,
                          counter)
        out[f"winner_{name}"] = engine.leader(sc, st)
        out[f"scores_{name}"] = sc
        out[f"pair_{name}"] = np.flatnonzero(b[0])  # seat 1's final pair
    p_win, ev, _ = final_pair_values(0, scores, stamp, start, joint, kr.payoffs, kr.bonus)
    out["p_win_A"] = p_win[tuple(out["pair_A"])]
    out["p_win_B"] = p_win[tuple(out["pair_B"])]
    out["ev_A"] = ev[tuple(out["pair_A"])]
    out["ev_B"] = ev[tuple(out["pair_B"])]
    return out


def check_against_kernel(seed, first, k, rows):
    """The game kernel's winners and scores for games ``first..first+k-1`` of every
    line-up equal this script's."""
    for name, lineup in LINEUPS.items():
        job = GamesJob(None, N, lineup, "greedy", seed)
        winner, scores = job.outcomes(first, k)
        assert np.array_equal(winner, rows[f"winner_{name}"][:k]), name
        assert np.array_equal(scores, rows[f"scores_{name}"][:k]), name
        print(f"line-up {name}: the game kernel agrees on {k} games", flush=True)


def run(args) -> None:
    rules = load_rules()
    kr = rules.kernel_rules()
    card_odds = odds_tables(rules)
    rows: dict[str, list] = {}
    t0 = time.process_time()
    for i, g in enumerate(range(args.first, args.first + args.games)):
        for key, v in play_game(args.seed, g, rules, kr, card_odds).items():
            rows.setdefault(key, []).append(v)
        if (i + 1) % 100 == 0 or i + 1 == args.games:
            arrays = {k: np.array(v) for k, v in rows.items()}
            np.savez(args.out, seed=args.seed, first_game=args.first, **arrays)
            print(f"{i + 1} games, {(time.process_time() - t0) / (i + 1):.3f} CPU s each",
                  flush=True)
    if args.check:
        check_against_kernel(args.seed, args.first, min(args.check, args.games),
                             {k: np.array(v) for k, v in rows.items()})


def summarize(files) -> None:
    import pandas as pd

    parts = [dict(np.load(f)) for f in files]
    d = {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if k not in ("seed", "first_game")}
    games = len(d["w"])
    print(f"{games} paired games, seeds {sorted({int(p['seed']) for p in parts})}")
    for a, b, label in (("A", "B", "win vs ev, seat 1 among three ev"),
                        ("D", "C", "win vs ev, seat 1 among three win")):
        acc = paired_sums(d[f"winner_{a}"] == 0, d[f"winner_{b}"] == 0,
                          d[f"scores_{a}"][:, 0].astype(np.int64),
                          d[f"scores_{b}"][:, 0].astype(np.int64))
        field = "ev" if a == "A" else "win"
        df = compare_table(acc, games, "win,greedy", "ev,greedy", f"{field},greedy", 1)
        print(label)
        print(df[["metric", "a", "a_lo", "a_hi", "b", "b_lo", "b_hi", "diff", "diff_lo",
                  "diff_hi", "pvalue"]].to_string(index=False, float_format="%.4f"))
    pre = d["pre_scores"]
    gap = pre[:, 0] - pre[:, 1:].max(axis=1)
    differs = (d["pair_A"] != d["pair_B"]).any(axis=1)
    won_a, won_b = d["winner_A"] == 0, d["winner_B"] == 0
    won_d, won_c = d["winner_D"] == 0, d["winner_C"] == 0
    rows = []
    for label, lo, hi in GAPS + [("all", -999, 999)]:
        m = (gap >= lo) & (gap <= hi)
        n, k = int(m.sum()), int((m & differs).sum())
        rows.append({"seat 1 before the final": label, "games": n,
                     "win bets otherwise": k, "share": k / n if n else np.nan,
                     "exact P(win) gain": float((d["p_win_A"] - d["p_win_B"])[m].mean()) if n else np.nan,
                     "EV cost": float((d["ev_B"] - d["ev_A"])[m].mean()) if n else np.nan,
                     "among ev: won only with win": int((m & won_a & ~won_b).sum()),
                     "only with ev": int((m & won_b & ~won_a).sum()),
                     "among win: won only with win": int((m & won_d & ~won_c).sum()),
                     "only with ev ": int((m & won_c & ~won_d).sum())})
    print(pd.DataFrame(rows).to_string(index=False, float_format="%.4f"))
    pairs = pd.Series([f"{a + 1},{b + 1}" for a, b in d["pair_A"][differs]])
    print("win's pairs where it differs:", pairs.value_counts().head(8).to_dict())
    print("ev's pairs there:", pd.Series([f"{a + 1},{b + 1}" for a, b in d["pair_B"][differs]])
          .value_counts().head(5).to_dict())
    assert np.array_equal(d["pair_D"], d["pair_A"]) and np.array_equal(d["pair_C"], d["pair_B"])
    print("seat 1's pairs in C and D are those of B and A (it never sees rivals' final bets)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--check", type=int, default=0)
    ap.add_argument("--out", default="win_bets_h2h.npz")
    ap.add_argument("--summarize", nargs="+", default=None, metavar="FILE.npz")
    args = ap.parse_args()
    if args.summarize:
        summarize(args.summarize)
    else:
        run(args)


if __name__ == "__main__":
    main()
