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
each game once on the race machine's own slots (``sheepsim/games/race/machine.py``,
called from Python as the harness's loop calls them: ``start``, ``seated``, each bet
from ``to_move``'s rows through ``decide_rules`` and ``apply``, each race with ``own``)
and plays the final four times from the same state, once per line-up's bets (one exact
solve of the final serves all four, as one serves every seat), scoring each.
``--check K``: the first K games of the range are also played by the harness's kernel
(``GamesJob.outcomes``) for every line-up, and the winners and scores must be identical
(else it stops).

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

from sheepsim.games.race import machine as M
from sheepsim.games.race import policies as P
from sheepsim.games.race.exact.win_bets import final_pair_values
from sheepsim.games.race.jobs import GamesJob
from sheepsim.games.race.rules import load_rules
from sheepsim.games.race.simulate import odds_tables
from sheepsim.harness import layout as H
from sheepsim.harness.loop import key_game
from sheepsim.headtohead import compare_table, paired_sums

N = 4
LINEUPS = {"A": ["win", "ev", "ev", "ev"], "B": ["ev"] * 4, "C": ["ev", "win", "win", "win"],
           "D": ["win"] * 4}
IDS = {"ev": P.EV, "win": P.WIN}
#: score gap (seat 1 minus the best rival before the final) bins: label, low, high
GAPS = [("trail by 15 or more", -999, -15), ("trail by 7-14", -14, -7),
        ("trail by 1-6", -6, -1), ("level", 0, 0), ("lead by 1-6", 1, 6),
        ("lead by 7 or more", 7, 999)]


def _py(fn):
    return getattr(fn, "py_func", fn)


def bet_round(st, R, ids, streams, opts):
    """The machine's bets until its next race: each seat's bet (``ids`` ``(N,)``) asked as
    the harness asks it (a lone option taken without asking), from its bet stream."""
    while True:
        seat, kind, m = _py(M.to_move)(st, R, opts)
        if kind == M.PACE:
            return
        choice = 0
        if m > 1:
            row = M.CHANCE_STREAMS + M.KIND_PHASES[kind] * N + seat
            choice = _py(M.decide_rules)(ids[seat], kind, None, opts[:m], m,
                                         streams[row:row + 1], R)
        _py(M.apply)(st, R, seat, kind, opts, choice, streams[:M.CHANCE_STREAMS])


def play_game(seed, g, R, kr):
    """One game on the race machine, every seat ``ev`` in the semifinals and greedy pace;
    the final played once per line-up's bets. ``R`` the machine's tables (``make_R`` of
    a line-up with ``ev`` bets). Returns a dict of per-game values."""
    streams = np.zeros((M.CHANCE_STREAMS + 2 * N, 2), np.uint64)
    key_game(streams, seed, g, M.CHANCE_STREAMS, 2, N)  # the harness's keying of game g
    st = np.zeros(M.state_size(N), np.int64)
    opts = np.zeros((M.MAX_OPTIONS, M.OPTION_WIDTH), np.int64)
    scratch = M.new_scratch(N, R)
    report = np.zeros(H.P_KINDS + 3 * M.N_KINDS, np.int64)
    played = np.zeros((1, 2 + N), np.int64)
    ev_ids = np.full(N, P.EV, np.int64)
    _py(M.start)(st, R, N, streams[:M.CHANCE_STREAMS])
    _py(M.seated)(st, R, np.concatenate([ev_ids, np.full(N, P.GREEDY, np.int64)]))
    for _ in range(2):  # the semifinals: their bets, then the race
        bet_round(st, R, ev_ids, streams, opts)
        M.own(st, R, 0, streams, scratch, report, played)
    # the final, once per line-up from the same state (greedy pace never reads bets: the
    # same race each time); its first exact solve serves the later line-ups too
    w, stamp_R = R[M.X_W], R[M.X_STAMP]
    saved = st.copy(), w.copy(), stamp_R.copy(), streams.copy()
    scores = st[M.SC:M.SC + N].copy()
    start, first, stamp = int(st[M.START]), int(st[M.FIRST]), stamp_R.copy()
    bets, out = {}, {}
    for i, (name, lineup) in enumerate(LINEUPS.items()):
        for a, b in zip((st, w, stamp_R, streams), saved, strict=True):
            a[:] = b
        if i > 0:
            w[M.W_SOLVED] = 1  # the final's distribution is in R already
        bet_round(st, R, np.array([IDS[x] for x in lineup], np.int64), streams, opts)
        bets[name] = R[M.X_BETS].copy()
        M.own(st, R, 0, streams, scratch, report, played)
        out[f"winner_{name}"] = int(st[M.WIN])
        out[f"scores_{name}"] = st[M.SC:M.SC + N].copy()
        out[f"pair_{name}"] = np.flatnonzero(bets[name][0])  # seat 1's final pair
    out.update({"pre_scores": scores, "pre_stamp": stamp, "start": start, "first": first,
                "w": int(R[M.X_PLACES][0])})
    joint = R[M.X_EXACT][1]  # the final's exact outcome distribution (216,)
    p_win, ev, _ = final_pair_values(0, scores, stamp, start, joint, kr.payoffs, kr.bonus)
    out["p_win_A"] = p_win[tuple(out["pair_A"])]
    out["p_win_B"] = p_win[tuple(out["pair_B"])]
    out["ev_A"] = ev[tuple(out["pair_A"])]
    out["ev_B"] = ev[tuple(out["pair_B"])]
    return out


def check_against_kernel(seed, first, k, rows):
    """The harness's kernel's winners and scores (``GamesJob``) for games
    ``first..first+k-1`` of every line-up equal this script's."""
    for name, lineup in LINEUPS.items():
        job = GamesJob(None, N, lineup, "greedy", seed)
        winner, scores = job.outcomes(first, k)
        assert np.array_equal(winner, rows[f"winner_{name}"][:k]), name
        assert np.array_equal(scores, rows[f"scores_{name}"][:k]), name
        print(f"line-up {name}: the game kernel agrees on {k} games", flush=True)


def run(args) -> None:
    rules = load_rules()
    kr = rules.kernel_rules()
    R = M.make_R(rules, N, odds_tables(rules), np.array([P.EV] * N + [P.GREEDY] * N))
    rows: dict[str, list] = {}
    t0 = time.process_time()
    for i, g in enumerate(range(args.first, args.first + args.games)):
        for key, v in play_game(args.seed, g, R, kr).items():
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
