"""The Sheep Race's whole-game job (``GamesJob.chunk``: ``race play``, ``compare``,
``balance``'s games, studies) on the race machine against the engine it replaced for
line-ups of built-in policies, the same games, alternating in one process.

    python benchmarks/race_games_job.py time [--games 20000] [--rounds 5] [--players 4]
        [--pace greedy] [--bets ev-approx]
    python benchmarks/race_games_job.py compile [--pairs 2] [--old /work/main]

``time``: games per CPU second (``time.process_time``) of ``GamesJob.chunk`` three ways,
each round in turn: ``engine`` (what the job ran before: ``simulate.game_chunk_fn``, the
engine's game kernel and the counts from its per-game rows), ``machine`` (the job as it
is: the race machine on the harness with no accumulator, its rows from slot ``result``)
and ``machine+acc`` (the same run with the harness's whole accumulator counted as well,
as the metrics job counts it: course, turns, options). Medians, ranges, per-round ratios to ``engine``, the
load average. ``--pace``/``--bets``: one name for every seat or names taken in turn.

``compile``: CPU seconds (user + sys of the child) of a first ``sheepsim race play
--games 200`` in a fresh process with an empty ``SHEEPSIM_CACHE_DIR`` (odds tables
simulated, every kernel compiled), the tree at ``--old`` and this tree alternating.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lineup(names, players):
    names = names.split(",")
    return [names[s % len(names)] for s in range(players)]


def timing(args):
    import numpy as np

    from sheepsim.games.race import jobs
    from sheepsim.games.race.jobs import GamesJob
    from sheepsim.games.race.simulate import GAME_COUNTS, game_chunk_fn, game_counts, odds_tables
    from sheepsim.harness.jobs import run_games

    players = args.players
    pace, bets = lineup(args.pace, players), lineup(args.bets, players)
    job = GamesJob(None, players, bets, pace, 1)
    engine = game_chunk_fn(job.rules, job.policies(), 1)
    job.rows(0, 1)  # (the machine's kernel, as the job builds it)
    m, kernel, pids = job._fns["machine_rows"]

    def machine_acc(first, n):  # jobs.machine_rows with the harness's accumulator counted
        R = m.module.make_R(job.rules, players, odds_tables(job.rules), pids)
        _, fail, winner, scores, _, res = run_games(
            m, kernel, R, players, pids, False, job.seed, first, n, outcomes=True,
            results=True, counts=True)
        jobs.raise_machine_failure(fail, job.policies())
        rows = (scores, winner, res[:, 0].copy(), np.ascontiguousarray(res[:, 1:4]),
                np.ascontiguousarray(res[:, 4:].reshape(n, 3, 3)))
        return game_counts(rows, job.policies(), len(job.rules.cards))

    def machine(first, n):  # the job as it is
        counts = job.chunk(first, n)
        return [counts[k] for k in GAME_COUNTS]

    ways = {"engine": engine, "machine": machine,
            "machine+acc": machine_acc}
    if not args.acc:
        del ways["machine+acc"]
    ref = [np.asarray(a) for a in engine(0, 200)]  # compiled and warm, and the same counts
    for name, fn in ways.items():
        got = fn(0, 200)
        assert all(np.array_equal(a, b) for a, b in zip(ref, got, strict=True)), name
    print(f"{players} players, bets {','.join(bets)}, pace {','.join(pace)}: "
          f"{args.rounds} rounds of {args.games:,} games")
    rates = {name: [] for name in ways}
    first = 10_000
    for _ in range(args.rounds):
        for name, fn in ways.items():
            t = time.process_time()
            fn(first, args.games)
            rates[name].append(args.games / (time.process_time() - t))
        first += args.games
    e = rates["engine"]
    for name, r in rates.items():
        ratios = [b / a for a, b in zip(e, r, strict=True)]
        print(f"  {name:12s} median {statistics.median(r):9,.0f} games/CPU s "
              f"(range {min(r):,.0f}-{max(r):,.0f}); against engine median "
              f"{statistics.median(r) / statistics.median(e):.3f}x, per round median "
              f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


def cold(tree, cache):
    """CPU s (user + sys) of a first ``race play`` of ``tree`` with the empty ``cache``."""
    env = dict(os.environ, PYTHONPATH=tree, SHEEPSIM_CACHE_DIR=cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.time()
    subprocess.run([sys.executable, "-m", "sheepsim", "race", "play", "--games", "200",
                    "--quiet", "--format", "json"], env=env, cwd=tree, check=True,
                   stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, time.time() - t


def compile_time(args):
    trees = {"old": os.path.abspath(args.old), "new": HERE}
    for k in range(args.pairs):
        for name, tree in trees.items():
            cache = tempfile.mkdtemp(prefix="race-cold-")
            try:
                cpu, wall = cold(tree, cache)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            print(f"pair {k + 1} {name} ({tree}): {cpu:.1f} CPU s, {wall:.0f} s wall, load "
                  + " ".join(f"{x:.2f}" for x in os.getloadavg()), flush=True)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("time", "compile"))
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--pace", default="greedy")
    ap.add_argument("--bets", default="ev-approx")
    ap.add_argument("--no-acc", dest="acc", action="store_false",
                    help="time engine and machine only")
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--old", default="/work/main")
    args = ap.parse_args(argv)
    for name in ("games", "rounds", "players", "pairs"):
        if getattr(args, name) < 1:  # one line, before any timing
            print(f"race_games_job.py: --{name} must be at least 1, got {getattr(args, name)}",
                  file=sys.stderr)
            return 2
    return timing(args) if args.what == "time" else compile_time(args)


if __name__ == "__main__":
    sys.exit(main())
