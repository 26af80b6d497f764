"""The command line's shared parts, below every command: the parser class whose errors
are one line and exit 2 (or raise :class:`ArgumentsError` for the Python API), parsers of
counts and numbers, the options every command shares (run size, backend, output), the
backend they name, and the last step of every command (:func:`publish`, :func:`emit_trace`);
and the typed options every command runs on (:class:`Options`: one frozen dataclass per
command, built from its declared options by the command line, :meth:`_Parser.parse_args`,
and by the Python API, :func:`options_from_keywords`, with the same checks and messages),
with the context a command runs in (:func:`running`: its backend, the API's sink).

:mod:`sheepsim.cli` (the ``sheepsim`` program: its parser and ``main``) sits on top of
the commands (:mod:`sheepsim.commands`, :mod:`sheepsim.designer`, the games' own), which
sit on this module; nothing here imports a command.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import dataclasses
import sys
from typing import Any

from sheepsim.errors import SheepsimError

EXIT_USAGE = 2
#: ``tune --out-rules FILE`` when no candidate beat the base rules: the tables are printed
#: as usual, the file is not written, and the command exits with this status
EXIT_NO_WINNER = 3


#: set by :func:`parse_raising`: parse errors raise :class:`SheepsimError` (the Python API)
_RAISE_ERRORS: contextvars.ContextVar[bool] = contextvars.ContextVar("raise_errors", default=False)


class ArgumentsError(SheepsimError):
    """A bad option or value, raised instead of printed under :func:`parse_raising`:
    ``message`` is what the CLI prints after ``error:``, ``prog`` the command."""

    def __init__(self, prog: str, message: str):
        super().__init__(f"{prog}: {message}")
        self.prog, self.message = prog, message


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``sheepsim race odds: error: ...``) and exit 2, and
    an ``epilog`` that may be a function: it is called only when the help is printed (so
    building the parser for another command does not import what the help lists)."""

    def error(self, message):  # noqa: D102 - argparse API
        if _RAISE_ERRORS.get():
            raise ArgumentsError(self.prog, message)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)

    def _check_value(self, action, value):  # argparse API: a value among the choices
        games = getattr(self, "_games", None)  # set on ``sheepsim`` itself: its games
        if games is None or not isinstance(action, argparse._SubParsersAction) \
                or value in action.choices:
            return super()._check_value(action, value)
        import difflib

        near = difflib.get_close_matches(str(value), list(action.choices), n=1, cutoff=0.8)
        what = "" if not near else "the game " if near[0] in games else "the command "
        hint = f"; did you mean {what}{near[0]!r}?" if near else ""
        raise argparse.ArgumentError(action, f"unknown game {value!r} (choose from "
                                             f"{', '.join(map(repr, games))}){hint}")

    def parse_known_args(self, args=None, namespace=None):  # noqa: D102 - argparse API
        namespace, rest = super().parse_known_args(args, namespace)
        # the deepest parser (the command's) parses first: its name survives the copy
        # of its values into its parents' namespace
        if "_command_parser" not in vars(namespace):
            namespace._command_parser = self
        return namespace, rest

    def parse_args(self, args=None, namespace=None) -> Options:
        """The command line as the named command's typed :class:`Options` (never an
        argparse namespace)."""
        namespace = super().parse_args(args, namespace)
        return options_of(namespace._command_parser, namespace)

    def format_help(self):  # noqa: D102 - argparse API
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


def parse_raising(parser: argparse.ArgumentParser, argv: list[str]) -> Options:
    """``parser.parse_args(argv)``, a bad option or value raising :class:`ArgumentsError`
    with the CLI's message instead of printing it and exiting (the Python API and the
    ``serve`` API). A context variable, so other threads' parsers are unaffected."""
    token = _RAISE_ERRORS.set(True)
    try:
        return parser.parse_args(argv)
    finally:
        _RAISE_ERRORS.reset(token)


def subcommand_parser(parser: argparse.ArgumentParser, *path: str) -> argparse.ArgumentParser | None:
    """The parser of ``sheepsim <path...>`` (e.g. ``("race", "play")``), or None."""
    for name in path:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or name not in subs[0].choices:
            return None
        parser = subs[0].choices[name]
    return parser


def whole_number(text: str) -> int:
    """``1000000``, ``1_000_000``, ``1e6`` or ``1M`` as an exact int (Decimal: ``1e400``
    is a large number, not a float overflow)."""
    from decimal import Decimal, InvalidOperation

    raw = text.strip().replace("_", "").replace(",", "")
    scale = 1
    if raw[-1:].lower() in ("k", "m"):
        scale = 1_000 if raw[-1].lower() == "k" else 1_000_000
        raw = raw[:-1]
    try:
        value = Decimal(raw) * scale
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not value.is_finite() or value != value.to_integral_value() or value.adjusted() > 4000:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    return int(value)


def positive_int(text: str) -> int:
    """Parse ``1000000``, ``1_000_000``, ``1e6`` or ``1M`` as a whole number >= 1."""
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    return value


def game_count(text: str) -> int:
    """``--games``/``--max-games``: a whole number under the one game-count rule
    (:func:`sheepsim.driver.games_problem`, shared with report configs and the API)."""
    from sheepsim.driver import games_problem

    value = whole_number(text)
    problem = games_problem(value, "the number of games")
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def non_negative_int(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text!r}")
    return value


def add_run_options(p: argparse.ArgumentParser, *, games: int, rules: bool = True) -> None:
    """Options every simulation command shares."""
    if rules:
        p.add_argument("--rules", metavar="FILE",
                       help="rules TOML file (default: the shipped standard rules)")
    p.add_argument("--games", type=game_count, default=games, metavar="N",
                   help=f"number of games/races to simulate (default {games:,})")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S", help="random seed (default 0)")
    add_backend_options(p)
    add_output_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def add_backend_options(p: argparse.ArgumentParser) -> None:
    """Where the games run: ``--threads K`` here, or on Dask (``--scheduler ADDRESS`` |
    ``--workers N``). Results never depend on it."""
    p.add_argument("--threads", type=positive_int, default=None, metavar="K",
                   help="threads (default: all cores); with --workers: threads per worker; "
                        "results do not depend on it")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on the Dask cluster whose scheduler is at ADDRESS "
                            "(e.g. tcp://10.0.0.5:8786); needs sheepsim[dask]")
    where.add_argument("--workers", type=positive_int, default=None, metavar="N",
                       help="run on a local Dask cluster of N worker processes; needs sheepsim[dask]")
    p.add_argument("--worker-timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="with --scheduler/--workers: how long a run waits when the cluster has no "
                        "worker left before it stops with an error (default 60)")


def backend_from_args(args):
    """The backend the options name, made once per command run (:func:`running`, which
    closes it): a :class:`~sheepsim.driver.ThreadBackend`, or a
    :class:`~sheepsim.dask_backend.DaskBackend` for ``--scheduler``/``--workers``; the
    run's own if it was given one (a report's, left open for its next study)."""
    state = _RUN.get()
    if state is None:
        raise RuntimeError("backend_from_args needs a command's run: call it inside "
                           "sheepsim.options.running()")
    if state.backend is None:
        state.backend = make_backend(threads=getattr(args, "threads", None),
                                     scheduler=getattr(args, "scheduler", None),
                                     workers=getattr(args, "workers", None),
                                     worker_timeout=getattr(args, "worker_timeout", None))
        state.owned = True
    return state.backend


def make_backend(*, threads: int | None = None, scheduler: str | None = None,
                 workers: int | None = None, worker_timeout: float | None = None):
    """A backend from the run options (CLI or a report's ``[run]`` table)."""
    if scheduler is not None and workers is not None:
        raise SheepsimError("give --scheduler or --workers, not both")
    if worker_timeout is not None and scheduler is None and workers is None:
        raise SheepsimError("--worker-timeout applies to Dask runs (--scheduler or --workers)")
    dask_options = {} if worker_timeout is None else {"worker_timeout": worker_timeout}
    if scheduler is not None:
        if threads is not None:
            raise SheepsimError("--threads sets local threads; with --scheduler the workers' own "
                                "thread counts apply (dask worker --nthreads)")
        from sheepsim.dask_backend import DaskBackend

        return DaskBackend(scheduler=scheduler, **dask_options)
    if workers is not None:
        from sheepsim.dask_backend import DaskBackend

        return DaskBackend(workers=workers, threads_per_worker=threads or 1, **dask_options)
    from sheepsim.driver import ThreadBackend

    return ThreadBackend(threads)


def close_backend(backend) -> None:
    """Shut down what a backend started (a Dask client and local cluster); threads: nothing."""
    close = getattr(backend, "close", None)
    if close is not None:
        close()


def add_output_options(p: argparse.ArgumentParser, *, tables: bool = True) -> None:
    """``--format --out`` (and ``--all-columns`` for commands that print tables). A
    command that prints text (a trace without tables) takes table or json: ``main``
    refuses csv, also when ``--out`` ends in ``.csv``, before anything runs."""
    formats = ("table", "csv", "json") if tables else ("table", "json")
    p.add_argument("--format", choices=formats, default=None,
                   help=f"{' or '.join(formats)} (table by default); with --out FILE "
                        f"ending in {' or '.join('.' + f for f in formats[1:])}, that format")
    p.add_argument("--out", metavar="FILE", help="write here (plus FILE.meta.json) instead of stdout")
    p.set_defaults(formats=formats)
    if tables:
        p.add_argument("--all-columns", action="store_true",
                       help="table format: every column (default: the columns a reader needs, "
                            "intervals as 'x [lo, hi]', within 120 characters; csv and json "
                            "always have every column)")


def add_trace_options(p: argparse.ArgumentParser, tables: tuple[str, ...] = ()) -> None:
    """A trace's output options, the same in every game: ``--format table|json`` (a
    trace is text), ``--out FILE`` and ``--quiet`` (no compile notice). A trace with
    ``tables`` (``--table decisions``) also writes csv, of one of them: its text cannot
    be csv (:func:`check_trace_format` refuses it in one line before anything runs)."""
    if not tables:
        add_output_options(p, tables=False)
    else:
        formats = ("table", "csv", "json")
        p.add_argument("--format", choices=formats, default=None,
                       help="table or json (table by default), or with --table csv; with "
                            "--out FILE ending in .csv or .json, that format")
        p.add_argument("--out", metavar="FILE",
                       help="write here (plus FILE.meta.json) instead of stdout")
        p.set_defaults(formats=formats)
    p.add_argument("--quiet", action="store_true",
                   help="no 'compiling kernels' notice on the first run")


def check_trace_format(args, tables: tuple[str, ...]) -> None:
    """csv of a trace is one of its ``tables`` (``--table``): its turn-by-turn text has
    no columns. One line, before the game is played."""
    if args.format != "csv" or getattr(args, "table", None):
        return
    asked = f"--out {args.out}" if args.out else "--format csv"
    how = (f"add --table {' or --table '.join(tables)} for that table in csv, or "
           if tables else "")
    raise SheepsimError(f"{asked}: a trace's turn-by-turn text has no columns to write as "
                        f"csv; {how}use --format json (its lines) or table")


def publish(args, tables: dict, meta: dict, title: str, plot=None, *,
            every_csv_table: bool = False) -> int:
    """The last step of every table command: print or write the tables ``--table``
    picks in ``--format`` to stdout or ``--out`` (plus ``FILE.meta.json``), then call
    ``plot()`` if ``--plot`` was given (so plain runs never import matplotlib).

    ``every_csv_table`` (the designers' commands): CSV of several tables with ``--out``
    and no ``--table`` writes every table, one file each (:func:`sheepsim.output.table_files`),
    and says on stderr which file holds which; CSV of several tables to stdout (one
    table only) says on stderr which it printed and how to get the others.

    When the command runs for the Python API (:mod:`sheepsim.api`), the run's ``sink``
    (:func:`running`) is a dict: the whole result (every table, the metadata, the title)
    goes there instead and nothing is printed, written or drawn, so the API and the CLI
    share one code path."""
    sink = result_sink()
    if sink is not None:
        sink.update(tables=dict(tables), meta=meta, title=title)
        return 0
    from sheepsim.output import emit, is_stream, render, table_files

    chosen = select_table(tables, args)
    if every_csv_table and args.format == "csv" and len(chosen) > 1:
        names = list(chosen)
        if args.out is not None and not is_stream(args.out):
            files = table_files(args.out, names)
            for name, path in files.items():
                emit(render({name: chosen[name]}, "csv", meta, title), path,
                     {**meta, "table": name, "table_files": files})
            _note("wrote " + ", ".join(f"table {n} to {f}" for n, f in files.items()))
        else:
            emit(render(chosen, "csv", meta, title), args.out, meta)
            _note(f"CSV holds one table: this is {names[0]}; --table "
                  f"{' or --table '.join(names[1:])} prints the other{'s' if len(names) > 2 else ''}, "
                  "--format json all of them, and --out FILE.csv writes each to its own file")
    else:
        emit(render(chosen, args.format, meta, title), args.out, meta)
    if plot is not None and getattr(args, "plot", None):
        plot()
    return 0


def _note(text: str) -> None:
    sys.stderr.write(f"sheepsim: {text}\n")
    sys.stderr.flush()


def emit_trace(args, lines: list[str], meta: dict, **result) -> None:
    """Write a trace to stdout or ``--out`` (plus its metadata file): its ``lines`` as
    text, or with ``--format json`` ``{"meta", "lines", **result}``. With a sink (the
    Python API, as in :func:`publish`) they go there instead."""
    sink = result_sink()
    if sink is not None:
        sink.update(lines=list(lines), meta=meta, outcome=result)
        return
    from sheepsim.output import emit, to_json

    if args.format == "json":
        text = to_json({"meta": meta, "lines": lines, **result})
    else:
        text = "\n".join(lines) + "\n"
    emit(text, args.out, meta)


def add_table_option(p: argparse.ArgumentParser, tables) -> None:
    """``--table NAME``: print only one of the command's ``tables`` (CSV prints one table,
    the first unless this picks another)."""
    p.add_argument("--table", choices=tuple(tables), metavar="NAME",
                   help=f"print only this table ({', '.join(tables)}); CSV prints one table, "
                        f"the first unless this picks another")


def select_table(tables: dict, args) -> dict:
    """The tables to print: all, or only the one ``--table`` names."""
    name = getattr(args, "table", None)
    return {name: tables[name]} if name else tables


def progress_of(args) -> bool | None:
    """The driver's ``progress`` for a parsed command: ``--quiet`` False, the command
    line True (a bar on a terminal, a line now and then in a log); ``quiet=None``, which
    the Python API sets when the caller did not say, None (only the long-run estimate,
    and only on a terminal)."""
    quiet = getattr(args, "quiet", False)
    return None if quiet is None else not quiet


def compiling(args):
    """A context for work outside the driver that may compile kernels (exact solves,
    traces): on a terminal, ``compiling kernels (first run only)... N s`` while it takes
    more than a second and a half (never with ``--quiet``, in pipes or CI logs)."""
    from sheepsim.driver import _show, compile_notice

    return compile_notice(_show(progress_of(args)))


def check_plot_option(args) -> None:
    """Reject a bad ``--plot`` path (extension, folder) before any simulation runs."""
    if getattr(args, "plot", None):
        from sheepsim.plots import check_plot_path

        check_plot_path(args.plot)


class _SubParsers(argparse._SubParsersAction):
    """``add_subparsers`` whose ``add_parser`` builds only the command ``only`` names
    (None: every command): the others get a :data:`_SKIPPED` stand-in, so their options
    cost nothing on a command line that does not reach them."""

    def __init__(self, *args, only: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.only = only

    def add_parser(self, name, **kwargs):  # noqa: D102 - argparse API
        if self.only is not None and name != self.only:
            return _SKIPPED
        parser = super().add_parser(name, **kwargs)
        # the command's path (``{"game": "race", "command": "odds"}``): constants of its
        # typed options
        parser._path = {**getattr(self, "_parent_path", {}), self.dest: name}
        return parser


class _Skipped:
    """A parser the command line does not reach: every call does nothing (returning
    itself, for ``add_mutually_exclusive_group()`` and the like)."""

    def __getattr__(self, name):
        return self._nothing

    def _nothing(self, *args, **kwargs):
        return self


_SKIPPED = _Skipped()


def add_subcommands(parser: argparse.ArgumentParser, **kwargs) -> argparse._SubParsersAction:
    """``parser.add_subparsers(parser_class=_Parser, **kwargs)``; when the parser was
    built for one command line (:func:`build_parser` with ``argv``), only the
    subcommand that line names is built."""
    if parser is _SKIPPED:  # a command the line does not reach: nor its subcommands
        return _SKIPPED
    only = getattr(parser, "_only", None)
    action = parser.add_subparsers(parser_class=_Parser, action=_SubParsers,
                                   only=only[0] if only else None, **kwargs)
    action._only_rest = only[1:] if only else None
    action._parent_path = getattr(parser, "_path", {})
    return action


# --------------------------------------------------------------------------------------
# Typed options: one frozen dataclass per command, built from its declared options by the
# command line (argparse) and by the Python API (keywords) alike


class Options:
    """The options of one command, typed and frozen: a dataclass per command
    (:func:`options_class`), whose fields are the command's declared options (the
    ``dest`` of each, ``bet_policy`` for ``--bet-policy``; each annotated with the type
    its parser returns) and whose class attributes are the command's constants (its path,
    ``game`` and ``command``; what its parser ``set_defaults``: ``func``, ``game_entry``,
    ``spec``, ``default_games``...).

    The command line (:meth:`_Parser.parse_args`) and the Python API
    (:func:`options_from_keywords`) build the same object with the same checks and
    messages; every command's function and every game's parts take it. Change one with
    :meth:`replace`."""

    __slots__ = ()

    def replace(self, **changes) -> Options:
        """A copy with ``changes`` (:func:`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)


def _option_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The actions whose values are the command's options (not help, version or
    subcommands), one per ``dest``."""
    skip = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)
    actions, seen = [], set()
    for action in parser._actions:
        if isinstance(action, skip) or action.dest == argparse.SUPPRESS or action.dest in seen:
            continue
        seen.add(action.dest)
        actions.append(action)
    return actions


def _returns(parse) -> Any:
    """The type a ``type=`` function returns (its annotation), else ``object``."""
    if isinstance(parse, type):
        return parse
    import typing

    try:
        return typing.get_type_hints(parse).get("return", object)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: untyped
        return object


def _annotation(action: argparse.Action) -> Any:
    if isinstance(action, argparse.BooleanOptionalAction):
        kind = bool
    elif action.nargs == 0:
        kind = type(action.const) if action.const is not None else object
    else:
        kind = _returns(action.type) if action.type is not None else str
        if isinstance(action, argparse._AppendAction) or action.nargs in ("*", "+"):
            kind = list[kind]
    return kind | None if action.default is None and not action.required else kind


def _class_name(path: dict) -> str:
    words = [w for name in path.values() for w in name.replace("_", "-").split("-")]
    return "".join(w.title() for w in words) + "Options" if words else "CommandOptions"


def options_class(parser: argparse.ArgumentParser) -> type[Options]:
    """The frozen dataclass of the options of the command ``parser`` parses (made once
    per parser): a field per declared option, the command's constants as class
    attributes."""
    cls = parser.__dict__.get("_options_class")
    if cls is None:
        actions = _option_actions(parser)
        names = {a.dest for a in actions}
        path = getattr(parser, "_path", {})
        constants = {k: v for k, v in {**path, **parser._defaults}.items() if k not in names}
        fields = [(a.dest, _annotation(a)) for a in actions]
        # a command's parser is built anew for each command line: the same command
        # declared the same way is the same class (its options compare equal)
        made = _CLASSES.setdefault(tuple(path.items()), [])
        cls = next((c for c in made if c._declared == (fields, constants)), None)
        if cls is None:
            namespace = {k: (staticmethod(v) if callable(v) and not isinstance(v, type) else v)
                         for k, v in constants.items()}
            cls = dataclasses.make_dataclass(_class_name(path), fields, bases=(Options,),
                                             namespace=namespace, frozen=True)
            cls._declared = (fields, constants)
            if path:
                made.append(cls)
        parser._options_class = cls
    return cls


#: the options classes made so far, by command path
_CLASSES: dict[tuple, list[type[Options]]] = {}


def options_of(parser: argparse.ArgumentParser, namespace: argparse.Namespace) -> Options:
    """The typed options of ``parser``'s command from argparse's ``namespace``."""
    cls = options_class(parser)
    return cls(**{f.name: getattr(namespace, f.name) for f in dataclasses.fields(cls)})


def option_flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The command's options by their keyword names (``--bet-policy``: ``bet_policy``;
    an option's every ``--`` spelling but ``--no-...``)."""
    flags = {}
    for action in parser._actions:  # argparse keeps a parser's actions only here
        for opt in action.option_strings:
            if opt.startswith("--") and not opt.startswith("--no-") and opt != "--help":
                flags[opt[2:].replace("-", "_")] = action
    return flags


def word(value) -> str:
    """A value as the text its option's parser reads; an ``@numba.njit`` policy as the
    ``module:function`` spec that names it (the CLI imports it back)."""
    fn = getattr(value, "py_func", None)
    if fn is not None:
        return f"{fn.__module__}:{fn.__qualname__}"
    return str(value)


def options_from_keywords(parser: argparse.ArgumentParser, where: str, keywords: dict,
                          positional: list | tuple = (), *, hidden=()) -> Options:
    """The typed options of ``parser``'s command from keywords (the Python API, a
    report's study), checked as the command line checks them: each value by its
    option's own parser (``type=``, ``choices``), then the exclusive groups and the
    required options, a bad one raising :class:`ArgumentsError` with the CLI's message;
    an unknown name or a flag that is not True/False raises :class:`SheepsimError`
    (``where`` names the call; ``hidden`` names are left out of the list of names the
    command takes). ``None`` leaves an option at its default; a list or tuple is one
    value joined with commas, or one value each for a repeatable option; ``True``
    turns a flag on, ``False`` an on/off option off. ``positional`` are the values of
    the command's positional ``FILE...`` argument."""
    flags = option_flags(parser)
    values: dict[str, Any] = {}
    given: list[argparse.Action] = []
    conflicts: dict[argparse.Action, list[argparse.Action]] = {}
    for group in parser._mutually_exclusive_groups:
        for action in group._group_actions:
            conflicts.setdefault(action, []).extend(a for a in group._group_actions if a is not action)
    changed: set[argparse.Action] = set()
    try:
        for key, value in keywords.items():
            if key not in flags:
                known = ", ".join(sorted(k for k in flags if k not in hidden))
                raise SheepsimError(f"{where}: unknown option {key!r}; it takes: {known}")
            action = flags[key]
            if value is None:
                continue
            if isinstance(action, argparse._AppendAction):  # repeatable: one value each
                items = value if isinstance(value, list | tuple) else [value]
                if not items:
                    continue
                value = list(values.get(action.dest, action.default) or [])
                for item in items:
                    parsed = parser._get_value(action, str(item))
                    parser._check_value(action, parsed)
                    value.append(parsed)
            elif isinstance(action, argparse.BooleanOptionalAction) or action.nargs == 0:
                if not isinstance(value, bool):
                    raise SheepsimError(f"{where}: {key}= is True or False, got {value!r}")
                if not isinstance(action, argparse.BooleanOptionalAction):  # a flag such as
                    if not value:  # --quiet: False is not giving it
                        continue
                    value = action.const
            else:
                if isinstance(value, list | tuple):
                    value = ",".join(word(v) for v in value)
                value = parser._get_value(action, word(value))
                parser._check_value(action, value)
            given.append(action)
            if value is not action.default:
                changed.add(action)
                for other in conflicts.get(action, ()):
                    if other in changed:
                        raise argparse.ArgumentError(
                            action, f"not allowed with argument {argparse._get_action_name(other)}")
            values[action.dest] = value
        for action in parser._actions:
            if not action.option_strings and action.dest not in values and action.nargs in ("*", "+"):
                items = [parser._get_value(action, str(p)) for p in positional]
                for item in items:
                    parser._check_value(action, item)
                values[action.dest] = items if items or action.default is None else action.default
                given.append(action)  # as argparse: a FILE... is there even when empty
                positional = ()
        if positional:
            raise argparse.ArgumentError(None, f"unrecognized arguments: {' '.join(map(str, positional))}")
        missing = [argparse._get_action_name(a) for a in parser._actions
                   if a.required and a not in given]
        if missing:
            raise argparse.ArgumentError(None, "the following arguments are required: "
                                               + ", ".join(missing))
        for action in _option_actions(parser):  # the rest at their defaults, as argparse sets them
            if action.dest not in values:
                default = action.default
                if isinstance(default, str) and action.type is not None:
                    default = parser._get_value(action, default)
                values[action.dest] = default
    except argparse.ArgumentError as exc:
        raise ArgumentsError(parser.prog, str(exc)) from None
    cls = options_class(parser)
    return cls(**{f.name: values[f.name] for f in dataclasses.fields(cls)})


# --------------------------------------------------------------------------------------
# What a command's run shares beyond its options: the backend and, for the Python API,
# where the result goes


@dataclasses.dataclass
class _Run:
    backend: Any = None
    owned: bool = False
    sink: dict | None = None


_RUN: contextvars.ContextVar[_Run | None] = contextvars.ContextVar("sheepsim_run", default=None)


@contextlib.contextmanager
def running(*, backend=None, sink: dict | None = None):
    """The context one command runs in: the backend its options name
    (:func:`backend_from_args`, made at the first call and closed at the end; a
    ``backend`` given here is used instead and left open) and, for the Python API, a
    ``sink`` dict that receives the result instead of printing it (:func:`publish`,
    :func:`emit_trace`)."""
    state = _Run(backend=backend, sink=sink)
    token = _RUN.set(state)
    try:
        yield state
    finally:
        _RUN.reset(token)
        if state.owned:
            close_backend(state.backend)


def result_sink() -> dict | None:
    """The dict the running command's result goes to (the Python API), or None: print."""
    state = _RUN.get()
    return None if state is None else state.sink
