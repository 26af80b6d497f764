"""Games per CPU second of Shear Panic line-ups, measured alternately in one process
(issue 34: a changed policy against the one it replaces, in the same run).

Run: ``python benchmarks/panic_policy_speed.py --lineup rollout,random,random,random
--lineup rollout-v1,random,random,random --games 24 --rounds 5 [--playouts 4]``.

Each line-up is a :class:`~sheepsim.games.panic.jobs.PlayJob` (on the harness) whose kernel is loaded
(or compiled) first; then, round by round, every line-up plays the same ``--games``
games (seed 7, games ``round * games`` onwards, one thread), timed by the process's CPU
time (``time.process_time``). Prints, per line-up, the games per CPU second of every
round with the median, and the median of the per-round ratios to the last line-up.
"""

from __future__ import annotations

import argparse
import statistics
import time

from sheepsim.games.panic.jobs import PlayJob


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lineup", action="append", required=True, help="comma-separated policies")
    ap.add_argument("--games", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--playouts", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    jobs = []
    for text in args.lineup:
        names = text.split(",")
        job = PlayJob(None, len(names), names, args.seed, args.playouts)
        job.chunk(0, 1)  # load or compile the kernel
        jobs.append(job)
    rates = [[] for _ in jobs]
    for r in range(args.rounds):
        for k, job in enumerate(jobs):
            t0 = time.process_time()
            job.chunk(r * args.games, args.games)
            rates[k].append(args.games / (time.process_time() - t0))
    for text, rate in zip(args.lineup, rates, strict=True):
        ratios = [a / b for a, b in zip(rate, rates[-1], strict=True)]
        print(f"{text:40s} games/CPU s median {statistics.median(rate):10.2f}  rounds "
              + " ".join(f"{x:.2f}" for x in rate)
              + f"  ratio to last: median {statistics.median(ratios):.2f} "
              f"({min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
