"""One round described turn by turn, every hand shown (``sheepsim awsheep trace``), and
the decisions its policies were asked."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sheepsim import driver, output
from sheepsim._version import __version__
from sheepsim.errors import SheepsimError
from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep.simulate import check_failure, setting
from sheepsim.harness import layout as H


@dataclass
class Trace:
    lines: list[str]
    winner: int  # seat index (0-based)
    end: str
    log: np.ndarray
    state: np.ndarray
    decisions: pd.DataFrame  # see :func:`decisions_table`


def trace_round(rules=None, players: int = 4, policies=("random",), seed: int = 0,
                game: int = 0, draft=None) -> Trace:
    """Play round ``game`` of ``seed`` (policies not rotated: seat order as given) and
    describe every step. A policy that breaks the contract (an illegal choice, a write
    to its inputs, an index outside its arrays) raises a one-line :class:`SheepsimError`
    naming it."""
    s = setting(rules, players, policies, draft)
    seed = driver.check_seed(seed)
    if isinstance(game, bool) or not isinstance(game, int) or game < 0:
        raise SheepsimError(f"game must be a whole number >= 0, got {game!r}")

    from sheepsim.harness.jobs import run_games

    m = s.machine
    try:
        _, fail, _, _, asked, log, st = run_games(m, s.kernel, s.R, s.players, s.pids, False,
                                                  seed, game, 1, True, log_rows=L.MAX_LOG,
                                                  events=L.MAX_LOG)
    except Exception as exc:  # e.g. a plug-in indexing outside its arrays: one line
        raise driver.kernel_call_error(exc, seed, game, s.names) from None
    check_failure(fail[:L.FAIL_WIDTH], s)
    if len(log) >= L.MAX_LOG or len(asked) >= L.MAX_LOG:  # not in a round of <= 64 cards
        raise SheepsimError(f"round {game} outgrew the trace log ({L.MAX_LOG} rows)")
    asked = asked[asked[:, H.L_ASKED] == 1]
    decisions = np.zeros((len(asked), L.DEC_WIDTH), dtype=np.int64)
    decisions[:, L.D_SEAT] = asked[:, H.L_SEAT]
    decisions[:, L.D_KIND] = asked[:, H.L_KIND]
    decisions[:, L.D_PHASE] = m.kind_phase[asked[:, H.L_KIND]]
    decisions[:, L.D_N] = asked[:, H.L_N]
    decisions[:, L.D_CHOICE] = asked[:, H.L_CHOICE]
    head = [f"Aw, Sheep!, {s.players} players, draft {'on' if s.draft else 'off'}, seed {seed}, "
            f"round {game}: " + "; ".join(f"seat {i + 1} ({p})" for i, p in enumerate(s.names)),
            f"rules {s.rules.source} (sha256 {s.rules.sha256[:12]}), sheepsim {__version__}"]
    lines = head + render_log(log, s.players, st)
    return Trace(lines, int(st[L.ST_WINNER]), L.END_NAMES[int(st[L.ST_END_REASON])],
                 log.copy(), st, decisions_table(decisions))


def decisions_table(rows) -> pd.DataFrame:
    """The decision log as a table (phase 0 play, 1 draft; kinds ``play``, ``give``,
    ``return``, ``discard``, ``draft``, ``guess``): :func:`sheepsim.output.decisions_table`."""
    return output.decisions_table(rows, (L.D_SEAT, L.D_KIND, L.D_N, L.D_CHOICE),
                                  L.KIND_DECISIONS, L.D_PHASE)


def hand_text(row, seat) -> str:
    base = L.LOG_HEAD + L.MAX_PLAYERS + seat * L.N_KINDS
    parts = [f"{int(row[base + k])} {L.KIND_NAMES[k]}" for k in range(L.N_KINDS)
             if row[base + k]]
    return ", ".join(parts) if parts else "no cards"


def hands_lines(row, players) -> list[str]:
    return [f"    seat {s + 1} ({int(row[L.LOG_HEAD + s])}): {hand_text(row, s)}"
            for s in range(players)]


def _event_line(ev, seat, kind, target, a, b) -> str | None:
    title = L.KIND_TITLES[kind] if kind >= 0 else ""
    if ev == L.EV_DRAFT:
        return f"  draft pick {a + 1}: seat {seat + 1} keeps {title}, passes on to seat {target + 1}"
    if ev == L.EV_GIVE:
        return f"  seat {seat + 1} gives {title} to seat {target + 1}"
    if ev == L.EV_TAKE:
        return f"  seat {seat + 1} hands {title} to seat {target + 1}"
    if ev == L.EV_DISCARD:
        return f"  seat {seat + 1} discards {title}"
    if ev == L.EV_SWAP:
        return f"  seat {seat + 1} and seat {target + 1} swap hands"
    if ev == L.EV_PIG:
        return f"  seat {seat + 1} takes {a} sheep and {b} golden sheep from seat {target + 1}"
    if ev == L.EV_OUT:
        return f"  seat {seat + 1} has no cards left: out of the round"
    if ev == L.EV_GUESS:
        said = "sheep" if a else "not a sheep"
        return f"  Sheep Show card {b + 1} ({L.KIND_TITLES[kind]}): seat {seat + 1} guesses {said}"
    if ev == L.EV_DROP:
        return f"  seat {seat + 1} guessed wrong and drops out"
    if ev == L.EV_DRAW:
        return f"  fair draw: seat {seat + 1}"
    return None


MOVED = {L.EV_GIVE: 1, L.EV_TAKE: 1, L.EV_DISCARD: 1}


def render_log(log, players: int, st) -> list[str]:
    lines: list[str] = []
    turn, moved, last = 0, 0, None

    def close_turn():
        if turn and last is not None:
            sizes = ", ".join(str(int(last[L.LOG_HEAD + s])) for s in range(players))
            lines.append(f"  cards moved {moved}; run {int(last[6])}; pile {int(last[7])}; "
                         f"hand sizes {sizes}")
            lines.extend(hands_lines(last, players))

    for row in log:
        ev, seat, kind, target, a, b = (int(x) for x in row[:6])
        if last is not None and last[0] == L.EV_DRAFT and ev != L.EV_DRAFT:
            lines.append("Hands after the draft:")
            lines.extend(hands_lines(last, players))
        if ev == L.EV_DEAL:
            named = f" + {b} named removal{'' if b == 1 else 's'} (public)" if b else ""
            lines.append(f"Deal ({a} card{'' if a == 1 else 's'} set aside unseen{named}): "
                         f"seat {seat + 1} plays first")
            lines.extend(hands_lines(row, players))
        elif ev == L.EV_PLAY:
            close_turn()
            turn += 1
            moved = 0
            at = f" at seat {target + 1}" if target >= 0 else (
                " (no effect)" if kind in L.ACTION_KINDS else "")
            lines.append(f"Turn {turn}: seat {seat + 1} plays {L.KIND_TITLES[kind]}{at}")
        elif ev == L.EV_FLOCK_OFF:
            close_turn()
            turn = 0
            held = "one player has it" if b == 1 else f"{b} players tied at it"
            lines.append(f"Flock Off: best flock worth {a}, {held}")
        elif ev == L.EV_END:
            close_turn()
            turn = 0
            lines.append(f"Round over ({L.END_NAMES[a]}): seat {seat + 1} wins")
        else:
            if ev == L.EV_SWAP:
                moved += int(sum(row[L.LOG_HEAD + s] for s in (seat, target)))
            elif ev == L.EV_PIG:
                moved += a + b
            else:
                moved += MOVED.get(ev, 0)
            text = _event_line(ev, seat, kind, target, a, b)
            if text:
                lines.append(text)
        last = row
    lines.append("Final hands:")
    lines.extend(hands_lines(log[-1], players) if len(log) else [])
    return lines
