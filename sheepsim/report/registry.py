"""The study registry: what a report can contain.

A *study* is one simulation (a chunked, checkpointed job of integer accumulators) plus
the tables and charts drawn from its totals. Each study type is a subclass of
:class:`Study` registered under its config name with :func:`register_study`:

* ``load_rules(path)`` loads and validates the game's rules file;
* ``parse_params(reader, rules)`` reads and validates the study's own config keys
  (strictly, before anything runs) and returns them normalised (plain JSON); they
  identify the result, so they go into the studies digest and the manifest;
* ``job()`` the game's :class:`sheepsim.game.Job` the driver runs (see :mod:`.execute`);
* ``results(counts, games)`` the named DataFrames, chart builders (figures) and notes.

Study types live in each game's ``studies`` module (``sheepsim/games/<game>/studies.py``),
and the designers' studies of every game (``variants``, ``sweep``, ``tune``) in
:mod:`sheepsim.report.designer_studies`; importing :mod:`sheepsim.report.studies` fills
the registry.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from sheepsim.report.reader import StudyReader

if TYPE_CHECKING:  # annotations only: listing the study types (report --help) stays light
    import numpy as np
    import pandas as pd

STUDY_TYPES: dict[str, type[Study]] = {}


def register_study(cls: type[Study]) -> type[Study]:
    """Class decorator: make ``cls`` available as ``type = "<cls.type_name>"``."""
    if cls.type_name in STUDY_TYPES:
        raise RuntimeError(f"study type {cls.type_name!r} registered twice")
    STUDY_TYPES[cls.type_name] = cls
    return cls


def study_game(r: StudyReader, known, *, note: str = ""):
    """The game a study type written once for every game studies: its ``game`` key (a
    CLI command or a registry name) among the games ``known``; one line naming the key
    if it is missing or names another game (``note`` says which games are known)."""
    choices = ", ".join(g.command for g in known)
    if "game" not in r.table:
        r.fail("game", f"missing: the game to study, one of {choices}")
    name = r.str_("game")
    g = next((g for g in known if name in (g.command, g.name)), None)
    if g is None:
        r.fail("game", f"unknown game {name!r}{note}; give one of {choices}")
    return g


_BOUND: dict[tuple, type] = {}


def bind(cls: type, g, **attrs) -> type:
    """``cls`` bound to the game ``g``: its subclass ``cls[command]`` with ``game``,
    ``game_entry`` and ``attrs`` set, made once per class, game and attributes (what
    ``for_config`` of a study type written once for every game returns)."""
    key = (cls, g.name, tuple(sorted(attrs.items())))
    if key not in _BOUND:
        _BOUND[key] = type(f"{cls.__name__}[{g.command}]", (cls,),
                           {"game": g.name, "game_entry": g, **attrs, "__module__": cls.__module__})
    return _BOUND[key]


@dataclass(frozen=True)
class Sampling:
    """How many games: a fixed count, or a precision target checked every ``block`` games
    up to ``max_games`` (stopping only at multiples of ``block``, so reproducible)."""

    games: int | None = None
    precision: float | None = None
    max_games: int | None = None
    block: int | None = None

    @property
    def sized(self) -> bool:
        """False for a study solved exactly: no games, nothing to sample."""
        return self.games is not None or self.precision is not None

    def as_dict(self) -> dict:
        if not self.sized:
            return {}
        if self.games is not None:
            return {"games": self.games}
        return {"precision": self.precision, "max_games": self.max_games, "block": self.block}


@dataclass
class StudyResult:
    """What a study shows: tables and charts (names become file names) and notes
    (one-line findings for the report text)."""

    tables: dict[str, pd.DataFrame]
    #: name -> a function of no arguments returning the matplotlib Figure, called only
    #: when charts are written (a CSV-only run never draws them)
    figures: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    captions: dict[str, str] = field(default_factory=dict)  # table/figure name -> caption
    #: the notes that go into the report's "Key findings" (None: the first two notes)
    key_findings: list[str] | None = None
    #: per table, the columns a reader needs (the page shows these; the CSV has all);
    #: a column ``x`` brings its interval ``x_lo``/``x_hi`` along
    columns: dict[str, list[str]] = field(default_factory=dict)
    #: per table, columns the page never leaves out, even when the table is wider than
    #: the page (besides these, any column whose name the table's caption or the
    #: study's notes quote stays, see :func:`sheepsim.report.render.quoted_columns`)
    must_show: dict[str, list[str]] = field(default_factory=dict)
    #: how the numbers were made (which odds a policy reads, the flagging rule...): the
    #: page's Methods note, said once for the report, never among the key findings
    methods: list[str] = field(default_factory=list)
    #: per table, the rows the page shows (a summary, first rows of the table as
    #: ordered); the page says how many there are and links the full CSV
    page_rows: dict[str, int] = field(default_factory=dict)
    #: tables the page leaves out (they say nothing a reader needs there, e.g. a
    #: one-row by-policy table when every seat plays one policy); the CSV is written
    page_omit: list[str] = field(default_factory=list)


class Study(ABC):
    """Base class: common keys (``type``, ``name``, ``title``, ``seed``, ``games`` or
    ``precision``/``max_games``/``block``, ``rules``) are read by :mod:`.config`; a
    subclass reads its own keys in :meth:`parse_params`."""

    type_name: ClassVar[str] = ""
    game: ClassVar[str] = ""  # "sheep-race" or "shear-panic"
    summary: ClassVar[str] = ""  # one line for `--help` and the report
    default_block: ClassVar[int] = 100_000
    default_chunk: ClassVar[int] = 1 << 17
    #: a study type that may be solved exactly instead of simulated: its config may leave
    #: out the game count, and its ``params()["method"]`` says which (``"exact"`` or
    #: ``"mc"``); an exact study implements :meth:`solve`
    solvable: ClassVar[bool] = False
    #: a study that plays its own games in one go, deciding as it goes what to play (a
    #: balance search): its config has no game count, nothing is checkpointed (a resumed
    #: report runs it again, to the same numbers), and :meth:`run` does the work
    direct: ClassVar[bool] = False

    def __init__(self, name: str, title: str, seed: int, sampling: Sampling, rules, params: dict):
        self.name = name
        self.title = title
        self.seed = seed
        self.sampling = sampling
        self.rules = rules
        self._params = params

    # -- config ------------------------------------------------------------------
    @classmethod
    def for_config(cls, r: StudyReader) -> type[Study]:
        """The class that reads this study's table: ``cls`` itself, or for a study type
        written once for every game, its class bound to the game the table names (read
        before the rules file, which belongs to that game)."""
        return cls

    @classmethod
    @abstractmethod
    def load_rules(cls, path: Path | None):
        """Load and validate this game's rules file (``None``: the shipped rules)."""

    @classmethod
    @abstractmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        """Read and validate the study's own keys; return them normalised (JSON-able)."""

    def params(self) -> dict:
        return dict(self._params)

    def _cached_job(self, build):
        """The study's job, built once (validation and kernel look-up happen there)."""
        if getattr(self, "_job", None) is None:
            job = build()
            job.chunk_games = self.default_chunk
            self._job = job
        return self._job

    def rules_label(self) -> str:
        """How the report names the rules file: its path, or for the shipped rules the
        game they belong to (every game's shipped file is called ``standard.toml``)."""
        source = self.rules.source
        if source.startswith("<standard>/"):
            return f"{source.removeprefix('<standard>/')} (shipped {self.game} rules)"
        return source

    def identity(self) -> dict:
        """Everything that determines this study's numbers (hashed for resume checks)."""
        return {
            "type": self.type_name,
            "name": self.name,
            "seed": None if self.exact else self.seed,  # an exact study draws nothing
            "sampling": self.sampling.as_dict(),
            "rules_sha256": self.rules.sha256,
            "params": self.params(),
        }

    def describe(self) -> dict:
        """Manifest entry (identity plus the rules file's display name)."""
        d = self.identity()
        d["title"] = self.title
        d["game"] = self.game
        d["rules"] = self.rules_label()
        return d

    # -- running -------------------------------------------------------------------
    @property
    def exact(self) -> bool:
        """Solved exactly (nothing simulated: :meth:`solve`, then :meth:`results` with no
        counts) rather than simulated by :meth:`job`."""
        return self._params.get("method") == "exact"

    def solve(self) -> None:
        """An exact study's computation (called once before :meth:`results`)."""
        raise NotImplementedError(f"{self.type_name} is not solved exactly")

    def run(self, backend, progress: bool) -> int:
        """A :attr:`direct` study's work on ``backend``; returns the games played (called
        once before :meth:`results`, which then gets no counts)."""
        raise NotImplementedError(f"{self.type_name} is not run directly")

    @abstractmethod
    def job(self):
        """The game contract's :class:`~sheepsim.game.Job` to run (built after validation)."""

    @abstractmethod
    def results(self, counts: dict[str, np.ndarray] | None, games: int) -> StudyResult:
        """Tables and charts from the merged counts of ``games`` games (an exact study:
        ``None`` and 0, its numbers come from :meth:`solve`)."""
