"""Shared test helpers, and the kernels compiled once before the workers fan out.

With ``-n 2`` (``pyproject.toml``'s addopts) and an empty kernel cache, both test workers
used to compile the same game's kernels at the same time (each test file of a game
compiles them). So before the workers start, a run of the whole suite first runs
``sheepsim cache warm --game G`` for every game, each game's steps in two slices
(:data:`WARM_SLICES`, each its own process), as many at once as there are workers
(the costliest games first), into the shared on-disk cache; the workers then load.
``SHEEPSIM_TEST_WARMUP=0`` turns it off, ``=1`` asks for it on any run with workers
(by default only a run of the whole suite, no paths given, warms: a run of a few files
compiles only what it uses). A warm-up that fails is ignored: the tests compile and
report themselves.

**Which worker runs what** (``--dist loadfile``: each test file on one worker). The
files whose tests share a session fixture that is costly to build run on one worker as
one unit (:data:`SHARED_UNITS`: the report tests' small report, the Dask tests'
clusters), so it is built once, not once per worker. The units are handed out longest
first (:data:`LONGEST_FIRST`, measured; the others after them, most tests first, as
xdist orders them), so that no long file starts last while the other worker idles
(``--no-loadscope-reorder`` in ``pyproject.toml`` keeps this order).
"""

import os
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

# Tests never show windows and never depend on a display.
os.environ.setdefault("MPLBACKEND", "Agg")
# a report compiles in worker processes only where a test asks (tests/report/test_report_warmup.py)
os.environ.setdefault("SHEEPSIM_REPORT_WARMUP", "0")

#: the games whose kernels take longest to compile first (others after, in any order)
COSTLIEST_FIRST = ("panic", "race", "awsheep")

#: test files that share a costly session fixture: each group is one unit of work (one
#: worker), so the fixture is built once per run
SHARED_UNITS = {
    **dict.fromkeys(("tests/report/test_report_config.py", "tests/report/test_report_end_to_end.py",
                     "tests/report/test_report_resume.py"), "tests/report (small_report)"),
    **dict.fromkeys(("tests/dask/test_dask_faults.py", "tests/dask/test_dask_identical.py",
                     "tests/dask/test_dask_report.py"), "tests/dask (cluster, one_worker)"),
    # not a fixture but kernels: the race machine's line-ups with the exact rules in its R
    # (`ev`/`win` bets, `lookahead` paces) and plug-ins; as two units on two workers
    # starting at once, both compiled them (about 60 and 85 CPU s; numba's compile events,
    # 2026-12-07). The warm-up compiles the built-in ones now; the plug-in line-ups with
    # the rules (about 56 CPU s) and the rules variants still compile here, once.
    **dict.fromkeys(("tests/race/test_race_pinned.py", "tests/race/test_race_machine.py",
                     "tests/race/test_race_plugins.py"), "tests/race (ev, lookahead-exact)"),
    # kernels too: single races with the `greedy` pace through the pace dispatch (the
    # warm-up's commands play `greedy` without it), which both compare with the
    # dispatch-free path; on two workers both compiled it (about 12 CPU s each, 2026-12-07)
    **dict.fromkeys(("tests/race/test_race_greedy_fast.py", "tests/race/test_race_invariants.py"),
                    "tests/race (greedy)"),
}

#: the units that take longest with an empty kernel cache, longest first (wall seconds of
#: a cold run on 2 cores, 2026-12-06: most of it compiling plug-in variants of the race's
#: and Shear Panic's kernels, pinned outputs of rules variants, whole games in Chromium);
#: every other unit runs after these
LONGEST_FIRST = (
    # ~300 s: rules variants, the race machine's exact line-ups (lookahead-exact, ev/win
    # bets) built-in and with plug-ins, compiled once here (2026-12-07)
    "tests/race (ev, lookahead-exact)",
    "tests/conformance/test_policy_contract.py",  # ~150 s: 6 plug-in variants per engine
    "tests/conformance/test_policy_bounds.py",  # ~140 s: 7 plug-in variants per engine
    "tests/serve/test_serve_game.py",  # ~105 s: two whole games through the page (the second
    # answered from the server's kept answers)
    "tests/report (small_report)",
    # ~30 s cold (its plug-in line-ups load the warm-up's plug-in entry since 2026-12-07,
    # whatever built-ins they seat; before, ~70 s compiling the one beside `greedy`)
    "tests/panic/test_panic_user_policy.py",
    "tests/dask (cluster, one_worker)",
    "tests/test_docs.py",  # the docs site, built by Sphinx
    "tests/race/test_exact_solver.py",
    "tests/panic/test_panic_pinned_commands.py",
    "tests/panic/test_panic_pinned.py",
    "tests/race/test_race_policy_errors.py",
    "tests/panic/test_panic_cli.py",
    "tests/race (greedy)",  # ~55 s cold: whole simulations through both paths
    # few tests but long (warm cache, load 10-11): by test count they came last of all,
    # where the other worker would wait for them
    "tests/test_plugin_cache.py",  # ~57 s: a plug-in variant compiled into empty caches
    "tests/test_clone_names.py",  # ~25 s (2 tests): three processes, race line-ups
    "tests/report/test_report_designer_fit.py",  # ~33 s: designer studies in Chromium
    "tests/analysis/test_coverage.py",  # ~24 s
    "tests/race/test_race_lookahead.py",  # ~24 s
    "tests/panic/test_panic_route_search.py",  # ~18 s
)


def unit_of(nodeid: str) -> str:
    """The unit of work of a test: its file, or its group in :data:`SHARED_UNITS`."""
    path = nodeid.split("::", 1)[0]
    return SHARED_UNITS.get(path, path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` with the files of :data:`SHARED_UNITS` as one unit each."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedFixtureScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return SharedFixtureScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    """Units in :data:`LONGEST_FIRST` order, then the others by test count (most first);
    a unit's tests stay together, each file's in its own order."""
    units = [unit_of(item.nodeid) for item in items]
    count = Counter(units)
    first = {u: i for i, u in reversed(list(enumerate(units)))}
    rank = {u: i for i, u in enumerate(LONGEST_FIRST)}
    order = sorted(range(len(items)), key=lambda i: (
        rank.get(units[i], len(rank)), -count[units[i]], first[units[i]], i))
    items[:] = [items[i] for i in order]


def _workers(config) -> int:
    n = getattr(config.option, "numprocesses", None)
    if n in ("auto", "logical"):
        return os.cpu_count() or 1
    try:
        return int(n or 0)
    except (TypeError, ValueError):
        return 0


#: each game's warm-up steps in this many slices, each its own process: a game's steps
#: compile different kernels, so its slices run side by side (the race's own steps alone
#: compile for about 200 CPU s, 2026-12-07)
WARM_SLICES = 2
_WARM_RUN = ("import sys; from sheepsim import cachefolders, game; "
             "cachefolders.warm([game.get(sys.argv[1])], progress=False, "
             "part=(int(sys.argv[2]), int(sys.argv[3])))")


def _warm(unit: tuple[str, int]) -> tuple[str, int, float]:
    """``sheepsim cache warm --game G``'s slice ``i`` of :data:`WARM_SLICES`, its own process."""
    command, i = unit
    t = time.perf_counter()
    rc = subprocess.run([sys.executable, "-c", _WARM_RUN, command, str(i), str(WARM_SLICES)],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, check=False).returncode
    return f"{command} {i + 1}/{WARM_SLICES}", rc, time.perf_counter() - t


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
    # a game's last slice first: the race's own steps (its longest) start at once
    units = [(c, i) for c in commands for i in reversed(range(WARM_SLICES))]
    t = time.perf_counter()
    with ThreadPoolExecutor(min(workers, len(units))) as pool:
        done = list(pool.map(_warm, units))
    failed = [c for c, rc, _ in done if rc != 0]
    print(f"kernels warmed before the workers start: {', '.join(commands)} in "
          f"{time.perf_counter() - t:.0f} s ({len(units)} processes, {workers} at once: "
          + ", ".join(f"{c} {dt:.0f} s" for c, _, dt in done) + ")"
          + (f"; failed (the tests will say why): {', '.join(failed)}" if failed else ""),
          file=sys.__stderr__, flush=True)
