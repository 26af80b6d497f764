"""The ``sheepsim`` command line: its parser and :func:`main`.

Each game registers its subcommands (``sheepsim race ...``, ``sheepsim panic ...``): the
shared ones from its declaration (:mod:`sheepsim.commands`, :mod:`sheepsim.designer`),
then its own (``Game.cli``). What every command shares (option types, the one-line-error
parser, output options, the backend) is in :mod:`sheepsim.options`, below the commands;
this module, above them, builds the parser and turns every user error into one line on
stderr with exit code 2 (no traceback).
"""

from __future__ import annotations

import sys

from sheepsim import commands
from sheepsim._version import __version__
from sheepsim.errors import SheepsimError
from sheepsim.game import games as registered_games
from sheepsim.jit import skip_blas_probe, skip_implementations_on_cache_loads
from sheepsim.options import (
    EXIT_USAGE,
    _Parser,
    add_subcommands,
    check_plot_option,
    running,
    subcommand_parser,
)

#: the top-level commands besides the games', and the modules that register them
TOOL_COMMANDS = {"report": "sheepsim.report", "cache": "sheepsim.cachefolders",
                 "serve": "sheepsim.serve"}


def build_parser(argv: list[str] | None = None) -> _Parser:
    """The ``sheepsim`` parser: every command, or with ``argv`` (the command line
    :func:`main` parses) only the commands it names.

    ``sheepsim race odds ...`` needs the ``race`` command and its ``odds``: the other
    games' and tools' commands (their modules, hundreds of options) are left out, so a
    warm start does not build them (docs/performance-archive.md, "Warm start"). A line that
    names no known command, asks for a help above the command it names (``sheepsim
    -h race``, ``sheepsim race --help``) or holds anything else gets the whole parser,
    so help and errors (``invalid choice: ... (choose from ...)``) are those of the
    whole command line."""
    path = _named_commands(argv)
    if path:
        parser = _build(path)
        if subcommand_parser(parser, *path) is not None:
            return parser
    return _build(())


def _named_commands(argv) -> tuple[str, ...]:
    """The leading words of ``argv`` before its first option: the command path."""
    path = []
    for word in argv or ():
        if word.startswith("-"):
            break
        path.append(word)
        if len(path) == 2:
            break
    return tuple(path)


def _build(only: tuple[str, ...]) -> _Parser:
    import importlib

    parser = _Parser(
        prog="sheepsim",
        description="Simulate sheep-themed board games to find the best bets and check balance.",
    )
    parser.add_argument("--version", action="version", version=f"sheepsim {__version__}")
    parser._only = only
    games = add_subcommands(parser, dest="game", metavar="GAME")
    games.required = True
    # an unknown first word is an unknown game: the error lists the games, not the tools
    parser._games = [game.command for game in registered_games()]

    for game in registered_games():
        if not only or only[0] == game.command:
            register_game(games, game)
    for name, module in TOOL_COMMANDS.items():
        if not only or only[0] == name:
            importlib.import_module(module).register(games)
    return parser


def register_game(subparsers, g) -> None:
    """``sheepsim <g.command>``: the shared commands the game declares
    (:mod:`sheepsim.commands`), the designers' commands if it declares balance metrics
    (:mod:`sheepsim.designer`), ``ladder`` if it declares a skill ladder
    (:mod:`sheepsim.skill_ladder`), then the game's own commands (``Game.cli``)."""
    import importlib

    sub = commands.register(subparsers, g)
    # the designers' module only when the parser is built for all commands or one of
    # them (a warm ``race odds`` skips it)
    if g.metrics and commands.wants(sub, commands.DESIGNER_COMMANDS):
        from sheepsim import designer

        designer.register(sub, g)
    if len(g.ladder) >= 2 and commands.wants(sub, ("ladder",)):
        from sheepsim import skill_ladder

        skill_ladder.register(sub, g)
    if g.cli:
        importlib.import_module(g.cli).register(sub)


def _resume_hint(args) -> str:
    """After Ctrl-C in ``sheepsim report``: how to continue (its checkpoints are kept)."""
    if getattr(args, "game", None) != "report":
        return ""
    from pathlib import Path

    if not (Path(args.out) / "manifest.json").is_file():
        return ""  # stopped before the folder held anything to continue
    argv = ["sheepsim", "report"] + ([args.config] if args.config else []) + ["--out", args.out]
    if not getattr(args, "charts", True):
        argv.append("--no-charts")
    import shlex

    return f"; rerun with --resume to continue: {shlex.join(argv + ['--resume'])}"


def execute(args) -> int:
    """Run a command's typed options (:class:`~sheepsim.options.Options`): check its
    output options, then its function; a user error raises :class:`SheepsimError`.
    (``sheepsim serve`` answers API requests through this, so they get exactly what the
    command prints.)"""
    if args.game != "report":  # the report's --out is a folder, checked by the report
        from sheepsim.output import check_output_file

        check_output_file(getattr(args, "out", None))
        check_plot_option(args)
    from sheepsim import output

    output.TABLE_OPTIONS["all_columns"] = bool(getattr(args, "all_columns", False))
    if hasattr(args, "format"):
        args = args.replace(format=output.output_format(args.format, getattr(args, "out", None),
                                                        args.formats))
    with running():
        return int(args.func(args) or 0)


def main(argv: list[str] | None = None) -> int:
    import os

    # Charts go to files: never ask for a display. (The library itself leaves the
    # user's matplotlib backend alone.)
    os.environ.setdefault("MPLBACKEND", "Agg")
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    try:
        return execute(args)
    except SheepsimError as exc:
        sys.stderr.write(f"sheepsim: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write(f"sheepsim: interrupted{_resume_hint(args)}\n")
        return 130
    except BrokenPipeError:  # e.g. `sheepsim race odds | head`
        return 0


def run() -> None:
    """The ``sheepsim`` command (console script and ``python -m sheepsim``): :func:`main`,
    then flush the output and end the process at once.

    Tearing the interpreter down (freeing every numba, LLVM and pandas object) costs
    about 0.4 s of CPU after the work is done, a fifth of a typical command: nothing is
    left to run then (files are written atomically and closed, a Dask cluster is closed
    by :func:`main`, numba writes its cache when it compiles), so the process exits
    without it. Tests call :func:`main`, which returns normally.

    Python's full garbage collections (of the oldest generation) are made ten times
    rarer in this process: each walks every live object, and numba's compiler keeps
    about a million; a cold ``panic play`` made 9 of them, 2.4-2.5 s of its 40 s (0.6 s
    of collections with the threshold at 100, for 37 MB more peak memory).

    User policies given as ``module:function`` are found in the current folder, as
    ``python -m`` finds them."""
    import gc
    import os

    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)  # the oldest generation's threshold (default 10)
    # `python -m sheepsim` puts the current folder first on sys.path, the installed
    # `sheepsim` script does not: add it, so `--policy mymodule:fn` finds ./mymodule.py
    # either way
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    skip_blas_probe()  # numba loads its implementations without scipy.linalg (0.2 s)
    skip_implementations_on_cache_loads()  # and only to compile, not to load (0.15 s)
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # `sheepsim ... | head`, or a closed stream
            pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
