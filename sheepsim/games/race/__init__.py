"""The Sheep Race (Ghenos Games, 2013): rules, numba engine, policies, analysis, CLI.

Importing this package compiles nothing; the names below load their module on first
use. Rules data (board, cards, supply, dice, payoffs) live in ``standard.toml``.
"""

from sheepsim.jit import lazy_exports

_LAZY = {
    "load_rules": "sheepsim.games.race.rules",
    "RaceRules": "sheepsim.games.race.rules",
    "race_counts": "sheepsim.games.race.simulate",
    "play_games": "sheepsim.games.race.simulate",
    "odds_table": "sheepsim.games.race.analysis",
}

__all__ = sorted(_LAZY)


__getattr__ = lazy_exports(__name__, _LAZY)
