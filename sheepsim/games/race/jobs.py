"""The Sheep Race's jobs for the driver, and the Python functions that run them.

Jobs: single races (:class:`RacesJob`), balance over deals (:class:`BalanceJob`), whole
games (:class:`GamesJob`), a head-to-head (:func:`head_to_head`). Each job is plain data
(rules, lanes, policy names, options) and builds its kernels' chunk function lazily in
the process that runs it (a Dask worker too). Counts are the integer accumulators of
:mod:`.simulate`; tables come from :mod:`.analysis`.

Running them (:func:`sheepsim.driver.run`, for a fixed number of games or to a
precision): :func:`race_counts` and :func:`play_games` return the merged counts;
``estimate_races``, ``estimate_balance``, ``estimate_games`` and ``estimate_compare``
the driver's :class:`~sheepsim.driver.Result` (``tables``, ``trace``, ``games``,
``stopped_by``, ``halfwidth``, ``meta()``), plus the merged counts where a caller needs
them. ``backend``/``threads``/``chunk_size`` never change a result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sheepsim import driver
from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Job

# the race machine (.machine), the engine of the whole games of built-in line-ups
# (GamesJob.rows) and of the harness's metrics (HarnessJob)
from sheepsim.games.race.game import MACHINE
from sheepsim.games.race.rules import RaceRules, check_stage, load_rules
from sheepsim.headtohead import HeadToHeadJob, lineups

if TYPE_CHECKING:  # the kernels load with the first job run, not with this module
    from sheepsim.games.race.simulate import GameResults, RaceCounts

GAME = "sheep-race"
#: ``--precision`` is checked after every block of this many races / games.
RACE_BLOCK = 20_000
GAME_BLOCK = 2_000


def _rules(rules) -> RaceRules:
    return rules if isinstance(rules, RaceRules) else load_rules(rules)


class _RaceJob(Job):
    game = GAME

    def meta_common(self) -> dict:
        return {"rules": self.rules.source, "rules_sha256": self.rules.sha256}

    def _cached(self, key, build):
        cache = self.__dict__.setdefault("_fns", {})
        if key not in cache:
            cache[key] = build()
        return cache[key]


@dataclass
class RacesJob(_RaceJob):
    """Single races of one ``stage`` with one pace ``policy`` on fixed ``lanes`` (card
    names or indices; None: the file's first six) or a random deal per race.
    ``report`` picks the tables: ``"odds"`` (``lanes``) or ``"ev"`` (``lanes``, ``sets``,
    ``open_bet``, given the lanes ``taken`` openly)."""

    rules: RaceRules | str | None = None
    lanes: object = None
    stage: str = "semifinal"
    policy: str = "greedy"
    seed: int = 0
    random_deal: bool = False
    report: str = "odds"
    taken: tuple = ()
    chunk_games: int = 1 << 17
    block: int = RACE_BLOCK

    def __post_init__(self):
        from sheepsim.games.race.simulate import lane_cards

        self.rules = _rules(self.rules)
        self.stage = check_stage(self.stage)
        self.lanes = None if self.random_deal else tuple(lane_cards(self.rules, self.lanes).tolist())
        if self.report not in ("odds", "ev"):
            raise SheepsimError(f"unknown race report {self.report!r}")
        if self.report == "ev":
            from sheepsim.games.race.analysis import _check_taken

            self.taken = _check_taken(self.taken)
            if self.taken and self.stage == "final":
                raise SheepsimError("--taken applies to semifinals (the final has no open bets)")
        self._run_chunk(self.seed)  # validates the policy now, not in a worker

    def _run_chunk(self, seed):
        from sheepsim.games.race.simulate import race_chunk_fn

        return self._cached(("races", seed), lambda: race_chunk_fn(
            self.rules, None if self.lanes is None else np.array(self.lanes), self.stage,
            self.policy, seed, random_deal=self.random_deal))

    def prepare(self) -> None:
        self._run_chunk(self.seed)(0, 1)  # compiles (or loads) the kernels now

    def chunk(self, first_game, n_games) -> Counts:
        joint, card_place, turns = self._run_chunk(self.seed)(first_game, n_games)
        return {"joint": joint, "card_place": card_place, "turns": turns}

    def race_counts(self, counts: Counts, games: int):
        from sheepsim.games.race.simulate import RaceCounts

        lanes = None if self.lanes is None else np.array(self.lanes)
        return RaceCounts(self.rules, self.stage, self.policy.strip(), self.seed, games,
                          lanes, counts["joint"], counts["card_place"], int(counts["turns"][0]))

    def tables(self, counts, games):
        from sheepsim.games.race.analysis import race_tables

        return race_tables(self.race_counts(counts, games), self.report, self.taken)

    def convergence(self, tables):
        from sheepsim.games.race.analysis import convergence_rows

        return convergence_rows(tables["lanes"], "p_first", "lane", "lane ")

    def meta(self) -> dict:
        lanes = None if self.lanes is None else [self.rules.cards[i].name for i in self.lanes]
        out = {**self.meta_common(), "stage": self.stage, "policy": self.policy.strip(),
               "lanes": lanes}
        if self.report == "ev":
            out["taken"] = list(self.taken)
        return out


@dataclass
class GamesJob(_RaceJob):
    """Whole games: ``players`` seats, bet and pace policies (one name for every seat or
    one per seat). Tables: seats, policies, turns, scores, turn_order, tie_breaks."""

    rules: RaceRules | str | None = None
    players: int = 4
    bet_policy: object = "ev-approx"
    pace_policy: object = "greedy"
    seed: int = 0
    chunk_games: int = 1 << 13
    block: int = GAME_BLOCK
    max_games: int = 1_000_000

    def __post_init__(self):
        from sheepsim.games.race.simulate import check_players

        self.rules = _rules(self.rules)
        self.players = check_players(self.rules, self.players)
        pol = self.policies()
        self.bet_policy, self.pace_policy = list(pol.bet_names), list(pol.pace_names)

    @property
    def seats(self) -> int:
        return self.players

    def policies(self):
        from sheepsim.games.race.simulate import resolve_policies

        return self._cached("pol", lambda: resolve_policies(self.pace_policy, self.bet_policy,
                                                            self.players))

    def prepare(self) -> None:
        from sheepsim.games.race.simulate import odds_tables

        odds_tables(self.rules)
        self.rows(0, 1)  # compiles (or loads) the kernels now

    def raise_failure(self, fail) -> None:
        """The one line for a failure the race machine's harness run recorded in ``fail``
        (nothing if none): the line-up's (:meth:`~.simulate.PolicySet.raise_failure`).
        (The built-in policies never fail: this is the line a plug-in seat's failure gets
        there.)"""
        self.policies().raise_failure(fail, self.players)

    def rows(self, first_game, n_games):
        """Per-game rows of games ``[first_game, first_game + n_games)``: ``scores``
        ``(n, players)``, ``winner`` ``(n,)``, ``first`` ``(n,)`` (the first player),
        ``turns`` ``(n, 3)`` (each race's) and ``race_cards`` ``(n, 3, 3)`` (the cards
        placed 1st-3rd in each race), played by the race machine on the harness
        (:func:`machine_rows`), plug-in seats too."""
        return machine_rows(self, first_game, n_games)

    def chunk(self, first_game, n_games) -> Counts:
        from sheepsim.games.race.simulate import GAME_COUNTS, game_counts

        counts = game_counts(self.rows(first_game, n_games), self.policies(), len(self.rules.cards))
        return dict(zip(GAME_COUNTS, counts, strict=True))

    def outcomes(self, first_game, n_games):
        """Per game: winning seat ``(n,)`` and scores ``(n, players)`` (head-to-heads)."""
        scores, winner = self.rows(first_game, n_games)[:2]
        return winner, scores

    def results(self, counts: Counts, games: int):
        from sheepsim.games.race.simulate import GAME_COUNTS, GameResults

        return GameResults(self.rules, self.policies(), self.seed, games,
                           *(counts[k] for k in GAME_COUNTS))

    def tables(self, counts, games):
        from sheepsim.games.race.analysis import game_tables

        return game_tables(self.results(counts, games))

    def convergence(self, tables):
        from sheepsim.games.race.analysis import convergence_rows

        return convergence_rows(tables["seats"], "win_rate", "seat", "seat ")

    def meta(self) -> dict:
        from sheepsim.games.race.exact.bets import bet_odds_meta

        return {**self.meta_common(), "players": self.players,
                "bet_policies": list(self.bet_policy), "pace_policies": list(self.pace_policy),
                **bet_odds_meta(self.bet_policy, self.pace_policy)}




def race_machine(job: GamesJob):
    """The race machine and its whole-game kernel for ``job``'s line-up, built once per
    job: ``(machine, kernel, pids)``, ``pids`` the seats' policy ids role-major (bets,
    then paces). Plug-ins are the harness's function values, ids from ``FIRST_USER_ID``
    (the pace plug-ins, then the bet ones, as the engine numbers them), so a new line-up
    compiles only its plug-ins, not a race kernel."""
    def build():
        from sheepsim.games.race.simulate import FIRST_USER_ID
        from sheepsim.harness import machine as M

        m = M.load(MACHINE)
        pol = job.policies()
        pids = np.array([*pol.bet_ids, *pol.pace_ids], dtype=np.int64)  # role-major
        users = (*pol.user_pace, *pol.user_bets)
        return m, m.kernel(users, FIRST_USER_ID, pids), pids

    return job._cached("machine", build)


def machine_rows(job: GamesJob, first_game: int, n_games: int):
    """:meth:`GamesJob.rows` played by the race machine: the harness's run with no
    accumulator (the games' outcomes and the machine's own rows, slot ``result``, alone:
    nothing of the harness's metrics is counted)."""
    from sheepsim.games.race.simulate import odds_tables
    from sheepsim.harness.jobs import run_games

    m, kernel, pids = race_machine(job)
    # its scratch: one per call (a chunk may run on any thread)
    R = m.module.make_R(job.rules, job.players, odds_tables(job.rules), pids)
    _, fail, winner, scores, _, res = run_games(
        m, kernel, R, job.players, pids, False, job.seed, first_game, n_games, outcomes=True,
        results=True, counts=False)
    job.raise_failure(fail)
    race_cards = np.ascontiguousarray(res[:, 4:].reshape(n_games, 3, 3))
    return scores, winner, res[:, 0].copy(), np.ascontiguousarray(res[:, 1:4]), race_cards


@dataclass
class HarnessJob(GamesJob):
    """The whole games of :class:`GamesJob` (the same line-up, seed and game indices:
    the same games, seat for seat) played by the race machine on the shared harness
    (:mod:`.machine`), for the harness's metrics of every game
    (:mod:`sheepsim.harness.metrics`): the harness's play tables ``by_seat``,
    ``outcomes``, ``game_length``, ``decisions`` and ``course``. Every line-up, plug-ins
    too: the plug-ins are the harness's function values (:func:`race_machine`), so a new
    line-up compiles no race kernel."""

    def prepare(self) -> None:
        self.chunk(0, 1)  # compiles (or loads) the kernel now

    def chunk(self, first_game, n_games) -> Counts:
        from sheepsim.games.race.simulate import odds_tables
        from sheepsim.harness.jobs import run_games

        m, kernel, pids = race_machine(self)
        # its scratch: one per call
        R = m.module.make_R(self.rules, self.players, odds_tables(self.rules), pids)
        acc, fail, *_ = run_games(m, kernel, R, self.players, pids, False, self.seed,
                                  first_game, n_games)
        return {"acc": acc, "fail": fail}

    def check(self, counts, games) -> None:
        self.raise_failure(counts["fail"])

    def tables(self, counts, games):
        from sheepsim.harness.machine import load
        from sheepsim.harness.tables import play_tables

        names = [f"{b},{p}" for b, p in zip(self.bet_policy, self.pace_policy, strict=True)]
        return play_tables(counts["acc"], self.players, names, load(MACHINE).kinds, False)

    def convergence(self, tables):
        from sheepsim.games.race.analysis import convergence_rows

        return convergence_rows(tables["by_seat"], "win_rate", "seat", "seat ")


@dataclass
class CardsJob(RacesJob):
    """Random-deal semifinals (the games of a random-deal :class:`RacesJob`) read card by
    card, for the designers' card metrics: table ``cards``
    (:func:`~sheepsim.games.race.analysis.card_strength_table`) with each card's
    single-bet EV ``ev``: the Table 1 payoff of the lane and place it reached, per race
    it runs in."""

    def tables(self, counts, games):
        from sheepsim.games.race.analysis import card_strength_table

        semi = self.race_counts(counts, games)
        cards = card_strength_table(semi.card_place, semi.games, self.rules)
        place = np.asarray(semi.card_place, dtype=np.float64)  # (cards, lane, place)
        payoff = np.asarray(self.rules.payoff_semifinal, dtype=np.float64)  # (place, lane)
        share = 6 / place.shape[0]  # the share of races a card runs in
        cards["ev"] = (place * payoff.T[None, :, :]).sum(axis=(1, 2)) / semi.games / share
        return {"cards": cards}


@dataclass
class BalanceJob(_RaceJob):
    """Balance over random deals: game index ``g`` gives one random-deal semifinal (Table
    1, lanes, cards) and one whole game (Table 2 from the final as seated, final wins
    per card). ``players``/``bet_policy`` only matter to pace policies that look at
    bets (``partisan``)."""

    rules: RaceRules | str | None = None
    policy: str = "greedy"
    seed: int = 0
    players: int = 4
    bet_policy: str = "ev-approx"
    chunk_games: int = 1 << 13
    block: int = GAME_BLOCK
    max_games: int = 1_000_000
    _semis: RacesJob = field(default=None, repr=False)

    def __post_init__(self):
        self.rules = _rules(self.rules)
        self._semis = RacesJob(self.rules, None, "semifinal", self.policy, self.seed,
                               random_deal=True)
        self._games = GamesJob(self.rules, self.players, self.bet_policy, self.policy, self.seed)

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__post_init__()

    def prepare(self) -> None:
        self._semis.prepare()
        self._games.prepare()

    def chunk(self, first_game, n_games) -> Counts:
        from sheepsim.games.race.analysis import final_lane_wins

        race_cards = self._games.rows(first_game, n_games)[4]
        return {**self._semis.chunk(first_game, n_games),
                "final_lane_wins": final_lane_wins(race_cards),
                "final_card_wins": np.bincount(race_cards[:, 2, 0], minlength=len(self.rules.cards))}

    def tables(self, counts, games):
        from sheepsim.games.race.analysis import balance_tables

        return balance_tables(self._semis.race_counts(counts, games), counts["final_lane_wins"],
                              counts["final_card_wins"], games)

    def convergence(self, tables):
        from sheepsim.games.race.analysis import convergence_rows

        return convergence_rows(tables["semifinal_lanes"], "p_first", "lane", "lane ")

    def meta(self) -> dict:
        return {**self.meta_common(), "analysis": "balance over random deals",
                "policy": self.policy, "players": self.players, "bet_policy": self.bet_policy}


def parse_policy_pair(text: str) -> tuple[str, str]:
    """``"BET,PACE"`` -> ``(bet, pace)`` (e.g. ``"ev,greedy"``)."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2 or not all(parts):
        raise SheepsimError(f"a policy pair is BET,PACE (e.g. ev,greedy), got {text!r}")
    return parts[0], parts[1]


def head_to_head(rules=None, players: int = 4, a: str = "ev-approx,greedy",
                 b: str = "random,greedy", field: str = "ev-approx,greedy", seat: int = 1, seed: int = 0):
    """A :class:`~sheepsim.headtohead.HeadToHeadJob`: policies ``a`` and ``b``
    ("BET,PACE") for seat ``seat`` (1-based) while the other seats play ``field``."""
    rules = _rules(rules)
    pairs = [parse_policy_pair(x) for x in (a, b, field)]
    jobs = [GamesJob(rules, players, [p[0] for p in lineup], [p[1] for p in lineup], seed)
            for lineup in lineups(*pairs, players, seat)]
    return HeadToHeadJob(jobs[0], jobs[1], seat, tuple(",".join(p) for p in pairs),
                         _odds_meta(jobs[0], jobs[1]))


def _odds_meta(job_a: GamesJob, job_b: GamesJob) -> dict:
    """The odds the bet policies read (as ``race play`` records them), once when both
    line-ups read the same odds, else per line-up (``_a``/``_b`` suffixes)."""
    from sheepsim.games.race.exact.bets import bet_odds_meta

    ma, mb = (bet_odds_meta(j.bet_policy, j.pace_policy) for j in (job_a, job_b))
    out = {}
    for key in sorted(set(ma) | set(mb)):
        if ma.get(key) == mb.get(key):
            out[key] = ma[key]
        else:
            out.update({f"{key}_{s}": m[key] for s, m in (("a", ma), ("b", mb)) if key in m})
    return out


# ------------------------------------------------------------------ running jobs
def race_counts(rules=None, lanes=None, stage: str = "semifinal", policy: str = "greedy",
                games: int = 1_000_000, seed: int = 0, *, random_deal: bool = False,
                threads: int | None = None, chunk_size: int | None = None,
                progress: bool | None = None) -> RaceCounts:
    """Simulate ``games`` single races of ``stage`` with one pace ``policy`` for all turns
    (arguments as for :func:`~.simulate.race_chunk_fn`)."""
    job = RacesJob(rules, lanes, stage, policy, seed, random_deal=random_deal)
    res = driver.run(job, games=games, chunk_games=chunk_size, threads=threads,
                     progress=progress, desc=f"{stage} races")
    return job.race_counts(res.counts, res.games)


def play_games(rules=None, players: int = 4, bet_policy="ev-approx", pace_policy="greedy",
               games: int = 100_000, seed: int = 0, *, threads: int | None = None,
               chunk_size: int | None = None, progress: bool | None = None) -> GameResults:
    """Simulate whole games. ``bet_policy``/``pace_policy``: one name for every seat or a
    list with one per seat."""
    job = GamesJob(rules, players, bet_policy, pace_policy, seed)
    res = driver.run(job, games=games, chunk_games=chunk_size, threads=threads,
                     progress=progress, desc="games")
    return job.results(res.counts, res.games)


def _run(job, desc, *, games, precision, max_games, chunk_size, threads, progress, backend=None,
         block=None):
    if block is not None:
        job.block = driver.check_games(block, "block")
    return driver.run(job, games=games, precision=precision, max_games=max_games,
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
