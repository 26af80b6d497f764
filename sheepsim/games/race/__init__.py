"""The Sheep Race (Ghenos Games, 2013): rules, numba engine, policies, analysis, CLI.

Importing this package compiles nothing; the names below load their module on first
use (``help()`` on this package loads them all). Rules data (board, cards, supply,
dice, payoffs) live in ``standard.toml``.

Rules
    ``load_rules(path=None) -> RaceRules``: a rules TOML file, or the shipped standard
    (``RaceRules``: cards, board, dice, payoffs as arrays).
Simulating
    ``race_counts(rules, lanes, stage, policy, games, seed)`` single races -> counts;
    ``play_games(rules, players, bet_policy, pace_policy, games, seed)`` whole games;
    ``estimate_races`` / ``estimate_balance`` / ``estimate_games`` /
    ``estimate_compare``: the same for a number of games *or* a ``precision`` target,
    returning the driver's result (``.tables``, ``.trace``, ``.meta()``); all in
    :mod:`~sheepsim.games.race.jobs`, the jobs they run.
Exact odds (:mod:`sheepsim.games.race.exact`)
    ``exact_odds(rules, lanes, stage, policy)`` from the starting line;
    ``position_odds(position, ...)`` from a race in progress (exact when the pace
    policy allows, else simulated); ``own_state``: the decorator that lets the exact
    solver follow a user pace policy.
Advice at the table
    ``final_bets(scores, ...)`` the final's pairs of bets by the chance of winning the
    game given the scores (``race ev --scores``; :mod:`~sheepsim.games.race.standings`);
    :func:`sheepsim.games.race.advise.advise` every pace option's expected points and,
    given ``scores=`` in the final, the chance of winning the game.
Tables (pandas DataFrames; column names are public API)
    ``odds_table(counts)`` P(1st/2nd/3rd) per lane; ``lane_ev_table(counts)`` EV of one
    bet and fair payoffs; ``bet_sets_table(counts, taken)`` every set of bets ranked by
    EV (``.iloc[0]`` is the best); ``open_bet_table(counts, taken)``;
    ``fair_payoff_table``, ``card_strength_table``, ``game_tables(results)``.
Charts (draw on a given matplotlib ``ax``, or make a figure)
    :mod:`sheepsim.games.race.plots`: ``lane_ev_chart``, ``lane_place_heatmap``,
    ``bet_sets_chart``, ``fair_payoff_chart``, ``card_strength_chart``; :mod:`sheepsim.plots`:
    ``win_rate_chart`` (every game's).
"""

from sheepsim.jit import lazy_exports

_LAZY = {
    "load_rules": "sheepsim.games.race.rules",
    "RaceRules": "sheepsim.games.race.rules",
    "race_counts": "sheepsim.games.race.jobs",
    "play_games": "sheepsim.games.race.jobs",
    "estimate_races": "sheepsim.games.race.jobs",
    "estimate_balance": "sheepsim.games.race.jobs",
    "estimate_games": "sheepsim.games.race.jobs",
    "estimate_compare": "sheepsim.games.race.jobs",
    "exact_odds": "sheepsim.games.race.exact.solver",
    "position_odds": "sheepsim.games.race.exact.from_position",
    "own_state": "sheepsim.games.race.exact.lanegraph",
    "final_bets": "sheepsim.games.race.standings",
    "odds_table": "sheepsim.games.race.analysis",
    "lane_ev_table": "sheepsim.games.race.analysis",
    "bet_sets_table": "sheepsim.games.race.analysis",
    "open_bet_table": "sheepsim.games.race.analysis",
    "fair_payoff_table": "sheepsim.games.race.analysis",
    "card_strength_table": "sheepsim.games.race.analysis",
    "game_tables": "sheepsim.games.race.analysis",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
