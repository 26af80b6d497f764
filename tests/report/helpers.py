"""Helpers for the report tests: tiny configs, running reports, reading folders back."""

from __future__ import annotations

import hashlib
from pathlib import Path

#: A small config touching every study type; tiny game counts keep each run ~seconds.
SMALL = """
title = "test report"

[[study]]
type = "race-odds"
name = "semi"
lanes = ["Requeijao", "Pecorino", "Feta", "Manchego", "Roquefort", "Stilton"]
taken = [6]
seed = 3
games = 6000

[[study]]
type = "race-fairness"
name = "fairness"
seed = 5
precision = 0.2
max_games = 5000
block = 1000

[[study]]
type = "race-balance"
name = "balance"
players = 3
bet_policies = ["ev-approx", "random", "favourite"]
seed = 7
games = 600

[[study]]
type = "race-head-to-head"
name = "h2h"
players = 3
a = "ev-approx,greedy"
b = "random,greedy"
seat = 2
seed = 8
games = 500

[[study]]
type = "panic-balance"
name = "panic"
players = 3
policies = "random"
seed = 9
games = 300

[[study]]
type = "panic-head-to-head"
name = "panic-h2h"
players = 4
a = "greedy"
b = "random"
field = "random"
seat = 3
seed = 10
games = 200
"""


def write_config(folder: Path, text: str = SMALL, name: str = "report.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (hidden ones too) -> SHA-256 of its bytes."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def csvs(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.csv"))}


def race_rules_text() -> str:
    """The shipped Sheep Race rules file, to derive variants from."""
    from importlib import resources

    return resources.files("sheepsim.games.race").joinpath("standard.toml").read_text()
