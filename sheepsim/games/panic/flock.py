"""The friendly :class:`Flock`: text in, actions, regrouping and scoring out.

Every method calls the same numba kernels the game uses (:mod:`.geometry.flockops`,
:mod:`.geometry.groups`, :mod:`.geometry.scoring`, :mod:`.geometry.regroup`); nothing
here re-implements a rule.
Coordinates are ``(row, col)`` in the flock's current text picture (``str(flock)``:
row 0 is the top line, col 0 the first character), directions are compass names on that
picture (``n`` = up the page, ``ne``, ``e`` ... ``nw``; ``up``/``down``/``left``/``right``
and ``up-left`` style also work).

>>> f = Flock.parse('''
... byg
... rkb
... ygr''')
>>> f.apply("alignment", side="front").is_connected()
True

Every invalid flock or action raises :class:`FlockError` (a
:class:`~sheepsim.errors.SheepsimError` and a ``ValueError``) naming the problem.
"""

from __future__ import annotations

import numpy as np

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.geometry import flockops as F
from sheepsim.games.panic.geometry import groups as G
from sheepsim.games.panic.geometry import regroup as RG
from sheepsim.games.panic.geometry.scoring import (
    black_points,
    ram_points,
    shear_front_row,
    shear_points,
    together_points,
)
from sheepsim.games.panic.policies.decide import SCRIPTED
from sheepsim.games.panic.rules import FlockError, PanicRules, load_rules, parse_flock_text
from sheepsim.games.panic.scratch import scripted_scratch

_DIR_ALIASES = {
    "up": "n", "down": "s", "left": "w", "right": "e", "up-right": "ne", "up-left": "nw",
    "down-right": "se", "down-left": "sw",
}
_SIDES = {"front": 0, "right": 2, "back": 4, "left": 6}

_standard: PanicRules | None = None
_standard_R: np.ndarray | None = None


def _rules(rules: PanicRules | None) -> PanicRules:
    """The given rules, or the shipped standard rules (loaded once)."""
    global _standard
    if rules is not None:
        if not isinstance(rules, PanicRules):
            raise FlockError(f"rules must be a PanicRules (see load_rules), got "
                             f"{type(rules).__name__}")
        return rules
    if _standard is None:
        _standard = load_rules()
    return _standard


def _rules_vector(rules: PanicRules | None) -> np.ndarray:
    """The 4-player rules vector (scoring tables, regroup die, regrouping options)."""
    global _standard_R
    if rules is not None:
        return _rules(rules).kernel_array(4)
    if _standard_R is None:
        _standard_R = _rules(None).kernel_array(4)
    return _standard_R


def _direction(name, *, orthogonal=False, diagonal=False) -> int:
    if not isinstance(name, str):
        raise FlockError(f"a direction must be a name such as 'n' or 'up', got {name!r}")
    key = _DIR_ALIASES.get(name.lower(), name.lower())
    if key not in L.DIR_NAMES:
        raise FlockError(f"unknown direction {name!r}; use one of {', '.join(L.DIR_NAMES)}")
    d = L.DIR_NAMES.index(key)
    if orthogonal and d % 2:
        raise FlockError(f"direction {name!r} must be orthogonal (n, e, s, w)")
    if diagonal and d % 2 == 0:
        raise FlockError(f"direction {name!r} must be diagonal (ne, se, sw, nw)")
    return d


#: every whole number the flock API passes on (rows, columns, lines, choices) lies in
#: [-LIMIT, LIMIT]: a flock spans at most 9 cells, and the kernels take int64 arrays
#: whose arithmetic must not overflow
LIMIT = 2**20


def _whole(value, what: str, low: int = -LIMIT) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise FlockError(f"{what} must be a whole number, got {value!r}")
    if not low <= int(value) <= LIMIT:
        shown = f"{int(value):,}" if abs(int(value)) < 10**15 else f"about 1e{len(str(abs(int(value)))) - 1}"
        raise FlockError(f"{what} must be between {low:,} and {LIMIT:,} (a flock spans at most "
                         f"{L.N_SHEEP} cells), got {shown}")
    return int(value)


def _cell(value, what: str) -> tuple[int, int]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise FlockError(f"{what} must be a (row, col) pair, got {value!r}")
    return _whole(value[0], f"{what} row"), _whole(value[1], f"{what} col")


def _required(action: str, params: dict, name: str):
    if name not in params:
        raise FlockError(f"{action} needs {name}=")
    return params[name]


class Flock:
    """A flock on an unbounded grid with a facing (``up``, ``right``, ``down``, ``left``).

    Holds the kernels' state vector (only the flock part is used). ``rules`` supplies the
    sheep counts, the scoring rows, the regroup die and the regrouping options (standard
    by default).
    """

    def __init__(self, st: np.ndarray, rules: PanicRules | None = None):
        self.st = st
        self.rules = rules
        self.R = _rules_vector(rules)

    # ------------------------------------------------------------------ text
    @classmethod
    def parse(cls, text: str, facing: str = "up", rules: PanicRules | None = None, *,
              free_form: bool = False) -> Flock:
        """One line per row: ``.`` empty, ``b g r y`` coloured, ``k`` black.

        The flock may hold at most the rules' sheep of each colour (standard: 2 blue, 2
        green, 2 red, 2 yellow, 1 black; fewer are fine, e.g. after shearing) unless
        ``free_form=True``, which allows any colours up to 9 sheep (hand-made puzzles).
        """
        if not isinstance(facing, str) or facing not in L.FACING_NAMES:
            raise FlockError(f"facing must be one of {', '.join(L.FACING_NAMES)}, got "
                             f"{facing!r}")
        cells = parse_flock_text(text)
        if len(cells) > L.N_SHEEP:
            raise FlockError(f"a flock holds at most {L.N_SHEEP} sheep, got {len(cells)}")
        if not free_form:
            _check_counts(cells, _rules(rules))
        st = np.zeros(L.ST_LEN, dtype=np.int64)
        for s, (r, c, ch) in enumerate(cells):
            st[L.ST_ROW + s] = r
            st[L.ST_COL + s] = c
            st[L.ST_COLOUR + s] = L.COLOUR_LETTERS.index(ch)
            st[L.ST_ALIVE + s] = 1
        st[L.ST_FACING] = L.FACING_NAMES.index(facing)
        st[L.ST_PREV_KIND] = -1
        return cls(st, rules)

    @classmethod
    def from_state(cls, st: np.ndarray, rules: PanicRules | None = None, *,
                   free_form: bool = False) -> Flock:
        """A flock from a kernel state vector ``(ST_LEN,)`` of whole numbers, checked:
        alive flags 0 or 1, colours and facing known, rows and columns within
        :data:`LIMIT`, no two sheep on one cell, at most the rules' sheep of each
        colour (unless ``free_form``, as in :meth:`parse`)."""
        st = np.asarray(st)
        if st.shape != (L.ST_LEN,):
            raise FlockError(f"a state vector has shape ({L.ST_LEN},), got {st.shape}")
        if st.dtype.kind not in "iub":
            if st.dtype.kind != "f" or not np.all(np.isfinite(st)) or np.any(st != np.round(st)):
                raise FlockError(f"a state vector holds whole numbers, got dtype {st.dtype}")
        if np.any(np.abs(st.astype(np.float64)) > 2.0**62):
            raise FlockError("a state vector's values must fit in int64")
        st = np.array(st, dtype=np.int64, copy=True)
        _check_state(st, None if free_form else _rules(rules))
        return cls(st, rules)

    def _alive(self) -> list[int]:
        return [s for s in range(L.N_SHEEP) if self.st[L.ST_ALIVE + s]]

    def _origin(self) -> tuple[int, int]:
        alive = self._alive()
        if not alive:
            return 0, 0
        return (min(int(self.st[L.ST_ROW + s]) for s in alive),
                min(int(self.st[L.ST_COL + s]) for s in alive))

    def __str__(self) -> str:
        alive = self._alive()
        if not alive:
            return ""
        r0, c0 = self._origin()
        h = max(int(self.st[L.ST_ROW + s]) for s in alive) - r0 + 1
        w = max(int(self.st[L.ST_COL + s]) for s in alive) - c0 + 1
        grid = [["."] * w for _ in range(h)]
        for s in alive:
            grid[int(self.st[L.ST_ROW + s]) - r0][int(self.st[L.ST_COL + s]) - c0] = \
                L.COLOUR_LETTERS[int(self.st[L.ST_COLOUR + s])]
        return "\n".join("".join(row) for row in grid)

    def __repr__(self) -> str:
        return f"Flock.parse({str(self)!r}, facing={self.facing!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Flock) and str(self) == str(other) and self.facing == other.facing

    @property
    def facing(self) -> str:
        return L.FACING_NAMES[int(self.st[L.ST_FACING])]

    def copy(self) -> Flock:
        return Flock(self.st.copy(), self.rules)

    def count(self, letter: str | None = None) -> int:
        """Number of sheep (of one colour letter if given: b g r y k)."""
        if letter is not None and (not isinstance(letter, str) or len(letter) != 1
                                   or letter not in L.COLOUR_LETTERS):
            raise FlockError(f"a colour letter is one of {', '.join(L.COLOUR_LETTERS)}, "
                             f"got {letter!r}")
        return sum(1 for s in self._alive()
                   if letter is None or L.COLOUR_LETTERS[int(self.st[L.ST_COLOUR + s])] == letter)

    def _slot(self, cell) -> int:
        r0, c0 = self._origin()
        r, c = _cell(cell, "sheep")
        for s in self._alive():
            if self.st[L.ST_ROW + s] == r0 + r and self.st[L.ST_COL + s] == c0 + c:
                return s
        raise FlockError(f"no sheep at {cell} in the flock {str(self)!r}")

    def _abs(self, cell) -> tuple[int, int]:
        r0, c0 = self._origin()
        r, c = _cell(cell, "through")
        return r0 + r, c0 + c

    # ----------------------------------------------------------------- actions
    _PARAMS = {
        L.LAMB_PUSH: {"sheep", "direction"}, L.LAMB_ROLL: {"sheep", "direction"},
        L.LEAPFROG: {"sheep", "direction"}, L.LINE_PUSH: {"direction", "line", "through"},
        L.DIAG_PUSH: {"direction", "through"}, L.ALIGNMENT: {"side"},
        L.EWE_TURN: {"direction"},
    }

    def apply(self, action: str, **params) -> Flock:
        """Apply one action in place (no regrouping) and return ``self``.

        * ``lamb_push`` / ``lamb_roll``: ``sheep=(row, col)``, ``direction`` (8 directions)
        * ``leapfrog``: ``sheep=(row, col)``, ``direction`` (n, e, s, w)
        * ``line_push``: ``direction`` (n, e, s, w) and ``line`` (the row index when
          pushing e/w, the column index when pushing n/s) or ``through=(row, col)``
        * ``diagonal_push``: ``direction`` (ne, se, sw, nw), ``through=(row, col)``
        * ``alignment``: ``side`` = front, back, left or right (relative to the facing)
        * ``ewe_turn``: ``direction`` = left or right

        Raises :class:`FlockError` for a missing or unknown parameter and for an
        impossible action (a roll onto a sheep or away from the flock, a leapfrog with
        nothing to jump, an empty line). The menu's reverse restriction is a game rule,
        not a flock one: it is not checked here.
        """
        if not isinstance(action, str) or action not in L.ACTION_NAMES:
            raise FlockError(f"unknown action {action!r}; use one of "
                             f"{', '.join(L.ACTION_NAMES)}")
        kind = L.ACTION_NAMES.index(action)
        allowed = self._PARAMS[kind]
        unknown = set(params) - allowed
        if unknown:
            raise FlockError(f"{action} takes {', '.join(sorted(allowed))}; "
                             f"got {', '.join(sorted(unknown))}")
        if kind in (L.LAMB_PUSH, L.LAMB_ROLL, L.LEAPFROG):
            a, b = self._sheep_action(kind, action, params)
        elif kind in (L.LINE_PUSH, L.DIAG_PUSH):
            a, b = self._line_action(kind, action, params)
        elif kind == L.ALIGNMENT:
            side = _required(action, params, "side")
            if not isinstance(side, str) or side not in _SIDES:
                raise FlockError(f"side must be one of {', '.join(_SIDES)}, got {side!r}")
            a, b = 0, (2 * int(self.st[L.ST_FACING]) + _SIDES[side]) % 8
        else:
            turn = _required(action, params, "direction")
            if not isinstance(turn, str) or turn not in ("left", "right"):
                raise FlockError(f"an Ewe Turn goes left or right, got {turn!r}")
            a, b = 0, L.TURN_RIGHT if turn == "right" else L.TURN_LEFT
        F.apply_action(self.st, kind, a, b)
        return self

    def _sheep_action(self, kind: int, action: str, params: dict) -> tuple[int, int]:
        """Sheep slot and direction of a Lamb Push, Lamb Roll or Leapfrog (checked)."""
        s = self._slot(_required(action, params, "sheep"))
        d = _direction(_required(action, params, "direction"), orthogonal=kind == L.LEAPFROG)
        if kind == L.LAMB_ROLL and not F.roll_ok(self.st, s, d):
            raise FlockError("a Lamb Roll needs an empty cell next to another sheep")
        if kind == L.LEAPFROG:
            r = self.st[L.ST_ROW + s] + L.DIR_ROW[d]
            c = self.st[L.ST_COL + s] + L.DIR_COL[d]
            if F.sheep_at(self.st, r, c) < 0:
                raise FlockError("a Leapfrog must jump at least one sheep")
        return s, d

    def _line_action(self, kind: int, action: str, params: dict) -> tuple[int, int]:
        """Line key and direction of a Line or Diagonal Push (checked)."""
        d = _direction(_required(action, params, "direction"), orthogonal=kind == L.LINE_PUSH,
                       diagonal=kind == L.DIAG_PUSH)
        if "through" in params and "line" in params:
            raise FlockError(f"{action} takes line= or through=, not both")
        if "through" in params:
            r, c = self._abs(params["through"])
        elif "line" in params:
            line = _whole(params["line"], "line")
            r0, c0 = self._origin()
            r, c = (r0 + line, c0) if d in (2, 6) else (r0, c0 + line)
        else:
            raise FlockError(f"{action} needs through=(row, col)"
                             + (" or line=" if kind == L.LINE_PUSH else ""))
        key = F.line_key(d, r, c)
        if F.first_on_line(self.st, key, d) < 0:
            raise FlockError("there is no sheep on that line")
        return key, d

    def is_connected(self) -> bool:
        return bool(G.is_connected(self.st))

    # -------------------------------------------------------------- regrouping
    def smallest_groups(self) -> list[list[tuple[int, int]]]:
        """The smallest groups (cells in text coordinates), in the order ``regroup``
        numbers its group choices; empty if the flock is connected."""
        opts = np.zeros((L.MAX_SUB_OPTS, L.OPT_WIDTH), dtype=np.int64)
        n = G.smallest_groups(self.st, opts)
        return [self._cells(int(opts[i, 0])) for i in range(n)]

    def _cells(self, mask: int) -> list[tuple[int, int]]:
        r0, c0 = self._origin()
        return [(int(self.st[L.ST_ROW + s]) - r0, int(self.st[L.ST_COL + s]) - c0)
                for s in range(L.N_SHEEP) if (mask >> s) & 1]

    def routes(self, group: int = 0, face: str | None = None) -> list[tuple]:
        """Route choices ``(direction, steps, slide or None)`` for smallest group number
        ``group``: with ``face=None`` the corner-contact slides towards the main flock (no
        die roll), else the routes to the main flock for that regroup die face ("+" or
        "X", with the rules' fallbacks), in ``regroup``'s choice order."""
        group = _whole(group, "group")
        groups = np.zeros((L.MAX_SUB_OPTS, L.OPT_WIDTH), dtype=np.int64)
        n = G.smallest_groups(self.st, groups)
        if not 0 <= group < n:
            raise FlockError(f"there are {n} smallest groups, no group number {group}")
        mask = int(groups[group, 0])
        opts = np.zeros((L.MAX_SUB_OPTS, L.OPT_WIDTH), dtype=np.int64)
        if face is None:
            k = G.contact_slides(self.st, mask, opts)
        else:
            k = G.regroup_routes(self.st, mask, _face(face), self.R[L.R_PLUS_FALLBACK], opts)
        return [(L.DIR_NAMES[int(opts[i, 0])], int(opts[i, 1]),
                 None if opts[i, 2] < 0 else L.DIR_NAMES[int(opts[i, 2])]) for i in range(k)]

    def regroup(self, faces="", choices=()) -> list[tuple]:
        """Regroup until connected with explicit die faces and choices; returns the
        moves made as ``(direction, steps, slide or None)``.

        ``faces``: the regroup die results in order ("+" or "X", e.g. ``"X+"``);
        ``choices``: in order, the index of the smallest group whenever several tie
        (see :meth:`smallest_groups`) and of the route whenever several exist (see
        :meth:`routes`); missing choices take the first option. Raises ``FlockError``
        if more die rolls are needed than faces given or a choice is out of range.
        """
        if not isinstance(faces, (str, list, tuple)):
            raise FlockError(f"faces must be a string such as 'X+', got {faces!r}")
        if not isinstance(choices, (list, tuple)):
            raise FlockError(f"choices must be a list of whole numbers, got {choices!r}")
        face_codes = [_face(f) for f in faces]
        choices = [_whole(c, "a regroup choice", low=0) for c in choices]
        if len(face_codes) > L.MAX_SCRIPT or len(choices) > L.MAX_SCRIPT:
            raise FlockError(f"at most {L.MAX_SCRIPT} faces and choices")
        w = scripted_scratch(face_codes, choices)
        trial = self.st.copy()
        rolls = RG.regroup(trial, self.R, 0, SCRIPTED, w, -1, G.side_contacts(trial))
        if rolls < 0:
            raise FlockError(f"a regroup choice is out of range: {choices}")
        if rolls > len(face_codes):
            raise FlockError(f"the regrouping needs {rolls} die rolls but only "
                             f"{len(face_codes)} faces were given")
        self.st[:] = trial
        moves = []
        log = w.log
        for i in range(int(w.ctx[L.CTX_LOG_N])):
            if log[i, 0] == L.EV_ROUTE:
                slide = int(log[i, 3])
                moves.append((L.DIR_NAMES[int(log[i, 1])], int(log[i, 2]),
                              None if slide < 0 else L.DIR_NAMES[slide]))
        return moves


def _check_counts(cells, rules: PanicRules) -> None:
    """At most the rules' number of sheep of each colour (the box's components)."""
    have = {ch: 0 for ch in L.COLOUR_LETTERS}
    for _, _, ch in cells:
        have[ch] += 1
    box = rules.sheep_counts()
    for ch in L.COLOUR_LETTERS:
        if have[ch] > box[ch]:
            raise FlockError(
                f"{have[ch]} {L.COLOUR_NAMES[L.COLOUR_LETTERS.index(ch)]} sheep ({ch}) but the "
                f"rules have only {box[ch]}; pass free_form=True for a free-form flock")


def _check_state(st: np.ndarray, rules: PanicRules | None) -> None:
    """The flock part of a state vector makes a flock (see :meth:`Flock.from_state`);
    ``rules`` None: any colours."""
    alive = st[L.ST_ALIVE:L.ST_ALIVE + L.N_SHEEP]
    if np.any((alive != 0) & (alive != 1)):
        raise FlockError(f"alive flags are 0 or 1, got {alive.tolist()}")
    if not 0 <= st[L.ST_FACING] < len(L.FACING_NAMES):
        raise FlockError(f"facing is 0-{len(L.FACING_NAMES) - 1} "
                         f"({', '.join(L.FACING_NAMES)}), got {int(st[L.ST_FACING])}")
    cells = []
    for s in np.flatnonzero(alive):
        r, c, colour = (int(st[k + s]) for k in (L.ST_ROW, L.ST_COL, L.ST_COLOUR))
        if not 0 <= colour < len(L.COLOUR_LETTERS):
            raise FlockError(f"sheep {s}: colour is 0-{len(L.COLOUR_LETTERS) - 1} "
                             f"({L.COLOUR_LETTERS}), got {colour}")
        if abs(r) > LIMIT or abs(c) > LIMIT:
            raise FlockError(f"sheep {s}: row and column must be between {-LIMIT:,} and "
                             f"{LIMIT:,}, got ({r}, {c})")
        cells.append((r, c, L.COLOUR_LETTERS[colour]))
    if len({(r, c) for r, c, _ in cells}) != len(cells):
        raise FlockError("two sheep share a cell in the state vector")
    if rules is not None:
        _check_counts(cells, rules)


def _face(face) -> int:
    if face in ("+", "plus", "orthogonal"):
        return L.FACE_ORTHO
    if face in ("X", "x", "diagonal"):
        return L.FACE_DIAG
    raise FlockError(f"unknown regroup die face {face!r}; use + or X")


# ------------------------------------------------------------------- scoring
def _check_flock(flock) -> None:
    if not isinstance(flock, Flock):
        raise FlockError(f"expected a Flock (see Flock.parse), got {type(flock).__name__}")


def _by_colour(flock: Flock, fn) -> dict[str, int]:
    _check_flock(flock)
    return {L.COLOUR_LETTERS[c]: int(fn(c)) for c in range(4)}


def ram_scores(flock: Flock) -> dict[str, int]:
    """Ram scoring: points per colour letter (b g r y) for the rows from the front."""
    return _by_colour(flock, lambda c: ram_points(flock.st, flock.R, c))


def shear(flock: Flock) -> tuple[dict[str, int], list[str]]:
    """Shear the front row (in place, no regrouping) unless the flock is of one colour,
    then score the rows from the back. Returns ``(points per colour letter, removed
    sheep letters left to right)``."""
    _check_flock(flock)
    before = flock.copy()
    removed = int(shear_front_row(flock.st))
    cells = sorted((int(before.st[L.ST_ROW + s]), int(before.st[L.ST_COL + s]),
                    L.COLOUR_LETTERS[int(before.st[L.ST_COLOUR + s])])
                   for s in range(L.N_SHEEP) if (removed >> s) & 1)
    pts = _by_colour(flock, lambda c: shear_points(flock.st, flock.R, c))
    return pts, [ch for _, _, ch in cells]


def together_scores(flock: Flock) -> dict[str, int]:
    """Teammates' field points per colour (2 side by side, 1 by a corner)."""
    return _by_colour(flock, lambda c: together_points(flock.st, c))


def black_scores(flock: Flock) -> dict[str, int]:
    """Black Sheep field points per colour (2 per sheep beside the black one, 1 by a
    corner)."""
    return _by_colour(flock, lambda c: black_points(flock.st, c))
