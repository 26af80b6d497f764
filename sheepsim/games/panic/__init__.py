"""Shear Panic (Fragor Games, 2005): flock engine, whole games in numba, policies, CLI.

Importing this package compiles nothing; the names below load their module on first
use. Rules data (menu, tracks, starting flock, dice) live in ``standard.toml``.
"""

from sheepsim.jit import lazy_exports

_LAZY = {
    "Flock": "sheepsim.games.panic.flock",
    "ram_scores": "sheepsim.games.panic.flock",
    "shear": "sheepsim.games.panic.flock",
    "together_scores": "sheepsim.games.panic.flock",
    "black_scores": "sheepsim.games.panic.flock",
    "load_rules": "sheepsim.games.panic.rules",
    "PanicRules": "sheepsim.games.panic.rules",
    "play_games": "sheepsim.games.panic.simulate",
    "trace_game": "sheepsim.games.panic.simulate",
}

__all__ = sorted(_LAZY)


__getattr__ = lazy_exports(__name__, _LAZY)
