"""One Python path for every game: ``play``, ``compare``, ``balance`` and ``trace``.

Each function runs the same command as ``sheepsim <game> <command>`` does, through the
same code (the command's typed options, :class:`sheepsim.options.Options`, are built from
the keywords with the checks of the CLI's own declaration; the command's function runs on
them and builds its tables), and returns a :class:`Result` instead of printing::

    import sheepsim

    res = sheepsim.play("aw-sheep", players=5, policy="counter", games=20_000, seed=1)
    res.tables["by_seat"]          # the table `sheepsim awsheep play --table by_seat` prints
    res.meta["rules_sha256"]       # what the CLI writes to FILE.meta.json

``game`` is the registry name or the CLI command (``"sheep-race"`` or ``"race"``,
``"shear-panic"`` or ``"panic"``, ``"aw-sheep"`` or ``"awsheep"``). Options are the
CLI's, with ``_`` for ``-`` (``bet_policy=`` for ``--bet-policy``), and so are their
defaults (100,000 games where the CLI says so). A list or tuple is joined with commas
(``policy=["greedy", "random", "greedy"]``; an ``@numba.njit`` policy stands for its
``module:function``), except for a repeatable option (``set=[...]``: one value each);
``True`` turns a flag on, ``False`` turns an on/off option off (``draft=False``).
Options that only say where and how to print (``out``, ``format``, ``table``, ``plot``,
``all_columns``) are refused: the result holds every table, and :mod:`sheepsim.plots`
draws them. A bad option or value raises :class:`~sheepsim.errors.SheepsimError` (a bad
value its :class:`~sheepsim.options.ArgumentsError`) with the CLI's one-line message.

Game-specific functions (the race's exact odds, EV and pace advice; the Shear Panic flock
model) stay in their game packages under their own names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sheepsim.errors import SheepsimError

if TYPE_CHECKING:  # pandas loads with the first simulation, not with ``import sheepsim``
    import pandas as pd

__all__ = ["Result", "balance", "compare", "ladder", "metrics", "play", "sweep", "trace", "tune",
           "variants"]

#: CLI options that say where and how to print; a :class:`Result` has every table instead
PRINT_OPTIONS = ("out", "format", "table", "plot", "all_columns")


@dataclass
class Result:
    """What a command produced.

    ``tables``: every table of the command by the names ``--table`` takes (pandas
    DataFrames; column names are public API); ``meta``: the metadata the CLI writes to
    ``FILE.meta.json`` (seed, games, rules file and SHA-256, policies, versions);
    ``title``: the heading the CLI prints. A trace's ``lines`` hold its text and
    ``outcome`` what ``--format json`` adds (winner, scores, ...); its tables (the
    policies' ``decisions``) are what its ``--table`` prints instead."""

    tables: dict[str, pd.DataFrame]
    meta: dict
    title: str = ""
    lines: list[str] = field(default_factory=list)
    outcome: dict = field(default_factory=dict)

    def text(self, fmt: str = "table") -> str:
        """The result as the CLI prints it: ``"table"`` (every table), ``"json"``, or
        ``"csv"`` (the first table); a trace's text for a trace."""
        from sheepsim.output import render, to_json

        if self.lines or not self.tables:  # a trace: its text, as the CLI prints it
            if fmt == "json":
                return to_json({"meta": self.meta, "lines": self.lines, **self.outcome})
            return "\n".join(self.lines) + "\n"
        return render(self.tables, fmt, self.meta, self.title)

    def __repr__(self) -> str:
        what = f"tables={list(self.tables)}" if self.tables and not self.lines \
            else f"lines={len(self.lines)}"
        return (f"Result({self.meta.get('game', '?')}, {what}, games={self.meta.get('games')}, "
                f"seed={self.meta.get('seed')})")


def play(game: str, /, **options) -> Result:
    """Many games with the given policies (``sheepsim <game> play``): win rates by seat
    and policy with 95% intervals, and the game's own tables (scores, turns, ties...).

    Options as the CLI's (``sheepsim <game> play --help``): ``players``, the game's
    policy options (``policy``; the race: ``bet_policy``, ``pace_policy``), ``games``,
    ``seed``, ``rules``, ``threads``, ``workers``/``scheduler`` and the game's own."""
    return _run(game, "play", options)


def compare(game: str, /, a: str | None = None, b: str | None = None, **options) -> Result:
    """Head-to-head on common random numbers (``sheepsim <game> compare``): seat ``seat``
    plays ``a``, then ``b``, in the same games while the others play ``field``; table
    ``comparison`` (both win rates and mean scores, the paired difference, p-values)."""
    if a is not None:
        options["a"] = a
    if b is not None:
        options["b"] = b
    return _run(game, "compare", options)


def balance(game: str, /, **options) -> Result:
    """The game's balance tables (``sheepsim <game> balance``)."""
    return _run(game, "balance", options)


def trace(game: str, /, seed: int = 0, **options) -> Result:
    """One game of ``seed`` turn by turn (``sheepsim <game> trace``): ``Result.lines``
    is the text, ``Result.outcome`` the result (winner, scores...), ``Result.tables``
    the ``decisions`` table. ``game=G`` (an option after the game's name, which is
    positional only) picks the seed's game ``G`` (``--game``; default 0)."""
    return _run(game, "trace", {"seed": seed, **options})


def ladder(game: str, /, **options) -> Result:
    """The game's skill ladder (``sheepsim <game> ladder``): each rung of play against the
    rung below on common random numbers, and the top against the bottom
    (``skill_gradient``). ``rungs`` overrides the game's (a list, or ``;``-separated).
    Table ``ladder``."""
    if isinstance(options.get("rungs"), list | tuple):
        options["rungs"] = ";".join(options["rungs"])
    return _run(game, "ladder", options)


def metrics(game: str, /) -> Result:
    """The game's balance metrics (``sheepsim <game> metrics``): table ``metrics`` with
    each one's meaning, unit, which way is better and the games it is measured on."""
    return _run(game, "metrics", {})


def variants(game: str, /, files=(), set=(), **options) -> Result:  # noqa: A002 - the CLI's --set
    """Rules variants side by side on the same games (``sheepsim <game> variants``):
    ``files`` rules files (the first is the base; none: the standard rules), ``set`` a
    list of edits of the base, one variant each (``"race.payoffs.bonus_three=2"``; several
    edits of one variant joined by ``;``). Tables ``metrics`` and ``differences``."""
    if isinstance(set, str):
        set = [set]  # noqa: A001 - one variant
    if isinstance(files, str):
        files = [files]
    return _run(game, "variants", {"set": list(set), **options}, positional=list(files))


def sweep(game: str, /, set=(), **options) -> Result:  # noqa: A002 - the CLI's --set
    """A grid over one or two rules keys (``sheepsim <game> sweep``): ``set`` one or two
    ``"KEY=V1,V2,..."``. Tables ``sweep``, ``metrics``, ``differences``."""
    if isinstance(set, str):
        set = [set]  # noqa: A001
    return _run(game, "sweep", {"set": list(set), **options})


def tune(game: str, /, vary=(), target=(), budget: int | None = None, **options) -> Result:
    """A balance search (``sheepsim <game> tune``): ``vary`` ``"KEY=LO..HI[:STEP]"``
    ranges, ``target`` ``"METRIC=VALUE|min|max"`` goals, ``budget`` games in all;
    ``subject_to`` ``"METRIC<=X"``/``"METRIC>=X"`` bounds, ``confirm_games`` the fresh
    games the winner and the base each play to confirm it; ``out_rules=FILE`` writes the
    best variant, only if the confirmation backs it (``meta["out_rules_written"]`` says
    whether; ``meta["verdict"]`` why). Tables ``best`` (search-time), ``confirm`` and
    ``trials``."""
    if isinstance(options.get("subject_to"), str):
        options["subject_to"] = [options["subject_to"]]
    if isinstance(vary, str):
        vary = [vary]
    if isinstance(target, str):
        target = [target]
    return _run(game, "tune", {"vary": list(vary), "target": list(target), "budget": budget, **options})


def _run(game: str, /, command: str, options: dict, positional: list | None = None) -> Result:
    """Run ``sheepsim <game> <command>`` on ``options``: the command's typed options are
    built from the keywords (:func:`sheepsim.options.options_from_keywords`, the CLI's
    checks and messages), then its function runs on them with its result collected
    instead of printed."""
    from sheepsim.cli import build_parser
    from sheepsim.game import get
    from sheepsim.options import options_from_keywords, running, subcommand_parser

    g = get(game)
    sub = subcommand_parser(build_parser([g.command, command]), g.command, command)
    if sub is None:
        raise SheepsimError(f"{g.title} has no {command!r} command")
    where = f"sheepsim.{command}({g.name!r})"
    for key in options:
        if key in PRINT_OPTIONS:
            raise SheepsimError(f"{where}: {key}= is a command-line option; the result holds "
                                f"every table (Result.tables) and sheepsim.plots draws them")
    opts = options_from_keywords(sub, where, options, positional or (), hidden=PRINT_OPTIONS)
    if options.get("quiet") is None and hasattr(opts, "quiet"):
        opts = opts.replace(quiet=None)  # not said: only a long run's estimate, on a terminal
    sink: dict = {}
    with running(sink=sink):
        opts.func(opts)
    return Result(tables=sink.get("tables", {}), meta=sink["meta"], title=sink.get("title", ""),
                  lines=sink.get("lines", []), outcome=sink.get("outcome", {}))
