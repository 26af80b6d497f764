"""Simulation drivers for the Sheep Race analyses: fixed blocks, sequential stopping.

Each ``estimate_*`` runs the kernels in blocks of a fixed size (``RACE_BLOCK`` races or
``GAME_BLOCK`` games), rebuilds the reported tables from the merged integer totals after
every block, records a convergence trace, and with ``precision`` stops at the first block
boundary where every reported 95% half-width is at most ``precision``. The block size is
fixed (not the chunk size or the thread count), so a command always stops at the same
count with the same totals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sheepsim import runner
from sheepsim.errors import SheepsimError
from sheepsim.games.race.analysis import (
    balance_tables,
    compare_table,
    final_lane_wins,
    game_tables,
    odds_table,
)
from sheepsim.games.race.rules import RaceRules, load_rules
from sheepsim.games.race.simulate import (
    GameResults,
    PolicySet,
    RaceCounts,
    check_players,
    game_chunk_fn,
    game_rows,
    odds_tables,
    race_job,
    resolve_policies,
)
from sheepsim.stats import max_probability_halfwidth

#: ``--precision`` checks the stopping rule only after every block of this many races or
#: games. The blocks are fixed numbers (not the chunk size, not the thread count), so the
#: same command always stops at the same count with the same totals.
RACE_BLOCK = 20_000
GAME_BLOCK = 2_000
DEFAULT_MAX_RACES = 10_000_000
DEFAULT_MAX_GAMES = 1_000_000


@dataclass
class Estimate:
    """What a driver returns besides its counts.

    ``tables`` name -> DataFrame built from the final totals; ``trace`` the convergence
    trace (one row per block and traced quantity: ``games``, ``quantity``, ``estimate``,
    ``lo``, ``hi``, ``halfwidth_max``); ``games`` simulated; ``stopped_by`` ``"games"``
    (a fixed ``--games``), ``"precision"`` or ``"max_games"``; ``halfwidth`` the largest
    95% half-width of the reported probabilities; ``precision``, ``max_games``, ``block``.
    """

    tables: dict
    trace: pd.DataFrame
    games: int
    stopped_by: str
    halfwidth: float
    precision: float | None
    max_games: int | None
    block: int

    def meta_fields(self) -> dict:
        return {"games": self.games, "stopped_by": self.stopped_by,
                "max_halfwidth": self.halfwidth, "precision": self.precision,
                "max_games": self.max_games, "block": self.block}


def run_sequential(run_chunk, build, trace_of, *, games=None, precision=None, max_games=None,
                   block: int, chunk_size=None, threads=None, progress=None, desc="",
                   halfwidth=max_probability_halfwidth) -> tuple[list, Estimate]:
    """Simulate in fixed blocks: exactly ``games``, or until ``halfwidth(tables) <=
    precision`` (or ``max_games``).

    ``run_chunk(start, count)`` returns integer arrays; ``build(totals, games)`` turns
    merged totals into ``{name: DataFrame}``; ``trace_of(tables)`` lists the quantities
    to trace as dicts with ``quantity``, ``estimate``, ``lo``, ``hi``. Returns
    ``(totals, Estimate)``.
    """
    if (games is None) == (precision is None):
        raise SheepsimError("give either a number of games or a precision, not both")
    state: dict = {}
    trace_rows: list[dict] = []

    def counted(start, count):
        return [*run_chunk(start, count), np.array([count], dtype=np.int64)]

    def check(totals):
        done = int(totals[-1][0])
        tables = build(totals[:-1], done)
        hw = halfwidth(tables)
        trace_rows.extend({"games": done, **row, "halfwidth_max": hw} for row in trace_of(tables))
        state.update(tables=tables, halfwidth=hw)
        # with a fixed --games the rule never fires and run_until runs to max_games
        return hw if precision is not None else math.inf

    limit = games if precision is None else (max_games or DEFAULT_MAX_GAMES)
    totals, done = runner.run_until(counted, check, 1.0 if precision is None else precision,
                                    block=block, max_games=limit, chunk_size=chunk_size,
                                    threads=threads, progress=progress, desc=desc)
    hw = state["halfwidth"]
    stopped = "games" if precision is None else ("precision" if hw <= precision else "max_games")
    est = Estimate(state["tables"], pd.DataFrame(trace_rows), done, stopped, hw, precision,
                   None if precision is None else limit, block)
    return totals[:-1], est


def _trace_column(df: pd.DataFrame, col: str, label_col: str, prefix: str) -> list[dict]:
    return [{"quantity": f"{col} {prefix}{label}", "estimate": est, "lo": lo, "hi": hi}
            for label, est, lo, hi in zip(df[label_col], df[col], df[f"{col}_lo"], df[f"{col}_hi"],
                                          strict=True)]


def estimate_races(rules=None, lanes=None, stage: str = "semifinal", policy: str = "greedy",
                   seed: int = 0, *, random_deal: bool = False, report=None, games=None,
                   precision=None, max_games=DEFAULT_MAX_RACES, block: int = RACE_BLOCK,
                   chunk_size=None, threads=None, progress=None) -> tuple[RaceCounts, Estimate]:
    """:func:`race_counts` in fixed blocks with optional sequential stopping.

    ``report(counts) -> {name: DataFrame}`` gives the reported tables whose probabilities
    ``precision`` bounds (default: ``{"lanes": odds_table(counts)}``); the trace follows
    each lane's ``p_first``. With ``games`` the counts equal ``race_counts(...)``'s.
    """
    job = race_job(rules, lanes, stage, policy, seed, random_deal=random_deal)
    report = report or (lambda c: {"lanes": odds_table(c)})
    totals, est = run_sequential(
        job.run_chunk, lambda t, done: report(job.counts(t, done)),
        lambda t: _trace_column(t["lanes"], "p_first", "lane", "lane "),
        games=games, precision=precision, max_games=max_games, block=block,
        chunk_size=chunk_size, threads=threads, progress=progress, desc=f"{stage} races")
    return job.counts(totals, est.games), est


def balance_job(rules=None, policy: str = "greedy", seed: int = 0, *, players: int = 4,
                bet_policy: str = "ev"):
    """``(semifinal RaceJob, run_chunk)`` for balance over random deals: game index ``g``
    gives one random-deal semifinal (Table 1, lanes, cards) and one whole game (Table 2
    from the final as seated). ``run_chunk`` returns the race job's three accumulators,
    final wins per lane and final wins per card."""
    semis = race_job(rules, None, "semifinal", policy, seed, random_deal=True)
    rules = semis.rules
    players = check_players(rules, players)
    pol = resolve_policies(policy, bet_policy, players)
    n_cards = len(rules.cards)

    def run_chunk(start, count):
        race_cards = game_rows(rules, pol, seed, start, count)[4]
        return [*semis.run_chunk(start, count), final_lane_wins(race_cards),
                np.bincount(race_cards[:, 2, 0], minlength=n_cards)]

    return semis, run_chunk


def estimate_balance(rules=None, policy: str = "greedy", seed: int = 0, *, players: int = 4,
                     bet_policy: str = "ev", games=None, precision=None, max_games=DEFAULT_MAX_GAMES,
                     block: int = GAME_BLOCK, chunk_size=None, threads=None,
                     progress=None) -> Estimate:
    """Balance over random deals: for each index, one semifinal with a random deal (Table 1,
    lanes and cards) and one whole game (Table 2 from the final as seated by the
    semifinals, final wins per card). ``players``/``bet_policy`` only matter to pace
    policies that look at bets (``partisan``). Tables: :func:`balance_tables`."""
    semis, run_chunk = balance_job(rules, policy, seed, players=players, bet_policy=bet_policy)

    def build(totals, done):
        return balance_tables(semis.counts(totals, done), totals[3], totals[4], done)

    odds_tables(semis.rules)  # the bet policies' odds table, before the progress bar starts
    _, est = run_sequential(
        run_chunk, build, lambda t: _trace_column(t["semifinal_lanes"], "p_first", "lane", "lane "),
        games=games, precision=precision, max_games=max_games, block=block,
        chunk_size=chunk_size, threads=threads, progress=progress, desc="balance")
    return est


def estimate_games(rules=None, players: int = 4, bet_policy="ev", pace_policy="greedy", seed: int = 0,
                   *, games=None, precision=None, max_games=DEFAULT_MAX_GAMES, block: int = GAME_BLOCK,
                   chunk_size=None, threads=None, progress=None) -> tuple[GameResults, Estimate]:
    """:func:`play_games` in fixed blocks with optional sequential stopping on every win
    rate in :func:`game_tables`; the trace follows each seat's win rate."""
    rules = load_rules(rules) if not isinstance(rules, RaceRules) else rules
    players = check_players(rules, players)
    pol = resolve_policies(pace_policy, bet_policy, players)

    def build(totals, done):
        return game_tables(GameResults(rules, pol, seed, done, *totals))

    odds_tables(rules)
    totals, est = run_sequential(
        game_chunk_fn(rules, pol, seed), build,
        lambda t: _trace_column(t["seats"], "win_rate", "seat", "seat "),
        games=games, precision=precision, max_games=max_games, block=block,
        chunk_size=chunk_size, threads=threads, progress=progress, desc="games")
    return GameResults(rules, pol, seed, est.games, *totals), est


def parse_policy_pair(text: str) -> tuple[str, str]:
    """``"BET,PACE"`` -> ``(bet, pace)`` (e.g. ``"ev,greedy"``)."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2 or not all(parts):
        raise SheepsimError(f"a policy pair is BET,PACE (e.g. ev,greedy), got {text!r}")
    return parts[0], parts[1]


def compare_chunk_fn(rules: RaceRules, pol_a: PolicySet, pol_b: PolicySet, seed: int, seat: int):
    """``run_chunk(start, count)`` playing games ``start..`` twice with the same seed (the
    same dice: common random numbers), once per configuration, and returning the paired
    integer sums :func:`compare_table` reads. ``seat`` 0-based focal seat."""

    def run_chunk(start, count):
        score_a, winner_a = game_rows(rules, pol_a, seed, start, count)[:2]
        score_b, winner_b = game_rows(rules, pol_b, seed, start, count)[:2]
        win_a, win_b = winner_a == seat, winner_b == seat
        sa, sb = score_a[:, seat], score_b[:, seat]
        d = sa - sb
        return [np.array([win_a.sum(), win_b.sum(), (win_a & ~win_b).sum(), (win_b & ~win_a).sum(),
                          sa.sum(), (sa * sa).sum(), sb.sum(), (sb * sb).sum(), d.sum(), (d * d).sum()],
                         dtype=np.int64)]

    return run_chunk


def _compare_halfwidth(tables) -> float:
    row = tables["comparison"].iloc[0]  # the win-rate row
    widths = [row[f"{k}_hi"] - row[f"{k}_lo"] for k in ("a", "b", "diff")]
    return float(max(widths)) / 2


def estimate_compare(rules=None, players: int = 4, a: str = "ev,greedy", b: str = "random,greedy",
                     field: str = "ev,greedy", seat: int = 1, seed: int = 0, *, games=None,
                     precision=None, max_games=DEFAULT_MAX_GAMES, block: int = GAME_BLOCK,
                     chunk_size=None, threads=None, progress=None) -> Estimate:
    """Head-to-head of policies ``a`` and ``b`` ("BET,PACE") for seat ``seat`` (1-based)
    while the other seats play ``field``, on common random numbers. ``precision`` bounds
    the half-widths of both win rates and of their paired difference. Table
    ``comparison`` (:func:`compare_table`); the trace follows both win rates and the
    difference."""
    rules = load_rules(rules) if not isinstance(rules, RaceRules) else rules
    players = check_players(rules, players)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= players:
        raise SheepsimError(f"seat must be between 1 and {players}, got {seat!r}")
    pair_a, pair_b, pair_f = parse_policy_pair(a), parse_policy_pair(b), parse_policy_pair(field)
    configs = []
    for pair in (pair_a, pair_b):
        bets, paces = [pair_f[0]] * players, [pair_f[1]] * players
        bets[seat - 1], paces[seat - 1] = pair
        configs.append(resolve_policies(paces, bets, players))
    names = (",".join(pair_a), ",".join(pair_b), ",".join(pair_f))

    def build(totals, done):
        return {"comparison": compare_table(totals[0], done, *names, seat)}

    def trace_of(tables):
        df = tables["comparison"].iloc[0]
        return [{"quantity": f"win rate {label}", "estimate": df[k], "lo": df[f"{k}_lo"], "hi": df[f"{k}_hi"]}
                for k, label in (("a", "a"), ("b", "b"), ("diff", "a - b"))]

    odds_tables(rules)
    _, est = run_sequential(compare_chunk_fn(rules, *configs, seed, seat - 1), build, trace_of,
                            games=games, precision=precision, max_games=max_games, block=block,
                            chunk_size=chunk_size, threads=threads, progress=progress,
                            desc="head-to-head", halfwidth=_compare_halfwidth)
    return est
