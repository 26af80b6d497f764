"""Issue 34: games per CPU second of ``greedy`` against ``greedy-v1``, same tree, same run.

Run: ``python benchmarks/greedy34.py [--players 4] [--games 600] [--rounds 7]
[--seed 1] [--all]``.

One process, one numba thread: ``PlayJob.chunk`` (what ``sheepsim panic
play`` runs) with the line-ups ``greedy,random,...`` and ``greedy-v1,random,...``
(``--all``: the policy at every seat; the same compiled kernels: the policy ids are
data), timed by the process's CPU time
(``time.process_time``) after a warm-up call. The two line-ups alternate, the order
flipping every round (new first, then old first, ...), each round on the same games
(seed, first game), so a slow spell of the shared machine hits both members of a pair.
Prints every round's games per CPU second and their ratio new / old, then the medians
and ranges.
"""

from __future__ import annotations

import argparse
import statistics
import time


def games_per_cpu_second(job, games: int) -> float:
    """Games ``0..games-1`` of the job's seed, one ``PlayJob.chunk`` call, per CPU second
    of this process (compiled beforehand)."""
    t0 = time.process_time()
    acc = job.chunk(0, games)["acc"]
    dt = time.process_time() - t0
    assert acc[0] == games
    return games / dt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--new", default="greedy")
    ap.add_argument("--old", default="greedy-v1")
    ap.add_argument("--all", action="store_true", help="the policy at every seat")
    args = ap.parse_args(argv)

    import numba

    from sheepsim.games.panic.jobs import PlayJob

    numba.set_num_threads(1)
    lineups = {}
    for name in (args.new, args.old):
        others = [name if args.all else "random"] * (args.players - 1)
        lineups[name] = PlayJob(None, args.players, [name] + others, args.seed, 4)
        lineups[name].chunk(0, 2)  # compile / load

    def rate(name):
        return games_per_cpu_second(lineups[name], args.games)

    rates = {args.new: [], args.old: []}
    ratios = []
    for k in range(args.rounds):
        order = (args.new, args.old) if k % 2 == 0 else (args.old, args.new)
        got = {name: rate(name) for name in order}
        for name in order:
            rates[name].append(got[name])
        ratios.append(got[args.new] / got[args.old])
        print(f"round {k + 1}: {args.new} {got[args.new]:.1f}  {args.old} {got[args.old]:.1f}"
              f"  ratio {ratios[-1]:.3f}", flush=True)
    line = ", ".join(f"{name} median {statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})"
                     for name, v in rates.items())
    seats = "every seat" if args.all else "one seat, the others random"
    print(f"{args.players} players ({seats}), {args.games} games x {args.rounds} rounds: {line}; "
          f"ratio median {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
