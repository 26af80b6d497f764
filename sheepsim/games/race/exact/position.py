"""A Sheep Race position as a person types it at the table, validated into engine arrays.

Text format (whitespace separated; ``#`` starts a comment; a file holds the same text)::

    semifinal supply=14 lanes=Requeijao,Pecorino,Feta,Manchego,Roquefort,Stilton
    7.101  9.110  F1  X17  12.010  0.030

* ``semifinal`` or ``final`` (or ``stage=...``): the race being run (default semifinal).
* ``supply=N``: blue cubes in the supply (default: the rules file's blue total minus the
  blue cubes on the cards shown; a finished sheep's cubes are not shown, so give the
  supply when one has finished with blue cubes on its card).
* ``lanes=A,B,...``: the six cards in lanes 1-6 (default: ``--lanes`` or the rules
  file's first six).
* then six sheep, lanes 1 to 6 in order:

  - ``S.RBW`` running on square ``S`` (0 = starting line) holding ``R`` red, ``B`` blue
    and ``W`` white cubes (one digit each): ``7.101`` is square 7, 1 red, 0 blue, 1 white;
  - ``F1``/``F2``/``F3`` crossed the Finish Line and placed 1st/2nd/3rd;
  - ``X17`` exhausted on End Zone square 17.

The Python API takes the same position as a dict (``{"stage": "semifinal", "supply": 14,
"lanes": [...], "sheep": ["7.101", ...]}`` or ``"sheep"`` as six dicts with ``square``,
``red``, ``blue``, ``white``, ``status`` (running/finished/exhausted) and ``place``) or
as a DataFrame with those six columns, one row per lane (``stage``/``supply``/``lanes``
as keywords). Impossible input (cubes a card never had, a running sheep empty in the
End Zone, a finished sheep without a place, more places than the stage awards...) is a
:class:`~sheepsim.errors.SheepsimError` naming the lane.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sheepsim.errors import SheepsimError
from sheepsim.games.race import layout as L
from sheepsim.games.race.rules import N_LANES, RaceRules, check_stage

STATUS_NAMES = {"running": L.RUNNING, "finished": L.FINISHED, "exhausted": L.EXHAUSTED}
_RUNNING = re.compile(r"^(\d+)\.(\d)(\d)(\d)$")
_FINISHED = re.compile(r"^[Ff]([1-9])$")
_EXHAUSTED = re.compile(r"^[Xx](\d+)$")
#: a word where the stage goes (before any sheep): letters only, not a sheep token
_STAGE_LIKE = re.compile(r"^[A-Za-z][A-Za-z_-]+$")


@dataclass(frozen=True)
class Sheep:
    """One lane: ``status`` running/finished/exhausted, ``square``, cubes, ``place``."""

    status: str
    square: int = 0
    red: int = 0
    blue: int = 0
    white: int = 0
    place: int = 0


@dataclass(frozen=True)
class Position:
    """A race position before validation against a rules file."""

    stage: str | None  # None: not given (the caller's default, else semifinal)
    sheep: tuple[Sheep, ...]
    supply: int | None = None
    lanes: tuple[str, ...] | None = None

    def text(self) -> str:
        """The position in the text format (round-trips through :func:`parse_position`)."""
        head = [self.stage or "semifinal"]
        if self.supply is not None:
            head.append(f"supply={self.supply}")
        if self.lanes:
            head.append("lanes=" + ",".join(self.lanes))
        return " ".join(head + [_sheep_token(s) for s in self.sheep])


def _sheep_token(s: Sheep) -> str:
    if s.status == "finished":
        return f"F{s.place}"
    if s.status == "exhausted":
        return f"X{s.square}"
    return f"{s.square}.{s.red}{s.blue}{s.white}"


def parse_sheep(token: str, lane: int) -> Sheep:
    m = _RUNNING.match(token)
    if m:
        sq, r, b, w = (int(x) for x in m.groups())
        return Sheep("running", sq, r, b, w)
    m = _FINISHED.match(token)
    if m:
        return Sheep("finished", place=int(m.group(1)))
    m = _EXHAUSTED.match(token)
    if m:
        return Sheep("exhausted", int(m.group(1)))
    raise SheepsimError(f"lane {lane}: {token!r} is not a sheep (write SQUARE.RBW like 7.101, "
                        "F1-F3 for a finished sheep, or X17 for one exhausted on square 17)")


def parse_position(text: str) -> Position:
    """A :class:`Position` from the text format (or the path of a file holding it)."""
    if "\n" not in text and len(text) < 4096 and Path(text).is_file():
        text = Path(text).read_text()
    text = " ".join(line.split("#", 1)[0] for line in text.splitlines())
    # "lanes=Feta, Karoo,..." as people type lists: a comma joins what follows it
    tokens = re.sub(r"\s*,\s*", ",", text).split()
    stage, supply, lanes, sheep = None, None, None, []
    for tok in tokens:
        key, eq, value = tok.partition("=")
        low = key.lower()
        if (not eq and low in ("semifinal", "final")) or (eq and low == "stage"):
            word = low if not eq else value.lower()
            if word not in ("semifinal", "final"):
                raise SheepsimError(f"stage={value}: the stage is semifinal or final")
            if stage is not None:
                raise SheepsimError(f"the position names the stage twice ({stage}, {word}): "
                                    "give one")
            stage = word
        elif eq and low == "supply":
            supply = _int(value, "supply")
        elif eq and low == "lanes":
            lanes = tuple(n.strip() for n in value.split(","))
        elif eq:
            raise SheepsimError(f"unknown position key {key!r} (stage, supply, lanes)")
        elif _STAGE_LIKE.match(tok) and not sheep:
            raise SheepsimError(f"{tok!r} is not a stage: write semifinal or final "
                                "(or leave it out for a semifinal)")
        else:
            sheep.append(parse_sheep(tok, len(sheep) + 1))
    if len(sheep) != N_LANES:
        raise SheepsimError(f"a position needs {N_LANES} sheep (lanes 1-6 in order), got {len(sheep)}")
    return Position(stage, tuple(sheep), supply, lanes)


def _int(value, what: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise SheepsimError(f"{what} must be a whole number, got {value!r}") from None


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def _sheep_from_dict(d: dict, lane: int) -> Sheep:
    d = {k: v for k, v in d.items() if not _missing(v)}  # empty DataFrame cells
    status = str(d.get("status", "running")).strip().lower()
    if status not in STATUS_NAMES:
        raise SheepsimError(f"lane {lane}: status must be running, finished or exhausted, got {status!r}")
    place = _int(d.get("place", 0), "place")
    return Sheep(status, _int(d.get("square", 0), "square"), _int(d.get("red", 0), "red"),
                 _int(d.get("blue", 0), "blue"), _int(d.get("white", 0), "white"), place)


def as_position(spec, *, stage: str | None = None, supply: int | None = None, lanes=None) -> Position:
    """A :class:`Position` from text, a file path, a dict or a DataFrame (keywords fill
    what the spec leaves out)."""
    if isinstance(spec, Position):
        return spec
    if isinstance(spec, str | Path):
        pos = parse_position(str(spec))
    elif isinstance(spec, dict):
        sheep = spec.get("sheep")
        if not isinstance(sheep, list | tuple):
            raise SheepsimError("a position dict needs 'sheep': six tokens or six dicts")
        parsed = tuple(parse_sheep(s, i + 1) if isinstance(s, str) else _sheep_from_dict(s, i + 1)
                       for i, s in enumerate(sheep))
        lanes_d = spec.get("lanes")
        pos = Position(None if spec.get("stage") is None else check_stage(spec["stage"]), parsed,
                       None if spec.get("supply") is None else _int(spec["supply"], "supply"),
                       None if lanes_d is None else tuple(lanes_d))
    elif hasattr(spec, "to_dict") and hasattr(spec, "columns"):
        rows = spec.to_dict("records")
        pos = Position(None, tuple(_sheep_from_dict(r, i + 1) for i, r in enumerate(rows)))
    else:
        raise SheepsimError(f"a position is text, a file, a dict or a DataFrame, not {type(spec).__name__}")
    if len(pos.sheep) != N_LANES:
        raise SheepsimError(f"a position needs {N_LANES} sheep, got {len(pos.sheep)}")
    if isinstance(lanes, str):
        lanes = lanes.split(",")
    if pos.stage and stage and pos.stage != check_stage(stage):
        raise SheepsimError(f"the position is a {pos.stage} but the stage given is {stage}: "
                            "give one of them, or make them agree")
    if pos.lanes is not None and lanes is not None:
        given = tuple(str(name).strip() for name in lanes)
        if [n.lower() for n in pos.lanes] != [n.lower() for n in given]:
            raise SheepsimError(f"the position's lanes={','.join(pos.lanes)} differ from the lanes "
                                f"given ({','.join(given)}): give one of them, or make them agree")
    return Position(check_stage(pos.stage or stage or "semifinal"), pos.sheep,
                    pos.supply if pos.supply is not None else supply,
                    pos.lanes if pos.lanes is not None or lanes is None else tuple(lanes))


# ------------------------------------------------------------------ validation
def position_arrays(pos: Position, rules: RaceRules):
    """Validate ``pos`` against ``rules``; return ``(board (6, N_BOARD), race (N_RACE,),
    lane_cards (6,))`` as the engine holds a race in progress."""
    from sheepsim.games.race.exact.solver import start_position

    lane_cards = rules.lanes(list(pos.lanes) if pos.lanes else None)
    stage = check_stage(pos.stage or "semifinal")
    board, race = start_position(rules, lane_cards, stage)
    cards = board.copy()  # the cubes each card starts with
    for lane, sheep in enumerate(pos.sheep):
        _set_sheep(board, race, lane, sheep, cards[lane], rules)
    _check_places(board, stage)
    if pos.supply is not None and pos.supply < 0:
        raise SheepsimError(f"supply={pos.supply}: the supply is negative (it holds 0 or more "
                            "blue cubes)")
    blue_cards = int(board[:, L.BLUE].sum())
    supply = int(rules.supply[1]) - blue_cards if pos.supply is None else pos.supply
    if supply < 0 or supply + blue_cards > int(rules.supply[1]):
        raise SheepsimError(f"supply={supply}: the supply and the cards would hold "
                            f"{supply + blue_cards} blue cubes, but {rules.source} has "
                            f"{int(rules.supply[1])}")
    race[L.SUPPLY_BLUE] = supply
    race[L.N_PLACED] = int((board[:, L.STATUS] == L.FINISHED).sum())
    race[L.N_RUNNING] = int((board[:, L.STATUS] == L.RUNNING).sum())
    return board, race, lane_cards


def _set_sheep(board, race, lane, s: Sheep, card, rules: RaceRules) -> None:
    where = f"lane {lane + 1}"
    track, ez_first = int(race[L.TRACK]), int(race[L.EZ_FIRST])
    status = STATUS_NAMES[s.status]
    row = board[lane]
    row[L.STATUS] = status
    row[L.PLACE] = 0
    if status == L.FINISHED:
        if s.place < 1:
            raise SheepsimError(f"{where}: a finished sheep needs its place (F1, F2 or F3)")
        row[L.POS], row[L.RED], row[L.BLUE], row[L.WHITE] = track + 1, 0, 0, 0
        row[L.PLACE] = s.place
        return
    if s.place:
        raise SheepsimError(f"{where}: only a finished sheep has a place")
    if not 0 <= s.square <= track:
        raise SheepsimError(f"{where}: square {s.square} is not on the track (0-{track})")
    if min(s.red, s.blue, s.white) < 0:
        raise SheepsimError(f"{where}: negative cubes")
    if s.red > card[L.RED] or s.white > card[L.WHITE]:
        raise SheepsimError(f"{where}: {s.red} red and {s.white} white cubes, but its card "
                            f"started with {card[L.RED]} red and {card[L.WHITE]} white "
                            "(red and white are never recovered)")
    cubes = s.red + s.blue + s.white
    if cubes > rules.max_cubes:
        raise SheepsimError(f"{where}: {cubes} cubes, more than max_cubes {rules.max_cubes}")
    if status == L.EXHAUSTED and s.square < ez_first:
        raise SheepsimError(f"{where}: X{s.square} is outside the End Zone (squares "
                            f"{ez_first}-{track}): a sheep is exhausted only in the End Zone")
    if status == L.EXHAUSTED and cubes:
        raise SheepsimError(f"{where}: an exhausted sheep holds no cubes")
    if status == L.RUNNING and cubes == 0 and s.square >= ez_first:
        raise SheepsimError(f"{where}: a running sheep with no cubes on End Zone square "
                            f"{s.square} is exhausted (write X{s.square})")
    row[L.POS], row[L.RED], row[L.BLUE], row[L.WHITE] = s.square, s.red, s.blue, s.white


def _check_places(board, stage: str) -> None:
    places = sorted(int(p) for p in board[:, L.PLACE] if p)
    most = 1 if stage == "final" else 3
    if len(places) > most:
        raise SheepsimError(f"{len(places)} sheep have places, but a {stage} awards {most}")
    if places != list(range(1, len(places) + 1)):
        n = len(places)
        want = "F1" if n == 1 else f"F1 to F{n}"
        raise SheepsimError(f"with {n} sheep across the line their places must be {want} "
                            f"(places are won in crossing order), got "
                            f"{', '.join(f'F{p}' for p in places)}")
