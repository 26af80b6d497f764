"""Shared machinery: light import, random streams, runner, output files."""

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from sheepsim import driver, rng
from sheepsim.errors import SheepsimError
from sheepsim.game import Job
from sheepsim.output import atomic_write_text, emit


def test_importing_the_package_compiles_nothing():
    code = ("import sys, sheepsim, sheepsim.games.race, sheepsim.games.panic;"
            "print('numba' in sys.modules)")
    # a new interpreter: what the import loads, not what this process had loaded already
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_help_imports_no_numerics():
    # building the whole parser (every game, the report's study list) stays light: the
    # help of any command is printed without numpy, pandas, numba or scipy
    code = ("import sys, contextlib, io\n"
            "from sheepsim.cli import main\n"
            "for argv in (['--help'], ['report', '--help'], ['race', 'advise', '--help'],\n"
            "             ['cache', '--help']):\n"
            "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "        main(argv)\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'numba', 'scipy', 'matplotlib')"
            " if m in sys.modules))")
    # a new interpreter: the modules the help loads, not what this process had loaded already
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _command_paths(parser, path=()):
    import argparse

    yield path
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _command_paths(sub, (*path, name))


def _parse_outcome(parser, argv):
    """What parsing ``argv`` gives: exit code, options (functions by name), stdout, stderr."""
    import contextlib
    import io

    out, err, code, options = io.StringIO(), io.StringIO(), None, None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            ns = parser.parse_args(argv)
            options = sorted((k, v.__qualname__ if callable(v) else repr(v))
                             for k, v in vars(ns).items() if k != "game_entry")
        except SystemExit as exc:
            code = exc.code
    return code, options, out.getvalue(), err.getvalue()


def test_a_command_line_builds_only_the_commands_it_names():
    # `sheepsim race odds ...` builds the race's `odds` only (a warm start builds no other
    # command's options); what any command line prints or parses is the whole parser's
    from sheepsim import cli

    full = cli.build_parser()
    lines = [[*path, *extra] for path in _command_paths(full)
             for extra in (["--help"], [], ["--no-such-option"], ["no-such-command"])]
    lines += [["-h", "race"], ["race", "-h", "odds"], ["racex"], ["race", "oddz"], ["--version"],
              ["race", "odds", "--exact", "--lanes", "a,b"], ["race", "odds", "--games", "1e3"],
              ["panic", "play", "--players", "3"], ["report", "my.toml", "--out", "dir"]]
    for argv in lines:
        assert _parse_outcome(cli.build_parser(argv), argv) == _parse_outcome(full, argv), argv
    part = cli.build_parser(["race", "odds", "--exact"])
    assert list(cli.subcommand_parser(part, "race")._actions[-1].choices) == ["odds"]
    assert cli.subcommand_parser(part, "panic") is None
    code = ("import sys\nfrom sheepsim.cli import build_parser\n"
            "build_parser(['race', 'odds', '--exact'])\n"
            "print(sorted(m for m in ('sheepsim.games.panic.commands', 'sheepsim.report', "
            "'sheepsim.serve', 'sheepsim.designer', 'sheepsim.games.race.cli') "
            "if m in sys.modules))")
    # a new interpreter: the modules one command line loads, none loaded before
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['sheepsim.games.race.cli']"
    # the designers' commands (their module skipped above) are every game's with metrics
    from sheepsim import commands, designer
    from sheepsim.game import games

    assert designer.COMMANDS == commands.DESIGNER_COMMANDS
    for g in games():
        if g.metrics:
            names = list(cli.subcommand_parser(full, g.command)._actions[-1].choices)
            assert set(commands.DESIGNER_COMMANDS) <= set(names), g.command
            part = cli.build_parser([g.command, "tune"])
            assert list(cli.subcommand_parser(part, g.command)._actions[-1].choices) == ["tune"]


@pytest.mark.parametrize(("argv", "hint"), [(["chess", "play"], ""), (["chess"], ""),
                                           (["rac", "play"], "; did you mean the game 'race'?"),
                                           (["reprot"], "; did you mean the command 'report'?")])
def test_an_unknown_game_is_one_line_listing_only_the_games(argv, hint):
    """0.6.0: the error listed `report`, `cache`, `serve` among the games."""
    from sheepsim import cli
    from sheepsim.game import games

    for parser in (cli.build_parser(argv), cli.build_parser()):
        code, _, out, err = _parse_outcome(parser, argv)
        listed = ", ".join(repr(g.command) for g in games())
        assert code == 2 and not out and err == (f"sheepsim: error: argument GAME: unknown game "
                                                 f"{argv[0]!r} (choose from {listed}){hint}\n")
        assert "'report'" not in listed and "'race'" in listed


def test_race_play_takes_policy_as_its_pace_policy_like_the_single_race_commands():
    # `race odds --policy`, `race trace --policy` name the pace policy; `race play` too
    # (before, argparse refused it as an unrecognized argument with no pointer)
    from sheepsim import cli

    args = cli.build_parser().parse_args(["race", "play", "--policy", "lookahead"])
    assert args.pace_policy == "lookahead" and args.bet_policy == "ev-approx"


def test_advise_cli_default_is_the_library_default():
    from sheepsim.games.race.advise import DEFAULT_ADVISE_GAMES
    from sheepsim.games.race.cli_exact import DEFAULT_ADVISE_GAMES as CLI_DEFAULT

    assert CLI_DEFAULT == DEFAULT_ADVISE_GAMES


def test_kernels_run_as_plain_python_with_numba_jit_disabled():
    # the benchmarks time the very same kernels as plain Python (NUMBA_DISABLE_JIT=1):
    # njit then returns the plain function, which every game's kernels must accept
    import os

    code = ("from sheepsim.games.race.jobs import race_counts\n"
            "import sheepsim.games.panic.machine, sheepsim.games.awsheep.machine\n"
            "print(race_counts(games=3, seed=1, progress=False).place_counts.sum())")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    # a process: numba reads NUMBA_DISABLE_JIT once, when it is imported
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env)
    assert out.stdout.strip() == "9"  # 3 races, 3 places each


def test_python_dash_m_works():
    # a process: `python -m sheepsim` (sheepsim/__main__.py) is what is tested
    out = subprocess.run([sys.executable, "-m", "sheepsim", "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout.startswith("sheepsim ")


def test_streams_depend_only_on_seed_game_and_purpose():
    a, b = rng.new_streams(), rng.new_streams()
    rng.seed_streams(a, 5, 123)
    rng.seed_streams(b, 5, 123)
    assert np.array_equal(a, b)
    draws = [[rng.next_u64(a, p) for _ in range(4)] for p in range(rng.N_PURPOSES)]
    assert len({tuple(d) for d in draws}) == rng.N_PURPOSES  # purposes are different streams
    rng.seed_streams(b, 5, 124)
    assert not np.array_equal(a, b)
    # distinct increments ("gammas"): streams are different sequences, not offsets
    assert len({int(b[p, 1]) for p in range(rng.N_PURPOSES)}) == rng.N_PURPOSES


@pytest.mark.parametrize("n", [2, 6, 7, 1000])
def test_randbelow_is_uniform(n):
    s = rng.new_streams()
    rng.seed_streams(s, 1, n)
    draws = np.array([rng.randbelow(s, rng.DICE, n) for _ in range(30 * n)])
    assert draws.min() >= 0 and draws.max() < n
    counts = np.bincount(draws, minlength=n)
    # fixed seed: a uniform generator fails this with probability 0.001
    assert stats.chisquare(counts).pvalue > 1e-3


def test_shuffle_is_a_permutation():
    s = rng.new_streams()
    rng.seed_streams(s, 2, 0)
    arr = np.arange(12)
    rng.shuffle(s, rng.DEAL, arr)
    assert sorted(arr.tolist()) == list(range(12)) and arr.tolist() != list(range(12))


class _SumJob(Job):
    """A toy job whose counts depend on the seed and every game index."""

    seed = 3
    block = 100

    def chunk(self, first_game, n_games):
        g = np.arange(first_game, first_game + n_games)
        return {"sum": np.array([g.sum(), ((g * self.seed) % 7 == 0).sum()])}

    def tables(self, counts, games):
        import pandas as pd

        return {"t": pd.DataFrame({"sum": counts["sum"][:1], "games": [games]})}

    def meta(self):
        return {}


def test_driver_merges_exactly_for_any_chunk_size_and_threads():
    ref = driver.run(_SumJob(), games=1000, chunk_games=1000, progress=False)
    for cs in (1, 7, 999):
        for threads in (1, 2):
            res = driver.run(_SumJob(), games=1000, chunk_games=cs, threads=threads,
                             progress=False)
            assert np.array_equal(res.counts["sum"], ref.counts["sum"])
            assert res.chunk_games == cs
    assert ref.counts["sum"][0] == sum(range(1000))
    timed = driver.run(_SumJob(), games=1000, progress=False)
    assert timed.chunk_games is None  # sized by time: no fixed chunk size to report
    assert np.array_equal(timed.counts["sum"], ref.counts["sum"])


@pytest.mark.parametrize("bad", [0, -5, 2.5, True])
def test_bad_game_counts(bad):
    with pytest.raises(SheepsimError, match="games"):
        driver.check_games(bad)


def test_emit_writes_file_and_sidecar_atomically(tmp_path):
    out = tmp_path / "t.csv"
    emit("a,b\n1,2\n", str(out), {"seed": 1})
    assert out.read_text() == "a,b\n1,2\n"
    assert json.loads((tmp_path / "t.csv.meta.json").read_text()) == {"seed": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.csv.meta.json"]
    with pytest.raises(SheepsimError, match="does not exist"):
        atomic_write_text(tmp_path / "missing" / "x.txt", "x")


def test_normal_quantile_matches_scipy():
    from scipy.stats import norm

    from sheepsim.stats import Z95, _z

    assert abs(Z95 - norm.ppf(0.975)) < 1e-12
    assert abs(_z(0.9) - norm.ppf(0.95)) < 1e-12


_KERNEL = """
from sheepsim import _stale_consts
from sheepsim.jit import njit


@njit
def kernel():
    return _stale_consts.VALUE
"""

_RUN = """
import sys
sys.path.insert(0, {root!r})
from sheepsim import _stale_kernel
print(_stale_kernel.kernel(), _stale_kernel.kernel.python_entry.stats.cache_hits.most_common(1))
"""


def _run_kernel(root, cache):
    import os
    import subprocess
    import sys

    env = {**os.environ, "SHEEPSIM_CACHE_DIR": str(cache)}
    # a process each: a kernel compiled, then loaded from the disk cache by a new process
    out = subprocess.run([sys.executable, "-c", _RUN.format(root=str(root))], env=env,
                         capture_output=True, text=True, check=True).stdout.split(maxsplit=1)
    return int(out[0]), out[1].strip() != "[]"


def test_editing_a_constants_module_never_loads_a_stale_kernel(tmp_path):
    """numba stamps a cached kernel with its own file only; a constants-only module it
    reads (like a game's layout.py) can change under it. The cache folder named by the
    digest of the module and what it imports makes that edit select a fresh folder, and
    deletes nothing."""
    import shutil
    from pathlib import Path

    import sheepsim

    root = tmp_path / "src"
    shutil.copytree(Path(sheepsim.__file__).parent, root / "sheepsim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "sheepsim" / "_stale_kernel.py").write_text(_KERNEL)
    consts = root / "sheepsim" / "_stale_consts.py"
    cache = tmp_path / "cache"
    consts.write_text("VALUE = 1\n")
    assert _run_kernel(root, cache) == (1, False)  # compiled
    assert _run_kernel(root, cache) == (1, True)  # loaded from the cache
    consts.write_text("VALUE = 2\n")  # the kernel's own file is unchanged
    assert _run_kernel(root, cache) == (2, False)
    # a folder per digest of the kernel's module and what it imports: the old one is left alone
    assert len(list(cache.glob("kernels/_stale_kernel-*"))) == 2


_ENTRY_KERNELS = """
import numpy as np
from sheepsim.jit import njit


@njit
def add(a, b):
    return a + b


@njit
def twice_plus_one(x):
    return add(x, x) + 1
"""

_ENTRY_RUN = """
import pickle, sys
sys.path.insert(0, {root!r})
import entry_kernels as m
hits = lambda d: sum(d.stats.cache_hits.values())
print(m.twice_plus_one(20), m.add(1.5, 2.0), pickle.loads(pickle.dumps(m.add))(1, 2),
      len(m.add.signatures), len(m.twice_plus_one.signatures),
      hits(m.twice_plus_one.python_entry), hits(m.add.python_entry))
"""


def test_a_kernel_gets_its_python_entry_point_only_when_python_calls_it(tmp_path):
    """``njit`` compiles a kernel without numba's Python entry point (kernels call each
    other directly); a call from Python goes to a twin with one, compiled (or loaded
    from the cache) on first use. A kernel that only kernels call is compiled once, for
    them: ``add(int64, int64)`` below; Python's float call compiles the twin."""
    import os

    from sheepsim.jit import LazyEntryDispatcher

    (tmp_path / "entry_kernels.py").write_text(_ENTRY_KERNELS)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}

    def run():
        # a process each: the first compiles, the second loads from the disk cache
        return subprocess.run([sys.executable, "-c", _ENTRY_RUN.format(root=str(tmp_path))],
                              env=env, capture_output=True, text=True, check=True).stdout.split()

    # 41, 3.5, 3 (a pickled kernel still runs); add compiled for the kernel only, the
    # kernel never (only its twin, for Python); nothing from the cache yet
    assert run() == ["41", "3.5", "3", "1", "0", "0", "0"]
    # a new process loads both twins from the cache (and add(int64, int64) with the kernel)
    assert run() == ["41", "3.5", "3", "0", "0", "1", "2"]
    sys.path.insert(0, str(tmp_path))
    try:
        import entry_kernels
    finally:
        sys.path.remove(str(tmp_path))
    assert type(entry_kernels.add) is LazyEntryDispatcher
    assert entry_kernels.add.targetoptions["no_cpython_wrapper"] is True


_LIGHT_KERNELS = """
import numpy as np
from sheepsim.jit import njit


@njit
def ones(n):
    return np.ones(n, np.int64)


@njit
def total(n):
    return ones(n).sum()


@njit
def scaled(x):
    return ones(3).sum() * x
"""

_LIGHT_RUN = """
import sys
sys.path.insert(0, {root!r})
from numba.core.environment import Environment
from sheepsim import jit
if {light}:
    jit.skip_blas_probe()
    jit.skip_implementations_on_cache_loads()
import entry_light as m
LOADED = ("numba.np.arraymath", "numba.np.arrayobj", "scipy.linalg")
print(m.total(5), m.ones(3).tolist() == [1, 1, 1], len(jit._PENDING_ENVIRONMENTS) > 0,
      *[x in sys.modules for x in LOADED])
if {compile_more}:
    print(m.scaled(2.5), len(jit._PENDING_ENVIRONMENTS), *[x in sys.modules for x in LOADED])
    envs = [e for e in list(Environment._memo.values())
            if e.globals.get("__name__") == "numba.np.arrayobj"]
    print(len(envs) > 0 and all(e.globals is not None and "np" in e.globals for e in envs))
"""


@pytest.mark.parametrize("light", [True, False])
def test_the_command_loads_cached_kernels_without_numbas_implementations(tmp_path, light):
    # the sheepsim command (cli.run) loads cached kernels with numba's runtime only: not
    # its implementations (numba.np.arraymath...), nor the modules only the kernels'
    # environments name (numba.np.arrayobj); compiling later loads them as usual, and
    # fills those environments. The library leaves numba alone.
    import os

    (tmp_path / "entry_light.py").write_text(_LIGHT_KERNELS)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}

    def run(compile_more):
        code = _LIGHT_RUN.format(root=str(tmp_path), light=light, compile_more=compile_more)
        # a process each: which of numba's modules a fresh interpreter loads (sys.modules)
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, check=True).stdout.split()

    # cold: everything compiles (numba's implementations load; no BLAS probe if light)
    assert run(False) == ["5", "True", "False", "True", "True", str(not light)]
    if light:  # warm: nothing but the runtime; then a new signature compiles
        assert run(True) == ["5", "True", "True", "False", "False", "False",
                             "7.5", "0", "True", "True", "False", "True"]
    else:
        assert run(True) == ["5", "True", "False", "True", "True", "True",
                             "7.5", "0", "True", "True", "True", "True"]


class _SlowJob(_SumJob):
    """10 ms a game: a billion games would take months. (Chunks sized by time: a fixed
    chunk size would make the driver list 10**8 chunks first.)"""

    def chunk(self, first_game, n_games):
        import time

        time.sleep(0.01 * n_games)
        return super().chunk(first_game, n_games)


class _Stop(Exception):
    pass


def test_a_long_run_says_so_with_how_to_shorten_it_and_logs_progress_lines(capsys, monkeypatch):
    """Once the speed is measured (ESTIMATE_AFTER_SECONDS), a run that would take more
    than LONG_RUN_SECONDS says how long and how to shorten it; without a terminal, a
    progress line every PROGRESS_LINE_SECONDS (0 here: every chunk)."""
    monkeypatch.setattr(driver, "ESTIMATE_AFTER_SECONDS", 0.3)
    monkeypatch.setattr(driver, "PROGRESS_LINE_SECONDS", 0)
    t0 = []

    def stop_after_a_second(state):
        import time

        t0.append(time.monotonic())
        if t0[-1] - t0[0] > 1.0:
            raise _Stop

    with pytest.raises(_Stop):
        driver.run(_SlowJob(), games=10**9, threads=1, progress=True,
                   on_chunk=stop_after_a_second)
    lines = capsys.readouterr().err.splitlines()
    notes = [x for x in lines if "this run will take" in x]
    assert len(notes) == 1 and "days (1,000,000,000 games at about" in notes[0]
    assert "fewer --games, or --precision P" in notes[0]
    assert any(x.startswith("sheepsim: ") and " of 1,000,000,000 games (0%), about " in x
               for x in lines)
    # --quiet (progress=False): nothing at all
    with pytest.raises(_Stop):
        t0.clear()
        driver.run(_SlowJob(), games=10**9, threads=1, progress=False,
                   on_chunk=stop_after_a_second)
    assert capsys.readouterr().err == ""
    # a short run says nothing either
    driver.run(_SlowJob(), games=100, chunk_games=10, threads=1, progress=True)
    assert "this run will take" not in capsys.readouterr().err


_NO_BLAS_RUN = """
import sys
sys.path.insert(0, {root!r})
from sheepsim import jit
if {skip}:
    jit.skip_blas_probe()
import entry_kernels as m
print(m.add(1, 2), "scipy.linalg" in sys.modules)
import scipy.linalg  # still importable afterwards
print(scipy.linalg.norm([3.0, 4.0]))
"""


@pytest.mark.parametrize("skip", [True, False])
def test_the_command_loads_kernels_without_numbas_blas_probe(tmp_path, skip):
    # the sheepsim command (cli.run) asks numba to load its implementations without
    # importing scipy.linalg (0.2 s of a warm start); the library leaves numba alone
    import os

    (tmp_path / "entry_kernels.py").write_text(_ENTRY_KERNELS)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    # a process: whether numba's first load imports scipy.linalg (sys.modules)
    out = subprocess.run([sys.executable, "-c", _NO_BLAS_RUN.format(root=str(tmp_path), skip=skip)],
                         env=env, capture_output=True, text=True, check=True).stdout.split()
    assert out == ["3", str(not skip), "5.0"]
