"""Python entry points: :func:`play_games` (many games -> tables) and :func:`trace_game`
(one game -> readable lines). Input is validated here; the kernels trust it. The tables
come from :mod:`.analysis`, the job from :mod:`.jobs`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sheepsim import driver, output
from sheepsim.errors import SheepsimError
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.analysis import PanicResult
from sheepsim.games.panic.jobs import PlayJob, _playouts, policy_list, raise_failure
from sheepsim.games.panic.rules import PanicRules, load_rules
from sheepsim.games.panic.trace import render_log
from sheepsim.harness import layout as H


def _rules(rules) -> PanicRules:
    if isinstance(rules, PanicRules):
        return rules
    return load_rules(rules)


def play_games(rules=None, players: int = 4, policies=("random",), games: int | None = 10_000,
               seed: int = 0, threads: int | None = None, chunk_size: int | None = None,
               progress: bool | None = None, playouts: int = 4, backend=None,
               precision: float | None = None, max_games: int | None = None) -> PanicResult:
    """Simulate ``games`` games keyed by ``(seed, game index)`` (or, with ``precision``,
    blocks of games until every win rate's 95% half-width is at most that, up to
    ``max_games``).

    ``rules``: a :class:`PanicRules`, a TOML path or None (standard); ``policies``: one
    for every seat or one per seat, each ``random``, ``greedy``, ``rollout``,
    ``package.module:function`` or an ``@numba.njit`` function (signature in
    :mod:`.policies`); a comma-separated string works too; ``playouts``: rollout playouts
    per candidate. The totals are identical for any ``threads``, ``chunk_size`` and
    ``backend``.
    """
    job = PlayJob(rules, players, policies, seed, playouts)
    res = driver.run(job, games=None if precision is not None else games, precision=precision,
                     max_games=max_games, chunk_games=chunk_size, threads=threads,
                     progress=progress, desc="shear panic", backend=backend)
    return job.result(res.counts, res.games)


# ----------------------------------------------------------------------- trace
@dataclass
class Trace:
    """A traced game: its text ``lines``, the ``winner`` (0-based seat), the ``scores``,
    the event ``log`` and final ``state`` vectors, and ``decisions``
    (:func:`decisions_table`)."""

    lines: list[str]
    winner: int
    scores: list[int]
    log: np.ndarray
    state: np.ndarray
    decisions: pd.DataFrame


def decisions_table(rows: np.ndarray) -> pd.DataFrame:
    """The decisions a policy was asked (``rows`` the kernels' decision log,
    ``layout.D_*``; one stream per seat, phase 0): :func:`sheepsim.output.decisions_table`."""
    return output.decisions_table(rows, (L.D_SEAT, L.D_KIND, L.D_N, L.D_CHOICE), L.KIND_NAMES)


def trace_game(rules=None, players: int = 4, policies=("random",), seed: int = 0,
               game: int = 0, playouts: int = 4) -> Trace:
    """Play game ``game`` of ``seed`` and describe every step in text."""
    from sheepsim.games.panic.policies import policy_name, resolve_policies

    rules = _rules(rules)
    players = rules.check_players(players)
    chosen = policy_list(policies, players)
    seed = driver.check_seed(seed)
    if isinstance(game, bool) or not isinstance(game, int) or game < 0:
        raise SheepsimError(f"game must be a whole number >= 0, got {game!r}")
    playouts = _playouts(playouts)
    ids, users = resolve_policies(chosen)
    names = [policy_name(p) for p in chosen]
    R = rules.kernel_array(players)
    log, decisions, st, win, failed = _harness_trace(R, players, ids, users, seed, game,
                                                     playouts, names)
    if failed is not None:
        raise_failure(failed, names)
    lines = render_log(log, rules, players, names, st, win)
    return Trace(lines, win, [int(st[L.ST_SCORE + s]) for s in range(players)],
                 log.copy(), st, decisions_table(decisions))


def _harness_trace(R, players, ids, users, seed, game, playouts, names):
    """The game on the harness: the machine's stretches (built-in seats) record the
    event log and the decision log in a trace's scratch and move them to the harness's
    event rows (slot ``own_events``), a plug-in seat's cut turn its events and the
    decisions it was asked (slot ``events``). ``(log, decisions, final state, winner,
    failure or None)``: a failure as :func:`.jobs.raise_failure` takes it."""
    from sheepsim.games.panic.policies.decide import FIRST_USER_ID
    from sheepsim.games.panic.scratch import new_scratch
    from sheepsim.harness import machine as M
    from sheepsim.harness.jobs import run_games

    m = M.load("sheepsim.games.panic.machine")
    pids = np.array(ids, dtype=np.int64)
    w = new_scratch(L.MAX_LOG, playouts)
    w.ctx[L.CTX_LOG_ON] = 1
    kernel = m.kernel(users, FIRST_USER_ID, pids, trace=True)
    try:
        _, fail, winners, _, _, rows, final = run_games(
            m, kernel, R, players, pids, False, seed, game, 1, outcomes=True,
            log_rows=L.MAX_LOG, events=2 * L.MAX_LOG, counts=False, scratch=w)
    except Exception as exc:  # e.g. a plug-in indexing outside its arrays: one line
        raise driver.kernel_call_error(exc, seed, game, names) from None
    if fail[H.F_CODE]:
        return None, None, None, -1, tuple(int(fail[k]) for k in (
            H.F_CODE, H.F_GAME, H.F_SEAT, H.F_CHOICE, H.F_N, H.F_KIND))
    asked = rows[:, 0] == L.EV_DECISION
    return (rows[~asked][:L.MAX_LOG], rows[asked, 1:1 + L.DECISION_WIDTH][:L.MAX_LOG],
            final[:L.ST_LEN], int(winners[0]), None)
