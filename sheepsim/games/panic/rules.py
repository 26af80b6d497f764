"""Loading and validating Shear Panic rules files (TOML).

The shipped ``standard.toml`` holds every component value (menu, tracks, starting flock,
dice); a user's variant file has the same schema. Each problem raises one
:class:`~sheepsim.errors.RulesError` naming the file and the key.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np

from sheepsim.errors import RulesError, SheepsimError
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.game import GAME
from sheepsim.rulesfile import Reader, read_toml

PACKAGE = "sheepsim.games.panic"
DEFAULT_NAME = "standard.toml"
SUPPORTED_PLAYERS = GAME.player_counts
FIELD_KIND_CODES = {name: i for i, name in enumerate(L.FIELD_KINDS)}
ACTION_CODES = {name: i for i, name in enumerate(L.ACTION_NAMES)}
RESTRICTION_CODES = {name: i for i, name in enumerate(L.RESTRICTION_NAMES)}
COLOUR_CODES = {name: i for i, name in enumerate(L.COLOUR_NAMES)}
FACE_CODES = {name: i for i, name in enumerate(L.FACE_NAMES)}
REGROUP_FACE_CODES = {name: i for i, name in enumerate(L.REGROUP_FACE_NAMES)}
# The box: 2 sheep of each colour and 1 black sheep.
STANDARD_SHEEP = {"b": 2, "g": 2, "r": 2, "y": 2, "k": 1}
# Actions whose tiles may carry a reverse symbol (the rules README defines a reverse
# only for these).
REVERSIBLE_ACTIONS = (L.LINE_PUSH, L.DIAG_PUSH, L.EWE_TURN)
PLUS_FALLBACK_CODES = {name: i for i, name in enumerate(L.PLUS_FALLBACK_NAMES)}


class FlockError(SheepsimError, ValueError):
    """An invalid flock picture or flock action (also a ``ValueError``)."""


@dataclass(frozen=True)
class Tile:
    action: int
    time: int
    restriction: int


@dataclass(frozen=True)
class Field:
    kind: int
    first: int
    last: int
    gate_after: int  # -1: no gate


@dataclass(frozen=True)
class Track:
    spaces: int
    fields: tuple[Field, ...]
    panic: tuple[int, ...]
    roger_enters: int
    roger_leaves_after: int
    shearer_enters: int

    def field_of(self, space: int) -> int:
        """Index of the field containing ``space`` (-1 for the start pen, space 0)."""
        for i, f in enumerate(self.fields):
            if f.first <= space <= f.last:
                return i
        return -1


@dataclass(frozen=True)
class PanicRules:
    """A validated rules set. ``kernel_array(n)`` packs it for the kernels."""

    name: str
    sha256: str
    seat_colours: tuple[int, ...]
    neutral_3p: int
    start_text: str
    start_facing: int
    sheep: tuple[tuple[int, int, int], ...]  # (row, col, colour) in reading order
    panic_faces: tuple[int, ...]
    regroup_faces: tuple[int, ...]
    ram_points: tuple[int, ...]
    shear_points: tuple[int, ...]
    slide_without_roll: bool
    plus_fallback: int  # layout.PLUS_FALLBACK_* code
    menu: tuple[Tile, ...]
    tracks: dict[int, Track] = field(default_factory=dict)


    @property
    def source(self) -> str:
        """The rules file read (the same field as every game's rules)."""
        return self.name
    def check_players(self, n_players) -> int:
        if n_players == 2:
            raise SheepsimError(f"the 2-player variant is not supported yet (use "
                                f"{GAME.players_listed('or')} players)")
        if isinstance(n_players, bool) or n_players not in SUPPORTED_PLAYERS:
            raise SheepsimError(f"players must be {GAME.players_listed('or')}, got {n_players!r}")
        return int(n_players)

    def sheep_counts(self) -> dict[str, int]:
        """Sheep per colour letter in the box (the starting flock holds them all)."""
        counts = {ch: 0 for ch in L.COLOUR_LETTERS}
        for _, _, colour in self.sheep:
            counts[L.COLOUR_LETTERS[colour]] += 1
        return counts

    def seat_colour_list(self, n_players: int) -> list[int]:
        """Colour of each seat; with 3 players the neutral colour is skipped."""
        cols = list(self.seat_colours)
        if n_players == 3:
            cols.remove(self.neutral_3p)
        return cols[:n_players]

    def kernel_array(self, n_players: int) -> np.ndarray:
        """The rules vector ``R`` (int64, ``layout.R_LEN``) for ``n_players``."""
        n_players = self.check_players(n_players)
        track = self.tracks[n_players]
        R = np.zeros(L.R_LEN, dtype=np.int64)
        for i, (r, c, colour) in enumerate(self.sheep):
            R[L.R_START_ROW + i] = r
            R[L.R_START_COL + i] = c
            R[L.R_START_COLOUR + i] = colour
        R[L.R_START_FACING] = self.start_facing
        R[L.R_N_TILES] = len(self.menu)
        for i, t in enumerate(self.menu):
            R[L.R_TILE_KIND + i] = t.action
            R[L.R_TILE_TIME + i] = t.time
            R[L.R_TILE_RESTR + i] = t.restriction
        R[L.R_N_PLAYERS] = n_players
        R[L.R_COLOUR_SEAT:L.R_COLOUR_SEAT + L.N_COLOURS] = L.NO_SEAT
        for seat, colour in enumerate(self.seat_colour_list(n_players)):
            R[L.R_SEAT_COLOUR + seat] = colour
            R[L.R_COLOUR_SEAT + colour] = seat
        R[L.R_TRACK_LEN] = track.spaces
        R[L.R_N_FIELDS] = len(track.fields)
        for i, f in enumerate(track.fields):
            R[L.R_FIELD_KIND + i] = f.kind
            R[L.R_FIELD_FIRST + i] = f.first
            R[L.R_FIELD_LAST + i] = f.last
            R[L.R_FIELD_GATE + i] = f.gate_after
        for p in track.panic:
            R[L.R_PANIC + p] = 1
        R[L.R_N_PANIC_FACES] = len(self.panic_faces)
        R[L.R_PANIC_FACES:L.R_PANIC_FACES + len(self.panic_faces)] = self.panic_faces
        R[L.R_N_REGROUP_FACES] = len(self.regroup_faces)
        R[L.R_REGROUP_FACES:L.R_REGROUP_FACES + len(self.regroup_faces)] = self.regroup_faces
        R[L.R_RAM_POINTS:L.R_RAM_POINTS + len(self.ram_points)] = self.ram_points
        R[L.R_SHEAR_POINTS:L.R_SHEAR_POINTS + len(self.shear_points)] = self.shear_points
        R[L.R_SLIDE_WITHOUT_ROLL] = int(self.slide_without_roll)
        R[L.R_PLUS_FALLBACK] = self.plus_fallback
        return R


# ------------------------------------------------------------------------ parsing
def parse_flock_text(text) -> list[tuple[int, int, str]]:
    """``(row, col, letter)`` for each sheep in ``text`` (reading order).

    One line per row, one character per cell (``.`` empty). Blank lines around the
    picture and indentation common to every line are ignored; any other space is an
    error (it would shift the sheep after it). Raises :class:`FlockError`.
    """
    if not isinstance(text, str):
        raise FlockError(f"a flock picture must be text, got {type(text).__name__}")
    lines = textwrap.dedent(text.expandtabs(4)).splitlines()
    lines = [ln.rstrip() for ln in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    out = []
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):
            if ch == ".":
                continue
            if ch == " ":
                raise FlockError(f"space at row {r + 1}, column {c + 1} of the flock picture "
                                 "(use . for an empty cell; indent every line alike)")
            if ch not in L.COLOUR_LETTERS:
                raise FlockError(f"unknown character {ch!r} at row {r + 1}, column {c + 1} "
                                 f"(use . {' '.join(L.COLOUR_LETTERS)})")
            out.append((r, c, ch))
    return out


def orthogonally_connected(cells: list[tuple[int, int]]) -> bool:
    if not cells:
        return True
    todo = [cells[0]]
    seen = {cells[0]}
    cellset = set(cells)
    while todo:
        r, c = todo.pop()
        for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if nb in cellset and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return len(seen) == len(cellset)


def _names(reader: Reader, key: str, codes: dict[str, int], what: str) -> list[int]:
    value = reader.raw(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        reader.fail(key, f"must be a non-empty list of {what} names")
    out = []
    for v in value:
        if v not in codes:
            reader.fail(key, f"unknown {what} {v!r}; known: {', '.join(codes)}")
        out.append(codes[v])
    return out


#: typo guard on points per sheep (the standard rules score 1-4)
MAX_POINTS = 1_000


def _points(reader: Reader, key: str) -> tuple[int, ...]:
    pts = reader.int_list(key, min_value=0, max_value=MAX_POINTS)
    if len(pts) > L.MAX_ROW_POINTS:
        reader.fail(key, f"at most {L.MAX_ROW_POINTS} rows, got {len(pts)}")
    return tuple(pts)


def _read_track(reader: Reader, n_players: int) -> Track:
    spaces = reader.int_("spaces", min_value=2)
    if spaces > L.MAX_TRACK:
        reader.fail("spaces", f"at most {L.MAX_TRACK}, got {spaces}")
    fields = []
    expected_first = 1
    kinds_seen = set()
    for fr in reader.tables("fields"):
        kind_name = fr.str_("kind")
        if kind_name not in FIELD_KIND_CODES:
            fr.fail("kind", f"unknown field kind {kind_name!r}; known: {', '.join(FIELD_KIND_CODES)}")
        first = fr.int_("first", min_value=1)
        last = fr.int_("last", min_value=1)
        if first < expected_first:
            fr.fail("first", f"field overlaps the previous one (starts at {first}, "
                             f"previous ends at {expected_first - 1})")
        if first > expected_first:
            fr.fail("first", f"gap before this field: spaces {expected_first}..{first - 1} "
                             "belong to no field")
        if last < first:
            fr.fail("last", f"must be at least first ({first}), got {last}")
        if last > spaces:
            fr.fail("last", f"outside the track (spaces = {spaces}), got {last}")
        gate = fr.int_("gate_after", required=False, default=-1)
        if gate != -1:
            if FIELD_KIND_CODES[kind_name] not in (L.RAM, L.SHEARING):
                fr.fail("gate_after", "only ram and shearing fields have a gate")
            if not first <= gate < last:
                fr.fail("gate_after", f"gate outside its field ({first}..{last - 1}), got {gate}")
        fr.no_unknown_keys()
        fields.append(Field(FIELD_KIND_CODES[kind_name], first, last, gate))
        kinds_seen.add(kind_name)
        expected_first = last + 1
    if len(fields) > L.MAX_FIELDS:
        reader.fail("fields", f"at most {L.MAX_FIELDS} fields, got {len(fields)}")
    if expected_first != spaces + 1:
        reader.fail("fields", f"fields end at space {expected_first - 1} but the track has "
                              f"{spaces} spaces (gap at the end)")
    panic = reader.int_list("panic", min_value=1, nonempty=False, default=[], required=False)
    for p in panic:
        if p > spaces:
            reader.fail("panic", f"panic space {p} is outside the track (1..{spaces})")
    if len(set(panic)) != len(panic):
        reader.fail("panic", "a panic space is listed twice")
    roger = reader.int_("roger_enters", min_value=1)
    roger_off = reader.int_("roger_leaves_after", min_value=1)
    shearer = reader.int_("shearer_enters", min_value=1)
    for key, v in (("roger_enters", roger), ("roger_leaves_after", roger_off),
                   ("shearer_enters", shearer)):
        if v > spaces:
            reader.fail(key, f"outside the track (1..{spaces}), got {v}")
    if roger_off < roger:
        reader.fail("roger_leaves_after", f"must be at least roger_enters ({roger})")
    reader.no_unknown_keys()
    return Track(spaces, tuple(fields), tuple(panic), roger, roger_off, shearer)


def _read_game(top: Reader) -> tuple[list[int], int]:
    """``[game]``: the seat colours in order and the neutral colour of 3-player games."""
    game = top.table_("game")
    seat_colours = _names(game, "seat_colours", COLOUR_CODES, "colour")
    if L.BLACK in seat_colours:
        game.fail("seat_colours", "the black sheep belongs to no player")
    if len(seat_colours) != 4 or len(set(seat_colours)) != 4:
        game.fail("seat_colours", "must list the four colours blue, green, red, yellow once each")
    neutral = game.str_("neutral_colour_3p")
    if neutral not in COLOUR_CODES or COLOUR_CODES[neutral] == L.BLACK:
        game.fail("neutral_colour_3p", f"must be blue, green, red or yellow, got {neutral!r}")
    game.no_unknown_keys()
    return seat_colours, COLOUR_CODES[neutral]


def _read_flock(top: Reader) -> tuple[str, int, tuple]:
    """``[flock]``: the starting picture, its facing and the sheep ``(row, col, colour)``."""
    fl = top.table_("flock")
    text = fl.str_("start")
    try:
        cells = parse_flock_text(text)
    except ValueError as exc:
        fl.fail("start", str(exc))
    counts = {ch: 0 for ch in STANDARD_SHEEP}
    for _, _, ch in cells:
        counts[ch] += 1
    if counts != STANDARD_SHEEP:
        want = ", ".join(f"{n} {ch}" for ch, n in STANDARD_SHEEP.items())
        got = ", ".join(f"{n} {ch}" for ch, n in counts.items())
        fl.fail("start", f"wrong sheep: need {want}; got {got}")
    if not orthogonally_connected([(r, c) for r, c, _ in cells]):
        fl.fail("start", "the starting flock is not orthogonally connected")
    facing = fl.str_("facing", choices=L.FACING_NAMES)
    fl.no_unknown_keys()
    sheep = tuple((r, c, L.COLOUR_LETTERS.index(ch)) for r, c, ch in cells)
    return text, L.FACING_NAMES.index(facing), sheep


def _read_dice(top: Reader) -> tuple[list[int], list[int]]:
    """``[dice]``: the panic die's and the regroup die's faces."""
    dice = top.table_("dice")
    panic_faces = _names(dice, "panic", FACE_CODES, "panic die face")
    regroup_faces = _names(dice, "regroup", REGROUP_FACE_CODES, "regroup die face")
    for key, faces in (("panic", panic_faces), ("regroup", regroup_faces)):
        if len(faces) > L.MAX_FACES:
            dice.fail(key, f"at most {L.MAX_FACES} faces, got {len(faces)}")
    dice.no_unknown_keys()
    return panic_faces, regroup_faces


def _read_menu(top: Reader) -> list[Tile]:
    """``[[menu]]``: the menu tiles (action, time, restriction), each checked."""
    menu = []
    for tr in top.tables("menu"):
        action = tr.str_("action")
        if action not in ACTION_CODES:
            tr.fail("action", f"unknown action {action!r}; known: {', '.join(ACTION_CODES)}")
        time = tr.int_("time", min_value=1, max_value=L.MAX_TRACK)
        restr = tr.str_("restriction")
        if restr not in RESTRICTION_CODES:
            tr.fail("restriction", f"unknown restriction {restr!r}; known: "
                                   f"{', '.join(RESTRICTION_CODES)}")
        if RESTRICTION_CODES[restr] == L.R_OWN and ACTION_CODES[action] not in L.SHEEP_ACTIONS:
            tr.fail("restriction", f"own_sheep only applies to actions that move one chosen "
                                   f"sheep (lamb_push, lamb_roll, leapfrog), not {action}")
        if (RESTRICTION_CODES[restr] in (L.R_NO_REVERSE, L.R_NO_REVERSE_UNLESS_DIE)
                and ACTION_CODES[action] not in REVERSIBLE_ACTIONS):
            tr.fail("restriction", f"{restr} only applies to line_push, diagonal_push and "
                                   f"ewe_turn (a reverse move is defined for them), not {action}")
        tr.no_unknown_keys()
        menu.append(Tile(ACTION_CODES[action], time, RESTRICTION_CODES[restr]))
    if len(menu) > L.MAX_TILES:
        top.fail("menu", f"at most {L.MAX_TILES} tiles, got {len(menu)}")
    return menu


def load_rules(path=None) -> PanicRules:
    """Read and validate a rules file (``None``: the shipped standard rules)."""
    src = read_toml(path, PACKAGE, DEFAULT_NAME)
    top = Reader(src.name, src.data, "")
    seat_colours, neutral = _read_game(top)
    text, facing, sheep = _read_flock(top)
    panic_faces, regroup_faces = _read_dice(top)

    sc = top.table_("scoring")
    ram_points = _points(sc, "ram_row_points")
    shear_points = _points(sc, "shear_row_points")
    sc.no_unknown_keys()

    rg = top.table_("regroup")
    slide = rg.bool_("corner_contact_slides_without_roll")
    plus_fallback = rg.str_("plus_without_route", choices=L.PLUS_FALLBACK_NAMES)
    rg.no_unknown_keys()

    menu = _read_menu(top)
    tracks_r = top.table_("tracks")
    tracks = {n: _read_track(tracks_r.table_(str(n)), n) for n in SUPPORTED_PLAYERS}
    tracks_r.no_unknown_keys()
    top.no_unknown_keys()

    return PanicRules(
        name=src.name, sha256=src.sha256, seat_colours=tuple(seat_colours),
        neutral_3p=neutral, start_text=text, start_facing=facing,
        sheep=sheep, panic_faces=tuple(panic_faces), regroup_faces=tuple(regroup_faces),
        ram_points=ram_points, shear_points=shear_points, slide_without_roll=slide,
        plus_fallback=PLUS_FALLBACK_CODES[plus_fallback], menu=tuple(menu), tracks=tracks,
    )


__all__ = ["FlockError", "PanicRules", "RulesError", "Track", "Field", "Tile", "load_rules",
           "parse_flock_text"]
