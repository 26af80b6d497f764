"""Aw, Sheep! jobs for the driver: rounds with one policy per seat, luck-vs-skill pairs,
head-to-heads.

Jobs are plain data (rules, player count, policy names, options); kernels are built
lazily in the process that runs them (a Dask worker too). Counts are integer arrays
(``layout.A_*`` accumulators, paired win counts) merged by addition.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sheepsim import driver
from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Job
from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep.analysis import (
    card_use,
    card_value,
    golden_value,
    lazy_play_tables,
    luck_vs_skill,
    play_tables,
)
from sheepsim.games.awsheep.layout import HARNESS_TABLES, RANDOM_CHOOSES
from sheepsim.games.awsheep.rules import AwSheepRules, load_rules
from sheepsim.games.awsheep.simulate import (
    Setting,
    card_value_counts,
    card_value_frame,
    check_failure,
    count_frames,
    pair_frame,
    seat_policies,
    setting,
)
from sheepsim.headtohead import HeadToHeadJob, lineups

GAME = "aw-sheep"


def policy_list(policies, players: int) -> list[str]:
    """One policy name per seat (njit functions become ``module:function``)."""
    from sheepsim.games.awsheep.policies import policy_name

    return [policy_name(p) for p in seat_policies(policies, players)]


def harness_tables(harness, s: Setting, rotate: bool) -> dict:
    """The harness's :data:`HARNESS_TABLES` from its block of the accumulator."""
    from sheepsim.harness.tables import play_tables as harness_play_tables

    t = harness_play_tables(harness, s.players, s.names, s.machine.kinds, rotate)
    return {name: t[name] for name in HARNESS_TABLES}


def _failure(acc):
    """The ``F_*`` fields of an accumulator: the chunk's first policy failure."""
    return acc[L.A_FAILURE:L.A_FAILURE + L.FAIL_WIDTH]


class _AwJob(Job):
    game = GAME
    chunk_games = 1 << 14
    block = 20_000
    max_games = 10_000_000

    def _setup(self):
        if not isinstance(self.rules, AwSheepRules):
            self.rules = load_rules(self.rules)
        self.players = self.rules.check_players(self.players)
        if self.draft is not None and not isinstance(self.draft, bool):
            raise SheepsimError(f"draft must be true or false, got {self.draft!r}")
        self.draft = bool(self.rules.draft if self.draft is None else self.draft)

    def _setting(self, names):
        return setting(self.rules, self.players, names, self.draft)

    def meta_common(self) -> dict:
        meta = {"rules": self.rules.source, "rules_sha256": self.rules.sha256,
                "draft": self.draft}
        if "random" in self._policy_names():
            meta["random_policy"] = RANDOM_CHOOSES
        return meta

    def _policy_names(self) -> list[str]:
        return [*getattr(self, "policies", []), getattr(self, "policy", ""),
                getattr(self, "baseline", "")]


@dataclass
class PlayJob(_AwJob):
    """``players`` seats playing ``policies``; ``rotate`` moves the policies one seat
    per round (seat-fair per-policy counts)."""

    rules: AwSheepRules | str | None = None
    players: int = 4
    policies: object = "random"
    seed: int = 0
    draft: bool | None = None
    rotate: bool = False

    def __post_init__(self):
        self._setup()
        self.policies = policy_list(self.policies, self.players)
        self._s()  # validates the policy names now, not on a worker

    @property
    def seats(self) -> int:
        return self.players

    def _s(self):
        if "_k" not in self.__dict__:
            self._k = self._setting(self.policies)
        return self._k

    def _rounds(self, seed, first_game, n_games) -> np.ndarray:
        return self._s().rounds(seed, first_game, n_games, self.rotate)[0]

    def prepare(self) -> Counts:
        return self.chunk(0, 1)  # compiles (or loads) the kernels before the bar

    def chunk(self, first_game, n_games) -> Counts:
        acc, harness, _, _ = self._s().play(self.seed, first_game, n_games, self.rotate)
        return {"acc": acc, "harness": harness}

    def outcomes(self, first_game, n_games):
        """Per round: winning seat ``(n,)`` and flock values ``(n, players)``."""
        acc, winners, scores = self._s().rounds(self.seed, first_game, n_games, self.rotate,
                                                True)
        self.check({"acc": acc}, n_games)
        return winners, scores

    def check(self, counts, games) -> None:
        check_failure(_failure(counts["acc"]), self._s())

    def frames(self, counts: Counts):
        return count_frames(counts["acc"], self.players, self.policies, self.draft)

    def tables(self, counts, games):
        tables = play_tables(self.frames(counts))
        if "harness" in counts:
            tables.update(harness_tables(counts["harness"], self._s(), self.rotate))
        return tables

    def metric_tables(self, counts, games):
        # each table when read: the variants' jackknife asks for them 21 times a variant,
        # and a metric reads one or two of the twelve (the rest cost 80% of the time)
        if type(self).tables is not PlayJob.tables:  # a subclass's own tables
            return self.tables(counts, games)
        more = {} if "harness" not in counts else {
            k: (lambda t=t: t) for k, t in harness_tables(counts["harness"], self._s(),
                                                          self.rotate).items()}
        return lazy_play_tables(self.frames(counts), more)

    def halfwidth(self, tables) -> float:
        return self.seat_win_halfwidth(tables)

    def convergence(self, tables):
        return self.seat_win_convergence(tables)

    def meta(self) -> dict:
        return {**self.meta_common(), "players": self.players, "policies": list(self.policies),
                "rotate": self.rotate}


@dataclass
class CardValueJob(PlayJob):
    """Card value on common random numbers: every round as dealt, then once more for
    every seat and non-sheep kind in its starting hand with one card of that kind
    replaced by a plain sheep (the same deal, draft and streams). ``policies`` is the
    field (one policy for every seat, or one per seat). Tables ``card_value``,
    ``golden_value`` (the golden row) and ``card_use`` (from the plain rounds). A round
    costs about 1 + (seats x kinds held) plays: 10-20 times a plain round."""

    chunk_games = 1 << 10
    block = 2_000

    def chunk(self, first_game, n_games) -> Counts:
        acc, cv = card_value_counts(self._s(), self.seed, first_game, n_games, self.rotate)
        return {"acc": acc, "cv": cv}

    def value_frame(self, counts, games):
        return card_value_frame(counts["cv"], self.players, self.policies, self.draft, games)

    def tables(self, counts, games):
        cv = self.value_frame(counts, games)
        return {"card_value": card_value(cv), "golden_value": golden_value(cv),
                "card_use": card_use(self.frames(counts)["card_use"])}

    def halfwidth(self, tables) -> float:
        t = tables["card_value"]
        return float(((t["value_hi"] - t["value_lo"]) / 2).max())

    def convergence(self, tables):
        t = tables["card_value"]
        return [{"quantity": f"card value {p} {k}", "estimate": v, "lo": lo, "hi": hi}
                for p, k, v, lo, hi in zip(t["policy"], t["kind"], t["value"], t["value_lo"],
                                           t["value_hi"], strict=True)]

    def meta(self) -> dict:
        return {**super().meta(), "analysis": "card value (one card replaced by a plain "
                                              "sheep, common random numbers)"}


@dataclass
class FieldsJob(_AwJob):
    """The same rounds (seed and game range) under several policy fields, each field one
    policy for every seat: the play tables concatenated, a ``field`` column telling
    them apart (turn order depends on the field that plays)."""

    rules: AwSheepRules | str | None = None
    players: int = 4
    fields: object = ("random", "greedy", "counter")
    seed: int = 0
    draft: bool | None = None

    def __post_init__(self):
        self._setup()
        names = self.fields.split(",") if isinstance(self.fields, str) else list(self.fields)
        self.fields = [policy_list(f, 1)[0] for f in names]
        if not self.fields or len(set(self.fields)) != len(self.fields):
            raise SheepsimError(f"give one or more different policy fields, got {names!r}")
        self._plays()  # validates the fields now, not on a worker

    def _plays(self) -> list[PlayJob]:
        """One play job per field (rebuilt where the job is unpickled)."""
        if "_p" not in self.__dict__:
            self._p = [PlayJob(self.rules, self.players, f, self.seed, self.draft)
                       for f in self.fields]
        return self._p

    @property
    def seats(self) -> int:
        return self.players

    def prepare(self) -> Counts:
        return self.chunk(0, 1)

    def chunk(self, first_game, n_games) -> Counts:
        return {f"acc_{i}": j._rounds(self.seed, first_game, n_games)
                for i, j in enumerate(self._plays())}

    def check(self, counts, games) -> None:
        for i, j in enumerate(self._plays()):
            j.check({"acc": counts[f"acc_{i}"]}, games)

    def tables(self, counts, games):
        import pandas as pd

        frames: dict[str, list] = {}
        for i, j in enumerate(self._plays()):
            for name, df in j.frames({"acc": counts[f"acc_{i}"]}).items():
                frames.setdefault(name, []).append(df)
        return play_tables({k: pd.concat(v, ignore_index=True) for k, v in frames.items()})

    def halfwidth(self, tables) -> float:
        t = tables["first_player"]
        return float(((t["win_rate_hi"] - t["win_rate_lo"]) / 2).max())

    def _policy_names(self) -> list[str]:
        return list(self.fields)

    def meta(self) -> dict:
        return {**self.meta_common(), "players": self.players,
                "field_policies": list(self.fields)}


@dataclass
class SkillJob(_AwJob):
    """Luck vs skill: every round played twice on the same streams, once with
    ``policy`` in one seat and ``baseline`` in the others, once with ``baseline``
    everywhere; the tested seat moves round the table (one seat per round)."""

    rules: AwSheepRules | str | None = None
    players: int = 4
    policy: str = "counter"
    baseline: str = "random"
    seed: int = 0
    draft: bool | None = None

    def __post_init__(self):
        self._setup()
        self.policy = policy_list(self.policy, 1)[0]
        self.baseline = policy_list(self.baseline, 1)[0]
        self._s()

    @property
    def seats(self) -> int:
        return self.players

    def _s(self):
        if "_k" not in self.__dict__:
            n = self.players
            a = self._setting([self.policy] + [self.baseline] * (n - 1))
            b = self._setting([self.baseline] * n)
            if a.users != b.users:
                raise SheepsimError("luck vs skill takes at most one user policy")
            self._k = (a, b)
        return self._k

    def _pairs(self, seed, first_game, n_games):
        a, b = self._s()
        n = self.players
        acc_a, win_a, _ = a.rounds(seed, first_game, n_games, True, True)
        acc_b, win_b, _ = b.rounds(seed, first_game, n_games, True, True)
        games = np.arange(first_game, first_game + n_games)
        slot_a = (win_a - games % n) % n  # the winning slot (seats rotate a seat a round)
        slot_b = (win_b - games % n) % n
        pairs = np.zeros((n, 3), dtype=np.int64)
        same = slot_a == slot_b
        np.add.at(pairs[:, 0], slot_a[same], 1)
        np.add.at(pairs[:, 1], slot_a[~same], 1)
        np.add.at(pairs[:, 2], slot_b[~same], 1)
        return acc_a, acc_b, pairs

    def prepare(self) -> Counts:
        return self.chunk(0, 1)  # compiles (or loads) the kernels before the bar

    def chunk(self, first_game, n_games) -> Counts:
        acc_a, acc_b, pairs = self._pairs(self.seed, first_game, n_games)
        return {"acc_a": acc_a, "acc_b": acc_b, "pairs": pairs}

    def check(self, counts, games) -> None:
        for acc in (counts["acc_a"], counts["acc_b"]):
            check_failure(_failure(acc), *self._s())

    def pair_frame(self, counts, games):
        a, b = self._s()
        return pair_frame(counts["pairs"], self.players, a.names, b.names, self.draft, games)

    def tables(self, counts, games):
        return {"luck_vs_skill": luck_vs_skill(self.pair_frame(counts, games))}

    def halfwidth(self, tables) -> float:
        t = tables["luck_vs_skill"]
        return float(((t["diff_hi"] - t["diff_lo"]) / 2).max())

    def meta(self) -> dict:
        return {**self.meta_common(), "players": self.players, "policy": self.policy,
                "baseline": self.baseline, "analysis": "luck vs skill (common random numbers)"}


def head_to_head(rules=None, players: int = 4, a: str = "counter", b: str = "random",
                 field: str = "random", seat: int = 1, seed: int = 0, draft=None):
    """A :class:`~sheepsim.headtohead.HeadToHeadJob`: policy ``a`` then ``b`` at ``seat``
    (1-based) while the other seats play ``field``, on the same rounds."""
    rules = rules if isinstance(rules, AwSheepRules) else load_rules(rules)
    players = rules.check_players(players)
    jobs = [PlayJob(rules, players, names, seed, draft) for names in lineups(a, b, field, players, seat)]
    return AwHeadToHeadJob(jobs[0], jobs[1], seat, (a, b, field))


#: what the rows of Aw, Sheep!'s ``comparison`` table measure
COMPARISON_METRICS = {"win_rate": ("win_rate", "share of rounds the seat won"),
                      "mean_score": ("mean_flock_value",
                                     "the seat's flock value at the end of the round (a sheep "
                                     "1, the golden sheep golden_worth; 0 if out of cards)")}


class AwHeadToHeadJob(HeadToHeadJob):
    """The shared head-to-head, its score row named for what it is in Aw, Sheep!:
    ``mean_flock_value`` (the flock value at the end of the round, 0 if out); the
    metadata says what each metric measures."""

    def tables(self, counts, games):
        t = super().tables(counts, games)["comparison"]
        # rows the shared table adds (tie_rate, tiebreak_win_rate) keep their names
        return {"comparison": t.assign(metric=[COMPARISON_METRICS.get(m, (m,))[0]
                                               for m in t["metric"]])}

    def meta(self) -> dict:
        return {**super().meta(), "metrics": dict(COMPARISON_METRICS.values())}


def round_counts(rules=None, players: int = 4, policies=("random",), games: int = 10_000,
                 seed: int = 0, draft=None, rotate: bool = True, chunk_size=None,
                 progress=None, threads=None) -> tuple[Setting, np.ndarray]:
    """``(setting, acc)``: the summed accumulator (``layout.A_*``) of rounds
    ``0 .. games-1``. ``rotate`` moves the policies one seat per round (seat-fair
    per-policy counts)."""
    job = PlayJob(rules, players, policies, seed, draft, bool(rotate))
    res = driver.run(job, games=games, chunk_games=chunk_size, threads=threads,
                     progress=progress, desc="aw sheep")
    return job._s(), res.counts["acc"]
