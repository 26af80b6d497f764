"""Odds of a race from any position: exact when the pace policy allows, else simulated.

:func:`position_odds` returns an :class:`~sheepsim.games.race.exact.ExactOdds` (method
``exact``) or a :class:`~sheepsim.games.race.simulate.RaceCounts` (method ``monte
carlo``); :func:`odds_tables` turns either into the tables ``race odds``/``race ev``
print. Exact tables have the Monte Carlo tables' columns with every interval collapsed
to its point (``*_lo == *_hi ==`` the value, ``*_se == 0``) and no ``games``/``seed``.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np

from sheepsim import driver
from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Job
from sheepsim.games.race import layout as L
from sheepsim.games.race.analysis import convergence_rows, race_tables
from sheepsim.games.race.exact.position import as_position, position_arrays
from sheepsim.games.race.exact.solver import ExactOdds, exact_reason, solve_position
from sheepsim.games.race.rules import RaceRules
from sheepsim.games.race.simulate import RaceCounts, _rules, resolve_policies


def board_from(position, rules, *, stage=None, lanes=None):
    """``(board, race, lane_cards, stage)`` of a validated position (any accepted form)."""
    pos = as_position(position, stage=stage, lanes=lanes)
    board, race, lane_cards = position_arrays(pos, rules)
    return board, race, lane_cards, pos.stage


def exact_from_position(position, rules=None, policy: str = "greedy", *, stage=None,
                        lanes=None) -> ExactOdds:
    """Exact odds from ``position`` (text, file, dict, DataFrame or :class:`Position`)."""
    rules = _rules(rules)
    board, race, lane_cards, stage = board_from(position, rules, stage=stage, lanes=lanes)
    t0 = time.perf_counter()
    joint, winner, p_place, binds, states = solve_position(board, race, rules, policy)
    return ExactOdds(rules, stage, policy.strip(), lane_cards, joint, winner, p_place, binds,
                     states, time.perf_counter() - t0)


# ------------------------------------------------------------------ Monte Carlo
@functools.lru_cache(maxsize=16)
def continuation_kernel(user_pace: tuple = (), name: str = "races_from", pace_ids=None):
    """Kernel ``name`` of ``position_kernel`` for the built-in policies, or with user pace
    policies (ids past the built-ins) its entry that takes them as function values
    (``kernels.plugged``: compiled once whatever the plug-ins, each plug-in compiled
    once and cached on disk). ``pace_ids`` (a tuple, as :func:`continuation_args` gives
    them; None: ``greedy``): a built-in policy other than ``greedy`` gets the kernel
    rebuilt for it alone (``kernels.one_pace``), which compiles no other policy."""
    from sheepsim.games.race import kernels
    from sheepsim.games.race.exact import position_kernel

    kernel = getattr(position_kernel, name)
    if not user_pace:
        return kernel if pace_ids is None else getattr(kernels.one_pace(pace_ids[0]), name)
    return functools.partial(kernels.plugged(tuple(user_pace)).call, name)


def continuation_args(rules: RaceRules, stage: str, policy: str, seen=None):
    """``(policies, dice, pace_ids, seen)`` for the ``position_kernel`` kernels: the
    resolved ``PolicySet``, the stage's ``(faces, nfaces)``, the pace ids as the kernels
    take them (None for ``greedy``) and ``seen`` ``(2, 6)`` int64 (default no bets)."""
    from sheepsim.games.race.kernels import kernel_pace_ids

    pol = resolve_policies([policy])
    seen = np.zeros((2, 6), np.int64) if seen is None else np.asarray(seen, np.int64)
    return pol, rules.dice_arrays(stage), kernel_pace_ids(pol.pace_ids), seen


def _ids(pace_ids):
    """``pace_ids`` as :func:`continuation_kernel`'s key: a tuple of ints, or None."""
    return None if pace_ids is None else tuple(int(p) for p in pace_ids)


def continuation_chunk(board, race, rules: RaceRules, policy: str, seed: int, seen=None):
    """``run_chunk(start, count) -> [joint (216,), place (6, 3), turns (1,)]`` continuing
    the race on ``board``/``race`` with ``policy`` (``seen`` ``(2, 6)``: the bets the
    policy sees, default none). Integer counts, mergeable by addition."""
    stage = "final" if race[L.STAGE] == L.FINAL else "semifinal"
    pol, dice, pace_ids, seen = continuation_args(rules, stage, policy, seen)
    kernel = continuation_kernel(pol.user_pace, "races_from", _ids(pace_ids))
    board, race = board.copy(), race.copy()

    def run_chunk(start, count):
        out = (np.zeros(216, np.int64), np.zeros((6, 3), np.int64), np.zeros(1, np.int64))
        try:
            kernel(board, race, seed, start, count, dice, pace_ids, seen, out)
        except ValueError as exc:
            raise SheepsimError(str(exc)) from None
        return list(out)

    return run_chunk


def counts_from(rules, stage, policy, seed, games, lane_cards, totals):
    """:class:`RaceCounts` from the continuation accumulators."""
    joint, place, turns = totals[:3]
    card_place = np.zeros((len(rules.cards), 6, 3), np.int64)
    card_place[lane_cards, np.arange(6)] = place
    return RaceCounts(rules, stage, policy, seed, games, lane_cards, joint, card_place, int(turns[0]))


@dataclass
class PositionJob(Job):
    """Races continued from a position (a :class:`~sheepsim.game.Job` for the driver):
    ``report`` ``"odds"`` (table ``lanes``) or ``"ev"`` (``lanes``, ``sets``,
    ``open_bet`` given ``taken``, 1-based lanes opened by others)."""

    rules: RaceRules | str | None = None
    position: object = None
    policy: str = "greedy"
    seed: int = 0
    report: str = "odds"
    taken: tuple = ()
    stage: str | None = None
    lanes: object = None
    game: str = "sheep-race"
    chunk_games: int = 1 << 15
    block: int = 20_000

    def __post_init__(self):
        self.rules = _rules(self.rules)
        pos = as_position(self.position, stage=self.stage, lanes=self.lanes)
        self.position, self.stage = pos.text(), pos.stage
        self._arrays = position_arrays(pos, self.rules)
        self._fns = {}
        self._fn(self.seed)  # validates the policy now

    def _fn(self, seed):
        if not hasattr(self, "_arrays"):  # unpickled in another process
            self._arrays = position_arrays(as_position(self.position), self.rules)
            self._fns = {}
        if seed not in self._fns:
            board, race, _ = self._arrays
            self._fns[seed] = continuation_chunk(board, race, self.rules, self.policy, seed)
        return self._fns[seed]

    def prepare(self) -> None:
        self._fn(self.seed)(0, 1)  # compiles (or loads) the kernel now

    def chunk(self, first_game, n_games) -> Counts:
        joint, place, turns = self._fn(self.seed)(first_game, n_games)
        return {"joint": joint, "place": place, "turns": turns}

    def race_counts(self, counts: Counts, games: int):
        totals = [counts["joint"], counts["place"], counts["turns"]]
        return counts_from(self.rules, self.stage, self.policy.strip(), self.seed, games,
                           self._arrays[2], totals)

    def tables(self, counts, games):
        return race_tables(self.race_counts(counts, games), self.report, self.taken)

    def convergence(self, tables):
        return convergence_rows(tables["lanes"], "p_first", "lane", "lane ")

    def meta(self) -> dict:
        out = {"rules": self.rules.source, "rules_sha256": self.rules.sha256, "stage": self.stage,
               "policy": self.policy.strip(), "position": self.position,
               "lanes": [self.rules.cards[i].name for i in self._arrays[2]]}
        if self.report == "ev":
            out["taken"] = list(self.taken)
        return out


def estimate_from_position(position, rules=None, policy: str = "greedy", seed: int = 0, *,
                           report: str = "odds", taken=(), stage=None, lanes=None, games=None,
                           precision=None, max_games=None, threads=None, progress=None,
                           backend=None):
    """Simulate from ``position`` with the driver (exactly ``games`` races, or blocks of
    20,000 until ``precision``). Returns ``(RaceCounts, driver.Result)``."""
    job = PositionJob(rules, position, policy, driver.check_seed(seed), report, tuple(taken),
                      stage, lanes)
    res = driver.run(job, games=games, precision=precision, max_games=max_games,
                     threads=threads, progress=progress, desc=f"{job.stage} races",
                     backend=backend)
    return job.race_counts(res.counts, res.games), res


def mc_from_position(position, rules=None, policy: str = "greedy", games: int = 200_000,
                     seed: int = 0, *, stage=None, lanes=None, progress=False):
    """Simulated odds from ``position``: a :class:`RaceCounts`."""
    return estimate_from_position(position, rules, policy, seed, stage=stage, lanes=lanes,
                                  games=driver.check_games(games), progress=progress)[0]


def position_odds(position, rules=None, policy: str = "greedy", *, method: str = "auto",
                  games: int = 200_000, seed: int = 0, stage=None, lanes=None):
    """Odds from ``position``: exact if ``method`` is ``exact`` or ``auto`` and the policy
    allows it, else Monte Carlo (``games`` races, ``seed``)."""
    if method not in ("auto", "exact", "mc"):
        raise SheepsimError(f"method must be auto, exact or mc, got {method!r}")
    reason = exact_reason(policy)
    if method == "exact" and reason:
        raise SheepsimError(f"no exact solution: {reason}")
    if method != "mc" and reason is None:
        return exact_from_position(position, rules, policy, stage=stage, lanes=lanes)
    return mc_from_position(position, rules, policy, games, seed, stage=stage, lanes=lanes)


# ------------------------------------------------------------------ tables
def as_counts(res: ExactOdds):
    """The exact distribution dressed as :class:`RaceCounts` so the Monte Carlo table
    functions compute the same columns: probabilities times ``2**50`` rounded to
    integers (so every table value is exact to about 1e-15, far below what is printed)."""
    scale = float(2 ** 50)
    if res.stage == "semifinal":
        joint = np.rint(res.joint * scale).astype(np.int64)
        cube = joint.reshape(6, 6, 6)
        place = np.stack([cube.sum(axis=(1, 2)), cube.sum(axis=(0, 2)), cube.sum(axis=(0, 1))], axis=1)
    else:
        joint = np.zeros(216, np.int64)
        place = np.zeros((6, 3), np.int64)
        place[:, 0] = np.rint(res.winner * scale).astype(np.int64)
    card_place = np.zeros((len(res.rules.cards), 6, 3), np.int64)
    card_place[res.lane_cards, np.arange(6)] = place
    return RaceCounts(res.rules, res.stage, res.policy, 0, int(place[:, 0].sum()),
                      res.lane_cards, joint, card_place, 0)


def collapse(df):
    """Exact tables: intervals collapse to their point, standard errors are 0."""
    df = df.drop(columns=[c for c in ("games", "seed") if c in df.columns])
    points = {"gap": "gap_to_best"}
    for col in df.columns:
        for suffix in ("_lo", "_hi"):
            if col.endswith(suffix):
                base = col[: -len(suffix)]
                df[col] = df[points.get(base, base)]
        if col.endswith("_se"):
            df[col] = 0.0
    return df


def exact_tables(res: ExactOdds, builders: dict) -> dict:
    """``{name: builder(counts)}`` over the exact distribution, collapsed."""
    counts = as_counts(res)
    with np.errstate(all="ignore"):
        return {name: collapse(fn(counts)) for name, fn in builders.items()}

