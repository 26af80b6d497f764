"""Shear Panic (Fragor Games, 2005): flock engine, whole games in numba, policies, CLI.

Importing this package compiles nothing; the names below load their module on first
use (``help()`` on this package loads them all). Rules data (menu, tracks, starting
flock, dice) live in ``standard.toml``.

Rules
    ``load_rules(path=None) -> PanicRules`` (``PanicRules``: menu, tracks, flock, dice).
Simulating
    ``play_games(rules, players, policies, games, seed)`` -> a result whose ``.tables``
    are by_seat, by_policy, points_by_field, sheep_shorn, turns, game_end, tiles, ...;
    ``trace_game(rules, players, policies, seed)`` one game turn by turn (``.lines``);
    ``balance_tables(rules, policies, games, seed, players)`` every player count
    plus ``tile_usage``; ``compare(rules, players, a, b, ...)`` two policies for one
    seat on the same dice.
Tables and charts
    ``tile_usage_table(tiles, games)``; :mod:`sheepsim.games.panic.plots`:
    ``points_by_field_chart``, ``tile_usage_chart``; :mod:`sheepsim.plots`:
    ``win_rate_chart`` (each on a given ``ax``).
The flock model (pure Python, for experiments)
    ``Flock``, ``ram_scores``, ``shear``, ``together_scores``, ``black_scores``.
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
    "balance_tables": "sheepsim.games.panic.balance",
    "compare": "sheepsim.games.panic.balance",
    "tile_usage_table": "sheepsim.games.panic.balance",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
