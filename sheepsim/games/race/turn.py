"""One turn at the table, as the engine plays it: ``sheepsim race move``.

Given a position and the dice total rolled, the sheep the total selects (the Lazy Sheep
for a 9, or instead of an exhausted or finished sheep), its legal pace options and the
position after each (moves, cubes and the blue supply, exhaustion in the End Zone, a
finish and its place); with ``option`` the position after that one; when the race is
over after it, the places (the exhausted sheep closest to the Finish Line take the places
not won by crossing). Every step is the engine's own kernel (:mod:`.moves`), the same
code ``race advise`` plays each option with, so the page of ``sheepsim serve`` that
follows a game with it and the CLI cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from sheepsim.errors import SheepsimError
from sheepsim.games.race import layout as L
from sheepsim.games.race.advise import _sheep_after, after_option, legal_for
from sheepsim.games.race.engine import place_remaining, race_over, select_sheep
from sheepsim.games.race.exact.from_position import _rules
from sheepsim.games.race.exact.position import Position, as_position, parse_sheep, position_arrays


@dataclass
class Turn:
    """``table``: one row per legal option of the selected sheep, in option order
    (``option``, ``after`` the sheep after it, ``next`` the whole position after it,
    ``over`` whether the race is over then, ``lanes_by_place`` the lanes placed 1st,
    2nd, 3rd then, e.g. ``[5, 1, 3]`` for lane 5 first, None while it runs);
    ``meta_fields``: the position, total, selected lane and why, and with an option its
    ``next``, ``over`` and ``lanes_by_place`` (the same list)."""

    table: pd.DataFrame
    meta_fields: dict


def position_after(pos: Position, board, race, rules) -> str:
    """The text of the position on ``board``/``race`` (the stage and lanes of ``pos``;
    ``supply=`` only where the default would be wrong: a sheep finished holding blue cubes,
    which stay off the supply)."""
    sheep = tuple(parse_sheep(_sheep_after(board[k], 0), k + 1) for k in range(6))
    shown = sum(s.blue for s in sheep if s.status == "running")
    supply = int(race[L.SUPPLY_BLUE])
    default = int(rules.supply[1]) - shown
    return Position(pos.stage, sheep, None if supply == default else supply, pos.lanes).text()


def _places(board, race) -> list[int]:
    b, r = board.copy(), race.copy()
    place_remaining(b, r)
    order = sorted((int(b[k, L.PLACE]), k + 1) for k in range(6) if b[k, L.PLACE] > 0)
    return [lane for _, lane in order]


def play_turn(position, total: int, option: str | None = None, rules=None, *, stage=None,
              lanes=None) -> Turn:
    """The turn for dice ``total`` from ``position`` (text, dict or DataFrame as
    :func:`~sheepsim.games.race.exact.position.as_position` takes); ``option`` (a name of
    :data:`~sheepsim.games.race.layout.OPTION_NAMES`, any case) plays it."""
    rules = _rules(rules)
    pos = as_position(position, stage=stage, lanes=lanes)
    board, race, _ = position_arrays(pos, rules)
    if race_over(board.copy(), race.copy()):
        raise SheepsimError("the race is already over in this position: no sheep moves again")
    totals = sorted(rules.total_distribution(pos.stage))
    if total not in totals:
        raise SheepsimError(f"total {total}: the {pos.stage}'s dice roll "
                            f"{totals[0]}-{totals[-1]}")
    lane, reason = (int(x) for x in select_sheep(board, total))
    legal = legal_for(board, race, lane)
    opts = [o for o in range(L.N_OPTIONS) if legal[o]]
    if not opts:  # the rules give every running sheep an option: a variant's dead end
        raise SheepsimError(f"lane {lane + 1} has no legal option")
    rows = []
    for o in opts:
        b, r = after_option(board, race, lane, o)
        over = bool(race_over(b.copy(), r.copy()))
        rows.append({"option": L.OPTION_NAMES[o], "after": _sheep_after(b[lane], 0),
                     "next": position_after(pos, b, r, rules), "over": over,
                     "lanes_by_place": _places(b, r) if over else None})
    table = pd.DataFrame(rows)
    meta = {"position": pos.text(), "stage": pos.stage, "total": int(total), "lane": lane + 1,
            "reason": L.REASON_NAMES[reason],
            "legal": [L.OPTION_NAMES[o] for o in opts]}
    if option is not None:
        name = str(option).strip().upper()
        if name not in L.OPTION_NAMES:
            raise SheepsimError(f"option {option!r}: one of {', '.join(L.OPTION_NAMES)}")
        if name not in meta["legal"]:
            raise SheepsimError(f"option {name} is not legal for lane {lane + 1} "
                                f"({_sheep_after(board[lane], 0)}): legal are "
                                f"{', '.join(meta['legal'])}")
        row = rows[meta["legal"].index(name)]
        meta.update(option=name, next=row["next"], over=row["over"],
                    lanes_by_place=row["lanes_by_place"])
    return Turn(table, meta)
