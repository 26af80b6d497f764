"""What the ``lookahead-exact`` pace policy (``lookahead`` before 0.4.0) gains over
``greedy`` and ``partisan`` in whole games (``--focal lookahead``: the fast ``lookahead``).

Run: ``python benchmarks/lookahead_h2h.py [--games N] [--seed S] [--threads K]
[--out FILE.npz] [--focal P]``. Four players; seat 1 plays P, then ``greedy``, then
``partisan`` in the *same* games (the same seed and game index: the same deals and dice
streams, as ``race compare`` plays them), the other three seats play ``greedy``; every
seat bets ``ev-approx`` (the exact ``ev`` bets would cost about 0.1 s of solving per
game on top). Per line-up the per-game outcomes come from ``GamesJob.outcomes`` and the
comparison tables from ``sheepsim.headtohead`` (``paired_sums``, ``compare_table``):
win rates with Wilson intervals, the paired difference with its normal interval and
the exact McNemar p-value, mean scores with the paired z interval. It also prints the
CPU seconds per game of each line-up (``time.process_time`` of the whole process,
chunks on ``--threads`` threads). The numbers in benchmarks/README.md come from here;
``--out`` keeps the per-game outcomes (written after every block, so an interrupted run
still leaves its games); ``--summarize FILE.npz`` prints the tables of such a file.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from sheepsim.games.race.jobs import GamesJob
from sheepsim.headtohead import compare_table, paired_sums

FIELD = "greedy"
BETS = "ev-approx"
FOCAL = ("lookahead-exact", "greedy", "partisan")


def outcomes(job, first, n, threads, chunk=25):
    """``(winner (n,), scores (n, 4))`` of games ``first..first+n-1`` on ``threads``."""
    starts = list(range(first, first + n, chunk))
    with ThreadPoolExecutor(threads) as pool:
        parts = list(pool.map(lambda s: job.outcomes(s, min(chunk, first + n - s)), starts))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def paired_games(jobs: dict, games: int, block: int, threads: int, save=None, chunk=25,
                 first=0):
    """Every line-up of ``jobs`` (name -> ``GamesJob``, one seed) on the *same* games
    ``first..first+games-1``, ``block`` at a time: ``(won, score, cpu)``, per name seat 1's wins
    (bool) and points per game and the line-up's CPU seconds (``time.process_time``).
    After each block it prints the CPU seconds per game and calls ``save(won, score)``
    (if given) with the games so far, so an interrupted run leaves its games."""
    for job in jobs.values():
        job.prepare()  # loads (or compiles) the kernels
    won = {k: [] for k in jobs}
    score = {k: [] for k in jobs}
    cpu = dict.fromkeys(jobs, 0.0)
    done = 0
    while done < games:
        n = min(block, games - done)
        for k, job in jobs.items():
            t0 = time.process_time()
            w, s = outcomes(job, first + done, n, threads, chunk)
            cpu[k] += time.process_time() - t0
            won[k].append(w == 0)
            score[k].append(s[:, 0])
        done += n
        print(f"{done} games; CPU s per game: " + ", ".join(f"{k} {cpu[k] / done:.4f}" for k in jobs)
              + f"; load {os.getloadavg()[0]:.1f}", flush=True)
        if save is not None:
            save({k: np.concatenate(v) for k, v in won.items()},
                 {k: np.concatenate(v) for k, v in score.items()})
    return ({k: np.concatenate(v) for k, v in won.items()},
            {k: np.concatenate(v) for k, v in score.items()}, cpu)


def main() -> None:
    global FOCAL
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--block", type=int, default=200)
    ap.add_argument("--out", default=None)
    ap.add_argument("--summarize", default=None, metavar="FILE.npz")
    ap.add_argument("--focal", default=FOCAL[0])
    args = ap.parse_args()
    FOCAL = (args.focal, *FOCAL[1:])
    if args.summarize:
        data = np.load(args.summarize)
        summarize({f: data[f"won_{f}"] for f in FOCAL}, {f: data[f"score_{f}"] for f in FOCAL})
        return
    jobs = {f: GamesJob(None, 4, BETS, [f, FIELD, FIELD, FIELD], args.seed) for f in FOCAL}

    def save(won, score):
        np.savez(args.out, **{f"won_{f}": won[f] for f in FOCAL},
                 **{f"score_{f}": score[f] for f in FOCAL})

    won, score, _ = paired_games(jobs, args.games, args.block, args.threads,
                                 save if args.out else None)
    summarize(won, score)


def summarize(won: dict, score: dict) -> None:
    """The two comparison tables (the first focal policy against each other one)."""
    a = FOCAL[0]
    games = len(won[a])
    for b in FOCAL[1:]:
        acc = paired_sums(won[a], won[b], score[a].astype(np.int64), score[b].astype(np.int64))
        df = compare_table(acc, games, f"{BETS},{a}", f"{BETS},{b}", f"{BETS},{FIELD}", 1)
        print(df[["metric", "a", "a_lo", "a_hi", "b", "b_lo", "b_hi", "diff", "diff_lo",
                  "diff_hi", "pvalue", "games"]].to_string(index=False, float_format="%.4f"))


if __name__ == "__main__":
    main()
