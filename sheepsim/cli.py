"""The ``sheepsim`` command line.

Each game registers its subcommands (``sheepsim race ...``, ``sheepsim panic ...``);
this module owns what they share: common options, parsing of counts, and turning every
user error into one line on stderr with exit code 2 (no traceback).
"""

from __future__ import annotations

import argparse
import sys

from sheepsim._version import __version__
from sheepsim.errors import SheepsimError

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``sheepsim race odds: error: ...``) and exit 2."""

    def error(self, message):  # noqa: D102 - argparse API
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def positive_int(text: str) -> int:
    """Parse ``1000000``, ``1_000_000``, ``1e6`` or ``1M`` as a whole number >= 1."""
    raw = text.strip().replace("_", "").replace(",", "")
    scale = 1
    if raw[-1:].lower() in ("k", "m"):
        scale = 1_000 if raw[-1].lower() == "k" else 1_000_000
        raw = raw[:-1]
    try:
        value = float(raw) * scale if ("e" in raw.lower() or "." in raw) else int(raw) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value != int(value):
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    value = int(value)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
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
    p.add_argument("--games", type=positive_int, default=games, metavar="N",
                   help=f"number of games/races to simulate (default {games:,})")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("--threads", type=positive_int, default=None, metavar="K",
                   help="numba threads (default: all cores); results do not depend on it")
    add_output_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def add_output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument("--out", metavar="FILE", help="write here (plus FILE.meta.json) instead of stdout")


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


def check_plot_option(args) -> None:
    """Reject a bad ``--plot`` path (extension, folder) before any simulation runs."""
    if getattr(args, "plot", None):
        from sheepsim.plots import check_plot_path

        check_plot_path(args.plot)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sheepsim",
        description="Simulate sheep-themed board games to find the best bets and check balance.",
    )
    parser.add_argument("--version", action="version", version=f"sheepsim {__version__}")
    games = parser.add_subparsers(dest="game", metavar="GAME", parser_class=_Parser)
    games.required = True

    from sheepsim import report
    from sheepsim.game import games as registered_games

    for game in registered_games():
        game.register_cli(games)
    report.register(games)
    return parser


def main(argv: list[str] | None = None) -> int:
    import os

    # Charts go to files: never ask for a display. (The library itself leaves the
    # user's matplotlib backend alone.)
    os.environ.setdefault("MPLBACKEND", "Agg")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.game != "report":  # the report's --out is a folder, checked by the report
            from sheepsim.output import check_output_file

            check_output_file(getattr(args, "out", None))
            check_plot_option(args)
        return int(args.func(args) or 0)
    except SheepsimError as exc:
        sys.stderr.write(f"sheepsim: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("sheepsim: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. `sheepsim race odds | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
