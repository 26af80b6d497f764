"""One race of The Sheep Race turn by turn (``sheepsim race trace``): the dice, the lane
they select and why, the option the seat's pace policy takes, the cubes and every
position; and the ``decisions`` table, one row per decision a policy was asked."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from sheepsim import game as registry
from sheepsim import output
from sheepsim._version import __version__
from sheepsim.commands import Output
from sheepsim.errors import SheepsimError
from sheepsim.games.race.layout import (
    EXHAUSTED,
    FINAL,
    KIND_NAMES,
    OPTION_NAMES,
    REASON_NAMES,
    SEMIFINAL,
)

if TYPE_CHECKING:
    import numpy as np

#: the machine the harness plays and traces the race with
MACHINE = "sheepsim.games.race.single"


def trace(args):
    """``sheepsim race trace``: one race of ``--seed``/``--game`` turn by turn, ``--players``
    seats taking turns (seat 1 first) with their own pace policies (an
    :class:`~sheepsim.commands.Output` with its ``lines`` and the ``decisions`` table)."""
    import io

    from sheepsim.driver import chunk_error
    from sheepsim.games.race.jobs import GAME
    from sheepsim.games.race.rules import load_rules
    from sheepsim.games.race.simulate import lane_cards, resolve_policies
    from sheepsim.harness import machine as M
    from sheepsim.harness.jobs import raise_run_failure

    rules = load_rules(args.rules)
    lanes = lane_cards(rules, args.lanes)
    pol = resolve_policies(args.pace_policy, players=args.players)
    try:
        race = traced_race(rules, lanes, FINAL if args.stage == "final" else SEMIFINAL, pol,
                           args.players, args.seed, args.game)
    except SheepsimError:
        raise
    except Exception as exc:  # a policy breaking a rule, or one that does not compile
        raise chunk_error(exc, args.seed, args.game, 1,
                          context=f"; pace policy {_policies_text(pol.pace_names)}") from None
    raise_run_failure(race.fail, M.load(MACHINE), registry.get(GAME).title, args.players,
                      lambda seat, kind, pid: pol.pace_names[seat])
    turns, places = race.turns, race.places
    n_turns = len(turns)
    out = io.StringIO()
    _write_trace_header(out, args, _policies_text(pol.pace_names), rules, lanes)
    _write_trace_turns(out, turns, rules)
    n_places = 1 if args.stage == "final" else 3
    names = ["1st", "2nd", "3rd"]
    parts = [f"{names[k]} lane {places[k] + 1} {rules.cards[lanes[places[k]]].name}"
             for k in range(n_places)]
    out.write(f"Result after {n_turns} turns: " + ", ".join(parts) + "\n")
    meta = output.base_meta(game=GAME, rules=rules.source, rules_sha256=rules.sha256,
                            stage=args.stage, policy=_policies_text(pol.pace_names),
                            pace_policies=list(pol.pace_names), players=args.players,
                            seed=args.seed, game_index=args.game,
                            lanes=[rules.cards[c].name for c in lanes])
    return Output(meta, lines=out.getvalue().splitlines(),
                  tables={"decisions": decisions_table(race.decisions)},
                  outcome={"turns": n_turns, "placed_lanes": [int(places[k]) + 1 for k in range(n_places)]})


class TracedRace(NamedTuple):
    """One race the harness played (:func:`traced_race`)."""

    #: ``(turns, N_LOG)`` a row per turn (``engine.log_turn``'s ``LOG_*`` columns)
    turns: np.ndarray
    #: the decisions a policy was asked, in order: the harness's decision log rows
    #: (``sheepsim.harness.layout.L_*``) with ``L_ASKED``
    decisions: np.ndarray
    #: ``(6, N_BOARD)`` the board at the race's end
    board: np.ndarray
    #: ``(3,)`` the lanes placed 1st-3rd (0-based; -1: not awarded, the final's 2nd, 3rd)
    places: np.ndarray
    #: the harness's failure record (``sheepsim.harness.layout.F_*``; ``F_CODE`` 0: none)
    fail: np.ndarray


def traced_race(rules, lanes, stage: int, pol, players: int, seed: int, game: int) -> TracedRace:
    """Race ``game`` of ``seed`` on ``lanes`` (card per lane) of ``rules`` at ``stage``
    (``SEMIFINAL``/``FINAL``), ``players`` seats playing the pace policies of ``pol``
    (``simulate.PolicySet``: its ids, its plug-ins), played and traced by the harness
    (the machine :mod:`~sheepsim.games.race.single`). A policy's failure is returned in
    ``fail`` (:func:`sheepsim.harness.jobs.raise_run_failure` makes it one line); an
    exception raised in the kernels (a plug-in's, numba's) propagates."""
    import numpy as np

    from sheepsim.games.race import single
    from sheepsim.harness import layout as H
    from sheepsim.harness import machine as M
    from sheepsim.harness.jobs import run_games

    m = M.load(MACHINE)
    R = single.make_R(rules, lanes, stage, players)
    pids = np.asarray(pol.pace_ids, dtype=np.int64)
    kernel = m.kernel(tuple(pol.user_pace), single.FIRST_USER_ID, pids, trace=True)
    _, fail, _, _, log, turns, final = run_games(m, kernel, R, players, pids, False, seed, game,
                                                 1, log_rows=m.max_decisions,
                                                 events=single.MAX_TURNS, counts=False)
    return TracedRace(turns, log[log[:, H.L_ASKED] == 1], R[single.X_BOARD],
                      final[single.PLACES:single.PLACES + 3], fail)


def decisions_table(rows):
    """The decisions the policies were asked, in order (``rows``:
    :attr:`TracedRace.decisions`; one stream per seat, phase 0 pace):
    :func:`sheepsim.output.decisions_table`."""
    from sheepsim.harness import layout as H

    return output.decisions_table(rows, (H.L_SEAT, H.L_KIND, H.L_N, H.L_CHOICE), KIND_NAMES)


def _policies_text(names) -> str:
    """One name when every seat plays it, else the seats' names in order."""
    return names[0] if len(set(names)) == 1 else ", ".join(names)


def _write_trace_header(out, args, pace_name: str, rules, lanes) -> None:
    """The trace's provenance line, the track and the lanes' cards, and the column heads."""
    out.write(f"The Sheep Race trace: {args.stage}, {args.players} players, pace policy {pace_name}, "
              f"seed {args.seed}, game {args.game}, rules {rules.source} "
              f"(sha256 {rules.sha256[:12]}), sheepsim {__version__}\n")
    ez = rules.track_length - rules.end_zone + 1
    out.write(f"Track {rules.track_length} squares, End Zone from square {ez}; cubes R/B/W\n")
    for lane, c in enumerate(lanes, start=1):
        card = rules.cards[c]
        out.write(f"  lane {lane}: {card.name:<11} R{card.red} B{card.blue} W{card.white}"
                  f"  trot {card.trot}  gallop {card.gallop}\n")
    out.write(f"{'turn':>4} {'dice':>4} {'lane':>4}  {'selected by':<38} {'option':<13}"
              f" {'cubes':>5}  positions (lanes 1-6)\n")


def _write_trace_turns(out, log, rules) -> None:
    """One line per logged turn ``log`` ``(turns, N_LOG)``: dice, lane, why, option,
    cubes and every lane's position after it."""
    import numpy as np

    from sheepsim.games.race import engine

    pos = np.zeros(6, dtype=np.int64)
    for row in log:
        lane = int(row[engine.LOG_LANE])
        pos[lane] = row[engine.LOG_POS]
        status = int(row[engine.LOG_STATUS])
        note = " finished" if pos[lane] > rules.track_length else (
            " EXHAUSTED" if status == EXHAUSTED else "")
        positions = " ".join(f"{p:>2}" if p <= rules.track_length else " F" for p in pos)
        out.write(f"{row[engine.LOG_TURN]:>4} {row[engine.LOG_TOTAL]:>4} {lane + 1:>4}  "
                  f"{REASON_NAMES[row[engine.LOG_REASON]]:<38} "
                  f"{OPTION_NAMES[row[engine.LOG_OPTION]]:<13} "
                  f"{row[engine.LOG_RED]}/{row[engine.LOG_BLUE]}/{row[engine.LOG_WHITE]:<1}"
                  f"   {positions}{note}\n")
