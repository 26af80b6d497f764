"""The package layout (issue 29, item 4): no module-level import cycle in ``sheepsim/``."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "sheepsim"


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _module_level_imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Per module, the sheepsim modules it imports at module level (an import inside a
    function runs later and is not counted here)."""
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            edges[name] |= {t for t in targets if t in mods and t != name}
    return edges


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


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _all_imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Per module, the sheepsim modules it imports anywhere (inside functions too);
    ``from package import submodule`` is an edge to the submodule only (the package's
    ``__init__`` runs too, but the game packages' are lazy and import nothing)."""
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module
                if node.level:
                    parts = pkg.split(".")[:len(pkg.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in mods]
                targets = subs if len(subs) == len(node.names) else [base, *subs]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            edges[name] |= {t for t in targets if t in mods and t != name}
    return edges


def test_no_import_cycle_in_the_race_package_even_inside_functions():
    race = "sheepsim.games.race"
    edges = {m: {t for t in e if t.startswith(race)}
             for m, e in _all_imports(_modules()).items() if m.startswith(race)}
    assert _cycles(edges) == []


def test_the_import_finder_sees_imports_inside_functions(tmp_path):
    # a cycle closed only by an import inside a function is found
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from a import x\n")
    mods = {"a": tmp_path / "a.py", "b": tmp_path / "b.py"}
    assert _all_imports(mods) == {"a": {"b"}, "b": {"a"}}
    assert _cycles(_all_imports(mods)) == [["a", "b"]]
