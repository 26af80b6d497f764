"""The fast ``lookahead`` pace policy against ``lookahead-exact`` (issue 46, item 4).

Run: ``python benchmarks/lookahead_fast.py speed [--rounds R] [--games-new N]
[--games-exact M]``, ``python benchmarks/lookahead_fast.py exact-speed --old-tree PATH
[--rounds R] [--games N]`` or ``python benchmarks/lookahead_fast.py h2h [--games N] [--seed S]
[--threads K] [--block B] [--first F] [--out FILE.npz]`` (``--summarize FILE.npz``
prints the tables of such a file; several files are concatenated).

**speed**: 4-player whole games, every seat betting ``ev-approx``, seat 1 pacing
``lookahead`` or ``lookahead-exact`` and seats 2-4 ``greedy``, one thread, the two
line-ups alternating in one process (games ``k*N..`` of seed 46 in round ``k``, kernels
loaded before timing); games per CPU second (``time.process_time``) per round, the
per-round ratio, medians, and the load average before and after.

**exact-speed --old-tree PATH**: ``lookahead-exact`` against its code in another tree
(``PATH``, e.g. a ``git worktree`` of main before the row-by-row sweep): 4-player whole
games, seat 1 ``lookahead-exact``, seats 2-4 ``greedy``, every seat ``ev-approx``; each
round plays the same ``--games`` games (``k*N..`` of seed 46) in a fresh process per
tree, the trees alternating, kernels loaded before timing; games per CPU second, the
per-round ratio and medians, and a digest of every game's winner and scores, which
must agree (byte-identical choices).

**h2h**: the issue's strength check, as Shear Panic's was
(``panic_policy_h2h.py``): four players, every seat betting ``ev-approx``, two line-ups
on the *same* games (same seed and game index: the same deals and dice; each seat's
policy stream keyed by seed, game and seat):

* A: ``lookahead`` in seat 1, ``lookahead-exact`` in seats 2-4;
* B: ``lookahead-exact`` in seat 1, ``lookahead`` in seats 2-4.

Per game ``d = [seat 1 wins in A] - [seat 1 wins in B]`` (mean 0 at equal strength,
whatever seat 1's own advantage); the criterion: the lower end of the 95% interval of
``mean(d)`` (``1.96 * sd(d) / sqrt(n)``) at or above -1 percentage point. Wins decided
by the stack tie-break count as wins (the game's rule). ``--out`` keeps the per-game
outcomes, written after every block (an interrupted run leaves its games).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from sheepsim.games.race.jobs import GamesJob
from sheepsim.stats import wilson_interval

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lookahead_h2h import paired_games  # noqa: E402  (this folder: the paired-game loop)

BETS = "ev-approx"
NEW, OLD = "lookahead", "lookahead-exact"


def speed(args) -> None:
    jobs = {p: GamesJob(None, 4, BETS, [p, "greedy", "greedy", "greedy"], 46) for p in (NEW, OLD)}
    for job in jobs.values():
        job.prepare()
    games = {NEW: args.games_new, OLD: args.games_exact}
    print(f"load average before: {os.getloadavg()}", flush=True)
    rates = {NEW: [], OLD: []}
    for k in range(args.rounds):
        for p in ((OLD, NEW) if k % 2 else (NEW, OLD)):
            t0 = time.process_time()
            jobs[p].outcomes(k * games[p], games[p])
            rates[p].append(games[p] / (time.process_time() - t0))
        print(f"round {k + 1}: {NEW} {rates[NEW][-1]:.1f}, {OLD} {rates[OLD][-1]:.2f} games per "
              f"CPU s, ratio {rates[NEW][-1] / rates[OLD][-1]:.1f}", flush=True)
    ratios = [a / b for a, b in zip(rates[NEW], rates[OLD], strict=True)]
    print(f"medians: {NEW} {statistics.median(rates[NEW]):.1f}, {OLD} "
          f"{statistics.median(rates[OLD]):.2f} games per CPU s; ratio median "
          f"{statistics.median(ratios):.1f} (range {min(ratios):.1f}-{max(ratios):.1f})")
    print(f"load average after: {os.getloadavg()}")


def exact_one(args) -> None:
    """One timing in this process: ``--games`` games from ``--first`` (exact-speed)."""
    job = GamesJob(None, 4, BETS, [OLD, "greedy", "greedy", "greedy"], 46)
    job.prepare()
    job.outcomes(args.first, 1)
    t0 = time.process_time()
    w, s = job.outcomes(args.first, args.games)
    rate = args.games / (time.process_time() - t0)
    print(f"{rate} {hashlib.sha256(w.tobytes() + s.tobytes()).hexdigest()[:16]}")


def exact_speed(args) -> None:
    here = str(Path(__file__).resolve().parents[1])
    trees = {"old": str(Path(args.old_tree).resolve()), "new": here}
    rates = {"old": [], "new": []}
    print(f"load average before: {os.getloadavg()}", flush=True)
    for k in range(args.rounds):
        digests = {}
        for name in (("old", "new") if k % 2 == 0 else ("new", "old")):
            env = {**os.environ, "PYTHONPATH": trees[name]}
            out = subprocess.run([sys.executable, __file__, "exact-one", "--first",
                                  str(k * args.games), "--games", str(args.games)],
                                 env=env, cwd=trees[name], capture_output=True, text=True,
                                 check=True).stdout.split()
            rates[name].append(float(out[0]))
            digests[name] = out[1]
        same = "same games" if digests["old"] == digests["new"] else "GAMES DIFFER"
        print(f"round {k + 1}: old {rates['old'][-1]:.2f}, new {rates['new'][-1]:.2f} games per "
              f"CPU s, ratio {rates['new'][-1] / rates['old'][-1]:.2f}; {same} "
              f"({digests['new']}); load {os.getloadavg()[0]:.1f}", flush=True)
    ratios = [b / a for a, b in zip(rates["old"], rates["new"], strict=True)]
    print(f"medians: old {statistics.median(rates['old']):.2f}, new "
          f"{statistics.median(rates['new']):.2f} games per CPU s; ratio median "
          f"{statistics.median(ratios):.2f} (range {min(ratios):.2f}-{max(ratios):.2f})")


def summarize(win_a, win_b, score_a, score_b, cpu=None) -> None:
    n = len(win_a)
    d = win_a.astype(float) - win_b.astype(float)
    mean, sd = d.mean(), d.std(ddof=1)
    half = 1.96 * sd / math.sqrt(n)
    print(f"games {n}: A = {NEW} in seat 1 vs 3x {OLD};  B = {OLD} in seat 1 vs 3x {NEW}")
    for name, w, s in (("A", win_a, score_a), ("B", win_b, score_b)):
        lo, hi = wilson_interval(int(w.sum()), n)
        extra = f"  cpu {cpu[name]:.1f} s ({cpu[name] / n:.3f} s/game)" if cpu else ""
        print(f"  {name}: seat-1 win rate {w.mean():.4f} [{float(lo):.4f}, {float(hi):.4f}]  "
              f"mean points {s.mean():.2f}{extra}")
    print(f"  games won in exactly one line-up: {int((d != 0).sum())} "
          f"(A only {int((d > 0).sum())}, B only {int((d < 0).sum())})")
    print(f"  d = win(A) - win(B): {100 * mean:+.2f} pp, 95% CI "
          f"[{100 * (mean - half):+.2f}, {100 * (mean + half):+.2f}] pp (sd {sd:.3f}); "
          f"lower end >= -1 pp: {'yes' if mean - half >= -0.01 else 'no'}")
    ds = score_a.astype(float) - score_b.astype(float)
    h = 1.96 * ds.std(ddof=1) / math.sqrt(n)
    print(f"  seat-1 points A - B: {ds.mean():+.3f} [{ds.mean() - h:+.3f}, {ds.mean() + h:+.3f}]")


def h2h(args) -> None:
    if args.summarize:
        z = [np.load(f) for f in args.summarize]
        summarize(*(np.concatenate([f[k] for f in z]) for k in ("win_a", "win_b", "score_a",
                                                                "score_b")))
        return
    jobs = {"A": GamesJob(None, 4, BETS, [NEW, OLD, OLD, OLD], args.seed),
            "B": GamesJob(None, 4, BETS, [OLD, NEW, NEW, NEW], args.seed)}

    def save(won, score):
        np.savez(args.out, win_a=won["A"], win_b=won["B"], score_a=score["A"], score_b=score["B"])

    won, score, cpu = paired_games(jobs, args.games, args.block, args.threads,
                                   save if args.out else None, chunk=10,
                                   first=args.first)
    summarize(won["A"], won["B"], score["A"], score["B"], cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    sp = sub.add_parser("speed")
    sp.add_argument("--rounds", type=int, default=5)
    sp.add_argument("--games-new", type=int, default=400)
    sp.add_argument("--games-exact", type=int, default=20)
    hp = sub.add_parser("h2h")
    hp.add_argument("--games", type=int, default=1000)
    hp.add_argument("--seed", type=int, default=46)
    hp.add_argument("--first", type=int, default=0, help="first game index (to go on from a "
                    "stopped run: concatenate the two files' games)")
    hp.add_argument("--threads", type=int, default=2)
    hp.add_argument("--block", type=int, default=100)
    hp.add_argument("--out", default=None)
    hp.add_argument("--summarize", default=None, nargs="+", metavar="FILE.npz")
    ep = sub.add_parser("exact-speed")
    ep.add_argument("--old-tree", required=True, metavar="PATH")
    ep.add_argument("--rounds", type=int, default=3)
    ep.add_argument("--games", type=int, default=10)
    op = sub.add_parser("exact-one")
    op.add_argument("--first", type=int, default=0)
    op.add_argument("--games", type=int, default=10)
    args = ap.parse_args()
    {"speed": speed, "h2h": h2h, "exact-speed": exact_speed, "exact-one": exact_one}[args.what](args)


if __name__ == "__main__":
    main()
