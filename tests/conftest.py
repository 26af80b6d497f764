"""Shared test helpers, and the kernels compiled once before the workers fan out.

With ``-n 2`` (``pyproject.toml``'s addopts) and an empty kernel cache, both test workers
used to compile the same game's kernels at the same time (each test file of a game
compiles them). So before the workers start, a run of the whole suite first runs
``sheepsim cache warm --game G`` for every game, as many at once as there are workers
(the costliest games first), into the shared on-disk cache; the workers then load.
``SHEEPSIM_TEST_WARMUP=0`` turns it off, ``=1`` asks for it on any run with workers
(by default only a run of the whole suite, no paths given, warms: a run of a few files
compiles only what it uses). A warm-up that fails is ignored: the tests compile and
report themselves.
"""

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

# Tests never show windows and never depend on a display.
os.environ.setdefault("MPLBACKEND", "Agg")
# a report compiles in worker processes only where a test asks (tests/report/test_report_warmup.py)
os.environ.setdefault("SHEEPSIM_REPORT_WARMUP", "0")

#: the games whose kernels take longest to compile first (others after, in any order)
COSTLIEST_FIRST = ("panic", "race", "awsheep")


def _workers(config) -> int:
    n = getattr(config.option, "numprocesses", None)
    if n in ("auto", "logical"):
        return os.cpu_count() or 1
    try:
        return int(n or 0)
    except (TypeError, ValueError):
        return 0


def _warm(command: str) -> tuple[str, int, float]:
    t = time.perf_counter()
    rc = subprocess.run([sys.executable, "-m", "sheepsim", "cache", "warm", "--game", command],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, check=False).returncode
    return command, rc, time.perf_counter() - t


def pytest_configure(config):
    """In the xdist controller, before any worker starts: warm every game's kernels."""
    if hasattr(config, "workerinput") or config.option.collectonly:
        return  # a worker, or nothing will run
    asked = os.environ.get("SHEEPSIM_TEST_WARMUP", "")
    workers = _workers(config)
    whole = config.args_source == config.ArgsSource.TESTPATHS  # `pytest`, no paths
    if asked == "0" or workers < 2 or not (whole or asked == "1"):
        return
    from sheepsim import game

    commands = [g.command for g in game.games()]
    commands.sort(key=lambda c: COSTLIEST_FIRST.index(c) if c in COSTLIEST_FIRST else 99)
    t = time.perf_counter()
    with ThreadPoolExecutor(min(workers, len(commands))) as pool:
        done = list(pool.map(_warm, commands))
    failed = [c for c, rc, _ in done if rc != 0]
    print(f"kernels warmed before the workers start: {', '.join(commands)} in "
          f"{time.perf_counter() - t:.0f} s ({len(commands)} processes, {workers} at once)"
          + (f"; failed (the tests will say why): {', '.join(failed)}" if failed else ""),
          file=sys.__stderr__, flush=True)
