"""The benchmark scripts' bad input: one line, exit 2, before any timing."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize(("argv", "says"), [
    # ran the whole benchmark, then a SheepsimError traceback from the memory check
    (["--memory-games", "0"], "--memory-games must be at least 1, got 0"),
    (["--rounds", "0"], "--rounds must be at least 1, got 0"),
])
def test_bench_panic_refuses_bad_counts_in_one_line(argv, says):
    # --quick with no case: the old script reached the memory check within seconds
    # a process: the script as run (its argument checks at the top of its main)
    p = subprocess.run([sys.executable, str(BENCH / "bench_panic.py"), "--quick", "--cases",
                        "nosuch", *argv], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    assert p.stderr.strip().splitlines() == [f"bench_panic.py: {says}"]


def _bench_module(name):
    import importlib.util

    sys.path.insert(0, str(BENCH))  # the scripts import their siblings
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module


def test_the_lookahead_scripts_share_one_paired_game_loop():
    """lookahead_fast.py had its own copy of lookahead_h2h.py's paired-game loop (and of
    its ``outcomes``); now it calls ``lookahead_h2h.paired_games``. That loop plays every
    line-up on the same games, block by block: seat 1's wins and points are those of the
    job's own ``outcomes``, and ``save`` sees the games so far after every block."""
    import numpy as np

    from sheepsim.games.race.jobs import GamesJob

    fast = _bench_module("lookahead_fast")
    h2h = sys.modules[fast.paired_games.__module__]
    assert h2h.__file__ == str(BENCH / "lookahead_h2h.py") and not hasattr(fast, "outcomes")
    jobs = {p: GamesJob(None, 4, "ev-approx", [p, "greedy", "greedy", "greedy"], 7)
            for p in ("greedy", "partisan")}
    saved = []
    won, score, cpu = h2h.paired_games(jobs, 6, 4, 1, lambda w, s: saved.append(len(w["greedy"])),
                                       chunk=3)
    assert saved == [4, 6] and set(cpu) == set(jobs)
    for p, job in jobs.items():
        w, s = job.outcomes(0, 6)
        assert np.array_equal(won[p], w == 0) and np.array_equal(score[p], s[:, 0])
    # from game 4 on (a stopped run continued): the same games' outcomes
    won, score, _ = h2h.paired_games(jobs, 2, 4, 1, chunk=3, first=4)
    assert np.array_equal(won["greedy"], (jobs["greedy"].outcomes(4, 2)[0] == 0))
