"""The command line's shared parts, below every command: the parser class whose errors
are one line and exit 2 (or raise :class:`ArgumentsError` for the Python API), parsers of
counts and numbers, the options every command shares (run size, backend, output), the
backend they name, and the last step of every command (:func:`publish`, :func:`emit_trace`).

:mod:`sheepsim.cli` (the ``sheepsim`` program: its parser and ``main``) sits on top of
the commands (:mod:`sheepsim.commands`, :mod:`sheepsim.designer`, the games' own), which
sit on this module; nothing here imports a command.
"""

from __future__ import annotations

import argparse
import contextvars
import sys

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

    def format_help(self):  # noqa: D102 - argparse API
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


def parse_raising(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
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
    """The backend the options name (made once per command; :func:`main` closes it):
    a :class:`~sheepsim.driver.ThreadBackend`, or a
    :class:`~sheepsim.dask_backend.DaskBackend` for ``--scheduler``/``--workers``."""
    if getattr(args, "_backend", None) is None:
        args._backend = make_backend(threads=getattr(args, "threads", None),
                                     scheduler=getattr(args, "scheduler", None),
                                     workers=getattr(args, "workers", None),
                                     worker_timeout=getattr(args, "worker_timeout", None))
    return args._backend


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
    command that prints text (a trace) takes table or json: ``main`` refuses csv, also
    when ``--out`` ends in ``.csv``, before anything runs."""
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


def add_trace_options(p: argparse.ArgumentParser) -> None:
    """A trace's output options, the same in every game: ``--format table|json`` (a
    trace is text), ``--out FILE`` and ``--quiet`` (no compile notice)."""
    add_output_options(p, tables=False)
    p.add_argument("--quiet", action="store_true",
                   help="no 'compiling kernels' notice on the first run")


def publish(args, tables: dict, meta: dict, title: str, plot=None, *,
            every_csv_table: bool = False) -> int:
    """The last step of every table command: print or write the tables ``--table``
    picks in ``--format`` to stdout or ``--out`` (plus ``FILE.meta.json``), then call
    ``plot()`` if ``--plot`` was given (so plain runs never import matplotlib).

    ``every_csv_table`` (the designers' commands): CSV of several tables with ``--out``
    and no ``--table`` writes every table, one file each (:func:`sheepsim.output.table_files`),
    and says on stderr which file holds which; CSV of several tables to stdout (one
    table only) says on stderr which it printed and how to get the others.

    When the command runs for the Python API (:mod:`sheepsim.api`), ``args.sink`` is a
    dict: the whole result (every table, the metadata, the title) goes there instead and
    nothing is printed, written or drawn, so the API and the CLI share one code path."""
    sink = getattr(args, "sink", None)
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
    text, or with ``--format json`` ``{"meta", "lines", **result}``. With ``args.sink``
    (the Python API, as in :func:`publish`) they go there instead."""
    sink = getattr(args, "sink", None)
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
        return super().add_parser(name, **kwargs)


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
    return action
