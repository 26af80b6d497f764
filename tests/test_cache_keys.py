"""The kernel cache is keyed by what a kernel is compiled from (``sheepsim.jit``): the
source of its module and of the sheepsim modules it imports, transitively, found from
the import statements. An edit of a dependency selects a new key (the kernel is
recompiled); an edit of anything else keeps it. The same for the race's odds table and
for kernels rebuilt around user policies."""

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import sheepsim
from sheepsim import jit
from sheepsim.games.race import simulate

RACE = ("games/race/engine.py", "games/race/kernels.py")
PANIC = "games/panic/machine.py"
AWSHEEP = "games/awsheep/machine.py"  # the round the harness loop plays
LOOP = "harness/loop.py"


def _clear():
    """Forget the digests computed in this process (they are cached per file)."""
    for fn in (jit._source, jit._imports, jit.module_closure, jit.files_digest,
               jit.package_files):
        fn.cache_clear()


@pytest.fixture
def tree(tmp_path):
    """A copy of the package to edit; the digest caches cleared before and after."""
    root = tmp_path / "sheepsim"
    shutil.copytree(jit.PACKAGE_DIR, root, ignore=shutil.ignore_patterns("__pycache__"))
    _clear()
    yield root
    _clear()


def _keys(root):
    keys = {rel: jit.module_digest(rel, root=root) for rel in (*RACE, PANIC, AWSHEEP, LOOP)}
    keys["odds"] = simulate.odds_code_digest(root)
    _clear()
    return keys


def _edit(root, rel):
    path = root / rel
    path.write_text(path.read_text() + "\n# an edit\n")


@pytest.mark.parametrize(("edited", "changed"), [
    # shared kernel modules every kernel imports
    ("rng.py", {*RACE, PANIC, AWSHEEP, LOOP, "odds"}),
    ("jit.py", {*RACE, PANIC, AWSHEEP, LOOP, "odds"}),
    # a game's constants-only layout and its policies: that game's kernels only
    ("games/race/layout.py", {*RACE, "odds"}),
    ("games/race/policies.py", {*RACE, "odds"}),
    ("games/panic/layout.py", {PANIC}),
    ("games/panic/policies/greedy.py", {PANIC}),
    ("games/awsheep/layout.py", {AWSHEEP}),
    ("harness/slots.py", {LOOP}),
    # the plug-in ask and failure record the loop and the race's engine share
    ("harness/ask.py", {*RACE, LOOP, "odds"}),
    # the module computing the odds table from the kernel
    ("games/race/simulate.py", {"odds"}),
    ("games/race/kernels.py", {"games/race/kernels.py", "odds"}),
    # not compiled into any kernel: nothing recompiles
    ("report/render.py", set()),
    ("cli.py", set()),
    ("games/race/plots.py", set()),
    ("games/panic/analysis.py", set()),
    ("games/awsheep/studies.py", set()),
])
def test_an_edit_changes_exactly_the_keys_of_what_depends_on_it(tree, edited, changed):
    before = _keys(tree)
    _edit(tree, edited)
    after = _keys(tree)
    assert {k for k in before if before[k] != after[k]} == changed


def _kernel_modules(root, under: str = "") -> list[str]:
    """The package files under ``under`` that define a kernel (a line ``@njit`` or
    ``@kernel``: ``sheepsim.jit``'s decorators, with or without options)."""
    return sorted(rel for rel in jit.package_files(root) if rel.startswith(under)
                  and re.search(r"^@(njit|kernel)\b", (root / rel).read_text(), re.M))


def test_a_one_line_edit_of_render_py_keeps_every_race_kernels_key(tree):
    """Issue 50: after a one-line edit of ``report/render.py``, ``pytest tests/race``
    runs warm. The key of every module of the package that defines a kernel (the race's
    engine, moves, policies, greedy tables, exact solver, ... found by their decorators,
    not listed) and the odds table's key are unchanged."""
    race = _kernel_modules(tree, "games/race/")
    assert {"games/race/engine.py", "games/race/kernels.py", "games/race/moves.py",
            "games/race/exact/graphs.py", "games/race/exact/sweep.py"} <= set(race)
    modules = _kernel_modules(tree)
    assert set(race) < set(modules)

    def keys():
        out = {rel: jit.module_digest(rel, root=tree) for rel in modules}
        out["odds"] = simulate.odds_code_digest(tree)
        _clear()
        return out

    before = keys()
    path = tree / "report" / "render.py"
    lines = path.read_text().splitlines(keepends=True)
    lines[0] = lines[0].replace('"""', '"""Edited: ', 1)  # one line changed
    path.write_text("".join(lines))
    after = keys()
    assert jit.files_digest(frozenset({"report/render.py"}), tree) != \
        jit.files_digest(frozenset({"report/render.py"}), jit.PACKAGE_DIR)
    assert [k for k in before if before[k] != after[k]] == []


def test_the_key_names_the_versions(tree, monkeypatch):
    before = jit.module_digest("rng.py", root=tree)
    _clear()
    monkeypatch.setattr(jit, "__version__", "0.0.0-other")
    assert jit.module_digest("rng.py", root=tree) != before


def test_imports_are_found_in_every_form(tree):
    (tree / "probe").mkdir()
    (tree / "probe" / "__init__.py").write_text("from sheepsim.probe.lazy import NAME\n")
    (tree / "probe" / "lazy.py").write_text("NAME = 1\n")
    for name in ("a", "b", "c", "d", "e", "f", "g"):
        (tree / "probe" / f"{name}.py").write_text("")
    (tree / "probe" / "user.py").write_text(
        "import os, sheepsim.probe.a\n"
        "from . import b\n"
        "from .c import something\n"
        "from sheepsim.probe import (  # two\n    d,  # the first\n    e as ee,\n)\n"
        "def later():\n    from sheepsim.probe import f\n"
        "TABLE = {'x': 'sheepsim.probe.g'}\n"
        "from sheepsim.probe import NAME\n")
    _clear()
    closure = jit.module_closure("probe/user.py", tree)
    assert {f"probe/{n}.py" for n in "abcdefg"} <= closure
    # NAME is the package's own: its __init__ and what that imports
    assert {"probe/__init__.py", "probe/lazy.py", "__init__.py"} <= closure


def _ast_imports(root: Path, rel: str) -> set[str]:
    """What ``ast`` says module ``rel`` imports (the slow, exact way)."""
    own = rel.split("/")[:-1]
    found = set()
    for node in ast.walk(ast.parse((root / rel).read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name.split(".") for a in node.names]
            targets = [t[1:] for t in targets if t[0] == "sheepsim"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = own[:len(own) - (node.level - 1)]
                parts = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == "sheepsim":
                parts = node.module.split(".")[1:]
            else:
                continue
            targets = [parts + [a.name] for a in node.names] + [parts]
        else:
            continue
        for t in targets:
            target = jit._resolve(root, t)
            if target is not None and target != rel:
                found.add(target)
    return found


def test_the_text_scan_finds_every_import_ast_finds():
    """``jit._imports`` scans text (fast); on every module of the package it finds at
    least what a parse finds (the parse also counts ``from pkg import sub``'s package,
    which the scan leaves to ``module_closure``'s package ``__init__`` files)."""
    root = jit.PACKAGE_DIR
    for rel in sorted(jit.package_files(root)):
        closure = jit.module_closure(rel, root)
        missing = _ast_imports(root, rel) - closure
        assert not missing, f"{rel}: the scan misses {sorted(missing)}"


def test_a_variant_key_covers_the_sheepsim_modules_its_kernels_reach(tmp_path, monkeypatch):
    from sheepsim.games.race.kernels import BUILTIN, decide_for

    (tmp_path / "reads_panic_layout.py").write_text(
        "import numba\nfrom sheepsim.games.panic import layout as P\n\n\n"
        "@numba.njit\ndef pick(kind, view, opts, n, rand):\n    return P.N_COLOURS * 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import reads_panic_layout as user

    reached = jit._reached_files([BUILTIN.fill_races, decide_for((user.pick,))])
    # the kernel's own modules, and a sheepsim module only the user's policy reads
    assert {"games/race/kernels.py", "games/race/engine.py", "games/race/policies.py",
            "rng.py", "jit.py", "games/panic/layout.py"} <= reached
    assert "report/render.py" not in reached


def test_an_odds_table_of_other_kernel_rules_is_not_read(tmp_path):
    path = tmp_path / "odds.npz"
    tables = (np.zeros((3, 6, 3)), np.ones((3, 6, 3)))
    simulate._write_odds(path, tables, "inputs-a")
    got = simulate._read_odds(path, 3, "inputs-a")
    assert got is not None and all(np.array_equal(a, b) for a, b in zip(got, tables, strict=True))
    assert simulate._read_odds(path, 3, "inputs-b") is None


# ------------------------------------------------------------ a real compile, reused
_KERNEL = """
from sheepsim import rng
from sheepsim.jit import njit


@njit
def mixed(z):
    return rng.mix64(z)
"""

_RUN = """
import sys
sys.path.insert(0, {root!r})
import numpy as np
from sheepsim import _probe_kernel as m
m.mixed(np.uint64(7))
st = m.mixed.python_entry.stats
print(sum(st.cache_hits.values()), sum(st.cache_misses.values()))
"""


def test_an_edit_outside_a_kernels_dependencies_recompiles_nothing(tmp_path):
    """In a copy of the package, with a fresh cache: compile a kernel calling ``rng``;
    edit ``report/render.py`` (and another game): the next process loads it and writes
    no cache file; edit ``rng.py``: it compiles again, into a new folder."""
    src = tmp_path / "src"
    shutil.copytree(Path(sheepsim.__file__).parent, src / "sheepsim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (src / "sheepsim" / "_probe_kernel.py").write_text(_KERNEL)
    cache = tmp_path / "cache"
    env = {**os.environ, "SHEEPSIM_CACHE_DIR": str(cache)}

    def run():
        # a process each: the copy of the package as edited, loaded from the disk cache anew
        out = subprocess.run([sys.executable, "-c", _RUN.format(root=str(src))], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        hits, misses = map(int, out.stdout.split())
        return hits, misses, sorted(p.relative_to(cache) for p in cache.rglob("*.nb*"))

    hits, misses, files = run()
    assert misses == 1 and hits == 0 and files
    _edit(src / "sheepsim", "report/render.py")
    _edit(src / "sheepsim", "games/panic/layout.py")
    assert run() == (1, 0, files)  # loaded; no new cache file
    _edit(src / "sheepsim", "rng.py")
    hits, misses, after = run()
    assert (hits, misses) == (0, 1) and set(files) < set(after)
    assert len({p.parts[1] for p in after if p.parts[1].startswith("_probe_kernel-")}) == 2


def test_numba_version_is_the_installed_one():
    assert jit._numba_version() == numba.__version__
