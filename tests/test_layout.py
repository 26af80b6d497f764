"""The package layout (issue 29, item 4): no import cycle in ``sheepsim/``, counting the
imports inside functions too; and an import inside a function only of a module listed
here with its reason (``LAZY`` for the shared modules, ``GAME_LAZY`` for the games)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "sheepsim"


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _targets(node, name: str, path: Path, mods: dict[str, Path]) -> list[str]:
    """The sheepsim modules an import statement loads: ``from pkg import sub`` is an
    edge to the submodule ``pkg.sub`` (the package's ``__init__`` runs before any of its
    modules anyway), ``from mod import name`` to ``mod``; relative imports resolved."""
    if isinstance(node, ast.Import):
        targets = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom):
        mod = node.module
        if node.level:
            package = name if path.name == "__init__.py" else name.rpartition(".")[0]
            parts = package.split(".")
            parts = parts[:len(parts) - (node.level - 1)]
            mod = ".".join(parts + ([node.module] if node.module else []))
        targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names]
    else:
        return []
    return [t for t in targets if t in mods and t != name]


def _imports(mods: dict[str, Path], *, inside_functions: bool) -> dict[str, set[str]]:
    """Per module, the sheepsim modules it imports: at module level only (an import
    inside a function runs later), or every import statement in the file."""
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree) if inside_functions else tree.body:
            edges[name].update(_targets(node, name, path, mods))
    return edges


def _module_level_imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    return _imports(mods, inside_functions=False)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_no_module_level_import_cycle():
    assert _cycles(_module_level_imports(_modules())) == []


def test_no_import_cycle_counting_imports_inside_functions():
    # a cycle through a function-level import is still a cycle: the two modules need
    # each other, whichever runs first
    assert _cycles(_imports(_modules(), inside_functions=True)) == []


def test_function_level_imports_are_edges():
    # `from pkg import sub` inside a function is an edge to the submodule
    mods = _modules()
    src = "def f():\n    from sheepsim.report import build\n    from . import config\n"
    node_a, node_b = [n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom)]
    path = mods["sheepsim.report.studies"]
    assert _targets(node_a, "sheepsim.report.studies", path, mods) == ["sheepsim.report.build"]
    assert _targets(node_b, "sheepsim.report.studies", path, mods) == ["sheepsim.report.config"]


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


#: The sheepsim modules a shared module (``sheepsim/*.py``, ``sheepsim/report/``) may
#: import inside a function, and why: the rule of ``sheepsim/__init__.py``'s docstring
#: (an import inside a function keeps ``sheepsim --help``, a warm ``race odds --exact``
#: and ``import sheepsim`` from loading what they do not need). Every other import of a
#: sheepsim module is at the top of the file. A game's own modules
#: (``sheepsim.games.<game>.*``) are reached through the registry and may always be.
LAZY_HEAVY = {
    # numpy, pandas, matplotlib, numba, scipy or distributed at import
    "sheepsim.driver": "numpy, pandas",
    "sheepsim.dask_backend": "distributed",
    "sheepsim.headtohead": "numpy, pandas",
    "sheepsim.plots": "matplotlib",
    "sheepsim.stats": "numpy, scipy",
    "sheepsim.tableview": "pandas",
    "sheepsim.variant_runs": "numpy, pandas",
    "sheepsim.search": "numpy (and optuna when it runs)",
    "sheepsim.rng": "numba",
    "sheepsim.report.build": "pandas",
    "sheepsim.report.config": "numpy, pandas (through the driver)",
    "sheepsim.report.execute": "numpy, pandas",
    "sheepsim.report.render": "pandas",
    "sheepsim.report.outdir": "numpy, pandas",
    "sheepsim.report.figures": "matplotlib when it draws",
    "sheepsim.harness.jobs": "numpy, pandas (the harness's jobs)",
    "sheepsim.harness.layout": "numpy",
    "sheepsim.harness.tables": "pandas",
    "sheepsim.harness.loop": "numba: the harness's entry kernel, built when a job runs",
    "sheepsim.harness.machine": "numba (the slots' njit bodies): a game's machine, loaded "
                                "when its games run",
    "sheepsim.policy_values": "numba: plug-ins as function values, compiled when the race's "
                              "single races or traces have plug-ins (no kernel module "
                              "imports it, so its edits recompile no game kernel)",
}
LAZY = {
    **LAZY_HEAVY,
    # light, but what a command line or `import sheepsim` need not load
    "sheepsim.output": "formats and files: not needed to build the parser (`--help`)",
    "sheepsim.rulesfile": "rules files: not needed to build the parser",
    "sheepsim.rulesedit": "rules edits: the designers' commands when they run",
    "sheepsim.cli": "the parser: `import sheepsim` does not build it",
    "sheepsim.designer": "the designers' commands: built only for a command line naming one",
    "sheepsim.report.studies": "imports every game's studies module",
    "sheepsim.serve.server": "the HTTP server: `sheepsim serve` only",
    "sheepsim.games": "the registry, read when the games are listed",
    "sheepsim.report.registry": "the study types (their reader reads rules files): not "
                                "needed to build the parser",
    "sheepsim.skill_ladder": "the ladder command and study: built only for a command line "
                             "or a report naming it",
}


#: shared modules whose sheepsim imports may all wait for a function, and why
LAZY_IN = {
    "sheepsim.api": "`import sheepsim` loads it: the library's import stays at errors",
}


def _function_level_imports(mods: dict[str, Path], shared) -> list[tuple[str, int, str]]:
    out = []
    for name in shared:
        path = mods[name]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = set(map(id, tree.body))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top:
                out += [(name, node.lineno, t) for t in _targets(node, name, path, mods)]
    return out


def test_function_level_imports_in_the_shared_modules_are_of_lazy_modules():
    mods = _modules()
    shared = [m for m in mods if m == "sheepsim" or m.count(".") == 1 and not m.startswith(
        ("sheepsim.games", "sheepsim.serve")) or m.startswith(("sheepsim.report",
                                                               "sheepsim.harness"))]
    assert "sheepsim.cli" in shared and "sheepsim.report.build" in shared
    bad = [f"{name}:{line} imports {target}"
           for name, line, target in _function_level_imports(mods, shared)
           if target not in LAZY and name not in LAZY_IN and not target.startswith("sheepsim.games.")]
    assert bad == []


#: The game modules (``sheepsim.games.<game>.*``) a game module may import inside a
#: function, and why: the target loads numba kernels, pandas, matplotlib or numpy, and
#: its importer is one that must not (a job is plain data until it runs, a studies or
#: metrics module is read when the report's studies or the metrics are listed, a trace
#: module is loaded with the command line's parts, the exact solver's path skips the
#: simulation kernels). Every other import of a sheepsim module in a game package is at
#: the top of its file, as is any import of a module the importer loads anyway. Shared
#: modules may be imported inside a function only if they are in ``LAZY_HEAVY``.
GAME_LAZY = {
    # The Sheep Race
    "sheepsim.games.race.simulate": "numba (the policies) and pandas (the driver): a job, "
                                    "study or trace is built without them",
    "sheepsim.games.race.analysis": "pandas, and the kernels through simulate",
    "sheepsim.games.race.kernels": "numba: the chunk kernels, loaded when a chunk runs "
                                   "(not on the exact solver's path)",
    "sheepsim.games.race.engine": "numba: the race engine's kernels",
    "sheepsim.games.race.single": "numba: `race trace`'s one-race machine, loaded when a "
                                  "trace runs",
    "sheepsim.games.race.exact.solver": "numba (the lane-graph kernels) and pandas",
    "sheepsim.games.race.exact.bets": "the exact solver (numba, pandas)",
    "sheepsim.games.race.exact.from_position": "the exact solver (numba, pandas)",
    "sheepsim.games.race.exact.position": "numpy",
    "sheepsim.games.race.exact.position_kernel": "numba: the continuation kernel, loaded "
                                                 "when a position is simulated",
    "sheepsim.games.race.jobs": "numpy, pandas (the driver)",
    "sheepsim.games.race.rules": "numpy",
    "sheepsim.games.race.plots": "matplotlib",
    "sheepsim.games.race.policies": "numba: the policies' kernels (the metrics read its "
                                    "names of the whole-game pace policies)",
    # Aw, Sheep!
    "sheepsim.games.awsheep.jobs": "numpy, pandas",
    "sheepsim.games.awsheep.machine": "numba: the round's state machine, loaded when rounds run",
    "sheepsim.games.awsheep.policies": "numba: the policies' kernels",
    "sheepsim.games.awsheep.rules": "numpy",
    "sheepsim.games.awsheep.plots": "matplotlib",
    # Shear Panic
    "sheepsim.games.panic.analysis": "numpy, pandas",
    "sheepsim.games.panic.balance": "numpy, pandas",
    "sheepsim.games.panic.policies": "numba: the policies' kernels",
    "sheepsim.games.panic.policies.decide": "numba: the policies' dispatch kernels",
    "sheepsim.games.panic.scratch": "numba: the scratch record's kernels",
    "sheepsim.games.panic.jobs": "numpy",
    "sheepsim.games.panic.rules": "numpy",
    "sheepsim.games.panic.plots": "matplotlib",
}

#: game modules whose sheepsim imports may all wait for a function, and why: they build
#: the command line's parser (``sheepsim --help``, a warm ``race odds --exact``)
GAME_LAZY_IN = {
    "sheepsim.games.race.game": "the registry entry: read to build the parser",
    "sheepsim.games.race.commands": "the command line's parts: read to build the parser",
    "sheepsim.games.race.cli": "the race commands' parser",
    "sheepsim.games.race.cli_exact": "the exact odds' options and handlers: on the path of "
                                     "a warm `race odds --exact`",
    "sheepsim.games.awsheep.game": "the registry entry: read to build the parser",
    "sheepsim.games.awsheep.commands": "the command line's parts: read to build the parser",
    "sheepsim.games.awsheep.cli": "the awsheep commands' parser",
    "sheepsim.games.panic.game": "the registry entry: read to build the parser",
    "sheepsim.games.panic.commands": "the command line's parts: read to build the parser",
}


def _game_modules(mods: dict[str, Path]) -> list[str]:
    return [m for m in mods if m.startswith("sheepsim.games.")]


def test_function_level_imports_in_the_game_packages_are_of_lazy_modules():
    """Every game package (race, awsheep, panic): an import of a sheepsim module inside a
    function targets a module of ``GAME_LAZY`` (or of ``LAZY_HEAVY``), unless its module
    builds the parser (``GAME_LAZY_IN``)."""
    mods = _modules()
    games = _game_modules(mods)
    # the built-in games, from the registry (a game installed from its own package lives
    # outside sheepsim/ and is not checked here)
    from sheepsim import game as registry

    built_in = {g.rules_loader.split(".")[2] for g in registry.games()
                if g.rules_loader.startswith("sheepsim.games.")}
    assert built_in and {m.split(".")[2] for m in games} == built_in
    assert set(GAME_LAZY) <= set(games) and set(GAME_LAZY_IN) <= set(games)
    found = [(name, line, target) for name, line, target in _function_level_imports(mods, games)
             if name not in GAME_LAZY_IN]
    bad = [f"{name}:{line} imports {target}" for name, line, target in found
           if target not in GAME_LAZY and target not in LAZY_HEAVY]
    assert bad == []
    # and the table holds no module nothing waits for
    assert set(GAME_LAZY) - {target for _, _, target in found} == set()
