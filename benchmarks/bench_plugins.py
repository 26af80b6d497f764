"""Plug-in policies without recompiling the game (issue 50, item 2), on Pig (examples/pig),
Aw, Sheep! (``compile --game awsheep``), Shear Panic (``compile --game panic``) and the
Sheep Race (``compile --game race``: the race machine; ``race-engine``: its engine).

    python benchmarks/bench_plugins.py compile [--players 4] [--game pig|awsheep|panic|race|race-engine]
    python benchmarks/bench_plugins.py speed [--players 4] [--games 20000] [--rounds 5]
    python benchmarks/bench_plugins.py race-speed [--games 3000] [--rounds 5]

Run it with the Python of each tree to compare (e.g. ``/work/main/.venv/bin/python
benchmarks/bench_plugins.py ...`` for the tree before, this tree's ``.venv/bin/python`` for
this one); both need ``pip install ./examples/pig``.

``compile``: in one process, with the game's kernels already in the cache (run it once
to warm them, or use ``sheepsim cache warm --game pig``), a line-up with two plug-ins
never seen before (a module written afresh, with a new nonce, so no cache has them), then
a second line-up of the same plug-ins in other seats (known plug-ins, a new line-up).
Prints the CPU and wall seconds of each line-up's job built and its first 100 games
played (its compile or cache load included). On Aw, Sheep! and Shear Panic the plug-ins
are ``uniform_pick`` and ``last_pick`` beside ``random`` seats. The tree before
recompiles the entry kernel for each line-up; this tree compiles each new plug-in alone,
once.

``race-speed``: games per CPU second of Sheep Race plug-in line-ups, the engine's
whole-game job against the race machine's (same games, alternating in one process).

``speed``: games per CPU second of a line-up with plug-ins and of the built-ins alone
(median of ``--rounds`` rounds of ``--games`` games, after a warm-up) and a digest of the
counts of each line-up (byte-identical results: the same digest from both trees).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import statistics
import sys
import tempfile
import textwrap
import time

PLUGINS = '''
# nonce {nonce}: a fresh module, so no cache holds these plug-ins
import numba

from sheepsim.rng import policy_uniform


@numba.njit
def uniform_pick(kind, view, opts, n, rand):
    return min(n - 1, int(policy_uniform(rand) * n))


@numba.njit
def hold_at(kind, view, opts, n, rand):
    # view: turn total, own score, best rival score, target
    need = min(25, view[3] - view[1])
    return 1 if view[0] >= need else 0


@numba.njit
def last_pick(kind, view, opts, n, rand):
    return n - 1
'''


def plugin_module(nonce: str) -> str:
    folder = tempfile.mkdtemp(prefix="bench_plugins_")
    name = f"bench_plugins_{nonce}"
    with open(os.path.join(folder, f"{name}.py"), "w") as f:
        f.write(textwrap.dedent(PLUGINS.format(nonce=nonce)))
    sys.path.insert(0, folder)
    importlib.invalidate_caches()
    return name


def first_games(make) -> tuple[float, float]:
    """CPU and wall seconds of building the job ``make()`` (Shear Panic compiles its
    plug-ins there) and playing its first 100 games."""
    t, w = time.process_time(), time.perf_counter()
    make().chunk(0, 100)
    return time.process_time() - t, time.perf_counter() - w


def compile_case(players: int, name: str = "pig") -> None:
    from sheepsim import game

    g = game.get(name)
    fill = ["hold-20" if name == "pig" else "random"] * (players - 2)
    second = "hold_at" if name == "pig" else "last_pick"
    cpu, wall = first_games(lambda: g.job("play", players=players,
                                          policies=fill + ["random"] * 2, seed=1))
    print(f"built-ins only (game kernels from the cache): {cpu:.2f} CPU s, {wall:.2f} s wall")
    mod = plugin_module(f"{os.getpid()}_{time.time_ns()}")
    a = [f"{mod}:uniform_pick", f"{mod}:{second}", *fill]
    cpu, wall = first_games(lambda: g.job("play", players=players, policies=a, seed=1))
    print(f"new line-up, 2 new plug-ins: {cpu:.2f} CPU s, {wall:.2f} s wall")
    b = [*fill, f"{mod}:{second}", f"{mod}:uniform_pick"]
    cpu, wall = first_games(lambda: g.job("play", players=players, policies=b, seed=1))
    print(f"new line-up, the same plug-ins in other seats: {cpu:.2f} CPU s, {wall:.2f} s wall")


def race_case(players: int, engine: bool) -> None:
    """The Sheep Race: a line-up with two plug-ins never seen (``uniform_pick`` a pace
    policy, ``last_pick`` a bet policy, beside ``greedy``/``ev-approx`` seats), its job
    built and its first 100 games, by the engine's whole-game job (``engine``:
    ``GamesJob``, whose kernels are recompiled around the plug-ins, ``kernels_for``) or
    the race machine's (``HarnessJob``: the plug-ins as function values), then the
    same plug-ins in other seats; and this process's CPU seconds in all (its imports
    included: what a user's first plug-in run costs beyond the interpreter)."""
    from sheepsim.games.race.jobs import GamesJob, HarnessJob

    job = GamesJob if engine else HarnessJob
    mod = plugin_module(f"{os.getpid()}_{time.time_ns()}")
    fill = ["greedy"] * (players - 1), ["ev-approx"] * (players - 1)
    cpu, wall = first_games(lambda: job(None, players, [*fill[1], f"{mod}:last_pick"],
                                        [f"{mod}:uniform_pick", *fill[0]], seed=1))
    print(f"{job.__name__}: new line-up, 2 new plug-ins: {cpu:.2f} CPU s, {wall:.2f} s wall")
    cpu, wall = first_games(lambda: job(None, players, [f"{mod}:last_pick", *fill[1]],
                                        [*fill[0], f"{mod}:uniform_pick"], seed=1))
    print(f"{job.__name__}: the same plug-ins in other seats: {cpu:.2f} CPU s, {wall:.2f} s "
          f"wall; the process: {time.process_time():.2f} CPU s")


def race_speed_case(games: int, rounds: int) -> None:
    """The Sheep Race, 4 players: games per CPU second of plug-in line-ups, the engine's
    whole-game job (its plug-in kernels) against the race machine's, the same games,
    alternating in one process (medians of the rounds and of their ratios)."""
    from sheepsim.games.race.jobs import GamesJob, HarnessJob

    ex = "sheepsim.games.race.examples"
    lineups = {
        "always_gallop pace + inside_lanes bets": (["ev-approx"] * 3 + [f"{ex}:inside_lanes"],
                                                   [f"{ex}:always_gallop"] + ["greedy"] * 3),
        "4 always_gallop pace": (["ev-approx"] * 4, [f"{ex}:always_gallop"] * 4),
    }
    for name, (bets, pace) in lineups.items():
        jobs = {"engine": GamesJob(None, 4, bets, pace, seed=1),
                "machine": HarnessJob(None, 4, bets, pace, seed=1)}
        for job in jobs.values():
            job.chunk(0, 50)  # compiled or loaded before timing
        rates: dict[str, list[float]] = {k: [] for k in jobs}
        first = 100
        for r in range(rounds):
            for k in (list(jobs) if r % 2 == 0 else list(jobs)[::-1]):
                t = time.process_time()
                jobs[k].chunk(first, games)
                rates[k].append(games / (time.process_time() - t))
            first += games
        ratios = [m / e for m, e in zip(rates["machine"], rates["engine"], strict=True)]
        print(f"{name}: engine {statistics.median(rates['engine']):,.0f}, machine "
              f"{statistics.median(rates['machine']):,.0f} games per CPU s; machine/engine "
              f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")


def speed_case(players: int, games: int, rounds: int) -> None:
    from sheepsim import game

    g = game.get("pig")
    mod = plugin_module("speed")  # the same source every run: cached after the first
    fill = ["hold-20"] * (players - 2)
    lineups = {"plug-ins": [f"{mod}:uniform_pick", f"{mod}:hold_at", *fill],
               "built-ins": ["random", "hold-20", *fill]}
    jobs = {k: g.job("play", players=players, policies=v, seed=1) for k, v in lineups.items()}
    rates: dict[str, list[float]] = {k: [] for k in jobs}
    digest = {}
    for k, job in jobs.items():
        c = job.chunk(0, games)  # warm-up, and the counts compared across trees
        digest[k] = hashlib.sha256(c["acc"].tobytes() + c["fail"].tobytes()).hexdigest()[:16]
    first = games
    for _ in range(rounds):
        for k, job in jobs.items():
            t = time.process_time()
            job.chunk(first, games)
            rates[k].append(games / (time.process_time() - t))
        first += games
    for k in jobs:
        r = rates[k]
        print(f"{k:10s} {' '.join(lineups[k])}: {statistics.median(r):10,.0f} games per CPU s "
              f"(range {min(r):,.0f}-{max(r):,.0f}); counts digest {digest[k]}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("case", choices=("compile", "speed", "race-speed"))
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--game", choices=("pig", "awsheep", "panic", "race", "race-engine"),
                   default="pig", help="compile: the game (speed: Pig); race: the race "
                   "machine (HarnessJob), race-engine: the race's engine (GamesJob)")
    p.add_argument("--games", type=int, default=20_000)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args(argv)
    if args.players < 2 or min(args.games, args.rounds) < 1:
        print("bench_plugins: --players must be at least 2, --games and --rounds at least 1",
              file=sys.stderr)
        return 2
    if args.case == "race-speed":
        race_speed_case(args.games, args.rounds)
    elif args.case == "compile" and args.game.startswith("race"):
        race_case(args.players, args.game == "race-engine")
    elif args.case == "compile":
        compile_case(args.players, args.game)
    else:
        speed_case(args.players, args.games, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
