"""Aw, Sheep! (Packer symposium 2017): a hidden-hand card game for 3-6 players.

The round is a state machine (:mod:`.machine`) played by the shared harness
(:mod:`sheepsim.harness`), with ``random``, ``greedy`` and ``counter``
policies (:mod:`.policies`). Importing this package compiles nothing; the names below
load their module on first use. Rules data live in ``standard.toml``. Tables:
``play_tables(count_frames(...))`` (or ``PlayJob`` through :func:`sheepsim.driver.run`),
``card_value_tables(rules, players, fields, games, seed)`` for card value and card use,
``balance_tables`` for 3-6 players with and without the draft.
"""

from sheepsim.jit import lazy_exports

_LAZY = {
    "AwSheepRules": "sheepsim.games.awsheep.rules",
    "load_rules": "sheepsim.games.awsheep.rules",
    "round_counts": "sheepsim.games.awsheep.jobs",
    "count_frames": "sheepsim.games.awsheep.simulate",
    "play_tables": "sheepsim.games.awsheep.analysis",
    "balance_tables": "sheepsim.games.awsheep.commands",
    "card_value_tables": "sheepsim.games.awsheep.cli",
    "CardValueJob": "sheepsim.games.awsheep.jobs",
    "FieldsJob": "sheepsim.games.awsheep.jobs",
    "PlayJob": "sheepsim.games.awsheep.jobs",
    "trace_round": "sheepsim.games.awsheep.trace",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
