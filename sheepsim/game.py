"""The game contract: what every game gives the CLI, the report and the backends.

A game is one folder ``sheepsim/games/<game>/`` whose ``game.py`` defines ``GAME``, a
:class:`Game`, registered by one line in :data:`sheepsim.games.REGISTRY`. The shared
machinery talks only to this contract::

    CLI / report ──> Game ──> Job ──> driver (threads | Dask) ──> chunk kernels
                                                                     │
            output <── tables(counts) <── Counts (int64 arrays, merged by addition)

* :class:`Game` names the game, its player counts and policy roles, loads and validates
  its rules (``load_rules(path | None) -> Rules`` with ``source`` and ``sha256``),
  registers its CLI commands and report studies, and builds :class:`Job` objects.
* A :class:`Job` is a validated simulation: plain data (rules, policy names, options),
  picklable so a Dask worker can run it, with its ``seed`` (the seed's one home) and a
  pure chunk function ``chunk(first_game, n_games) -> Counts`` and ``tables(counts, games)``.
  Game ``g`` of seed ``s`` draws only from streams keyed by ``(s, g)``, so any split of
  the games into chunks, threads or workers gives the same integer counts.
"""

from __future__ import annotations

import functools
import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from sheepsim.errors import SheepsimError

if TYPE_CHECKING:  # numpy and pandas load with the first simulation, not with the CLI
    import numpy as np
    import pandas as pd

#: Integer accumulators of a batch of games, by name; merged by elementwise addition.
Counts = dict[str, "np.ndarray"]


class Rules(Protocol):
    """What every game's rules object has (besides its own component data)."""

    source: str  # the file it was read from, or "<standard>/standard.toml"
    sha256: str  # of the file's bytes


class LazyTables(Mapping):
    """Tables by name, each built when first read and then kept (``builders``: name ->
    a function of no arguments returning the table). Iterating gives every name, in
    ``builders``' order, so ``dict(LazyTables(b))`` is every table, as if built at once."""

    def __init__(self, builders: dict[str, Callable[[], pd.DataFrame]]):
        self._builders, self._built = builders, {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._built:
            self._built[name] = self._builders[name]()
        return self._built[name]

    def __iter__(self):
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)


class Job(ABC):
    """A validated simulation of many independent games.

    Subclasses are dataclasses of plain data. ``chunk`` must be pure: the same job
    (its ``seed``) and ``(first_game, n_games)`` always give the same counts, and the counts of
    ``[a, b)`` plus those of ``[b, c)`` equal those of ``[a, c)``.
    """

    #: the :class:`Game` name (``"sheep-race"``, ...), written into every output's meta
    game: str = ""
    #: default games per chunk: a chunk should take about a second on one core
    chunk_games: int = 1 << 15
    #: ``precision`` is checked only after every ``block`` games (a fixed number, so the
    #: same command stops at the same count whatever the chunks, threads or workers)
    block: int = 20_000
    #: where a precision target gives up by default
    max_games: int = 10_000_000
    #: what shortens a long run of this job, for the driver's long-run notice (None: the
    #: run-size options every simulation command takes, ``--games`` or ``--precision``);
    #: a job whose commands take no ``--precision`` names what they do take
    shorten_hint: str | None = None
    #: the seed the job simulates, its one home: :meth:`chunk` and :meth:`outcomes` read
    #: it, the driver's result and the metadata record it (the driver takes no seed of its
    #: own); every game's jobs declare it as a field, a job that combines others
    #: (head-to-heads, ladders, variants) checks they share it
    seed: int | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # the convergence hook was called ``trace`` before 0.2: a job still defining it
        # would lose its convergence rows without a word, so it stops here
        if "trace" in cls.__dict__:
            raise TypeError(f"{cls.__qualname__}.trace: the convergence hook is now "
                            "Job.convergence(tables)")

    @abstractmethod
    def chunk(self, first_game: int, n_games: int) -> Counts:
        """Simulate games ``first_game .. first_game + n_games - 1`` of ``self.seed``."""

    @abstractmethod
    def tables(self, counts: Counts, games: int) -> dict[str, pd.DataFrame]:
        """The result tables (column names are public API) from merged counts."""

    def metric_tables(self, counts: Counts, games: int) -> Mapping[str, pd.DataFrame]:
        """The tables of :meth:`tables` for a reader of a few of them (a balance metric,
        :mod:`sheepsim.balance_metrics`, whose jackknife asks for them once per block); a
        job may build each only when it is read (:class:`LazyTables`)."""
        return self.tables(counts, games)

    @abstractmethod
    def meta(self) -> dict:
        """What identifies the simulation besides seed and games: rules file and hash,
        policies, options (JSON-able)."""

    def halfwidth(self, tables: dict[str, pd.DataFrame]) -> float:
        """The widest 95% half-width of the probabilities a precision target bounds."""
        from sheepsim.stats import max_probability_halfwidth

        return max_probability_halfwidth(tables)

    def convergence(self, tables: dict[str, pd.DataFrame]) -> list[dict]:
        """Quantities a precision run follows block by block: dicts of
        quantity/estimate/lo/hi (the driver's ``Result.trace``, the ``--plot`` convergence
        chart). Not ``trace``: that word is a game's turn log (``sheepsim <game> trace``)."""
        return []

    @staticmethod
    def seat_win_halfwidth(tables: dict[str, pd.DataFrame]) -> float:
        """For whole-game jobs whose ``by_seat`` table has ``win_rate_lo/_hi``: the widest
        half-width of a seat's win rate (what ``--precision`` bounds there)."""
        seats = tables["by_seat"]
        return float(((seats["win_rate_hi"] - seats["win_rate_lo"]) / 2).max())

    @staticmethod
    def seat_win_convergence(tables: dict[str, pd.DataFrame]) -> list[dict]:
        """The seats' win rates with their intervals, as :meth:`convergence` gives them."""
        s = tables["by_seat"]
        return [{"quantity": f"win_rate seat {k}", "estimate": w, "lo": lo, "hi": hi}
                for k, w, lo, hi in zip(s["seat"], s["win_rate"], s["win_rate_lo"],
                                        s["win_rate_hi"], strict=True)]

    def prepare(self) -> Counts | None:  # noqa: B027 - optional hook
        """Work to do once per process before the first chunk (compile, tables): the
        driver calls it before the progress bar starts; Dask workers call it too. A job
        that compiles by playing a warm-up game may return that game's counts (as
        :meth:`chunk` gives them): the driver checks them as it checks every chunk's."""

    @property
    def seats(self) -> int:
        """Whole-game jobs: the number of seats (head-to-heads check their seat)."""
        raise NotImplementedError(f"{type(self).__name__} plays no whole games")

    def outcomes(self, first_game: int, n_games: int):
        """Whole-game jobs, for head-to-heads (:mod:`sheepsim.headtohead`): per game the
        winning seat ``(n_games,)`` and every seat's score ``(n_games, seats)``."""
        raise NotImplementedError(f"{type(self).__name__} plays no whole games")

    def meta_common(self) -> dict:
        """The metadata every job of the game shares (rules file and its SHA-256)."""
        rules = getattr(self, "rules", None)
        return {"rules": rules.source, "rules_sha256": rules.sha256} if rules is not None else {}

    def check(self, counts: Counts, games: int) -> None:  # noqa: B027 - optional hook
        """Raise :class:`SheepsimError` if the counts show a broken rule (e.g. a user
        policy that returned an illegal choice)."""

    @staticmethod
    def check_choices(bad: int, policies) -> None:
        """For :meth:`check`: raise if a kernel counted ``bad`` answers out of range of
        the options offered (only a user policy gives one), naming the plug-ins among
        ``policies`` once each (all of ``policies`` if none is a plug-in)."""
        if bad:
            names = [n for n in policies if ":" in n] or list(policies)
            raise SheepsimError(f"policy {', '.join(dict.fromkeys(names))} returned an option "
                                f"index out of range {bad} times")

    def error_context(self, message: str) -> str:
        """Words added to the one-line error of a chunk that failed with ``message``: the
        plug-in policies in play that it does not name already (a kernel cannot name them;
        built-in policies never break a rule nor raise), so an exception raised inside a
        user policy, or an illegal choice, points at the policy."""
        try:
            meta = self.meta()
        except Exception:  # the error line matters more than the context
            return ""
        plugins = []
        for key, value in meta.items():
            if "polic" in key:
                for name in value if isinstance(value, list | tuple) else [value]:
                    for part in str(name).split(","):
                        if ":" in part and part not in plugins and part not in message:
                            plugins.append(part)
        return f"; plug-in policies in play: {', '.join(plugins)}" if plugins else ""

    def __getstate__(self):
        # Compiled kernels and other per-process caches (attributes starting with "_")
        # are rebuilt where the job is unpickled.
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


def shared_seed(jobs, what: str) -> int | None:
    """The one seed of ``jobs`` that a job combining them plays (``what`` names it); jobs
    with different seeds are refused (jobs without a seed, e.g. exact ones, are left out)."""
    seeds = {job.seed for job in jobs if getattr(job, "seed", None) is not None}
    if len(seeds) > 1:
        raise SheepsimError(f"{what} plays its games on one seed, got seeds {sorted(seeds)}")
    return next(iter(seeds), None)


@dataclass(frozen=True)
class Game:
    """One registered game.

    ``parts``, ``cli`` and ``studies`` are module paths imported only when needed (so the
    registry is cheap): ``parts`` declares what the shared commands ``play``,
    ``compare``, ``balance`` and ``trace`` need of this game (:mod:`sheepsim.commands`);
    ``cli`` (optional) defines ``register(subparsers)`` adding the game's own commands
    to ``sheepsim <command> ...``; ``studies`` registers report study types on import.
    ``load_rules`` is ``"module:function"``.

    ``min_players``/``max_players`` and ``policies`` (role -> built-in names) are the
    only source of these facts for the CLI, the Python API and the report, and so is
    ``default_policies`` for the default policy of every command.
    """

    name: str  # "sheep-race": the one spelling used in every output's meta
    command: str  # "race": the CLI command
    title: str
    min_players: int
    max_players: int
    policies: Mapping[str, tuple[str, ...]]  # role -> built-in names
    rules_loader: str
    parts: str
    cli: str | None = None
    studies: str | None = None
    #: the module declaring the game's balance metrics (:mod:`sheepsim.balance_metrics`): what
    #: ``metrics``, ``variants``, ``sweep`` and ``tune`` read
    metrics: str | None = None
    #: what ``--games`` counts in this game's words ("games", "rounds")
    unit: str = "games"
    default_players: int = 4
    #: ``sheepsim --help``'s line for the game and ``sheepsim <command> --help``'s text
    help: str = ""
    description: str = ""
    jobs: Mapping[str, str] = field(default_factory=dict)  # job kind -> "module:Class"
    #: a small whole-game set-up the conformance suite runs for every game: ``job`` the
    #: options of a cheap ``play`` job; ``cli`` the argv of a cheap ``play`` command;
    #: ``bad_policy`` argv naming an unknown policy; ``compare`` the options of a cheap
    #: head-to-head for the Python API (:func:`sheepsim.compare`)
    sample: Mapping[str, object] = field(default_factory=dict)
    #: a game played by the shared harness (:mod:`sheepsim.harness`): the module of its
    #: state machine; its jobs are the harness's and are told which game they play
    machine: str | None = None
    #: the skill ladder (:mod:`sheepsim.skill_ladder`): policies from ``random`` up to the
    #: strongest, each as ``compare``'s ``--a`` names it; empty: no ``ladder`` command
    ladder: tuple[str, ...] = ()
    #: ``sheepsim cache warm``'s runs besides the shared commands': ``(command, options)``
    #: of the game's own commands whose kernels those do not compile (tiny options)
    warm: tuple[tuple[str, Mapping[str, object]], ...] = ()
    #: the default line-up: role -> the built-in policy every seat plays when a command is
    #: not told otherwise (``play``, ``balance``, ``trace``, ``compare``'s field, the
    #: designers' commands...): one per game, declared here only. A role left out plays
    #: its first listed name. See :attr:`policy_defaults`.
    default_policies: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        for role, name in self.default_policies.items():
            if name not in self.policies.get(role, ()):
                raise ValueError(f"{self.title}: default policy {name!r} of role {role!r} is "
                                 f"not one of its built-in policies")

    @property
    def policy_defaults(self) -> dict[str, str]:
        """Role -> the default policy of every seat (:attr:`default_policies`, else the
        role's first listed name), in the order of :attr:`policies`."""
        return {role: self.default_policies.get(role, names[0])
                for role, names in self.policies.items()}

    def load_rules(self, path=None):
        """The game's rules from a TOML file, or the shipped standard rules (None)."""
        return _load(self.rules_loader)(path)

    @property
    def players_text(self) -> str:
        """``"3 or 4"``, ``"3 to 6"``: the player counts in words."""
        lo, hi = self.min_players, self.max_players
        return str(lo) if lo == hi else f"{lo} or {hi}" if hi == lo + 1 else f"{lo} to {hi}"

    @property
    def player_counts(self) -> tuple[int, ...]:
        """Every player count the game takes, ``min_players .. max_players``."""
        return tuple(range(self.min_players, self.max_players + 1))

    def players_listed(self, last: str = "and") -> str:
        """The player counts one by one: ``"3, 4, 5 and 6"``, ``"3 or 4"`` (``last="or"``)."""
        *head, tail = map(str, self.player_counts)
        return f"{', '.join(head)} {last} {tail}" if head else tail

    def players_problem(self, players) -> str | None:
        """What is wrong with ``players`` as a player count of this game (None: nothing):
        the one rule the CLI's ``--players``, the Python API and the report apply."""
        if isinstance(players, bool) or not hasattr(players, "__index__") \
                or not self.min_players <= players <= self.max_players:
            return f"players must be {self.players_text}, got {players!r}"
        return None

    def check_players(self, players) -> int:
        """``players`` as an int, or one line saying the game's range."""
        problem = self.players_problem(players)
        if problem:
            raise SheepsimError(f"{self.title}: {problem}")
        return int(players)

    def check_rules(self, rules, players=None):
        """``rules`` if they can be played by ``players`` (a count, counts, or None: every
        count the game takes), else one line naming the key and the count. A game whose
        rules have parts for one player count only (Aw, Sheep!'s ``setup.N``) checks them
        in ``rules.check_players(n)``; its loader validates the rest."""
        check = getattr(rules, "check_players", None)
        if check is not None:
            counts = self.player_counts if players is None else (
                [players] if hasattr(players, "__index__") else list(players))
            for n in counts:
                check(n)
        return rules

    def job(self, kind: str, **options) -> Job:
        """Build (and validate) a job of ``kind`` (one of :attr:`jobs`)."""
        if kind not in self.jobs:
            raise SheepsimError(f"{self.title} has no {kind!r} simulation; it has: "
                                f"{', '.join(self.jobs)}")
        if self.machine:
            options = {"game": self.name, **options}
        return _load(self.jobs[kind])(**options)

    def register_studies(self) -> None:
        if self.studies:
            importlib.import_module(self.studies)


def _load(spec: str) -> Callable:
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


#: the entry-point group through which an installed package adds a game: each entry
#: names a :class:`Game` (``"my_game.game:GAME"``)
ENTRY_POINT_GROUP = "sheepsim.games"


def games() -> list[Game]:
    """Every game: the built-in registry's, in its order, then those installed packages
    declare in the ``sheepsim.games`` entry-point group, by name."""
    from sheepsim.games import REGISTRY

    return [importlib.import_module(path).GAME for path in REGISTRY] + list(_installed_games())


@functools.cache
def _installed_games() -> tuple[Game, ...]:
    """The games of the ``sheepsim.games`` entry points (read once per process); one
    line naming the entry point when one cannot be loaded or is not a :class:`Game`."""
    from importlib.metadata import entry_points

    out: dict[str, Game] = {}
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            g = ep.load()
        except Exception as exc:
            raise SheepsimError(f"the installed game {ep.name!r} ({ep.value}) cannot be loaded: "
                                f"{type(exc).__name__}: {exc}") from None
        if not isinstance(g, Game):
            raise SheepsimError(f"the installed game {ep.name!r} ({ep.value}) is not a "
                                f"sheepsim.game.Game")
        out.setdefault(g.name, g)
    return tuple(out.values())


def get(name: str) -> Game:
    """The game called ``name`` (its name or its CLI command)."""
    for g in games():
        if name in (g.name, g.command):
            return g
    raise SheepsimError(f"unknown game {name!r}; known: {', '.join(g.name for g in games())}")
