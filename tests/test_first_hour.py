"""Issue 15, "a first hour that feels good": errors before work, one line and exit 2;
chunks sized by time; the compile notice; the on-disk odds table. All fast: toy jobs,
small game counts, and failures that are found before any kernel runs."""

import io
import json
import os
import signal
import sys
import textwrap
import threading
import time

import numpy as np
import pandas as pd
import pytest

from sheepsim import driver
from sheepsim.cli import main
from sheepsim.errors import RulesError, SheepsimError
from sheepsim.game import Job


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse errors exit directly
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


# ------------------------------------------------------------------ driver
class _CountJob(Job):
    """A toy job: counts games and sums their indices; fails on game ``bad`` if set,
    and sleeps ``per_game`` seconds per game so chunk timing can be observed."""

    seed = 4
    block = 100

    def __init__(self, bad=None, per_game=0.0, exc=ValueError):
        self.bad, self.per_game, self.exc, self.sizes = bad, per_game, exc, []

    def chunk(self, first_game, n_games):
        self.sizes.append((first_game, n_games))
        if self.per_game:
            time.sleep(self.per_game * n_games)
        if self.bad is not None and first_game <= self.bad < first_game + n_games:
            raise self.exc("pace policy returned an illegal option")
        g = np.arange(first_game, first_game + n_games)
        return {"n": np.array([n_games, g.sum()])}

    def tables(self, counts, games):
        return {"t": pd.DataFrame({"n": counts["n"][:1]})}

    def meta(self):
        return {}

    def halfwidth(self, tables):
        return 1.0  # never precise enough: a precision run goes on to max_games


@pytest.mark.parametrize("threads, chunk", [(1, 100), (2, 100), (2, 7), (1, None)])
def test_a_failing_chunk_is_one_line_naming_the_cause_and_the_first_failing_game(threads, chunk):
    # the same line whatever the chunks (--threads, timed chunks): the chunk that raised
    # is played again by halves down to its first failing game
    with pytest.raises(SheepsimError) as info:
        driver.run(_CountJob(bad=250), games=1000, chunk_games=chunk, threads=threads,
                   progress=False)
    assert str(info.value) == "pace policy returned an illegal option (in game 250 of seed 4)"


class _PluginJob(_CountJob):
    def meta(self):
        return {"pace_policies": ["greedy", "my_policies:cautious"], "bet_policy": "ev-approx"}


class _RaisingPluginJob(_PluginJob):
    """Its plug-in raises a Python exception (not a broken rule) in game ``bad``."""

    def __init__(self, bad, message):
        super().__init__(bad=bad)
        self.message = message

    def chunk(self, first_game, n_games):
        if first_game <= self.bad < first_game + n_games:
            raise RuntimeError(self.message)
        return super().chunk(first_game, n_games)


@pytest.mark.parametrize("job, expected", [
    (_PluginJob(bad=5), "pace policy returned an illegal option; plug-in policies in play: "
                        "my_policies:cautious"),
    (_RaisingPluginJob(5, "boom"), "RuntimeError: boom; plug-in policies in play: "
                                   "my_policies:cautious"),
    (_RaisingPluginJob(5, "boom in my_policies:cautious"),
     "RuntimeError: boom in my_policies:cautious"),
])
def test_an_error_names_the_plug_in_policies_in_play_once(job, expected):
    # the kernel cannot name the policy; the job can (built-in policies never break a
    # rule nor raise), and a name the message has already is not repeated
    with pytest.raises(SheepsimError) as info:
        driver.run(job, games=50, chunk_games=10, threads=1, progress=False)
    assert str(info.value) == f"{expected} (in game 5 of seed 4)"


class _CheckedJob(_CountJob):
    """Counts an illegal choice in game ``marked`` (as the Shear Panic and Aw, Sheep!
    kernels count a user policy's out-of-range answers) and refuses counts that have one."""

    def __init__(self, marked):
        super().__init__()
        self.marked = marked

    def chunk(self, first_game, n_games):
        counts = super().chunk(first_game, n_games)
        counts["bad"] = np.array([int(first_game <= self.marked < first_game + n_games)])
        return counts

    def prepare(self):
        return self.chunk(0, 1)  # a warm-up game, as Shear Panic's and Aw, Sheep!'s

    def check(self, counts, games):
        self.check_choices(int(counts["bad"][0]), ["random", "my_policies:wild"])


def test_a_broken_rule_in_the_counts_stops_the_run_at_its_chunk():
    # checked chunk by chunk, not once after every game was played
    job = _CheckedJob(marked=250)
    with pytest.raises(SheepsimError) as info:
        driver.run(job, games=100_000, chunk_games=100, threads=1, progress=False)
    assert str(info.value) == ("policy my_policies:wild returned an option index out of "
                               "range 1 times (in games 200-299 of seed 4)")
    assert max(start for start, _ in job.sizes) < 1_000  # 1 thread: no chunk ran far ahead


def test_a_broken_rule_in_the_warm_up_game_stops_the_run_before_any_chunk():
    job = _CheckedJob(marked=0)
    with pytest.raises(SheepsimError) as info:
        driver.run(job, games=100_000, chunk_games=100, threads=2, progress=False)
    assert str(info.value) == ("policy my_policies:wild returned an option index out of "
                               "range 1 times (in the warm-up game that compiles the kernels)")
    assert job.sizes == [(0, 1)]  # only the warm-up game was played


class _StuckJob(_CountJob):
    """A chunk (or warm-up game) that runs until ``release`` is set, as one long game of
    a kernel that cannot be interrupted."""

    def __init__(self, in_prepare=False):
        super().__init__()
        self.release, self.in_prepare = threading.Event(), in_prepare

    def _hold(self):
        # SIGINT blocked in this thread while it waits: a numba kernel does not return
        # to Python to handle a signal either
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.release.wait(60)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def prepare(self):
        if self.in_prepare:
            self._hold()

    def chunk(self, first_game, n_games):
        self._hold()
        return super().chunk(first_game, n_games)


@pytest.mark.parametrize("in_prepare", [False, True])
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_the_run_without_waiting_for_the_chunk_in_flight(threads, in_prepare):
    # docs/getting-started.md: "Ctrl-C stops a run at once", even when one game (a
    # chunk is at least one) takes far longer, e.g. rollout with many playouts
    job = _StuckJob(in_prepare)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    # Python's own Ctrl-C handler, whatever this process inherited: a shell starts
    # background jobs with SIGINT ignored, and then Python installs no handler
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    t0 = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            driver.run(job, games=10, chunk_games=1, threads=threads, progress=False)
        waited = time.perf_counter() - t0
    finally:
        timer.cancel()
        job.release.set()  # let the stuck thread finish its chunk
        signal.signal(signal.SIGINT, previous)
    assert waited < 10  # the chunk would hold the run for 60 s


def test_numba_system_error_is_replaced_by_the_kernel_exception():
    # numba's parallel kernels raise SystemError("... returned a result with an exception
    # set") whose cause is the kernel's own exception: the line shows the cause
    try:
        try:
            raise ValueError("race did not end within MAX_TURNS turns")
        except ValueError as inner:
            raise SystemError("CPUDispatcher(race_chunk) returned a result with an exception set") \
                from inner
    except SystemError as exc:
        err = driver.chunk_error(exc, 0, 5, 1)
    assert str(err) == "race did not end within MAX_TURNS turns (in game 5 of seed 0)"


def test_timed_chunks_give_the_same_counts_and_keep_block_ends(monkeypatch):
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.02)
    fixed = driver.run(_CountJob(), games=1000, chunk_games=1000, progress=False)
    job = _CountJob(per_game=0.001)  # 1 ms per game: chunks of about 20 games
    timed = driver.run(job, precision=1e-9, max_games=1000, progress=False)
    assert np.array_equal(timed.counts["n"], fixed.counts["n"])
    starts = [s for s, _ in sorted(job.sizes)]
    assert starts[0] == 0 and sorted(job.sizes)[0][1] == 1  # starts with one game
    assert all(s + n == t for (s, n), t in zip(sorted(job.sizes), starts[1:] + [1000], strict=True))
    # no chunk crosses a precision block end (block = 100) ...
    assert all(s // 100 == (s + n - 1) // 100 for s, n in job.sizes)
    # ... and they grew to the time target: 20 games = 0.02 s (sleep only overshoots, so
    # measured speeds are at most 1 game/ms; 8-fold growth caps the ramp)
    assert max(n for _, n in job.sizes) <= 20
    assert max(n for _, n in job.sizes) >= 8


def test_an_explicit_chunk_size_is_used_exactly():
    job = _CountJob()
    driver.run(job, games=250, chunk_games=100, threads=1, progress=False)
    assert job.sizes == [(0, 100), (100, 100), (200, 50)]


def test_compile_notice_only_when_slow_and_on_a_terminal():
    out = io.StringIO()
    with driver.compile_notice(True, after=0.05, stream=out):
        time.sleep(0.3)
    assert "compiling kernels (first run only)..." in out.getvalue()
    assert out.getvalue().endswith(" s\n") and "done in" in out.getvalue()
    quick, off = io.StringIO(), io.StringIO()
    with driver.compile_notice(True, after=5, stream=quick):
        pass
    with driver.compile_notice(False, after=0, stream=off):
        time.sleep(0.05)
    assert quick.getvalue() == "" and off.getvalue() == ""


def test_exact_solves_and_traces_show_the_compile_notice_too(monkeypatch, capsys):
    # the cold exact solver and the trace kernels compile outside the driver: on a
    # terminal they must say so as the driver's runs do (not sit silent for 25 s)
    import contextlib

    entered = []

    @contextlib.contextmanager
    def notice(enabled, *args, **kwargs):
        entered.append(enabled)
        yield

    monkeypatch.setattr(driver, "_show", lambda progress: progress is not False)
    monkeypatch.setattr(driver, "compile_notice", notice)
    assert run(capsys, "race", "odds")[0] == 0
    assert run(capsys, "race", "trace", "--seed", "1")[0] == 0
    assert entered == [True, True]
    assert run(capsys, "race", "odds", "--quiet")[0] == 0
    assert entered[-1] is False


# ------------------------------------------------------------------ game counts
@pytest.mark.parametrize("text", ["1e400", "1e13", "0"])
def test_one_game_count_rule_everywhere(capsys, tmp_path, text):
    code, _, err = run(capsys, "race", "odds", "--games", text, "--quiet")
    assert code == 2 and one_line(err) and "Traceback" not in err
    assert "must be between 1 and 1,000,000,000,000 (1e12)" in err
    code, _, err = run(capsys, "panic", "play", "--games", text, "--quiet")
    assert code == 2 and "must be between 1 and 1,000,000,000,000 (1e12)" in err
    # a report config with the same count: the same rule and wording
    cfg = tmp_path / "r.toml"
    games = {"1e400": "1" + "0" * 400, "1e13": "10_000_000_000_000", "0": "0"}[text]
    cfg.write_text(f'[[study]]\ntype = "race-odds"\ngames = {games}\n')
    code, _, err = run(capsys, "report", str(cfg), "--out", str(tmp_path / "out"), "--quiet")
    assert code == 2 and one_line(err)
    assert ("must be between 1 and 1,000,000,000,000 (1e12)" in err
            or (text == "0" and "at least 1" in err) or (text == "1e400" and "whole number" in err))


def test_the_limit_itself_is_accepted_by_the_parser():
    from sheepsim.options import game_count

    assert game_count("1e12") == driver.MAX_GAMES and game_count("2_000") == 2000


# ------------------------------------------------------------------ rules bounds
def _race_rules(tmp_path, old, new):
    from importlib import resources

    text = resources.files("sheepsim.games.race").joinpath("standard.toml").read_text()
    assert old in text
    path = tmp_path / "variant.toml"
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize("old,new,key", [
    ("track_length = 20", "track_length = 1000000000", "race.track_length"),
    ("max_cubes = 3", "max_cubes = 300", "race.max_cubes"),
    ("gallop = 6", "gallop = 600", "gallop"),
    ("red = 14", "red = 14000", "race.supply.red"),
])
def test_rules_typos_are_refused_before_running(tmp_path, capsys, old, new, key):
    from sheepsim.games.race.rules import load_rules

    path = _race_rules(tmp_path, old, new)
    with pytest.raises(RulesError, match="must be at most"):
        load_rules(path)
    code, _, err = run(capsys, "race", "odds", "--rules", str(path), "--games", "10")
    assert code == 2 and one_line(err) and key in err and "must be at most" in err


def _shipped(game: str) -> str:
    from importlib import resources

    return resources.files(f"sheepsim.games.{game}").joinpath("standard.toml").read_text()


def _rules_error(loader, path) -> str:
    with pytest.raises(RulesError) as info:
        loader(path)
    return str(info.value)


def test_a_rules_file_that_cannot_be_read_names_no_key(tmp_path):
    from sheepsim.games.race.rules import load_rules

    (tmp_path / "bad.toml").write_text("[race\n")
    assert _rules_error(load_rules, tmp_path / "nope.toml") == f"{tmp_path / 'nope.toml'}: file not found"
    assert _rules_error(load_rules, tmp_path) == f"{tmp_path}: is a folder, not a rules file"
    assert _rules_error(load_rules, tmp_path / "bad.toml").startswith(
        f"{tmp_path / 'bad.toml'}: not valid TOML (")


@pytest.mark.parametrize("new,shown", [("true", "true"), ('"one"', '"one"'), ("[1, false]", "[1, false]")])
def test_rules_errors_show_values_as_toml_spells_them(tmp_path, new, shown):
    from sheepsim.games.race.rules import load_rules

    path = _race_rules(tmp_path, "bonus_two = 1", f"bonus_two = {new}")
    assert _rules_error(load_rules, path).endswith(
        f"race.payoffs.bonus_two: must be a whole number, got {shown}")


@pytest.mark.parametrize("file_of,given_to,words", [
    ("panic", "race", "race: missing; this looks like a rules file for Shear Panic (sheepsim panic), "
                      "not for The Sheep Race (sheepsim race)"),
    ("race", "panic", "game: missing; this looks like a rules file for The Sheep Race (sheepsim race), "
                      "not for Shear Panic (sheepsim panic)"),
    ("panic", "awsheep", "deck: missing; this looks like a rules file for Shear Panic (sheepsim panic), "
                         "not for Aw, Sheep! (sheepsim awsheep)"),
    ("awsheep", "race", "race: missing; this looks like a rules file for Aw, Sheep! (sheepsim awsheep), "
                        "not for The Sheep Race (sheepsim race)"),
])
def test_another_games_rules_file_says_whose_it_is(tmp_path, file_of, given_to, words):
    import importlib

    loader = importlib.import_module(f"sheepsim.games.{given_to}.rules").load_rules
    path = tmp_path / f"{file_of}.toml"
    path.write_text(_shipped(file_of))
    assert words in _rules_error(loader, path)


def test_a_misspelt_key_is_unknown_even_when_the_key_it_meant_is_required(tmp_path, capsys):
    from sheepsim.games.panic.rules import load_rules

    text = _shipped("panic")
    assert "plus_without_route =" in text
    path = tmp_path / "typo.toml"
    path.write_text(text.replace("plus_without_route =", "plus_without_routes ="))
    assert _rules_error(load_rules, path) == (
        f"{path}: regroup.plus_without_routes: unknown key; did you mean 'plus_without_route'?")
    # a required key simply left out is still "missing"; a neighbour that is a real key of
    # the shipped file (bonus_three for bonus_two) is never taken for a misspelling
    from sheepsim.games.race.rules import load_rules as race_rules

    gone = _race_rules(tmp_path, "bonus_two = 1\n", "")
    assert _rules_error(race_rules, gone).endswith("race.payoffs.bonus_two: missing")
    # an optional key misspelt: unknown, with the key it resembles
    aw = tmp_path / "aw.toml"
    aw.write_text(_shipped("awsheep").replace("flock_off_run =", "flock_of_run ="))
    from sheepsim.games.awsheep.rules import load_rules as aw_rules

    assert _rules_error(aw_rules, aw).endswith(
        "options.flock_of_run: unknown key; did you mean 'flock_off_run'?")


def test_panic_points_have_an_upper_bound(tmp_path):
    from importlib import resources

    from sheepsim.games.panic.rules import load_rules

    text = resources.files("sheepsim.games.panic").joinpath("standard.toml").read_text()
    path = tmp_path / "p.toml"
    path.write_text(text.replace("ram_row_points = [4, 3, 2, 1]", "ram_row_points = [4000000, 3]"))
    with pytest.raises(RulesError, match="ram_row_points: entries must be at most"):
        load_rules(path)


# ------------------------------------------------------------------ user policies
PLUGIN = textwrap.dedent("""
    import numba

    @numba.njit
    def two_args(lane, board):
        return 0

    @numba.njit
    def pace_ok(kind, view, opts, n, rand):
        return 0

    @numba.njit
    def bets_short(kind, odds):
        return None

    @numba.njit
    def panic_short(kind, st, R):
        return 0
""")


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    name = f"ux_plugin_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(PLUGIN)
    (tmp_path / f"{name}_raises.py").write_text("raise RuntimeError('no config\\nmore')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for mod in (name, f"{name}_raises"):
        sys.modules.pop(mod, None)


def test_wrong_plugin_signatures_are_one_line_before_compiling(capsys, plugin):
    t0 = time.perf_counter()
    cases = [
        (["race", "odds", "--policy", f"{plugin}:two_args"],
         f"pace policy '{plugin}:two_args' takes (lane, board) but is called with 5 arguments "
         "(kind, view, opts, n, rand)"),
        (["race", "play", "--players", "3", "--bet-policy", f"{plugin}:bets_short"],
         "bet policy", ),
        (["panic", "play", "--policy", f"{plugin}:panic_short"],
         f"policy '{plugin}:panic_short' takes (kind, st, R) but is called with 5 arguments"),
    ]
    for argv, words in cases:
        code, _, err = run(capsys, *argv, "--games", "10", "--quiet")
        assert code == 2 and one_line(err) and words in err, err
    assert time.perf_counter() - t0 < 60  # refused before the minutes-long compile


def test_a_plugin_with_the_documented_arguments_passes_the_check(plugin):
    import importlib

    from sheepsim.plugins import USER_POLICY_ARGS, check_arguments

    mod = importlib.import_module(plugin)
    check_arguments(mod.pace_ok, USER_POLICY_ARGS, "pace policy", "x")
    with pytest.raises(SheepsimError, match="called with 5 arguments"):
        check_arguments(mod.bets_short, USER_POLICY_ARGS, "bet policy", "x")


def test_a_module_raising_on_import_is_one_line(capsys, plugin):
    code, _, err = run(capsys, "race", "odds", "--policy", f"{plugin}_raises:f", "--games", "10")
    assert code == 2 and one_line(err)
    assert "raised RuntimeError on import: no config" in err


# ------------------------------------------------------------------ trace csv
def test_panic_trace_csv_is_refused_before_simulating(capsys, monkeypatch):
    import sheepsim.games.panic.simulate as sim

    def boom(*a, **k):
        raise AssertionError("simulated a game")

    monkeypatch.setattr(sim, "trace_game", boom)
    code, _, err = run(capsys, "panic", "trace", "--format", "csv")
    assert code == 2 and one_line(err) and "--format csv: a trace's turn-by-turn text" in err
    code, _, err = run(capsys, "panic", "trace", "--out", "trace.csv")
    assert code == 2 and one_line(err) and "--out trace.csv: a trace's turn-by-turn text" in err


# ------------------------------------------------------------------ odds table cache
def test_odds_tables_are_kept_on_disk_by_rules_hash(tmp_path, monkeypatch):
    import sheepsim.jit
    from sheepsim.games.race import simulate as sim
    from sheepsim.games.race.rules import load_rules

    monkeypatch.setattr(sheepsim.jit, "cache_root", lambda: tmp_path)
    monkeypatch.setattr(sim, "ODDS_CACHE", {})
    rules = load_rules()
    n = len(rules.cards)
    calls = []

    def fake_simulate(rules_, stage):  # stands in for the 400,000 races
        calls.append(stage)
        return np.full((n, 6, 3), 0.25 if stage == "semifinal" else 0.5)

    monkeypatch.setattr(sim, "_simulate_odds", fake_simulate)
    first = sim.odds_tables(rules)
    path = sim.odds_cache_file(rules)
    assert path.parent == tmp_path / "odds" and path.exists() and calls == ["semifinal", "final"]
    assert rules.sha256[:20] in path.name
    sim.ODDS_CACHE.clear()  # a new process: read from disk, simulate nothing
    second = sim.odds_tables(rules)
    assert calls == ["semifinal", "final"]
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    # a damaged file is simulated again, never trusted
    path.write_bytes(b"not an npz")
    sim.ODDS_CACHE.clear()
    sim.odds_tables(rules)
    assert calls == ["semifinal", "final"] * 2


# ------------------------------------------------------------------ report tables
def test_intervals_merge_into_their_column_and_wide_tables_say_so():
    from sheepsim.report.render import PAGE_CHARACTERS, display_table

    df = pd.DataFrame({"seat": [1], "win_rate": [0.25], "lo": [0.2], "hi": [0.3],
                       "mean_points": [33.123], "points_lo": [32.9], "points_hi": [33.3],
                       "ev_se": [0.01], "games": [100]})
    t = display_table(df)
    assert t.headers == ["seat", "win_rate (95% CI)", "mean_points (95% CI)"]
    assert t.rows == [["1", "0.2500 [0.2000, 0.3000]", "33.12 [32.90, 33.30]"]] and t.note == ""
    # 30 columns of 8 characters each (+2 between) are wider than the page: columns go
    # from the right until it fits, and the note says so
    wide = pd.DataFrame({f"col_{i:04d}": [float(i) + 0.5, 1.25] for i in range(30)})
    t = display_table(wide)
    shown = len(t.headers)
    assert shown * 10 - 2 <= PAGE_CHARACTERS < (shown + 1) * 10 - 2 and t.total == 30
    assert t.headers == [f"col_{i:04d}" for i in range(shown)]
    assert t.note == f"Showing {shown} of 30 columns; the CSV has them all."
    t = display_table(wide, ["col_0003", "col_0001"])
    assert t.headers == ["col_0003", "col_0001"] and t.rows == [["3.50", "1.50"], ["1.25", "1.25"]]


def test_must_show_and_quoted_columns_are_never_dropped():
    from sheepsim.report.render import display_table, quoted_columns

    wide = pd.DataFrame({f"col_{i:04d}": [float(i) + 0.5, 1.25] for i in range(30)})
    t = display_table(wide, must_show=["col_0029", "col_0027"])
    assert t.headers[-2:] == ["col_0027", "col_0029"] and len(t.headers) < 30
    assert display_table(wide, ["col_0001"], must_show=["col_0029"]).headers == \
        ["col_0001", "col_0029"]
    # the columns a study asks for all stay, even past the page width
    every = [f"col_{i:04d}" for i in range(29, -1, -1)]
    assert display_table(wide, every).headers == every
    caption = "Per tile: chosen_per_game, and the mean points (mean_gain); col_1 is not a column"
    assert quoted_columns(wide.assign(mean_gain=1.0, chosen_per_game=2.0, seat=1),
                          [caption, None]) == ["mean_gain", "chosen_per_game"]


def test_one_decimals_rule_for_every_column():
    from sheepsim.report.render import display_table

    df = pd.DataFrame({"p_first": [0.12345], "ev": [12.3456], "gap_to_best": [-0.57512],
                       "pvalue": [1.2e-30], "count": [3.0]})
    assert display_table(df).rows == [["0.1235", "12.35", "-0.58", "1.2e-30", "3"]]


def _interval_cells(cell: str) -> list[str]:
    x, rest = cell.split(" [")
    lo, hi = rest.rstrip("]").split(", ")
    return [x, lo, hi]


@pytest.mark.parametrize("x,lo,hi", [
    (4.2004, 4.1961, 4.2046),  # an EV from a million games: once shown as 4.20 [4.20, 4.20]
    (0.24998, 0.2462, 0.2538),  # a win rate from 50,000 games
    (0.4581, 0.4550, 0.4612),  # a tie rate
    (-0.0413, -0.0452, -0.0373),  # a paired difference of win rates
    (0.001584, 0.001508, 0.001664),  # a small probability from a million races
    (12.1991, 12.1924, 12.2058),
])
def test_an_interval_never_looks_empty(x, lo, hi):
    from sheepsim.tableview import fmt_estimate, table_view

    view = table_view(pd.DataFrame({"est": [x], "est_lo": [lo], "est_hi": [hi]}))
    sx, slo, shi = _interval_cells(view.rows[0][0])
    assert float(slo) < float(sx) < float(shi)
    # at least two significant digits of the half-width: the last shown decimal is at
    # most a tenth of it
    decimals = len(sx.split(".")[1]) if "." in sx else 0
    assert 10.0 ** -decimals <= (hi - lo) / 2 / 10 * 1.0000001
    for percent in (False, True):
        a, b, c = (float(v.rstrip("%")) for v in fmt_estimate(x, lo, hi, percent=percent))
        assert b < a < c


def test_decimals_are_the_same_down_a_column_and_exact_intervals_are_not_shown():
    from sheepsim.tableview import table_view

    df = pd.DataFrame({"baseline_win_rate": [0.2495, 0.5], "baseline_win_rate_lo": [0.2458, 0.45],
                       "baseline_win_rate_hi": [0.2534, 0.55],
                       "ev": [10.276, 6.7393], "ev_lo": [10.276, 6.7393], "ev_hi": [10.276, 6.7393],
                       "gap": [0.0, -0.0550]})
    v = table_view(df)
    assert v.headers == ["baseline_win_rate (95% CI)", "ev", "gap"]
    assert [r[0] for r in v.rows] == ["0.2495 [0.2458, 0.2534]", "0.5000 [0.4500, 0.5500]"]
    assert [r[1] for r in v.rows] == ["10.28", "6.74"]
    assert [r[2] for r in v.rows] == ["0.000", "-0.055"]  # never "-0.000"


def test_a_column_in_an_estimates_units_takes_its_decimals():
    """``attrs["decimals_of"]`` (``tune``'s objectives: a metric's value, negated or as a
    distance to a goal): the named column is shown with the estimate's interval decimals,
    not the plain 2-4 of its own smallest value (``-1.00`` beside ``0.9977``)."""
    from sheepsim.tableview import table_view

    df = pd.DataFrame({"u": [0.9977, 0.9950], "u_lo": [0.9956, 0.9897], "u_hi": [0.9998, 1.0003],
                       "objective_u": [-0.9977, -0.9950], "objective_u_corrected": [-0.99781, -0.99534],
                       "other": [-0.9977, -0.9950]})
    assert [r[1:] for r in table_view(df).rows] == [["-1.00", "-1.00", "-1.00"],
                                                    ["-0.99", "-1.00", "-0.99"]]
    df.attrs["decimals_of"] = {"objective_u": "u", "objective_u_corrected": "u"}
    for view in (table_view(df), table_view(df, all_columns=True)):
        i = view.headers.index("objective_u")
        assert [r[i:i + 3] for r in view.rows] == [["-0.9977", "-0.9978", "-1.00"],
                                                   ["-0.9950", "-0.9953", "-0.99"]]


@pytest.mark.parametrize("p,text", [(0.0, "< 1e-300"), (2e-102, "2.0e-102"), (3.0e-22, "3.0e-22"),
                                    (0.00157, "0.00157"), (0.339, "0.339"), (1.0, "1"),
                                    (float("nan"), "")])
def test_p_values_never_print_as_zero(p, text):
    from sheepsim.output import format_table
    from sheepsim.tableview import fmt_pvalue, table_view

    assert fmt_pvalue(p) == text
    if not text:
        return
    df = pd.DataFrame({"position": [1, 2], "chi2_pvalue": [p, p], "pvalue": [p, 0.5]})
    assert table_view(df).rows[0][1:] == [text, text]
    body = format_table(df, all_columns=True).splitlines()
    assert body[1].split()[1:] == text.split() * 2


def test_cli_tables_show_a_readers_columns_within_120_characters():
    from sheepsim.output import TABLE_WIDTH, format_table, render

    n = 6
    df = pd.DataFrame({"lane": range(1, n + 1), "card": ["Requeijao"] * n, "games": 1000, "seed": 3,
                       "note": "45.8% of games tie for first (decided by the token stack)"})
    for k in ("first", "second", "third", "fourth", "ev"):
        df[f"p_{k}"] = np.linspace(0.1, 0.3, n)
        df[f"p_{k}_lo"] = df[f"p_{k}"] - 0.004
        df[f"p_{k}_hi"] = df[f"p_{k}"] + 0.004
        df[f"p_{k}_se"] = 0.002
    for k in range(12):
        df[f"fair_bonus_{k}"] = 1.5
    text = format_table(df, "title")
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= TABLE_WIDTH == 120
    assert "p_first (95% CI)" in lines[1] and "p_first_se" not in text and "games" not in lines[1]
    assert text.count("45.8% of games") == 1 and "Note: 45.8% of games" in text
    assert "Every row: card = Requeijao, " in text and "fair_bonus_11 = 1.50" in text
    assert lines[-1] == ("(5 of 6 columns shown, not p_ev; --all-columns shows them, csv and "
                         "json have them all)")
    full = format_table(df, "title", all_columns=True).splitlines()
    assert full[1].split() == [str(c) for c in df.columns]
    assert render({"t": df}, "table", {}, "title", all_columns=True).splitlines() == full
    assert render({"t": df}, "csv", {}) == df.to_csv(index=False, float_format="%.10g",
                                                     lineterminator="\n")


def test_a_constant_note_is_said_once_under_the_table_and_findings_are_not_repeated():
    from sheepsim.report.render import RenderedStudy, StudyView, display_table

    note = "45.8% of games tie for first (decided by the token stack)"
    df = pd.DataFrame({"turn_order": [1, 2], "p_win": [0.24, 0.26], "note": note})
    t = display_table(df)
    assert t.headers == ["turn_order", "p_win"] and t.footer == [f"Note: {note}"]

    class _Result:  # what StudyView reads of a StudyResult
        tables = {"turn_order": df}
        captions, columns, must_show, page_rows, page_omit = {}, {}, {}, {}, []
        notes = ["First player wins 24.0%.", "Ties: 45.8%.", f"Turn order: {note}.",
                 "Ties: 45.8%. Best policy: ev."]
        key_findings = ["First player wins 24.0%.", "First player wins 24.0%. Ties: 45.8%."]

    view = StudyView(RenderedStudy(None, 10, _Result()))
    assert view.notes == ["First player wins 24.0%.", "Ties: 45.8%.", "Best policy: ev."]
    assert view.key_findings == ["First player wins 24.0%.", "Ties: 45.8%."]


def test_cards_are_flagged_by_effect_size_together_with_the_test():
    from sheepsim.games.race.analysis import MIN_CARD_EFFECT, card_strength_table
    from sheepsim.games.race.rules import load_rules

    rules = load_rules()
    n_cards, games = len(rules.cards), 12_000_000
    fair = games // n_cards  # wins per card if all were equal
    # card 0 wins 3% more than fair, card 1 3% fewer (both "significant" at this size),
    # card 2 25% more and card 3 25% fewer (over the threshold); top-3 counts 3x wins
    wins = np.full(n_cards, fair)
    wins[0], wins[1], wins[2], wins[3] = fair * 1.03, fair * 0.97, fair * 1.25, fair * 0.75
    wins[4] += games - wins.sum()  # keep one winner per race (card 4 absorbs the rest)
    card_place = np.zeros((n_cards, 6, 3), dtype=np.int64)
    card_place[:, 0, 0] = wins
    card_place[:, 0, 1] = 2 * fair
    table = card_strength_table(card_place, games, rules)
    assert table.loc[0, "pvalue_win_raw"] < 1e-10 and table.loc[1, "pvalue_win_raw"] < 1e-10
    assert abs(table.loc[0, "effect_win"] - 0.03) < 1e-6 and MIN_CARD_EFFECT > 0.03
    assert table.loc[0, "flag_win"] == "" and table.loc[1, "flag_win"] == ""
    assert table.loc[2, "flag_win"] == "over" and table.loc[3, "flag_win"] == "under"


# ------------------------------------------------------------------ library
@pytest.mark.parametrize("package", ["sheepsim.games.race", "sheepsim.games.panic"])
def test_help_lists_every_public_function_and_the_docstring_names_them(package):
    import importlib
    import pydoc

    mod = importlib.import_module(package)
    text = pydoc.render_doc(mod, renderer=pydoc.plaintext)
    for name in mod.__all__:
        assert callable(getattr(mod, name))
        assert f"``{name}" in mod.__doc__, name  # the docstring lists it
        assert f"{name}(" in text or f"class {name}" in text, name  # help() shows it


def test_fair_payoffs_come_with_intervals():
    from sheepsim.games.race.analysis import fair_payoff_table
    from sheepsim.stats import Z95

    # final: lane l wins with p[l]; one bet on lane l pays payoff[l] with probability p[l]
    p = np.array([0.05, 0.10, 0.15, 0.20, 0.20, 0.30])[:, None]
    payoff = np.array([[18, 17, 16, 15, 14, 13]], dtype=float)
    games = 10_000
    t = fair_payoff_table(p, payoff, "final", games=games)
    ev = p[:, 0] * payoff[0]
    half = Z95 * np.sqrt((p[:, 0] * payoff[0] ** 2 - ev**2) / games)  # binomial EV se
    mean_ev = ev.mean()
    np.testing.assert_allclose(t["fair_lo"], payoff[0] * mean_ev / (ev + half))
    np.testing.assert_allclose(t["fair_hi"], payoff[0] * mean_ev / (ev - half))
    assert (t["fair_lo"] < t["fair"]).all() and (t["fair"] < t["fair_hi"]).all()
    assert fair_payoff_table(p, payoff, "final")["fair_lo"].isna().all()  # no games: no interval


def test_seat_charts_name_policies_and_legends_stay_off_the_data():
    import matplotlib

    matplotlib.use("Agg")
    from sheepsim import plots

    seats = pd.DataFrame({"seat": [1, 2], "bet_policy": ["ev", "random"],
                          "pace_policy": ["greedy", "greedy"], "win_rate": [0.6, 0.4],
                          "win_rate_lo": [0.5, 0.3], "win_rate_hi": [0.7, 0.5]})
    fig = plots.win_rate_chart(seats)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1\nev\ngreedy", "2\nrandom\ngreedy"]
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1  # beside the axes, not on the bars
    plots.plt.close(fig)


def test_the_python_api_guide_example_runs():
    """docs/guides/python-api.md (the README's "Python API" section until 0.2.0)."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    page = "docs/guides/python-api.md"
    section = (Path(__file__).parent.parent / page).read_text()
    blocks = section.split("```python")[1:]
    assert len(blocks) == 2
    # small: the code, not the numbers
    one_path, notebook = (b[:b.index("```")].replace("20_000", "300").replace("2_000", "40")
                          for b in blocks)
    scope: dict = {}
    exec(compile(one_path, page, "exec"), scope)
    assert scope["race"].meta["games"] == 300 and len(scope["race"].tables["seats"]) == 4
    assert scope["panic"].meta["players"] == 3 and "by_seat" in scope["panic"].tables
    assert scope["aw"].tables["comparison"]["games"].iloc[0] == 300
    assert scope["one"].lines and scope["one"].meta["seed"] == 7
    assert "seed 7, round 3:" in scope["one"].text() and len(scope["one"].tables["decisions"])
    scope = {}
    exec(compile(notebook.replace("200_000", "2_000"), page, "exec"), scope)
    assert list(scope["best"].columns[:3]) == ["rank", "lanes", "cards"]
    assert scope["counts"].games == 2_000 and len(scope["ev"]) == 6
    assert scope["ax"].get_title() == "Single-bet EV by lane"
    scope["plt"].close("all")


def test_a_report_folder_that_cannot_be_written_fails_before_simulating(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, _, err = run(capsys, "report", "--out", str(blocker / "sub"), "--quiet")
    assert code == 2 and one_line(err) and "cannot write the report there" in err


def test_precision_stopped_by_max_games_warns_on_stderr(capsys):
    res = driver.run(_CountJob(), precision=0.01, max_games=300, chunk_games=100,
                     progress=False)
    assert res.stopped_by == "max_games"
    err = capsys.readouterr().err
    assert "warning: stopped at --max-games 300" in err and "precision 0.01" in err


def test_a_change_in_win_rate_is_in_percentage_points():
    # a head-to-head finding: a difference of two rates is not a percent change
    from sheepsim.tableview import paired_change

    row = {"diff": -0.04195, "diff_lo": -0.04832, "diff_hi": -0.03558, "pvalue": 6.36e-38}
    assert paired_change(row, "win rate", rate=True, test="McNemar") == (
        "its win rate by -4.2 percentage points (95% -4.8 to -3.6; McNemar p = 6.4e-38)")
    score = {"diff": 0.6601, "diff_lo": 0.5569, "diff_hi": 0.7633, "pvalue": 4.8e-36}
    assert paired_change(score, "mean score") == "its mean score by 0.7 (95% 0.6 to 0.8)"


# ------------------------------------------------------------------ traces, every game
@pytest.mark.parametrize("game,extra,result_key", [
    ("race", ["--seed", "7"], "placed_lanes"),
    ("panic", ["--players", "3", "--seed", "2"], "scores"),
    ("awsheep", ["--players", "3", "--seed", "2"], "end"),
])
def test_every_trace_writes_text_or_json_to_a_file_and_its_table_as_csv(capsys, tmp_path, game,
                                                                        extra, result_key):
    """The three games' traces share their output options (``options.add_trace_options``):
    ``--out FILE.json`` writes the lines, the result and the metadata; ``--out FILE.csv``
    writes the decisions table with ``--table decisions`` and is refused in one line
    before anything runs without it (the text has no columns; 0.6.0: csv was refused
    even for the table); ``--quiet`` is accepted."""
    out = tmp_path / "t.json"
    code, printed, _ = run(capsys, game, "trace", *extra, "--out", str(out), "--quiet")
    assert code == 0 and printed == ""
    doc = json.loads(out.read_text())
    assert doc["meta"]["seed"] == int(extra[-1]) and doc["lines"] and result_key in doc
    assert json.loads((tmp_path / "t.json.meta.json").read_text())["game"] == doc["meta"]["game"]
    code, text, _ = run(capsys, game, "trace", *extra, "--quiet")
    assert code == 0 and text == "\n".join(doc["lines"]) + "\n"  # the same lines as text
    code, _, err = run(capsys, game, "trace", *extra, "--out", str(tmp_path / "t.csv"))
    assert code == 2 and one_line(err) and err == (
        f"sheepsim: error: --out {tmp_path / 't.csv'}: a trace's turn-by-turn text has no "
        "columns to write as csv; add --table decisions for that table in csv, or use "
        "--format json (its lines) or table\n")
    assert not (tmp_path / "t.csv").exists()
    code, _, _ = run(capsys, game, "trace", *extra, "--table", "decisions", "--out",
                     str(tmp_path / "t.csv"), "--quiet")
    table = pd.read_csv(tmp_path / "t.csv")
    assert code == 0 and list(table.columns) == ["decision", "seat", "phase", "kind",
                                                  "n_options", "choice"]
    code, printed, _ = run(capsys, game, "trace", *extra, "--table", "decisions", "--format",
                           "csv", "--quiet")
    assert code == 0 and printed == (tmp_path / "t.csv").read_text()
    assert json.loads((tmp_path / "t.csv.meta.json").read_text())["seed"] == int(extra[-1])
