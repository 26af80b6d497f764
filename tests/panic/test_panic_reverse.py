"""The reverse restriction, the revised menu's Yellow example, and skipped players, on
the kernels the games run (hand-built states, scripted dice and choices).

Rulebook (``001_b03b7bfeb0958afc.txt``): "Crossed-out circle symbol: You cannot use the
same action as the previous player to move back." "Die symbol: No reverse move is
allowed until a panic die or a regrouping die has been rolled ... you may make a reverse
move if the flock underwent a die roll before your turn." shared/rulebooks/README.md, "Reverse move
(one definition ...)": the same action type as the last action of the previous acting
player (a skipped player does not count), on the same line in the opposite direction
(Ewe Turn: the opposite rotation), whether or not the flock returns to its former state.
"""

import numpy as np
import pytest
from panic_helpers import legal_set, state_from

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.flock import Flock
from sheepsim.games.panic.geometry.flockops import apply_action
from sheepsim.games.panic.policies.decide import SCRIPTED

START = "byg\nrkb\nygr"
# Standard menu tiles, 0-based: 2 Line Push 1 (no reverse), 3 Line Push 3 (no reverse
# unless a die was rolled), 4 Diagonal Push 2 (no reverse), 5 Diagonal Push 3 (unless
# die), 11 Ewe Turn 1 (no reverse).
LINE_1, LINE_3, DIAG_2, DIAG_3, EWE = 2, 3, 4, 5, 11


def previous_action(st, kind, a, b, die=False):
    """The previous acting player did ``kind`` (a, b); ``die``: a die rolled since."""
    st[L.ST_PREV_KIND] = kind
    st[L.ST_PREV_TARGET] = a
    st[L.ST_PREV_DIR] = b
    st[L.ST_PREV_DIE] = int(die)
    apply_action(st, kind, a, b)


class Table:
    """Kernel scratch for whole turns with scripted dice and choices."""

    def __init__(self, faces=(), choices=()):
        from sheepsim.games.panic.scratch import scripted_scratch

        # No random die may be needed: every die face is scripted (checked below).
        self.w = scripted_scratch(faces, choices)
        self.ctx = self.w.ctx

    def turn(self, st, R, seat, tile, a, b):
        from sheepsim.games.panic.turns import execute_turn

        execute_turn(st, R, seat, SCRIPTED, tile, a, b, self.w)
        assert self.ctx[L.CTX_FACE_POS] == self.ctx[L.CTX_FACE_LEN]  # all faces used

    def play(self, st, R, seat):
        """``play_turn`` (the scripted policy picks option 0 unless told)."""
        from sheepsim.games.panic.turns import play_turn

        return play_turn(st, R, seat, SCRIPTED, self.w.opts, self.w)

    def events(self):
        return [int(r[0]) for r in self.w.log[:self.ctx[L.CTX_LOG_N]]]


# (tile, restriction is "unless die", previous action (kind, target, direction),
#  the reverse option (a, b), other options of the same tile that stay legal)
CASES = [
    (LINE_1, False, (L.LINE_PUSH, 1, 2), (1, 6), [(1, 2), (0, 6), (2, 6)]),
    (LINE_3, True, (L.LINE_PUSH, 1, 2), (1, 6), [(1, 2), (0, 6), (2, 6)]),
    (LINE_1, False, (L.LINE_PUSH, 2, 4), (2, 0), [(2, 4), (1, 0)]),  # column 2 pushed s
    (DIAG_2, False, (L.DIAG_PUSH, 0, 3), (0, 7), [(0, 3), (1, 7), (-1, 7)]),
    (DIAG_3, True, (L.DIAG_PUSH, 0, 3), (0, 7), [(0, 3), (1, 7), (-1, 7)]),
    (DIAG_3, True, (L.DIAG_PUSH, 2, 1), (2, 5), [(2, 1), (1, 5)]),  # anti-diagonal ne
    (EWE, False, (L.EWE_TURN, 0, L.TURN_RIGHT), (0, L.TURN_LEFT), [(0, L.TURN_RIGHT)]),
    (EWE, False, (L.EWE_TURN, 0, L.TURN_LEFT), (0, L.TURN_RIGHT), [(0, L.TURN_LEFT)]),
]


@pytest.mark.parametrize("die", [False, True], ids=["no_die", "die_rolled"])
@pytest.mark.parametrize("tile,unless_die,prev,reverse,others", CASES)
def test_each_restricted_tile_with_and_without_a_die_roll(R4, tile, unless_die, prev,
                                                           reverse, others, die):
    # "You cannot use the same action as the previous player to move back"; "you may
    # make a reverse move if the flock underwent a die roll before your turn" (die
    # symbol tiles only; the crossed-out circle refuses it whatever the dice did).
    st = state_from(START)
    previous_action(st, *prev, die=die)
    acts = legal_set(st, R4, 1)
    allowed = unless_die and die
    assert ((tile, *reverse) in acts) == allowed
    for a, b in others:  # same line onwards, other lines backwards: never a reverse
        assert (tile, a, b) in acts


def test_reverse_does_not_depend_on_restoring_the_flock(R4):
    # Issue 9's example: the previous player pushed row 0 of b.gr/yrkg/by.. east with
    # no die rolled; pushing row 0 back west does not restore the flock (b.gr became
    # .bgr, back west gives bgr.) but is still the same line in the opposite direction:
    # refused for tile 3 (no reverse) and tile 4 (no reverse unless a die was rolled).
    st = state_from("b.gr\nyrkg\nby..")
    previous_action(st, L.LINE_PUSH, 0, 2)
    acts = legal_set(st, R4, 1)
    assert (LINE_1, 0, 6) not in acts and (LINE_3, 0, 6) not in acts
    assert (LINE_1, 0, 2) in acts and (LINE_3, 1, 6) in acts
    # the other tiles are free: "Only the tiles that carry a symbol are restricted"
    green = [s for s in range(9) if st[L.ST_ALIVE + s] and st[L.ST_COLOUR + s] == L.GREEN]
    assert any((t, s, 6) in acts for t in (0, 1) for s in green)  # Lamb Push west


def test_only_the_same_action_type_is_a_reverse(R4):
    # shared/rulebooks/README.md: "an action of the same type as the last action taken by the previous
    # acting player": a Diagonal Push does not restrict a Line Push and vice versa.
    st = state_from(START)
    previous_action(st, L.DIAG_PUSH, 0, 3)
    acts = legal_set(st, R4, 1)
    assert (LINE_1, 0, 6) in acts and (DIAG_2, 0, 7) not in acts
    st = state_from("bgr\nyk.")
    previous_action(st, L.LAMB_PUSH, 0, 2)  # the b at the left end pushes the row east
    assert (LINE_1, 0, 6) in legal_set(st, R4, 1)


def test_first_menu_action_is_never_a_reverse(R4):
    # shared/rulebooks/README.md: "The first menu action of the game is never a reverse."
    from panic_helpers import opening

    from sheepsim.games.panic.state import init_state

    st = np.zeros(L.ST_LEN, dtype=np.int64)
    init_state(st, R4)
    t = Table(faces=[L.WHITE_FACE] * 4)  # every opening roll: an Ewe Turn (choice 0)
    opening(st, R4, np.full(4, SCRIPTED), t.w)
    assert st[L.ST_PREV_KIND] == -1 and st[L.ST_FACING] == 0  # four right turns
    acts = legal_set(st, R4, 0)
    assert (EWE, 0, L.TURN_LEFT) in acts and (EWE, 0, L.TURN_RIGHT) in acts


def test_ewe_turn_back_is_refused_even_after_a_panic(R4):
    # "you cannot replay an Ewe Turn to bring the flock back to its starting position.
    # But you can repeat the action to turn the flock another 90 degrees in the same
    # direction". Tile 12 has the crossed-out circle: a panic in between changes nothing.
    st = state_from(START)
    st[L.ST_COUNTER] = 5  # time 1: to 6, a panic space with 4 players
    t = Table(faces=[L.GREEN], choices=[0])
    t.turn(st, R4, 0, EWE, 0, L.TURN_RIGHT)
    assert L.EV_PANIC_PUSH in t.events() and st[L.ST_PREV_DIE] == 1
    acts = legal_set(st, R4, 1)
    assert (EWE, 0, L.TURN_LEFT) not in acts
    assert (EWE, 0, L.TURN_RIGHT) in acts


def test_a_panic_die_lifts_the_die_symbol_restriction(R4):
    # "No reverse move is allowed until a panic die or a regrouping die has been rolled"
    st = state_from(START)
    st[L.ST_COUNTER] = 3  # tile 4 (time 3): to 6, a panic space; white: an Ewe Turn
    t = Table(faces=[L.WHITE_FACE], choices=[0])
    t.turn(st, R4, 0, LINE_3, 1, 2)
    assert st[L.ST_PREV_DIE] == 1
    acts = legal_set(st, R4, 1)
    assert (LINE_3, 1, 6) in acts  # die symbol: allowed after the roll
    assert (LINE_1, 1, 6) not in acts  # crossed-out circle: never


def test_a_regroup_die_counts_and_a_free_slide_does_not(R4):
    # "until a panic die or a regrouping die has been rolled": a Lamb Push north leaves
    # the lower yellow sheep alone, touching nothing: the regroup die is rolled.
    st = state_from("rb.\n.y.\n.y.")
    y_top = next(s for s in range(9) if st[L.ST_COLOUR + s] == L.YELLOW)
    t = Table(faces=[L.FACE_ORTHO])
    t.turn(st, R4, 3, 0, y_top, 0)
    assert L.EV_REGROUP_DIE in t.events() and st[L.ST_PREV_DIE] == 1
    # The rulebook's Diagonal Push example: both isolated sheep touch the flock by a
    # corner and slide without a roll ("simply slides one space"): no die, so tile 6
    # (die symbol) still may not push that diagonal back.
    st = state_from("ry.\ngby\nrgk\n..b")
    t = Table(choices=[0, 0, 0])
    t.turn(st, R4, 0, DIAG_3, 0, 7)  # the diagonal through k (2, 2) pushed nw
    assert L.EV_ROUTE in t.events() and L.EV_REGROUP_DIE not in t.events()
    assert st[L.ST_PREV_DIE] == 0
    assert (DIAG_3, 0, 3) not in legal_set(st, R4, 1)


def test_a_skipped_player_in_between_does_not_count(R4):
    # shared/rulebooks/README.md: "the last action taken by the previous acting player (a skipped player
    # does not count)"; "A player with no sheep left skips their turns."
    st = state_from("byr\nrkb\ny..")  # no green sheep: seat 2 (green) skips
    t = Table()
    t.turn(st, R4, 0, LINE_1, 1, 2)  # blue pushes row 1 east (counter 1: no panic)
    assert L.EV_REGROUP_DIE not in t.events()  # the lone y slid back without a roll
    assert not t.play(st, R4, 1)  # green has no sheep: skipped, nothing changes
    assert st[L.ST_PREV_KIND] == L.LINE_PUSH
    acts = legal_set(st, R4, 2)  # red: blue was the previous acting player
    assert (LINE_1, 1, 6) not in acts and (LINE_3, 1, 6) not in acts
    # Had green had a sheep and acted (an Alignment), red could push the row back.
    other = state_from("byr\nrkb\nyg.")
    t.turn(other, R4, 0, LINE_1, 1, 2)
    t.turn(other, R4, 1, 6, 0, 2)  # green: Alignment against the east side
    acts = legal_set(other, R4, 2)
    assert (LINE_1, 1, 6) in acts and (LINE_3, 1, 6) in acts


def test_rulebook_yellow_example_lamb_push_of_time_3(R4, rules):
    # "Example — Yellow chooses a Lamb Push and places a token on it. They push the sheep
    # in the centre row to the left. They advance the time counter by 3 spaces. They
    # will also score 1 point ... since two yellow sheep are touching diagonally ...
    # Finally, Yellow must carry out a Lamb Push since the time counter is on a panic
    # symbol." (4 players: Yellow is seat 4; the counter goes 3 -> 6, a panic space.)
    tile = 1
    assert rules.menu[tile].action == L.LAMB_PUSH and rules.menu[tile].time == 3
    st = state_from("bgr\nkry\nygb")
    st[L.ST_COUNTER] = 3
    y_centre = next(s for s in range(9) if st[L.ST_COLOUR + s] == L.YELLOW
                    and st[L.ST_ROW + s] == 1)
    assert (tile, y_centre, 6) in legal_set(st, R4, 3)
    t = Table(faces=[L.BLUE], choices=[0])
    t.turn(st, R4, 3, tile, y_centre, 6)  # the yellow sheep pushes the centre row left

    log = t.w.log[:t.ctx[L.CTX_LOG_N]]
    assert st[L.ST_COUNTER] == 6
    assert [int(r[0]) for r in log][:4] == [L.EV_ACTION, L.EV_SCORE, L.EV_PANIC_DIE,
                                            L.EV_PANIC_PUSH]
    assert int(log[1, 2]) == 1  # Yellow gains 1 point: two yellow sheep touch diagonally
    assert int(log[2, 1]) == L.BLUE  # the panic die, then a blue sheep's Lamb Push
    # The flock right after the action: the centre row one space to the left.
    after = np.zeros(L.ST_LEN, dtype=np.int64)
    after[:3 * L.N_SHEEP] = log[0, L.LOG_HEAD:L.LOG_HEAD + 3 * L.N_SHEEP]
    after[L.ST_COLOUR:L.ST_COLOUR + L.N_SHEEP] = st[L.ST_COLOUR:L.ST_COLOUR + L.N_SHEEP]
    assert str(Flock.from_state(after)) == ".bgr\nkry.\n.ygb"


def replay_reverses(log, rules):
    """Walk a game log: ``(refusal lines, restricted turns, reverses played)`` where a
    reverse played is an action the definition in shared/rulebooks/README.md forbids at that moment."""
    prev = None  # (kind, line key, direction) of the last menu action
    die = False
    refusals = restricted = forbidden = 0
    for row in log:
        ev, a, b, c = (int(x) for x in row[:4])
        if ev in (L.EV_PANIC_DIE, L.EV_REGROUP_DIE):
            die = True
        elif ev == L.EV_NO_REVERSE:
            refusals += 1
        elif ev == L.EV_ACTION:
            tile = rules.menu[a]
            refused = (prev is not None and prev[0] == tile.action
                       and (tile.restriction == L.R_NO_REVERSE
                            or (tile.restriction == L.R_NO_REVERSE_UNLESS_DIE and not die)))
            if refused:
                restricted += 1
                back = 4 - prev[2] if prev[0] == L.EWE_TURN else (prev[2] + 4) % 8
                on_line = tile.action in (L.LINE_PUSH, L.DIAG_PUSH)
                forbidden += c == back and (not on_line or b == prev[1])
            prev = (tile.action, b, c)
            die = False
    return refusals, restricted, forbidden


def test_games_never_play_a_refused_reverse(rules):
    # Whole games (random policy: it picks uniformly among the options offered): no
    # action is ever a reverse the tile refuses, and the trace reports the refusals.
    from sheepsim.games.panic.simulate import trace_game

    totals = np.zeros(3, dtype=np.int64)
    for seed in range(12):
        tr = trace_game(rules, players=4, policies="random", seed=seed)
        totals += replay_reverses(tr.log, rules)
    refusals, restricted, forbidden = totals
    assert forbidden == 0
    assert restricted > 0 and refusals >= restricted


def test_trace_shows_the_refused_reverse(capsys):
    # "sheepsim panic trace" names the refused reverse before the player's choice.
    from sheepsim.cli import main

    seen = {"on the line": 0, "line left empty": 0}
    for seed in range(20):
        assert main(["panic", "trace", "--players", "4", "--seed", str(seed), "--policy", "random"]) == 0
        lines = capsys.readouterr().out.splitlines()
        hits = [i for i, line in enumerate(lines) if "no reverse: tile(s)" in line]
        for i in hits:
            line = lines[i]
            assert "not offered" in line and "previous player's" in line
            assert "None" not in line  # a line the regrouping emptied is said in words
            seen["line left empty" if "no sheep stands on it now" in line
                 else "on the line"] += 1
        if hits:
            assert lines[hits[0] + 1].startswith("Turn ")  # the choice among what is offered
    # both wordings occur in these 20 games (checked, not assumed)
    assert seen["on the line"] > 0 and seen["line left empty"] > 0, seen
