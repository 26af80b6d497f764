"""Each game's facts are declared once (issue 45): the player range lives in the game's
registry entry (``sheepsim/games/<game>/game.py``: ``GAME.min_players``/``max_players``)
and every other module reads it, but for a kernel's array sizes in ``layout.py``
(marked ``# kernel size``: importing the declaration would key every kernel's cache on
the whole package), which must equal it; the designers' examples live in each game's metrics
module, so :mod:`sheepsim.designer` names no game; the seed lives in the job (``Job.seed``:
its chunks read it, the driver takes none and hands none back)."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import sheepsim
from sheepsim import game as registry

ROOT = Path(sheepsim.__file__).parent
BUILT_IN = [g for g in registry.games() if g.rules_loader.startswith("sheepsim.games.")]
IDS = [g.command for g in BUILT_IN]
#: names that only ever hold a player count or range
RANGE_NAMES = ("MIN_PLAYERS", "MAX_PLAYERS", "SUPPORTED_PLAYERS", "PLAYERS", "PLAYER_COUNTS")


def _folder(g) -> Path:
    return ROOT / "games" / g.rules_loader.split(".")[2]


def _int(node):
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _restatements(g, path: Path) -> list[str]:
    """Where ``path`` spells out ``g``'s player range instead of reading it: a literal of
    every count (``(3, 4)``, ``[3, 4, 5, 6]``), ``range(lo, hi + 1)``, ``lo <= n <= hi``,
    a range constant set to a number, or a string spelling the range out."""
    lo, hi, counts = g.min_players, g.max_players, g.player_counts
    words = {f"must be {g.players_text}", f"must be {g.players_listed('or')}",
             f"use {g.players_listed('or')} players", f"for {g.players_listed()} players",
             f"{lo}-{hi} players", f"{g.players_listed()} players",
             f"{g.players_text} (default"}
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and len(counts) > 1 \
                and tuple(_int(e) for e in node.elts) == counts:
            out.append(f"{where}: the literal {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "range" and len(node.args) >= 2 and _int(node.args[0]) == lo:
            out.append(f"{where}: {ast.unparse(node)}")
        elif isinstance(node, ast.Compare) and len(node.ops) == 2 \
                and _int(node.left) == lo and _int(node.comparators[-1]) in (hi, hi + 1):
            out.append(f"{where}: {ast.unparse(node)}")
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            value = node.value
            numbers = [value] if _int(value) is not None else list(
                value.elts) if isinstance(value, ast.Tuple | ast.List) else []
            kernel_size = path.name == "layout.py" and "# kernel size" in \
                path.read_text(encoding="utf-8").splitlines()[node.lineno - 1]
            if any(n in RANGE_NAMES for n in names) and any(_int(v) is not None for v in numbers) \
                    and not kernel_size:
                out.append(f"{where}: {ast.unparse(node)}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and any(w in node.value for w in words) and not _is_docstring(node, path):
            out.append(f"{where}: the text {node.value!r}")
    return out


_DOCSTRINGS: dict[Path, set[int]] = {}


def _is_docstring(node, path: Path) -> bool:
    if path not in _DOCSTRINGS:
        ids = set()
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) \
                    and n.body and isinstance(n.body[0], ast.Expr) \
                    and isinstance(n.body[0].value, ast.Constant):
                ids.add((n.body[0].value.lineno, n.body[0].value.col_offset))
        _DOCSTRINGS[path] = ids
    return (node.lineno, node.col_offset) in _DOCSTRINGS[path]


def test_every_built_in_game_is_checked():
    assert {g.command for g in BUILT_IN} >= {"race", "panic", "awsheep"}


@pytest.mark.parametrize("g", BUILT_IN, ids=IDS)
def test_no_module_of_the_game_restates_its_player_range(g):
    """Only ``game.py`` (the declaration itself) states the range; docstrings may
    describe it."""
    files = sorted(p for p in _folder(g).rglob("*.py") if p.name != "game.py")
    assert files
    assert [hit for p in files for hit in _restatements(g, p)] == []


def test_the_scan_finds_restatements(tmp_path):
    panic = registry.get("panic")
    src = tmp_path / "bad.py"
    src.write_text('SUPPORTED_PLAYERS = (3, 4)\nMAX_PLAYERS = 4\nfor n in [3, 4]:\n    pass\n'
                   'ok = 3 <= n <= 4\nr = range(3, 5)\n'
                   'def f(n):\n    raise ValueError(f"players must be 3 or 4, got {n}")\n'
                   'help = "players, 3 or 4 (default 3)"\nMAX_PLAYERS = _GAME.max_players + 0\n')
    hits = _restatements(panic, src)
    # every line but the loop's body, the def and a constant derived from the declaration
    assert {int(h.split(':')[1]) for h in hits} == {1, 2, 3, 5, 6, 8, 9}, hits


@pytest.mark.parametrize("g", BUILT_IN, ids=IDS)
def test_the_range_constants_and_balance_counts_are_the_declaration(g):
    pkg = g.rules_loader.split(":")[0].rsplit(".", 1)[0]
    rules = importlib.import_module(g.rules_loader.split(":")[0])
    if hasattr(rules, "SUPPORTED_PLAYERS"):
        assert rules.SUPPORTED_PLAYERS == g.player_counts
    layout = importlib.import_module(f"{pkg}.layout")
    # kernel array sizes: derived from the declaration, not restated
    for name, want in (("MIN_PLAYERS", g.min_players), ("MAX_PLAYERS", g.max_players)):
        if hasattr(layout, name):
            assert getattr(layout, name) == want
    parts = importlib.import_module(g.parts)
    if hasattr(parts, "PLAYERS"):
        assert parts.PLAYERS == g.player_counts


def test_panic_balance_plays_every_declared_count_by_default():
    from sheepsim.games.panic.balance import balance_tables

    default = inspect.signature(balance_tables).parameters["players"].default
    assert default == registry.get("panic").player_counts


def test_player_counts_in_words():
    race, panic, aw = (registry.get(n) for n in ("race", "panic", "awsheep"))
    assert race.player_counts == (2, 3, 4, 5, 6) and panic.player_counts == (3, 4)
    assert aw.players_listed() == "3, 4, 5 and 6" and aw.players_listed("or") == "3, 4, 5 or 6"
    assert panic.players_listed() == "3 and 4" and panic.players_listed("or") == "3 or 4"


def test_the_designers_commands_name_no_game():
    """Each game's examples are its metrics module's ``EXAMPLES``; designer.py holds no
    game's name, command or example."""
    from sheepsim import balance_metrics as M
    from sheepsim.designer import GENERIC_EXAMPLES

    src = (ROOT / "designer.py").read_text(encoding="utf-8")
    strings = {n.value for n in ast.walk(ast.parse(src))
               if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    for g in registry.games():
        assert g.command not in strings and g.name not in strings
        examples = getattr(M.module(g), "EXAMPLES", {}) if g.metrics else {}
        assert set(examples) <= set(GENERIC_EXAMPLES)
        for value in examples.values():
            assert value not in src
    for g in BUILT_IN:
        assert set(M.module(g).EXAMPLES) == set(GENERIC_EXAMPLES)


# ------------------------------------------------------------------ the seed, once
#: the methods that play a job's games: they read the job's seed, never take one
GAME_METHODS = ("chunk", "outcomes")


def _sources() -> list[Path]:
    """sheepsim's modules, every installed game's package, the tests and benchmarks."""
    roots = [ROOT, Path(__file__).parent, ROOT.parent / "benchmarks"]
    for g in registry.games():
        package = importlib.import_module(g.rules_loader.split(":")[0].split(".")[0])
        if package is not sheepsim:
            roots.append(Path(package.__file__).parent)
    return sorted(p for root in roots for p in root.rglob("*.py"))


def _seed_handed_back(path: Path) -> list[str]:
    """Where ``path`` gives a job's games a seed of their own: a ``chunk``/``outcomes``
    method that takes more than ``(first_game, n_games)``, a call of one with more than
    two arguments, or a ``run(job, seed=...)``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name in GAME_METHODS:
                    names = [a.arg for a in item.args.args]
                    if names != ["self", "first_game", "n_games"]:
                        out.append(f"{path.name}:{item.lineno}: "
                                   f"{node.name}.{item.name}({', '.join(names)})")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in GAME_METHODS and len(node.args) + len(node.keywords) > 2:
                out.append(f"{where}: {ast.unparse(node)}")
            if node.func.attr == "run" and any(k.arg == "seed" for k in node.keywords) \
                    and node.args and "job" in ast.unparse(node.args[0]).lower():
                out.append(f"{where}: {ast.unparse(node)}")
    return out


def test_the_seed_lives_in_the_job_only():
    """``Job.chunk(first_game, n_games)`` and ``outcomes`` read ``self.seed``; the driver
    takes no seed (nor its sessions, nor a Dask task) and reads the job's."""
    from sheepsim import dask_backend, driver
    from sheepsim.game import Job

    hits = [hit for p in _sources() for hit in _seed_handed_back(p)]
    assert hits == []
    for fn in (Job.chunk, Job.outcomes):
        assert list(inspect.signature(fn).parameters) == ["self", "first_game", "n_games"]
    assert "seed" not in inspect.signature(driver.run).parameters
    assert not hasattr(driver, "job_seed")
    for fn in (driver._ThreadSession.ordered, driver._ThreadSession._chunk,
               dask_backend._DaskSession.ordered, dask_backend.run_chunk):
        assert "seed" not in inspect.signature(fn).parameters, fn


def test_the_scan_finds_a_seed_handed_back(tmp_path):
    src = tmp_path / "bad.py"
    src.write_text("class J:\n    def chunk(self, seed, first_game, n_games):\n        pass\n"
                   "    def outcomes(self, first_game, n_games):\n        pass\n"
                   "x = job.chunk(1, 0, 5)\ny = job.chunk(0, 5)\n"
                   "z = driver.run(job, seed=3, games=9)\nw = driver.run(job, games=9)\n")
    assert [int(h.split(":")[1]) for h in _seed_handed_back(src)] == [2, 6, 8]


def test_a_job_plays_its_own_seed():
    """The driver's result, its metadata and the games are the job's seed's; jobs
    combined on one set of games (a head-to-head) must share theirs."""
    import numpy as np

    from sheepsim import driver
    from sheepsim.errors import SheepsimError
    from sheepsim.headtohead import HeadToHeadJob

    g = registry.get("race")
    job = g.job("play", seed=5, **g.sample["job"])
    res = driver.run(job, games=30, chunk_games=7, threads=1, progress=False)
    assert res.seed == res.meta()["seed"] == job.seed == 5
    alone = job.chunk(0, 30)
    assert all(np.array_equal(res.counts[k], alone[k]) for k in alone)
    other = g.job("play", seed=6, **g.sample["job"]).chunk(0, 30)
    assert any(not np.array_equal(other[k], alone[k]) for k in alone)
    with pytest.raises(SheepsimError, match=r"a head-to-head plays its games on one seed, "
                                            r"got seeds \[5, 6\]"):
        HeadToHeadJob(job, g.job("play", seed=6, **g.sample["job"]), 1, ("a", "b", "f"))
