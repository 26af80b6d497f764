"""Aw, Sheep! (Packer symposium 2017): a hidden-hand card game for 3-6 players.

Whole rounds run in numba (:mod:`.engine`), with ``random``, ``greedy`` and ``counter``
policies (:mod:`.policies`). Importing this package compiles nothing; the names below
load their module on first use. Rules data live in ``standard.toml``.
"""

from sheepsim.jit import lazy_exports

_LAZY = {
    "AwSheepRules": "sheepsim.games.awsheep.rules",
    "load_rules": "sheepsim.games.awsheep.rules",
    "round_counts": "sheepsim.games.awsheep.simulate",
    "trace_round": "sheepsim.games.awsheep.trace",
}

__all__ = sorted(_LAZY)


__getattr__ = lazy_exports(__name__, _LAZY)


def __dir__():  # so help() and tab completion list the lazy names
    return sorted(set(globals()) | set(_LAZY))
