"""The text of a traced game: one readable line (or a flock picture) per logged event.

:func:`render_log` turns the event log of a traced game (:func:`.simulate.trace_game`:
the harness's event rows; rows ``[event, a, b, c, d, rows, cols, alive, facing,
counter, scores]``, see :mod:`.layout`) into lines; it only reads the log (no rule is
applied here).
"""

from __future__ import annotations

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.rules import PanicRules

TIE_NAMES = ("points", "sheep_left", "turn_order")
_LINE_NAMES = {2: "row", 6: "row", 0: "column", 4: "column"}  # else: a diagonal
SCORES_AT = L.LOG_HEAD + 3 * L.N_SHEEP + 2
COUNTER_AT = L.LOG_HEAD + 3 * L.N_SHEEP + 1
FACING_AT = L.LOG_HEAD + 3 * L.N_SHEEP


def _flock_text(row) -> tuple[list[list[str]], dict[int, tuple[int, int]]]:
    """An empty grid the size of a log row's flock and each live slot's (row, col) in it
    (no sheep left: an empty grid)."""
    base = L.LOG_HEAD
    alive = [s for s in range(L.N_SHEEP) if row[base + 2 * L.N_SHEEP + s]]
    if not alive:
        return [], {}
    rs = {s: int(row[base + s]) for s in alive}
    cs = {s: int(row[base + L.N_SHEEP + s]) for s in alive}
    r0, c0 = min(rs.values()), min(cs.values())
    h = max(rs.values()) - r0 + 1
    w = max(cs.values()) - c0 + 1
    grid = [["."] * w for _ in range(h)]
    return grid, {s: (rs[s] - r0, cs[s] - c0) for s in alive}


def _first_on_line(row, key, d):
    """Display only: the slot a pusher from outside meets first on line ``key`` (same
    convention as ``flockops.line_key`` / ``first_on_line``)."""
    dr, dc = L.DIR_ROW[d], L.DIR_COL[d]
    best, best_p = None, None
    for s in range(L.N_SHEEP):
        if not row[L.LOG_HEAD + 2 * L.N_SHEEP + s]:
            continue
        r = int(row[L.LOG_HEAD + s])
        c = int(row[L.LOG_HEAD + L.N_SHEEP + s])
        k = r if d in (2, 6) else c if d in (0, 4) else r - c if d in (3, 7) else r + c
        p = r * dr + c * dc
        if k == key and (best_p is None or p < best_p):
            best, best_p = s, p
    return best


class _Text:
    """What the lines of one trace share: rules, seats, sheep colours."""

    def __init__(self, rules: PanicRules, players: int, names: list[str], st):
        self.rules = rules
        self.players = players
        self.colours = rules.seat_colour_list(players)
        self.track = rules.tracks[players]
        self.seat_name = [f"seat {s + 1} ({L.COLOUR_NAMES[self.colours[s]]}, {names[s]})"
                          for s in range(players)]
        self.colour_of = [int(st[L.ST_COLOUR + s]) for s in range(L.N_SHEEP)]
        self.turn = 0

    def picture(self, row) -> list[str]:
        grid, pos = _flock_text(row)
        if not grid:
            return ["    (no sheep left)"]
        for s, (r, c) in pos.items():
            grid[r][c] = L.COLOUR_LETTERS[self.colour_of[s]]
        facing = L.FACING_NAMES[int(row[FACING_AT])]
        return [f"    {''.join(g)}" for g in grid] + [f"    (facing {facing})"]

    def scores(self, row) -> str:
        return ", ".join(f"{L.COLOUR_NAMES[self.colours[s]]} {int(row[SCORES_AT + s])}"
                         for s in range(self.players))

    def sheep(self, s, where) -> str:
        at = where.get(s) if where else None
        return f"{L.COLOUR_NAMES[self.colour_of[s]]} sheep at {at}"

    def action(self, row, prev, where, tile_i, b, c, seat) -> list[str]:
        """A menu action (the flock before it is ``prev``, its cells ``where``)."""
        self.turn += 1
        tile = self.rules.menu[tile_i]
        kind = tile.action
        if kind in (L.LAMB_PUSH, L.LAMB_ROLL, L.LEAPFROG):
            what = f"{self.sheep(b, where)} {L.DIR_NAMES[c]}"
        elif kind in (L.LINE_PUSH, L.DIAG_PUSH):
            first = _first_on_line(prev, b, c) if prev is not None else None
            at = where.get(first) if (where and first is not None) else None
            what = (f"the {_LINE_NAMES.get(c, 'diagonal')} starting at {at} pushed "
                    f"{L.DIR_NAMES[c]} from outside")
        elif kind == L.ALIGNMENT:
            what = f"against the {L.DIR_NAMES[c]} side"
        else:
            what = "right" if c == L.TURN_RIGHT else "left"
        return [f"Turn {self.turn}: {self.seat_name[seat]} plays tile {tile_i + 1} "
                f"{L.ACTION_NAMES[kind]} (time {tile.time}, "
                f"{L.RESTRICTION_NAMES[tile.restriction]}): {what}"] + self.picture(row)

    def score(self, row, seat, gain) -> str:
        counter = int(row[COUNTER_AT])
        track = self.track
        f = track.field_of(counter)
        fname = L.FIELD_KINDS[track.fields[f].kind] if f >= 0 else "start"
        faces = ""
        if track.roger_enters <= counter <= track.roger_leaves_after:
            faces = ", Roger the Ram faces the flock"
        elif counter >= track.shearer_enters:
            faces = ", the Shearer faces the flock"
        return (f"  counter {counter} ({fname} field{faces}); "
                f"{L.COLOUR_NAMES[self.colours[seat]]} gains {gain}; scores: {self.scores(row)}")

    def no_reverse(self, row, tiles, kind, key, d) -> str:
        if kind == L.EWE_TURN:
            what = "turn " + ("right" if d == L.TURN_RIGHT else "left")
        else:
            first = _first_on_line(row, key, d)
            line = _LINE_NAMES.get(d, "diagonal")
            if first is None:  # the regrouping moved every sheep off the pushed line
                what = f"push that {line} {L.DIR_NAMES[d]} (no sheep stands on it now)"
            else:
                at = _flock_text(row)[1].get(first)
                what = f"push the {line} starting at {at} {L.DIR_NAMES[d]}"
        listed = ", ".join(str(t + 1) for t in range(len(self.rules.menu)) if (tiles >> t) & 1)
        return (f"  no reverse: tile(s) {listed} may not {what} (the reverse of the "
                f"previous player's {L.ACTION_NAMES[kind]}); not offered")

    def event(self, row, prev) -> list[str]:
        """The lines of one log row (``prev``: the row before it, or None)."""
        ev, a, b, c, d = (int(x) for x in row[:5])
        where = _flock_text(prev)[1] if prev is not None else None
        if ev == L.EV_OPENING:
            return [f"Opening: {self.seat_name[a]} jumps a sheep from the truck"]
        if ev == L.EV_PANIC_DIE:
            return [f"  panic die: {L.FACE_NAMES[a]}"]
        if ev == L.EV_PANIC_PUSH:
            return [f"  Lamb Push: {self.sheep(a, where)} goes {L.DIR_NAMES[b]}"] + self.picture(row)
        if ev == L.EV_PANIC_TURN:
            return [f"  Ewe Turn {'right' if a == L.TURN_RIGHT else 'left'}"] + self.picture(row)
        if ev == L.EV_ACTION:
            return self.action(row, prev, where, a, b, c, d)
        if ev == L.EV_GROUP:
            return [f"  regroup: smallest group of {bin(a).count('1')} sheep"
                    + (f" (chosen among {b})" if b > 1 else "")]
        if ev == L.EV_REGROUP_DIE:
            return [f"  regroup die: {L.REGROUP_FACE_NAMES[a]}"]
        if ev == L.EV_ROUTE:
            slide = f", slides {L.DIR_NAMES[c]}" if c >= 0 else ""
            return [f"  group moves {L.DIR_NAMES[a]} {b} cell(s){slide}"] + self.picture(row)
        if ev == L.EV_SCORE:
            return [self.score(row, a, b)]
        if ev == L.EV_SHEAR:
            shorn = [L.COLOUR_NAMES[self.colour_of[s]] for s in range(L.N_SHEEP) if (a >> s) & 1]
            return [f"  shearing removes {', '.join(shorn) or 'nothing'}; "
                    f"scores: {self.scores(row)}"] + self.picture(row)
        if ev == L.EV_NO_REVERSE:  # a, b, c, d: tiles, action type, line key, direction
            return [self.no_reverse(row, a, b, c, d)]
        if ev == L.EV_PASS:
            return [f"{self.seat_name[a]} skips (no sheep or no legal choice)"]
        if ev == L.EV_END:
            how = ("the counter reached the final pen" if a == L.END_PEN
                   else "the menus ran out: final shearing")
            return [f"Game over: {how}; scores: {self.scores(row)}"]
        return []


def render_log(log, rules: PanicRules, players: int, names: list[str], st, win: int):
    """The trace's lines: a header, one entry per log row, the final scores and the
    winner (``st`` the final state, ``win`` the winning seat)."""
    text = _Text(rules, players, names, st)
    lines = [f"Shear Panic, {players} players: " + "; ".join(text.seat_name),
             f"rules {rules.source} (sha256 {rules.sha256[:12]})"]
    prev = None
    for row in log:
        lines += text.event(row, prev)
        prev = row
    final = ", ".join(f"{L.COLOUR_NAMES[text.colours[s]]} {int(st[L.ST_SCORE + s])}"
                      for s in range(players))
    lines.append(f"Final scores: {final}")
    lines.append(f"Winner: {text.seat_name[win]} (decided by "
                 f"{TIE_NAMES[int(st[L.ST_TIE_BREAK])]})")
    return lines
