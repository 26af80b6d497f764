"""Is a changed Shear Panic policy as strong as the one it replaces? (issue 34)

Run: ``python benchmarks/panic_policy_h2h.py --new greedy --old greedy-v1 [--games N]
[--seed S] [--threads K] [--playouts P] [--out FILE.npz]``.

Four players, two line-ups on the *same* games (same seed and game index: the same real
dice; each seat's policy stream keyed by seed, game and seat):

* A: the new policy in seat 1, the old one in seats 2-4;
* B: the old policy in seat 1, the new one in seats 2-4.

Per game, ``d = [seat 1 wins in A] - [seat 1 wins in B]``: seat 1 is the new policy
against three old ones in A and the old policy against three new ones in B, so with
equal strength both win rates are the same (whatever seat 1's own advantage) and ``d``
has mean 0; a stronger new policy makes A's rate rise and B's fall. The issue's
criterion: the lower end of the 95% interval of ``mean(d)`` (normal interval on the
paired per-game differences, ``1.96 * sd(d) / sqrt(n)``) at or above -1 percentage
point. Wins decided by a tie-break count as wins (the game's rule), and the share of
such games is printed next to the result. It also prints each line-up's CPU seconds
(``time.process_time`` of the whole process while it ran, chunks on ``--threads``
threads) and the mean points of seat 1. ``--out`` keeps the per-game outcomes, written
after every block (an interrupted run leaves its games); ``--summarize FILE.npz``
prints the tables of such a file.
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from sheepsim.games.panic.jobs import PlayJob
from sheepsim.headtohead import tied_for_top
from sheepsim.stats import wilson_interval


def outcomes(job, first, n, threads, chunk=16):
    """``(winner (n,), score (n, 4))`` of games ``first..first+n-1`` on ``threads``."""
    starts = list(range(first, first + n, chunk))
    with ThreadPoolExecutor(threads) as pool:
        parts = list(pool.map(lambda s: job.outcomes(s, min(chunk, first + n - s)), starts))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def summarize(win_a, win_b, score_a, score_b, tied_a, tied_b, new, old, cpu=None):
    n = len(win_a)
    d = win_a.astype(float) - win_b.astype(float)
    mean, sd = d.mean(), d.std(ddof=1)
    half = 1.96 * sd / math.sqrt(n)
    print(f"games {n}: A = {new} in seat 1 vs 3x {old};  B = {old} in seat 1 vs 3x {new}")
    for name, w, s, t in (("A", win_a, score_a, tied_a), ("B", win_b, score_b, tied_b)):
        lo, hi = wilson_interval(int(w.sum()), n)
        extra = f"  cpu {cpu[name]:.1f} s ({cpu[name] / n:.3f} s/game)" if cpu else ""
        print(f"  {name}: seat-1 win rate {w.mean():.4f} [{float(lo):.4f}, {float(hi):.4f}]  "
              f"mean points {s.mean():.2f}  tied for top {t.mean():.3f}{extra}")
    ds = score_a.astype(float) - score_b.astype(float)
    print(f"  d = win(A) - win(B): {100 * mean:+.2f} pp, 95% CI "
          f"[{100 * (mean - half):+.2f}, {100 * (mean + half):+.2f}] pp (sd {sd:.3f}); "
          f"lower end >= -1 pp: {'yes' if mean - half >= -0.01 else 'no'}")
    h = 1.96 * ds.std(ddof=1) / math.sqrt(n)
    print(f"  seat-1 points A - B: {ds.mean():+.3f} [{ds.mean() - h:+.3f}, {ds.mean() + h:+.3f}]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--new", default="greedy")
    ap.add_argument("--old", default="greedy-v1")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--playouts", type=int, default=4)
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--out", default=None)
    ap.add_argument("--summarize", default=None, metavar="FILE.npz")
    args = ap.parse_args()
    if args.summarize:
        z = np.load(args.summarize)
        summarize(z["win_a"], z["win_b"], z["score_a"], z["score_b"], z["tied_a"], z["tied_b"],
                  str(z["new"]), str(z["old"]))
        return
    jobs = {"A": PlayJob(None, 4, [args.new] + [args.old] * 3, args.seed, args.playouts),
            "B": PlayJob(None, 4, [args.old] + [args.new] * 3, args.seed, args.playouts)}
    for job in jobs.values():
        job.outcomes(0, 1)  # loads (or compiles) the kernels
    res = {k: ([], []) for k in jobs}
    cpu = dict.fromkeys(jobs, 0.0)
    for first in range(0, args.games, args.block):
        n = min(args.block, args.games - first)
        for k, job in jobs.items():
            t0 = time.process_time()
            w, s = outcomes(job, first, n, args.threads)
            cpu[k] += time.process_time() - t0
            res[k][0].append(w)
            res[k][1].append(s)
        win = {k: np.concatenate(res[k][0]) == 0 for k in jobs}
        score = {k: np.concatenate(res[k][1]) for k in jobs}
        tied = {k: tied_for_top(score[k], 0) for k in jobs}
        if args.out:
            np.savez(args.out, win_a=win["A"], win_b=win["B"], score_a=score["A"][:, 0],
                     score_b=score["B"][:, 0], tied_a=tied["A"], tied_b=tied["B"],
                     new=args.new, old=args.old, seed=args.seed, playouts=args.playouts)
        print(f"[{time.strftime('%H:%M:%S')}] {first + n} games", flush=True)
    summarize(win["A"], win["B"], score["A"][:, 0], score["B"][:, 0], tied["A"], tied["B"],
              args.new, args.old, cpu)


if __name__ == "__main__":
    main()
