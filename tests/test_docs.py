"""The docs cannot go stale (issue 48): the docs site builds with warnings as errors (its
gallery runs during the build), every Python block of the guides and the README runs,
the command reference lists every option of every command and nothing else, the README
stays short and links to pages that exist, and the version is the CHANGELOG's."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BUILD = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]

# ---------------------------------------------------------------- the Python blocks

#: pages whose Python blocks another test runs
RUN_ELSEWHERE = {
    "docs/guides/python-api.md": "tests/test_first_hour.py::test_the_python_api_guide_example_runs",
}
#: blocks that need what a test cannot have, marked on their first line
NOT_RUN = "# needs a Dask cluster"
#: the pages with such blocks, and how many each has
NOT_RUN_COUNTS = {"docs/guides/cluster.md": 2}
#: small game counts: the code, not the numbers (page -> (text, replacement)); Shear
#: Panic's variants at 40 games, two of each of a variants run's 20 blocks (its default
#: metrics' skill_gradient seats rollout: the page's costliest games)
SMALL = {
    "README.md": [("games=20_000", "games=400")],
    "docs/guides/designer.md": [("games=2_000", "games=40"), ("games=10_000", "games=400"),
                                ("budget=200_000", "budget=8_000, trials=3, finalists=2")],
}


def _pages() -> list[str]:
    pages = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in DOCS.rglob("*.md")
                                   if not p.is_relative_to(DOCS / "_build"))
    # the archive is the history of experiments, not a guide: its blocks are not run
    return [p for p in pages if p != "docs/performance-archive.md"]


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of a Markdown page, dedented (a block may sit in a list item)."""
    blocks = re.findall(r"^([ \t]*)```python\n(.*?)^\1```", text, re.M | re.S)
    return [textwrap.dedent(body) for _, body in blocks]


def test_every_page_with_python_blocks_is_run_or_said_not_to_be():
    with_blocks = {p for p in _pages() if python_blocks((ROOT / p).read_text())}
    assert with_blocks >= {"README.md", "docs/getting-started.md", "docs/guides/designer.md",
                           "docs/guides/writing-a-policy.md", "docs/guides/python-api.md"}
    for page, count in NOT_RUN_COUNTS.items():
        blocks = python_blocks((ROOT / page).read_text())
        assert sum(b.startswith(NOT_RUN) for b in blocks) == count, page
    for page in set(_pages()) - set(NOT_RUN_COUNTS):
        assert not any(b.startswith(NOT_RUN) for b in python_blocks((ROOT / page).read_text())), page


@pytest.mark.parametrize("page", [p for p in _pages() if p not in RUN_ELSEWHERE and any(
    not b.startswith(NOT_RUN) for b in python_blocks((ROOT / p).read_text()))])
def test_the_python_blocks_of_a_page_run(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)  # a block may write a file (tune's out_rules)
    text = (ROOT / page).read_text()
    for old, new in SMALL.get(page, []):
        assert old in text, (page, old)
        text = text.replace(old, new)
    blocks = [b for b in python_blocks(text) if not b.startswith(NOT_RUN)]
    assert blocks
    scope: dict = {}  # one scope per page: a later block may use an earlier one's names
    for block in blocks:
        exec(compile(block, page, "exec"), scope)
    plt.close("all")
    if page == "docs/guides/designer.md":
        assert "best" in scope["t"].tables and scope["t"].meta["winner"]
        assert {"variant", "metric", "diff"} <= set(scope["v"].tables["differences"].columns)


# ---------------------------------------------------------------- the build


def test_the_docs_build_with_warnings_as_errors(tmp_path):
    """The build command the README gives, in a copy of docs/ (the build writes its
    generated pages next to the sources): no warning, the gallery's examples run and
    draw, the version shows."""
    src = tmp_path / "docs"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns(
        "_build", "generated", "auto_examples", "sg_execution_times.rst", "__pycache__"))
    shutil.copy(ROOT / "CHANGELOG.md", tmp_path / "CHANGELOG.md")  # docs/changelog.md includes it
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = tmp_path / "html"
    proc = subprocess.run([*BUILD, str(src), str(out)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    assert proc.stderr.strip() == "", proc.stderr[-3000:]
    from sheepsim import __version__

    assert f"sheepsim {__version__}" in (out / "index.html").read_text()
    examples = sorted((DOCS / "examples").glob("plot_*.py"))
    assert len(examples) >= 8
    for example in examples:
        page = out / "auto_examples" / f"{example.stem}.html"
        assert page.exists(), page
        assert list((out / "_images").glob(f"sphx_glr_{example.stem}_*.png")), example.stem
    for name in ("api", "commands", "performance", "performance-archive", "rules",
                 "guides/writing-a-policy", "generated/sheepsim.games.race"):
        assert (out / f"{name}.html").exists(), name


# ---------------------------------------------------------------- the command reference


def _commands(parser, path=()):
    """(command words, its long options but --help) for every command the parser runs."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs or not path:
        yield path, {s for a in parser._actions for s in a.option_strings
                     if s.startswith("--")} - {"--help"}
    for action in subs:
        for name, sub in action.choices.items():
            yield from _commands(sub, (*path, name))


def _shipped_commands():
    """The commands of sheepsim and its shipped games (a game installed from its own
    package, such as examples/pig, has the shared commands the reference describes)."""
    import importlib

    from sheepsim.cli import build_parser
    from sheepsim.games import REGISTRY

    games = {importlib.import_module(module).GAME.command for module in REGISTRY}
    return {" ".join(path): opts for path, opts in _commands(build_parser())
            if not path or path[0] in games or len(path) == 1}


def _reference_rows() -> dict[str, set[str]]:
    text = (DOCS / "commands.md").read_text()
    table = text[text.index("## Options by command"):]
    rows = re.findall(r"^\| `sheepsim ?([^`]*)` \| (.*) \|$", table, re.M)
    assert len(rows) == len({c for c, _ in rows}), "a command listed twice"
    return {cmd: set(re.findall(r"`(--[a-z0-9-]+)`", opts)) for cmd, opts in rows}


def test_the_command_reference_lists_each_commands_options_both_ways():
    """docs/commands.md, "Options by command": every shipped command's --help options are
    in its row, and every option of a row is one that command takes."""
    rows = _reference_rows()
    commands = _shipped_commands()
    assert set(rows) == set(commands), (set(rows) ^ set(commands))
    for cmd, opts in commands.items():
        assert rows[cmd] == opts, (cmd, "missing:", opts - rows[cmd], "not an option:", rows[cmd] - opts)


def test_every_option_the_command_reference_names_exists():
    """Every --option docs/commands.md mentions, in its tables and prose too, is an
    option of some command."""
    every = set().union(*_shipped_commands().values()) | {"--help"}
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", (DOCS / "commands.md").read_text()))
    assert named - every == set()


# ---------------------------------------------------------------- README and version


def test_the_readme_is_short_and_links_to_pages_that_exist():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    links = re.findall(r"\]\(((?:docs/|CHANGELOG)[^)#]*)", text)
    guides = {"docs/getting-started.md", "docs/guides/player.md", "docs/guides/designer.md",
              "docs/guides/reports.md", "docs/guides/cluster.md", "docs/guides/writing-a-policy.md",
              "docs/guides/writing-a-game.md", "docs/rules.md", "docs/commands.md",
              "docs/performance.md", "docs/guides/python-api.md"}
    assert guides <= set(links)
    for link in links:
        assert (ROOT / link).exists(), link
    assert "python -m sphinx -W --keep-going -b html docs docs/_build/html" in text


def test_the_version_is_the_changelogs_latest():
    from sheepsim import __version__

    changelog = (ROOT / "CHANGELOG.md").read_text()
    first = re.search(r"^## (\S+) \((\d{4}-\d{2}-\d{2})\)$", changelog, re.M)
    assert first and first[1] == __version__
    assert "## Unreleased" not in changelog[:changelog.index(first[0])]
