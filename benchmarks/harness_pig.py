"""The harness's speed on its example game (Pig, examples/pig): the compiled entry
kernel against the plain-Python reading of the same loop (sheepsim.testing.reference),
in one process, alternating, in games per CPU second. Both play the same games and are
checked equal before anything is timed.

    python benchmarks/harness_pig.py [--players 4] [--games 20000] [--rounds 5]

Needs `pip install ./examples/pig`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=20_000, help="kernel games per round")
    p.add_argument("--python-games", type=int, default=200, help="reference games per round")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--policies", default="hold-20", help="one for every seat, or one per seat")
    args = p.parse_args(argv)
    from sheepsim import game
    from sheepsim.errors import SheepsimError
    from sheepsim.testing.reference import play_games

    try:
        g = game.get("pig")
        job = g.job("play", players=args.players, policies=args.policies, seed=1)
    except SheepsimError as exc:
        print(f"harness_pig: {exc}", file=sys.stderr)
        return 2
    if min(args.games, args.python_games, args.rounds) < 1:
        print("harness_pig: --games, --python-games and --rounds must be at least 1", file=sys.stderr)
        return 2
    # the same games, the same counts: checked before anything is timed
    assert np.array_equal(job.chunk(0, 50)["acc"], play_games(job, 1, 0, 50))
    kernel, python = [], []
    first = 1000
    for _ in range(args.rounds):
        t = time.process_time()
        job.chunk(first, args.games)
        kernel.append(args.games / (time.process_time() - t))
        t = time.process_time()
        play_games(job, 1, first, args.python_games)
        python.append(args.python_games / (time.process_time() - t))
        first += args.games
    k, py = statistics.median(kernel), statistics.median(python)
    print(f"Pig, {args.players} players ({args.policies}), median of {args.rounds} rounds, "
          f"games per CPU second:")
    print(f"  harness kernel  {k:12,.0f}  (range {min(kernel):,.0f}-{max(kernel):,.0f})")
    print(f"  Python reading  {py:12,.1f}  (range {min(python):,.1f}-{max(python):,.1f})")
    print(f"  ratio           {k / py:12,.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
