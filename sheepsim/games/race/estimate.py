"""Python entry points for the Sheep Race analyses: a job (:mod:`.jobs`) run by the one
driver (:func:`sheepsim.driver.run`) for a fixed number of games or to a precision.

Each returns the driver's :class:`~sheepsim.driver.Result` (``tables``, ``trace``,
``games``, ``stopped_by``, ``halfwidth``, ``meta()``), plus the merged counts where a
caller needs them. ``backend``/``threads``/``chunk_size`` never change a result.
"""

from __future__ import annotations

from sheepsim import driver
from sheepsim.games.race.analysis import odds_table
from sheepsim.games.race.jobs import (
    GAME_BLOCK,
    RACE_BLOCK,
    BalanceJob,
    GamesJob,
    RacesJob,
    head_to_head,
    parse_policy_pair,
)

__all__ = ["GAME_BLOCK", "RACE_BLOCK", "estimate_balance", "estimate_compare", "estimate_games",
           "estimate_races", "odds_table", "parse_policy_pair"]


def _run(job, desc, *, games, precision, max_games, chunk_size, threads, progress, backend=None,
         block=None):
    if block is not None:
        job.block = driver.check_games(block, "block")
    return driver.run(job, seed=job.seed, games=games, precision=precision, max_games=max_games,
                      chunk_games=chunk_size, threads=threads, progress=progress, desc=desc,
                      backend=backend)


def estimate_races(rules=None, lanes=None, stage: str = "semifinal", policy: str = "greedy",
                   seed: int = 0, *, random_deal: bool = False, report: str = "odds", taken=(),
                   games=None, precision=None, max_games=None, chunk_size=None, threads=None,
                   progress=None, backend=None, block=None):
    """Single races (:class:`~.jobs.RacesJob`); ``report`` ``"odds"`` or ``"ev"``.
    Returns ``(RaceCounts, Result)``."""
    job = RacesJob(rules, lanes, stage, policy, seed, random_deal=random_deal, report=report,
                   taken=taken)
    res = _run(job, f"{job.stage} races", games=games, precision=precision, max_games=max_games,
               chunk_size=chunk_size, threads=threads, progress=progress, backend=backend,
               block=block)
    return job.race_counts(res.counts, res.games), res


def estimate_balance(rules=None, policy: str = "greedy", seed: int = 0, *, players: int = 4,
                     bet_policy: str = "ev-approx", games=None, precision=None, max_games=None,
                     chunk_size=None, threads=None, progress=None, backend=None, block=None):
    """Balance over random deals (:class:`~.jobs.BalanceJob`); tables from
    :func:`~.analysis.balance_tables`."""
    job = BalanceJob(rules, policy, seed, players, bet_policy)
    return _run(job, "balance", games=games, precision=precision, max_games=max_games,
                chunk_size=chunk_size, threads=threads, progress=progress, backend=backend,
                block=block)


def estimate_games(rules=None, players: int = 4, bet_policy="ev-approx", pace_policy="greedy", seed: int = 0,
                   *, games=None, precision=None, max_games=None, chunk_size=None, threads=None,
                   progress=None, backend=None, block=None):
    """Whole games (:class:`~.jobs.GamesJob`). Returns ``(GameResults, Result)``."""
    job = GamesJob(rules, players, bet_policy, pace_policy, seed)
    res = _run(job, "games", games=games, precision=precision, max_games=max_games,
               chunk_size=chunk_size, threads=threads, progress=progress, backend=backend,
               block=block)
    return job.results(res.counts, res.games), res


def estimate_compare(rules=None, players: int = 4, a: str = "ev-approx,greedy",
                     b: str = "random,greedy", field: str = "ev-approx,greedy", seat: int = 1,
                     seed: int = 0, *, games=None,
                     precision=None, max_games=None, chunk_size=None, threads=None,
                     progress=None, backend=None, block=None):
    """Head-to-head of ``a`` and ``b`` ("BET,PACE") at ``seat`` (1-based) on common
    random numbers (:func:`~.jobs.head_to_head`); table ``comparison``."""
    job = head_to_head(rules, players, a, b, field, seat, seed)
    return _run(job, "head-to-head", games=games, precision=precision, max_games=max_games,
                chunk_size=chunk_size, threads=threads, progress=progress, backend=backend,
                block=block)
