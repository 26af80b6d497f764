"""``sheepsim <game> play|compare|balance|trace``: the commands every game shares, written once.

The options, their defaults and help wording, the run size (``--games`` or
``--precision``/``--max-games``), the backends, ``--table``, ``--plot``, the formats and
the metadata come from here, for every registered game alike; what differs comes from
the game's declaration (:class:`sheepsim.game.Game`: title, unit, players, policy roles)
and from its *parts* module (``Game.parts``), a light module that declares

* ``COMMANDS``: a :class:`CommandSpec` per shared command (help text, default games,
  tables, default policies);
* ``add_options(command, parser)``: the game's extra options (Shear Panic
  ``--playouts``, Aw, Sheep! ``--draft``...);
* ``job_options(command, opts) -> dict``: those extras as keywords of the game's
  ``play`` and ``head-to-head`` jobs;
* ``play_charts(result) -> list``: chart panels for ``play --plot`` (``result`` the
  driver's :class:`~sheepsim.driver.Result`);
* ``balance(opts, run) -> Output`` and ``trace(opts) -> Output``: the two commands whose
  work is the game's own (``run(job, desc)`` runs a job with the command's run size and
  backend; ``run.options`` holds them as the driver's keywords);
* optionally ``check(command, opts)`` (extra checks before any work) and
  ``title_extra(job) -> str``.

``opts`` is the command's typed options (:class:`sheepsim.options.Options`: a frozen
dataclass, ``opts.players``, ``opts.seed``, ``opts.rules``, the game's own options by
their ``dest``; ``opts.game_entry`` the game's declaration), the same object whether the
command line or the Python API (:mod:`sheepsim.api`) built it.

``play`` and ``compare`` need nothing else: they build the game's ``"play"`` and
``"head-to-head"`` jobs (:meth:`Game.job`) and run them on the shared driver. A game's
own module (``Game.cli``) registers only its own commands (the race's ``odds``, ``ev``
and ``advise``).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from sheepsim.errors import SheepsimError
from sheepsim.game import Game
from sheepsim.options import (
    _SKIPPED,
    add_backend_options,
    add_output_options,
    add_subcommands,
    add_trace_options,
    backend_from_args,
    check_trace_format,
    compiling,
    emit_trace,
    game_count,
    non_negative_int,
    positive_float,
    positive_int,
    progress_of,
    publish,
    result_sink,
    whole_number,
)

#: the shared commands, in the order ``sheepsim <game> --help`` lists them
SHARED = ("play", "compare", "balance", "trace")


@dataclass(frozen=True)
class CommandSpec:
    """What one game says about one shared command.

    ``games``: the default ``--games`` (0 for ``trace``, which plays one game);
    ``tables``: the command's tables in print order (``--table`` picks one);
    ``policies``: the policy roles the command takes (``("play",)``; the race: ``("bet",
    "pace")``), each defaulting to the game's one line-up (:attr:`Game.policy_defaults`,
    declared once per game for every command);
    ``per_seat``: whether a policy option takes one name per seat (else one name for
    every seat); ``players``: whether the command takes ``--players``; ``a``/``b``/``field``:
    ``compare``'s defaults (``a``/``b`` None: required; ``field`` None: the game's default
    line-up) and ``metavar`` their form."""

    help: str
    description: str
    games: int = 0
    tables: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()
    per_seat: bool = True
    #: several names are several policy fields, each played by every seat (balance)
    fields: bool = False
    #: the role plain ``--policy`` also names (a game with several roles)
    policy_alias: str | None = None
    players: bool = True
    players_help: str = ""
    a: str | None = None
    b: str | None = None
    field: str | None = None
    metavar: str = "NAME"
    epilog: str | None = None


@dataclass
class Output:
    """What a command produced, before it is printed (or handed to the Python API):
    ``tables`` by name, ``meta``, ``title``; ``charts()`` the panels ``--plot`` draws
    (called only with ``--plot``, so plain runs never import matplotlib); a trace has
    ``lines`` and ``outcome`` instead of tables."""

    meta: dict
    title: str = ""
    tables: dict = field(default_factory=dict)
    charts: Callable[[], list] | None = None
    lines: list[str] = field(default_factory=list)
    outcome: dict = field(default_factory=dict)


def parts(g: Game):
    """The game's parts module (cheap to import: no numpy, no kernels)."""
    return importlib.import_module(g.parts)


def policy_option(g: Game, role: str) -> str:
    """``--policy`` for a game with one policy role, ``--bet-policy``/``--pace-policy``..."""
    return "--policy" if len(g.policies) == 1 else f"--{role}-policy"


def policy_dest(g: Game, role: str) -> str:
    return policy_option(g, role)[2:].replace("-", "_")


#: the designers' commands (``sheepsim.designer.COMMANDS`` is this tuple), named here so
#: a parser built for another command does not import that module
DESIGNER_COMMANDS = ("metrics", "variants", "sweep", "tune")


def register(subparsers, g: Game):
    """``sheepsim <g.command>`` with the shared commands the game declares; returns its
    subcommands, to which :func:`sheepsim.cli.register_game` adds the designers' and the
    game's own commands."""
    top = subparsers.add_parser(g.command, help=g.help or g.title, description=g.description or g.title)
    top._only = getattr(subparsers, "_only_rest", None)
    sub = add_subcommands(top, dest="command", metavar="COMMAND")
    sub.required = True
    specs = parts(g).COMMANDS
    for name in SHARED:
        if name in specs:
            _add(sub, g, name, specs[name])
    return sub


def wants(sub, names) -> bool:
    """Whether the parser ``sub`` is built for every command or one of ``names``."""
    only = "" if sub is _SKIPPED else getattr(sub, "only", None)
    return only is None or only in names


def players_type(g: Game) -> Callable[[str], int]:
    """``--players``: a whole number the game takes (:meth:`Game.players_problem`)."""

    def parse(text: str) -> int:
        value = whole_number(text)
        problem = g.players_problem(value)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value

    return parse


def _add(sub, g: Game, name: str, spec: CommandSpec) -> None:
    p = sub.add_parser(name, help=spec.help, description=spec.description, epilog=spec.epilog)
    p.add_argument("--rules", metavar="FILE", help="rules TOML file (default: the shipped standard rules)")
    if spec.players:
        players_help = spec.players_help or g.players_text
        p.add_argument("--players", type=players_type(g), default=g.default_players, metavar="N",
                       help=f"{players_help} (default {g.default_players})")
    if name == "compare":
        for opt, default in (("--a", spec.a), ("--b", spec.b)):
            what = f"policy {opt[2:].upper()} of the seat that switches"
            if default is None:
                p.add_argument(opt, required=True, metavar=spec.metavar, help=what)
            else:
                p.add_argument(opt, default=default, metavar=spec.metavar, help=f"{what} (default {default})")
        lineup = compare_field(g, spec)
        p.add_argument("--field", default=lineup, metavar=spec.metavar,
                       help=f"policy of the other seats (default {lineup}, the game's default)")
        p.add_argument("--seat", type=positive_int, default=1, metavar="S",
                       help="the seat that switches between A and B (default 1)")
    for role in spec.policies:
        _add_policy(p, g, spec, role, g.policy_defaults[role])
    part = parts(g)
    part.add_options(name, p)
    if name == "trace":
        _add_seed(p)
        p.add_argument("--game", type=non_negative_int, default=0, metavar="G",
                       help=f"which of the seed's {g.unit} (default 0)")
        add_trace_options(p, spec.tables)
        if spec.tables:  # a trace's tables besides its text (the decisions table)
            p.add_argument("--table", choices=spec.tables, metavar="NAME",
                           help=f"print this table instead of the text ({', '.join(spec.tables)})")
    else:
        _add_run_size(p, g, spec.games)
        _add_seed(p)
        add_backend_options(p)
        add_output_options(p)
        p.add_argument("--table", choices=spec.tables, metavar="NAME",
                       help=f"print only this table ({', '.join(spec.tables)}); CSV prints one "
                            f"table, the first unless this picks another")
        p.add_argument("--plot", metavar="FILE", help="also draw the charts to FILE (.png or .svg)")
        p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_RUNNERS[name], game_entry=g, spec=spec)


def compare_field(g: Game, spec: CommandSpec) -> str:
    """``compare``'s default ``--field``: the spec's, else the game's default line-up
    (:attr:`Game.policy_defaults`; a one-role game's name)."""
    return spec.field if spec.field is not None else ",".join(g.policy_defaults.values())


def _add_seed(p) -> None:
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S", help="random seed (default 0)")


def _add_policy(p, g: Game, spec: CommandSpec, role: str, default: str) -> None:
    opt = policy_option(g, role)
    names = ", ".join(g.policies[role])
    seats = ("one for every seat or one per seat" if spec.per_seat else
             "each played by every seat; several give one field each" if spec.fields else
             "one name for every seat")
    what = f"{role} policy: " if len(g.policies) > 1 else ""
    flags = [opt]
    if opt != "--policy" and spec.policy_alias == role:
        flags.append("--policy")  # e.g. the race's pace policy, as `race odds --policy` names it
    note = getattr(parts(g), "POLICY_NOTE", "")
    p.add_argument(*flags, dest=policy_dest(g, role), default=default,
                   metavar="NAME[,NAME...]" if spec.per_seat or spec.fields else "NAME",
                   help=f"{what}{names} or package.module:function; {seats} (default {default})"
                        + (f"; {note}" if note else ""))


def _add_run_size(p, g: Game, default_games: int) -> None:
    p.add_argument("--games", type=game_count, metavar="N",
                   help=f"number of {g.unit} to simulate (default {default_games:,})")
    p.add_argument("--precision", type=positive_float, metavar="P",
                   help=f"instead of --games: simulate until every reported probability's 95%% "
                        f"interval half-width is at most P (checked after fixed blocks of "
                        f"{g.unit}, so the same command gives the same answer)")
    p.add_argument("--max-games", type=game_count, metavar="N",
                   help=f"with --precision: stop after this many {g.unit} at the latest")
    # None means "not given", so --games and --precision can be told apart
    p.set_defaults(games=None, default_games=default_games)


def run_size(args) -> dict:
    """``games``/``precision``/``max_games`` keywords for the driver (validated)."""
    if args.precision is not None and args.games is not None:
        raise SheepsimError("give --games or --precision, not both")
    if args.max_games is not None and args.precision is None:
        raise SheepsimError("--max-games only applies with --precision")
    if args.precision is not None:
        if args.precision >= 0.5:
            raise SheepsimError(f"--precision is a probability half-width below 0.5, got {args.precision}")
        return {"games": None, "precision": args.precision, "max_games": args.max_games}
    return {"games": args.games or args.default_games, "precision": None, "max_games": None}


def runner(args) -> Callable:
    """``run(job, desc)``: the driver on ``job`` with the command's run size, backend and
    progress bar (what ``balance`` parts call for each of their jobs)."""
    from sheepsim import driver

    options = {**run_size(args), "backend": backend_from_args(args), "progress": progress_of(args)}

    def run(job, desc: str):
        return driver.run(job, **options, desc=desc)

    run.options = options  # for library functions that run their own jobs
    return run


def policy_keywords(g: Game, args) -> dict:
    """The policy options as job keywords: ``policies=`` for a one-role game, else
    ``bet_policy=``, ``pace_policy=``..."""
    if len(g.policies) == 1:
        return {"policies": getattr(args, policy_dest(g, next(iter(g.policies))))}
    return {f"{role}_policy": getattr(args, policy_dest(g, role)) for role in g.policies}


def one_policy_each(g: Game, args) -> None:
    """A command that runs several player counts takes one policy name for every seat."""
    for role in g.policies:
        value = getattr(args, policy_dest(g, role), None)
        if value is not None and ("," in value or not value.strip()):
            raise SheepsimError(f"{args.command} takes one {policy_option(g, role)} name for "
                                f"every seat, got {value!r}")


def role_policies(g: Game, args) -> dict:
    """``{role: name}`` of a command that takes one policy name per role for every seat
    (the designers' commands; one line if a list is given)."""
    one_policy_each(g, args)
    return {role: getattr(args, policy_dest(g, role)) for role in g.policies}


def _check(g: Game, args) -> None:
    check = getattr(parts(g), "check", None)
    if check is not None:
        check(args.command, args)


def _convergence(res) -> list:
    from sheepsim import plots

    return [lambda ax: plots.convergence_chart(res.trace, ax=ax)]


def _finish(args, out: Output) -> int:
    if out.lines or not out.tables:  # a trace: its text, or with --table one of its tables
        if getattr(args, "table", None):
            return publish(args, out.tables, out.meta, out.title)
        emit_trace(args, out.lines, out.meta, **out.outcome)
        sink = result_sink()
        if sink is not None:  # the Python API: the trace's tables too
            sink["tables"] = dict(out.tables)
        return 0

    def plot():
        from sheepsim.plots import panel_figure, save_figure

        save_figure(panel_figure(out.charts(), out.meta, out.title), args.plot)

    return publish(args, out.tables, out.meta, out.title, plot if out.charts else None)


def cmd_play(args) -> int:
    g: Game = args.game_entry
    _check(g, args)
    run = runner(args)
    job = g.job("play", rules=args.rules, players=args.players, seed=args.seed,
                **policy_keywords(g, args), **parts(g).job_options("play", args))
    res = run(job, g.name)
    extra = getattr(parts(g), "title_extra", lambda job: "")(job)
    title = f"{g.title}: {job.seats} players{extra}, {res.games:,} {g.unit}"

    def charts():
        panels = parts(g).play_charts(res)
        return panels + (_convergence(res) if res.precision is not None else [])

    return _finish(args, Output(res.meta(), title, res.tables, charts))


def cmd_compare(args) -> int:
    g: Game = args.game_entry
    _check(g, args)
    run = runner(args)
    job = g.job("head-to-head", rules=args.rules, players=args.players, a=args.a, b=args.b,
                field=args.field, seat=args.seat, seed=args.seed,
                **parts(g).job_options("compare", args))
    res = run(job, f"{g.name} compare")
    title = f"{g.title}: {args.a} vs {args.b} at seat {args.seat} of {args.players}"
    return _finish(args, Output(res.meta(), title, res.tables, lambda: _convergence(res)))


def cmd_balance(args) -> int:
    g: Game = args.game_entry
    if not args.spec.fields:
        one_policy_each(g, args)
    _check(g, args)
    return _finish(args, parts(g).balance(args, runner(args)))


def cmd_trace(args) -> int:
    g: Game = args.game_entry
    check_trace_format(args, args.spec.tables)
    _check(g, args)
    with compiling(args):
        out = parts(g).trace(args)
    return _finish(args, out)


_RUNNERS = {"play": cmd_play, "compare": cmd_compare, "balance": cmd_balance, "trace": cmd_trace}
