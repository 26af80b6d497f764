"""The harness's whole-game jobs, for every game on it: games with one policy per seat
(:class:`PlayJob`), head-to-heads on common random numbers (:func:`head_to_head`) and
one traced game (:func:`trace_game`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sheepsim import game as registry
from sheepsim import plugins
from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Job
from sheepsim.harness import layout as H
from sheepsim.harness import machine as M
from sheepsim.headtohead import HeadToHeadJob, lineups


def game_of(name: str):
    g = registry.get(name)
    if not g.machine:
        raise SheepsimError(f"{g.title} is not played by the harness")
    return g


def as_rules(g, rules):
    """``rules`` loaded for ``g`` (a path, None for the shipped file, or loaded rules)."""
    if hasattr(rules, "kernel_array") and getattr(rules, "game", None) == g.name:
        return rules
    return g.load_rules(rules)


def run_games(machine: M.Machine, kernel, R, players: int, pids, rotate: bool, seed: int,
              first_game: int, n_games: int, outcomes: bool = False, log_rows: int = 0,
              events: int = 0, games=None, results: bool = False, counts: bool = True,
              scratch=None):
    """``machine``'s entry kernel ``kernel`` (:meth:`~.machine.Machine.kernel`) on games
    ``[first_game, first_game + n_games)`` of ``seed`` (or on the game indices
    ``games``, an int64 array, in its order: then ``first_game`` and ``n_games`` are not
    read), ``pids`` the policy id of each slot (a machine with ``ROLES`` > 1: each role's
    ids in turn, role-major): ``(acc, fail, winners, scores, log)``,
    ``winners``/``scores`` empty unless ``outcomes``, ``log`` the first ``log_rows``
    decisions. With ``results`` (and ``outcomes``) also the games' own results (slot
    ``result``, ``(n_games, RESULT_LEN)``) after ``log``. Without ``counts`` nothing is
    counted (``acc`` has no entries): a run that reads only the outcomes. The game's own block of
    ``acc`` (slot ``tally``) is ``acc[machine.offsets(players)[layout.O_GAME]:]``.
    With ``events`` rows (and ``log_rows``) also ``(events, final state)``: the game's
    own events of a trace (slot ``events``) and the state it ended in, before the results.
    ``scratch``: the machine's scratch for the call (default its ``new_scratch``), e.g.
    one that records a trace's events."""
    if games is None:
        games = np.arange(first_game, first_game + n_games, dtype=np.int64)
    n_games = len(games)
    off = machine.offsets(players)
    acc = np.zeros(off[-1] if counts else 0, dtype=np.int64)
    fail = np.zeros(H.FAIL_WIDTH, dtype=np.int64)
    k = n_games if outcomes else 0
    winners = np.zeros(k, dtype=np.int64)
    scores = np.zeros((k, players), dtype=np.int64)
    log = np.zeros((log_rows, H.log_width(machine.option_width, players)), dtype=np.int64)
    sizes = machine.sizes(players)
    ev = np.zeros((events if log_rows else 0, machine.event_width), dtype=np.int64)
    final = np.zeros(sizes[H.Z_STATE] if log_rows else 0, dtype=np.int64)
    res = np.zeros((k if results else 0, machine.result_len), dtype=np.int64)
    logged, evn = kernel(R, players, pids, rotate, seed, games, sizes, machine.kind_phase, off,
                         H.Outputs(acc, winners, scores, log, fail, ev, final, res),
                         machine.new_scratch(players, R) if scratch is None else scratch)
    found = (acc, fail, winners, scores, log[:logged])
    if events:
        found += (ev[:evn], final)
    return found + (res,) if results else found


def raise_run_failure(fail, machine: M.Machine, title: str, players: int,
                      policy_name) -> None:
    """The one line for the failure a harness run of ``machine`` (the game ``title``,
    ``players`` seats) recorded in ``fail`` ``(FAIL_WIDTH,)``, nothing if none: a
    policy's bad choice (:func:`~sheepsim.plugins.policy_failure`, the policy named by
    ``policy_name(seat, kind, pid) -> str``: the name the user gave it), a game past the
    machine's ``MAX_DECISIONS``, or the machine's broken contract. The error's ``game``
    is the game's index."""
    code = int(fail[H.F_CODE])
    if code == 0:
        return
    seat, game, n, kind = (int(fail[i]) for i in (H.F_SEAT, H.F_GAME, H.F_N, H.F_KIND))
    if code in (plugins.ILLEGAL_CHOICE, plugins.WROTE_INPUTS):
        raise plugins.policy_failure(code, policy_name(seat, kind, int(fail[H.F_PID])), seat,
                                     game, int(fail[H.F_CHOICE]), n,
                                     plugins.kind_name(machine.kinds, kind))
    if code == H.TOO_LONG:
        err = SheepsimError(f"{title} game {game} ran past {machine.max_decisions:,} decisions "
                            f"(the machine's MAX_DECISIONS): a policy or rule that never "
                            f"ends the game")
    else:
        err = SheepsimError(f"{title}'s machine {machine.path!r} broke the harness contract "
                            f"in game {game}: to_move gave seat {seat}, kind {kind}, {n} "
                            f"options (a seat below {players}, a kind below "
                            f"{len(machine.kinds)}, 1 to {machine.module.MAX_OPTIONS} options)")
    err.game = game
    raise err


@dataclass
class PlayJob(Job):
    """``players`` seats of game ``game`` playing ``policies`` (one name for every seat,
    or one per seat); ``rotate`` moves the policies one seat per game (every policy
    plays every seat equally often)."""

    game: str = ""
    rules: object = None
    players: int | None = None
    policies: object = "random"
    seed: int = 0
    rotate: bool = False

    chunk_games = 1 << 14

    def __post_init__(self):
        g = game_of(self.game)
        self.game = g.name
        self.rules = as_rules(g, self.rules)
        self.players = g.check_players(g.default_players if self.players is None else self.players)
        if not isinstance(self.rotate, bool):
            raise SheepsimError(f"rotate must be true or false, got {self.rotate!r}")
        chosen = plugins.seat_policies(self.policies, self.players, self._names())
        self.policies = [plugins.policy_name(p) for p in chosen]
        self._table().resolve(chosen)  # an unknown name stops here, not on a worker
        M.load(g.machine)  # so does a broken machine

    def _names(self) -> tuple[str, ...]:
        return tuple(game_of(self.game).policies["play"])

    def _table(self) -> plugins.PolicyTable:
        names = self._names()
        return plugins.PolicyTable({n: i for i, n in enumerate(names)}, len(names))

    @property
    def seats(self) -> int:
        return self.players

    @property
    def machine(self) -> M.Machine:
        return M.load(game_of(self.game).machine)

    def _setup(self):
        if "_k" not in self.__dict__:
            ids, users = self._table().resolve(self.policies)
            m = self.machine
            self._k = (m.kernel(users, len(self._names())), np.array(ids, dtype=np.int64),
                       self.rules.kernel_array())
        return self._k

    def run(self, seed: int, first_game: int, n_games: int, outcomes: bool = False,
            log_rows: int = 0):
        """The kernel on games ``[first_game, first_game + n_games)``: ``(acc, fail,
        winners, scores, log)`` (``winners``/``scores`` empty unless ``outcomes``)."""
        kernel, pids, R = self._setup()
        return run_games(self.machine, kernel, R, self.players, pids, self.rotate, seed,
                         first_game, n_games, outcomes, log_rows)

    def prepare(self) -> Counts:
        return self.chunk(0, 1)  # compiles (or loads) the kernel before the bar

    def chunk(self, first_game, n_games) -> Counts:
        acc, fail, *_ = self.run(self.seed, first_game, n_games)
        return {"acc": acc, "fail": fail}

    def outcomes(self, first_game, n_games):
        """Per game: the winning seat (-1: nobody) ``(n,)`` and every seat's final score
        ``(n, players)``."""
        _, fail, winners, scores, _ = self.run(self.seed, first_game, n_games, outcomes=True)
        self.raise_failure(fail)
        return winners, scores

    def check(self, counts, games) -> None:
        self.raise_failure(counts["fail"])

    def policy_of(self, pid: int) -> str:
        ids, _ = self._table().resolve(self.policies)
        return next((n for n, i in zip(self.policies, ids, strict=True) if i == pid),
                    f"policy id {pid}")

    def raise_failure(self, fail) -> None:
        """The one line for the failure a kernel recorded in ``fail`` (nothing if none):
        :func:`raise_run_failure`, a policy named by its id."""
        raise_run_failure(fail, self.machine, game_of(self.game).title, self.players,
                          lambda seat, kind, pid: self.policy_of(pid))

    def tables(self, counts, games):
        from sheepsim.harness.tables import play_tables

        return play_tables(counts["acc"], self.players, self.policies, self.machine.kinds,
                           self.rotate)

    def halfwidth(self, tables) -> float:
        return self.seat_win_halfwidth(tables)

    def convergence(self, tables):
        return self.seat_win_convergence(tables)

    def meta_common(self) -> dict:
        return {"rules": self.rules.source, "rules_sha256": self.rules.sha256}

    def meta(self) -> dict:
        return {**self.meta_common(), "players": self.players, "policies": list(self.policies),
                "rotate": self.rotate}


def head_to_head(game: str, rules=None, players: int | None = None, a: str = "random",
                 b: str = "random", field: str = "random", seat: int = 1, seed: int = 0):
    """Seat ``seat`` (1-based) plays ``a``, then ``b``, on the same games while the other
    seats play ``field``: a :class:`~sheepsim.headtohead.HeadToHeadJob`."""
    g = game_of(game)
    rules = as_rules(g, rules)
    players = g.check_players(g.default_players if players is None else players)
    jobs = [PlayJob(g.name, rules, players, names, seed)
            for names in lineups(a, b, field, players, seat)]
    return HeadToHeadJob(jobs[0], jobs[1], seat, (a, b, field))


@dataclass
class Trace:
    """One traced game: its text ``lines``, the ``decisions`` table (one row per policy
    asked), the winner (0-based, -1 nobody) and the final ``scores``."""

    lines: list
    decisions: object
    winner: int
    scores: list


def trace_game(game: str, rules=None, players: int | None = None, policies="random",
               seed: int = 0, game_index: int = 0) -> Trace:
    """Play game ``game_index`` of ``seed`` alone, logging every decision."""
    from sheepsim import driver
    from sheepsim.output import decisions_table

    job = PlayJob(game, rules, players, policies, seed)
    m = job.machine
    try:
        _, fail, winners, scores, log = job.run(seed, game_index, 1, outcomes=True,
                                                log_rows=m.max_decisions)
    except Exception as exc:  # a plug-in that raised (an index out of bounds...), or numba
        raise driver.kernel_call_error(exc, seed, game_index, job.policies) from None
    job.raise_failure(fail)
    g = game_of(game)
    head = H.LOG_HEAD
    w = m.option_width
    lines = [f"{g.title}, game {game_index} of seed {seed}, {job.players} players: "
             + ", ".join(f"seat {s + 1} {p}" for s, p in enumerate(job.policies))]
    for i, row in enumerate(log):
        seat, kind, n, choice = (int(row[c]) for c in (H.L_SEAT, H.L_KIND, H.L_N, H.L_CHOICE))
        score = " ".join(str(int(v)) for v in row[head + w:head + w + job.players])
        how = f"chose {choice} of {n}" if n > 1 else "forced"
        lines.append(f"{i:4d}  seat {seat + 1} {m.kinds[kind]}: "
                     f"{m.option_text(kind, row[head:head + w])} ({how})  scores {score}")
    win = int(winners[0])
    final = [int(v) for v in scores[0]]
    lines.append(f"winner: {'seat ' + str(win + 1) if win >= 0 else 'nobody (a draw)'}; final "
                 f"scores {' '.join(map(str, final))}")
    asked = log[log[:, H.L_ASKED] == 1]
    table = decisions_table(asked, (H.L_SEAT, H.L_KIND, H.L_N, H.L_CHOICE), m.kinds)
    return Trace(lines, table, win, final)
