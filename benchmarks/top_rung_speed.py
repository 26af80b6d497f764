"""How fast each game's top ladder rung plays (issue 46, item 4).

Run: ``python benchmarks/top_rung_speed.py [--rounds R] [--players N]``.

For every shipped game with a skill ladder (``Game.ladder``), 4-player ``play`` games
as the ladder's top step plays them: the top rung in seat 1, the rung below in the other
seats, one thread, after a warm-up call (kernels loaded or compiled). Games per CPU
second (``time.process_time`` of ``sheepsim.play``), the median of ``R`` rounds, each
round a fresh seed; the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import sheepsim
from sheepsim import game

#: games per timed call, per game (a call should take a few CPU seconds)
GAMES = {"sheep-race": 200, "shear-panic": 100, "aw-sheep": 20_000}


def lineup(g, players: int) -> dict:
    top, below = g.ladder[-1], g.ladder[-2]
    if g.name == "sheep-race":
        (tb, tp), (bb, bp) = top.split(","), below.split(",")
        return {"bet_policy": ",".join([tb] + [bb] * (players - 1)),
                "pace_policy": ",".join([tp] + [bp] * (players - 1))}
    return {"policy": ",".join([top] + [below] * (players - 1))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}", flush=True)
    for g in game.games():
        if g.name not in GAMES:
            continue
        kw = dict(players=args.players, quiet=True, threads=1, **lineup(g, args.players))
        sheepsim.play(g.name, games=10, seed=0, **kw)  # warm-up: load or compile
        rates = []
        for k in range(args.rounds):
            t0 = time.process_time()
            sheepsim.play(g.name, games=GAMES[g.name], seed=k + 1, **kw)
            rates.append(GAMES[g.name] / (time.process_time() - t0))
        print(f"{g.name}: top rung {g.ladder[-1]} (others {g.ladder[-2]}): "
              f"{statistics.median(rates):,.1f} games per CPU s (rounds: "
              + ", ".join(f"{r:,.1f}" for r in rates) + ")", flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
