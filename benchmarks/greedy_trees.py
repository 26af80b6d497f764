"""Issue 34: ``greedy`` of this tree against ``greedy`` and ``greedy-v1`` of a baseline tree.

Run: ``python benchmarks/greedy_trees.py --baseline SRC_DIR [--rounds 8] [--games 150]
[--reps 5] [--players 4]``, with ``SRC_DIR`` another checkout (``git worktree add
/tmp/base <commit>``).

Shared kernels (the route search, the flock moves) sped up in one tree speed up
``greedy-v1`` there too, so the ratio against "greedy as it was" needs the baseline
tree's ``greedy-v1``, in another process. Each round runs three processes, one numba
thread each, in alternating order (this tree's ``greedy``, the baseline's ``greedy``, the
baseline's ``greedy-v1``; reversed every other round): each plays ``--games`` games with
the policy at every seat (``PlayJob.chunk``, seed 1, the same games) ``--reps``
times after a warm-up call and reports its median games per CPU second
(``time.process_time``, compile excluded). Prints every round, then the medians and the
per-round ratios (median and range). The kernel caches are the trees' own
(``SHEEPSIM_CACHE_DIR`` is left alone: the cache is named by a digest of the source).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from greedy34 import games_per_cpu_second  # this folder: the script's own


def _child(policy: str, players: int, games: int, reps: int) -> None:
    import numba

    from sheepsim.games.panic.jobs import PlayJob

    numba.set_num_threads(1)
    job = PlayJob(None, players, [policy] * players, 1, 4)
    job.chunk(0, 2)  # compile or load
    print(statistics.median(games_per_cpu_second(job, games) for _ in range(reps)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="another checkout's source directory")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if not (Path(args.baseline) / "sheepsim" / "__init__.py").is_file():
        ap.error(f"--baseline {args.baseline}: not a sheepsim checkout (no sheepsim/__init__.py)")
    if min(args.rounds, args.games, args.reps) < 1:
        ap.error("--rounds, --games and --reps must be at least 1")
    from sheepsim.errors import SheepsimError
    from sheepsim.games.panic.rules import load_rules

    try:
        load_rules().check_players(args.players)
    except SheepsimError as exc:
        ap.error(f"--players: {exc}")
    if args.child:
        _child(args.child, args.players, args.games, args.reps)
        return 0

    here = str(Path(__file__).resolve().parents[1])
    base = str(Path(args.baseline).resolve())
    runs = [("this greedy", here, "greedy"), ("baseline greedy", base, "greedy"),
            ("baseline greedy-v1", base, "greedy-v1")]
    rates = {name: [] for name, _, _ in runs}
    for r in range(args.rounds):
        for name, tree, policy in (runs if r % 2 == 0 else runs[::-1]):
            env = dict(os.environ, PYTHONPATH=tree)
            out = subprocess.run(
                [sys.executable, __file__, "--baseline", base, "--child", policy,
                 "--players", str(args.players), "--games", str(args.games),
                 "--reps", str(args.reps)],
                env=env, capture_output=True, text=True, check=True, cwd=tree).stdout
            rates[name].append(float(out.split()[-1]))
        print(f"round {r + 1}: " + "  ".join(f"{k} {v[-1]:.1f}" for k, v in rates.items()),
              flush=True)
    new, old, v1 = (rates[name] for name, _, _ in runs)
    print(f"{args.players} players, every seat, {args.games} games x {args.reps} per process, "
          f"{args.rounds} rounds; medians (games per CPU s): "
          + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in rates.items()))
    for label, a, b in (("this greedy / baseline greedy", new, old),
                        ("this greedy / baseline greedy-v1", new, v1),
                        ("baseline greedy / baseline greedy-v1", old, v1)):
        ratios = [x / y for x, y in zip(a, b, strict=True)]
        print(f"{label}: median {statistics.median(ratios):.3f} "
              f"({min(ratios):.3f}-{max(ratios):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
