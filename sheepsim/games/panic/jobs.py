"""Shear Panic's job for the driver: whole games with one policy per seat.

:class:`PlayJob` is plain data (rules, player count, policy names, playouts); it builds
its kernels lazily in the process that runs it (a Dask worker too). Its counts are the
game kernel's accumulator vector (``layout.A_*``); tables come from
:func:`.analysis.build_tables`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sheepsim import plugins
from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Job
from sheepsim.games.panic.layout import KIND_NAMES
from sheepsim.games.panic.rules import PanicRules, load_rules
from sheepsim.harness import layout as H
from sheepsim.plugins import policy_failure
from sheepsim.stats import group_sums

GAME = "shear-panic"
#: the machine the harness plays (a line-up with plug-ins: :mod:`.cut`)
MACHINE = "sheepsim.games.panic.machine"
#: the harness's play tables (:func:`sheepsim.harness.tables.play_tables`) the job's
#: tables add to the game's own: their names are not the game's
HARNESS_TABLES = ("game_length", "decisions", "course")


def _playouts(playouts) -> int:
    if isinstance(playouts, bool) or not isinstance(playouts, int) or playouts < 1:
        raise SheepsimError(f"playouts must be a whole number >= 1, got {playouts!r}")
    return playouts


def policy_list(policies, players: int) -> list[str]:
    """One policy name per seat from a name, a comma-separated string or a list (a
    single name is used by every seat); njit functions become ``module:function``."""
    from sheepsim.games.panic.policies import POLICY_IDS

    return [plugins.policy_name(p)
            for p in plugins.seat_policies(policies, players, tuple(POLICY_IDS))]


def raise_failure(failed: tuple, policies: list[str]):
    """Raise the one error line for a choice that broke the policy contract:
    ``failed`` is ``(code, game, seat, choice, n, kind)``,
    ``policies`` the seats' policy names."""
    code, game, seat, choice, n, kind = failed
    raise policy_failure(code, policies[seat], seat, game, choice, n,
                         plugins.kind_name(KIND_NAMES, kind))


def outcome_sums(wins: np.ndarray, points: np.ndarray, tied: np.ndarray,
                 policies: list[str]) -> Counts:
    """``policy_win_sq`` and ``policy_points_sq`` ``(n_policies,)``, sums over games of
    the squared per-game total wins / points of the seats playing each policy
    (:func:`policy_groups` order; the game as the unit of pooled intervals), and
    ``tie_wins`` ``(players,)``, wins from a tie for most points (decided by sheep left
    or turn order), from each game's wins ``(n, players)`` (one-hot), points ``(n,
    players)`` and whether a tie for most points decided it ``(n,)``."""
    from sheepsim.games.panic.analysis import policy_groups

    groups, names = policy_groups(policies)
    return {"policy_win_sq": group_sums(wins, groups, len(names))[1],
            "policy_points_sq": group_sums(points, groups, len(names))[1],
            "tie_wins": wins[tied].sum(axis=0)}


@dataclass
class PlayJob(Job):
    """``players`` seats playing ``policies`` (names or ``package.module:function``)."""

    rules: PanicRules | str | None = None
    players: int = 4
    policies: object = "random"
    seed: int = 0
    playouts: int = 4
    chunk_games: int = 512
    block: int = 1_000
    max_games: int = 1_000_000

    game = GAME

    def __post_init__(self):
        if not isinstance(self.rules, PanicRules):
            self.rules = load_rules(self.rules)
        self.players = self.rules.check_players(self.players)
        self.policies = policy_list(self.policies, self.players)
        self.playouts = _playouts(self.playouts)
        self._kernels()  # validates the policy names now, not on a worker

    @property
    def seats(self) -> int:
        return self.players

    def _kernels(self):
        """``(R, pids, playouts, kernel)``: the harness's entry for the machine for this
        line-up (built-in seats alone: the own-only entry, in which the machine plays
        every turn; with plug-ins, a plug-in seat's turn cut at each decision,
        :mod:`.cut`), its arguments and the seats' policy ids ``pids``."""
        if "_k" not in self.__dict__:
            from sheepsim.games.panic.policies import resolve_policies
            from sheepsim.games.panic.policies.decide import FIRST_USER_ID
            from sheepsim.harness import machine as M

            ids, users = resolve_policies(self.policies)
            pids = np.asarray(ids, dtype=np.int64)
            self._k = (self.rules.kernel_array(self.players), pids, self.playouts,
                       M.load(MACHINE).kernel(users, FIRST_USER_ID, pids))
        return self._k

    def harness_games(self, first_game: int, n_games: int):
        """Games ``[first_game, first_game + n_games)`` on the harness: ``(acc, winners,
        scores, harness)``, the summed accumulator vector (the machine's tally,
        ``layout.A_*``), each game's winning seat and points, and the harness's own
        counts (the block before the tally: decisions by kind, turns, the course).
        Raises :func:`sheepsim.plugins.policy_failure` for a choice that broke the
        policy contract (the harness stopped there)."""
        from sheepsim.games.panic.scratch import new_scratch
        from sheepsim.harness import machine as M
        from sheepsim.harness.jobs import run_games

        R, pids, playouts, kernel = self._kernels()
        m = M.load(MACHINE)
        acc, fail, winners, scores, _ = run_games(
            m, kernel, R, self.players, pids, False, self.seed, first_game, n_games,
            outcomes=True, scratch=new_scratch(1, playouts))
        if fail[H.F_CODE]:
            raise_failure(tuple(int(fail[k]) for k in (H.F_CODE, H.F_GAME, H.F_SEAT, H.F_CHOICE,
                                                       H.F_N, H.F_KIND)), self.policies)
        game = m.offsets(self.players)[H.O_GAME]
        return acc[game:], winners, scores, acc[:game]

    def prepare(self) -> Counts:
        return self.chunk(0, 1)  # compiles (or loads) the kernels now

    def chunk(self, first_game, n_games) -> Counts:
        """``acc`` the summed accumulator vector, ``harness`` the harness's counts (its
        block before the game's tally), plus sums the game-level statistics need
        (:func:`outcome_sums`)."""
        acc, winners, points, harness = self.harness_games(first_game, n_games)
        wins = np.zeros_like(points)
        wins[np.arange(n_games), winners] = 1
        top = points.max(axis=1, keepdims=True)
        tied = (points == top).sum(axis=1) > 1  # (the winner's tie_break > 0)
        return {"acc": acc, "harness": harness,
                **outcome_sums(wins, points, tied, self.policies)}

    def outcomes(self, first_game, n_games):
        """Per game: winning seat ``(n,)`` and points ``(n, players)`` (head-to-heads)."""
        return self.harness_games(first_game, n_games)[1:3]

    def result(self, counts: Counts, games: int):
        from sheepsim.games.panic.analysis import PanicResult, build_tables

        res = PanicResult(self.rules, self.players, list(self.policies), self.seed, games,
                          counts["acc"], {k: v for k, v in counts.items()
                                          if k not in ("acc", "harness")})
        res.tables = build_tables(res)
        return res

    def tables(self, counts, games):
        return self.result(counts, games).tables

    def halfwidth(self, tables) -> float:
        return self.seat_win_halfwidth(tables)

    def convergence(self, tables):
        return self.seat_win_convergence(tables)

    def meta_common(self) -> dict:
        return {"rules": self.rules.source, "rules_sha256": self.rules.sha256,
                "playouts": self.playouts}

    def meta(self) -> dict:
        return {**self.meta_common(), "players": self.players, "policies": list(self.policies)}


@dataclass
class MetricsJob(PlayJob):
    """A :class:`PlayJob` whose tables add the harness's :data:`HARNESS_TABLES` to the
    game's own: the job of the harness's metrics (:mod:`.metrics`)."""

    def tables(self, counts, games):
        from sheepsim.harness import machine as M
        from sheepsim.harness.tables import play_tables

        t = play_tables(counts["harness"], self.players, self.policies, M.load(MACHINE).kinds,
                        False)
        return {**super().tables(counts, games), **{name: t[name] for name in HARNESS_TABLES}}


def head_to_head(rules=None, players: int = 4, a: str = "greedy", b: str = "random",
                 field: str = "greedy", seat: int = 1, seed: int = 0, playouts: int = 4):
    """A :class:`~sheepsim.headtohead.HeadToHeadJob`: policy ``a`` then ``b`` at ``seat``
    (1-based) while the other seats play ``field``, on the same games."""
    from sheepsim.headtohead import HeadToHeadJob, lineups

    rules = rules if isinstance(rules, PanicRules) else load_rules(rules)
    players = rules.check_players(players)
    jobs = [PlayJob(rules, players, names, seed, playouts, chunk_games=128)
            for names in lineups(a, b, field, players, seat)]
    return HeadToHeadJob(jobs[0], jobs[1], seat, (a, b, field))
