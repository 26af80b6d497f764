"""The flock text format, every action, regrouping and scoring on hand-built flocks.

Each test quotes the rulebook sentence (``001_b03b7bfeb0958afc.txt``) or the rules
decision (``shared/rulebooks/README.md``) it checks.
"""

import pytest
from panic_helpers import flock, picture

from sheepsim.errors import SheepsimError
from sheepsim.games.panic import Flock, ram_scores, shear
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.flock import FlockError, black_scores, together_scores

START = """
byg
rkb
ygr
"""


def test_parse_and_str_round_trip_trimmed():
    # sheepsim/games/panic/rules.py: "One line per row, one character per cell (. empty)".
    f = Flock.parse("....\n.by.\n..k.\n....\n", facing="left")
    assert str(f) == "by\n.k"
    assert f.facing == "left"
    assert str(Flock.parse(str(f))) == str(f)
    assert Flock.parse(START).count() == 9


def test_parse_rejects_unknown_letters_and_too_many_sheep():
    with pytest.raises(FlockError, match="unknown character"):
        Flock.parse("bx")
    with pytest.raises(FlockError, match="at most 9"):
        Flock.parse("bbbbbbbbbb", free_form=True)
    with pytest.raises(FlockError, match="facing"):
        Flock.parse("b", facing="north")


def test_parse_keeps_columns_and_refuses_stray_spaces():
    # A leading space used to be dropped, moving the sheep to the wrong column.
    with pytest.raises(FlockError, match="space at row 1, column 1"):
        Flock.parse(" b\nrk")
    with pytest.raises(FlockError, match="space at row 1, column 2"):
        Flock.parse("b g")
    # indentation shared by every line (a triple-quoted picture) is not a cell
    assert str(Flock.parse("    .b\n    rk\n")) == ".b\nrk"
    assert str(Flock.parse("\n  b.\n  rk  \n")) == "b.\nrk"


@pytest.mark.parametrize("bad", [None, 42, b"bk", ["bk"]])
def test_parse_needs_text(bad):
    with pytest.raises(FlockError, match="must be text"):
        Flock.parse(bad)


def test_component_counts_follow_the_rules_unless_free_form():
    # Rulebook components: "2 blue, 2 green, 2 red and 2 yellow — plus 1 black sheep";
    # a flock may hold fewer (shearing removes sheep), never more.
    with pytest.raises(FlockError, match="2 black sheep .k. but the rules have only 1"):
        Flock.parse("kk")
    with pytest.raises(FlockError, match="3 blue sheep .b. but the rules have only 2"):
        Flock.parse("bbb\nrgy")
    with pytest.raises(FlockError, match="free_form=True"):
        Flock.parse("yyy")
    assert Flock.parse("kk", free_form=True).count("k") == 2
    assert Flock.parse("bg\nk.").count() == 3  # fewer than the box is fine
    # the counts come from the rules file's starting flock
    assert issubclass(FlockError, SheepsimError) and issubclass(FlockError, ValueError)


def test_lamb_push_moves_the_contiguous_run_ahead():
    # "a sheep moves one space in any direction (including diagonally), pushing all the
    # sheep that are ahead of it in its direction of movement."
    f = flock(START).apply("lamb_push", sheep=(1, 0), direction="e")
    assert str(f) == picture("""
        byg.
        .rkb
        ygr.""")


def test_lamb_push_stops_at_an_empty_space():
    # "sheep that are in the chosen direction but behind an empty space are not pushed"
    f = flock("bg.r\nkyyr").apply("lamb_push", sheep=(0, 0), direction="e")
    assert str(f) == picture("""
        .bgr
        kyyr""")


def test_lamb_push_into_empty_space_pushes_nobody():
    # "A sheep carrying out a Lamb Push is not required to push others"
    f = flock("b.\ngr").apply("lamb_push", sheep=(0, 0), direction="e")
    assert str(f) == ".b\ngr"


def test_rulebook_lamb_push_leaves_blue_isolated():
    # "if the yellow sheep undergoes a diagonal Lamb Push up and to the right, an
    # isolated blue sheep at the top will have to rejoin the flock"
    f = flock("""
        ..b
        .gr
        yk.""")
    assert f.is_connected()
    f.apply("lamb_push", sheep=(2, 0), direction="ne")
    assert str(f) == picture("""
        ..b
        .g.
        yr.
        k..""")
    assert not f.is_connected()
    assert f.smallest_groups() == [[(0, 2)]]


def test_line_push_row_and_column_from_outside():
    # "the player pushes a row or column by one space ... carried out from outside"
    f = flock(START).apply("line_push", direction="e", line=1)
    assert str(f) == picture("""
        byg.
        .rkb
        ygr.""")
    g = flock(START).apply("line_push", direction="n", line=2)
    assert str(g) == picture("""
        ..g
        byb
        rkr
        yg.""")


def test_line_push_beyond_an_empty_space_does_not_move():
    # "If there is an empty space in the row or column being pushed, then the sheep
    # beyond that space do not move."
    # The pusher stands right of r: r and g move one left, b beyond the gap stays.
    f = flock("b.gr\nkyyr").apply("line_push", direction="w", line=0)
    assert str(f) == "bgr.\nkyyr"


def test_rulebook_diagonal_push_isolates_top_left_and_bottom_right():
    # "if the black sheep pushes up and to the left, the two sheep isolated at the
    # top-left and bottom-right will have to rejoin the flock"
    f = flock("""
        ry.
        gby
        rgk
        ..b""")
    assert f.is_connected()
    f.apply("diagonal_push", direction="nw", through=(2, 2))
    assert str(f) == picture("""
        r...
        .by.
        .gky
        .rg.
        ...b""")
    groups = f.smallest_groups()
    assert sorted(groups) == [[(0, 0)], [(4, 3)]]


def test_alignment_front_compacts_columns_against_the_front():
    # "They align the flock against the chosen side. All rows or columns are aligned
    # against this virtual barrier. Any resulting empty spaces are filled in."
    f = flock("b..\ngr.\n.ky").apply("alignment", side="front")
    assert str(f) == "bry\ngk."


def test_alignment_sides_follow_the_facing():
    # shared/rulebooks/README.md: "choose front, back, left or right" (sides of the flock, which faces a way)
    f = flock("b..\ngr.\n.ky", facing="right").apply("alignment", side="front")
    assert str(f) == ".b\ngr\nky"
    g = flock("b..\ngr.\n.ky").apply("alignment", side="left")
    assert str(g) == "b.\ngr\nky"
    h = flock("b..\ngr.\n.ky").apply("alignment", side="back")
    assert str(h) == "br.\ngky"


def test_lamb_roll_to_empty_cell_next_to_another_sheep():
    # "The destination space must be empty ... it must remain connected to at least one
    # other sheep"
    f = flock("bg\nr.").apply("lamb_roll", sheep=(0, 0), direction="se")
    assert str(f) == ".g\nrb"
    with pytest.raises(FlockError, match="empty cell"):
        flock("bg\nr.").apply("lamb_roll", sheep=(0, 0), direction="e")
    with pytest.raises(FlockError, match="empty cell"):
        flock("bg\nr.").apply("lamb_roll", sheep=(0, 0), direction="nw")


def test_leapfrog_jumps_the_run_to_the_first_empty_cell():
    # "the chosen sheep jumps from anywhere along a column or row until it reaches the
    # first available empty space"
    f = flock("bgr").apply("leapfrog", sheep=(0, 0), direction="e")
    assert str(f) == "grb"
    g = flock("bg.r").apply("leapfrog", sheep=(0, 0), direction="e")
    assert str(g) == "gbr"
    with pytest.raises(FlockError, match="jump"):
        flock("b.g").apply("leapfrog", sheep=(0, 0), direction="e")
    with pytest.raises(FlockError, match="orthogonal"):
        flock("bg").apply("leapfrog", sheep=(0, 0), direction="ne")


def test_ewe_turn_changes_only_the_facing():
    # shared/rulebooks/README.md: "Ewe Turn: the flock's facing turns 90 degrees left or right"
    f = flock(START).apply("ewe_turn", direction="right")
    assert f.facing == "right" and str(f) == picture(START)
    f.apply("ewe_turn", direction="right").apply("ewe_turn", direction="right")
    assert f.facing == "left"
    assert flock(START).apply("ewe_turn", direction="left").facing == "left"


def test_rulebook_regrouping_example_with_the_black_sheep():
    # "The black sheep is alone at the top. Since it is connected diagonally to the
    # flock, the active player may choose which side of the green sheep to attach it to
    # ... The active player moves it right. The active player also decides to move the
    # isolated yellow sheep (already in diagonal contact) by sliding it up ... This
    # leaves a group of 2 isolated sheep. The player rolled an X. ... The player decides
    # to move the group diagonally up and to the left."
    f = flock("""
        k...
        .gb.
        .r..
        .yg.
        ...y
        .rb.""")
    assert sorted(f.smallest_groups()) == [[(0, 0)], [(4, 3)]]
    assert f.routes(0) == [("e", 1, None), ("s", 1, None)]  # right or down
    moves = f.regroup(faces="X", choices=[0, 0, 0, 1])
    assert moves == [("e", 1, None), ("n", 1, None), ("nw", 1, None)]
    assert f.is_connected()
    assert str(f) == picture("""
        .k..
        .gb.
        .r..
        .ygy
        rb..""")


def test_rulebook_regrouping_slide_left_regroups_everything_at_once():
    # "(had they slid it left, it would have regrouped everything at once ...)"
    # After the black sheep moved right, the yellow sheep touches the main flock's g by
    # a corner: it slides up or left (down would only reach the detached pair rb:
    # "touching only another detached group does not count").
    assert flock(".k..\n.gb.\n.r..\n.yg.\n...y\n.rb.").routes(0) == [
        ("n", 1, None), ("w", 1, None)]
    f = flock("k...\n.gb.\n.r..\n.yg.\n...y\n.rb.")
    moves = f.regroup(faces="", choices=[0, 0, 1])
    assert moves == [("e", 1, None), ("w", 1, None)]
    assert f.is_connected()


def test_regroup_orthogonal_straight_line_until_it_touches():
    # "If the side marked + is showing, this group of sheep must be regrouped by an
    # orthogonal move ... It cannot move diagonally or change direction."
    f = flock("b...\n....\n....\nkyyr")
    assert f.smallest_groups() == [[(0, 0)]]
    assert f.routes(0, "+") == [("s", 2, None)]
    assert f.regroup(faces="+") == [("s", 2, None)]
    assert str(f) == "b...\nkyyr"


def test_regroup_diagonal_falls_back_to_orthogonal():
    # "If that is the case, carry out the regrouping with an orthogonal move instead."
    f = flock("b..gr")
    assert f.routes(0, "X") == f.routes(0, "+") == [("e", 2, None)]
    assert f.regroup(faces="X") == [("e", 2, None)]
    assert str(f) == "bgr"
    # and a diagonal route is taken when there is one
    assert flock("b.g\n..r").routes(0, "X") == [("se", 1, None)]


def test_regroup_corner_meeting_slides_either_way():
    # "If the groups meet at a corner, the active player may choose which side the
    # group slides to in order to attach to the main flock."
    f = flock("b..\n...\n..g\n..r")
    routes = f.routes(0, "X")
    assert ("se", 0, "e") not in routes
    assert ("se", 1, "e") in routes and ("se", 1, "s") in routes
    f.regroup(faces="X", choices=[routes.index(("se", 1, "s"))])
    assert str(f) == "bg\n.r"


def test_regroup_needs_faces_and_valid_choices():
    f = flock("b.g")
    with pytest.raises(FlockError, match="die rolls"):
        f.regroup(faces="")
    with pytest.raises(FlockError, match="out of range"):
        flock("b.g\n...\n..r").regroup(faces="+", choices=[5])
    assert str(f) == "b.g"  # unchanged after a failed regroup


def test_free_slide_only_towards_the_main_flock():
    # shared/rulebooks/README.md: "a group that touches the main flock (the largest group ...) only
    # diagonally slides one space without a roll ...; touching only another detached
    # group does not count." Rulebook: "A group that touches the main flock diagonally
    # simply slides one space to rejoin the rest of the flock."
    f = flock("""
        b......
        .g.....
        .......
        ....rky
        ....ybr""")
    groups = f.smallest_groups()
    assert sorted(groups) == [[(0, 0)], [(1, 1)]]
    b_group = groups.index([(0, 0)])
    assert f.routes(b_group) == []  # b touches only the lone g by a corner: no slide
    # b must roll; "+" has no straight line to the main flock (its row and column miss
    # it) and no diagonal route either (g is in the way): it steps towards the main
    # flock and rolls again (sheepsim's fallback)
    assert f.routes(b_group, "+") == [("e", 1, None), ("s", 1, None)]
    # the lone g reaches the main flock diagonally, touching it by a side
    assert f.routes(1 - b_group, "X") == [("se", 2, None)]


def test_routes_stop_at_the_main_flock_not_at_a_detached_group():
    # shared/rulebooks/README.md: '"+" moves it in one orthogonal straight line until it touches the
    # main flock orthogonally'. The lone b passes by the detached pair gy on its way.
    f = flock("""
        b..gy
        .....
        .....
        rk...
        ry...""")
    assert f.smallest_groups() == [[(0, 0)]]
    assert f.routes(0, "+") == [("s", 2, None)]


def test_plus_without_orthogonal_route_follows_the_rules_option(tmp_path):
    # shared/rulebooks/README.md (sheepsim's decisions): 'If a "+" has no orthogonal route, move diagonally
    # (mirror of the rulebook's fallback); if neither exists, step one space toward the
    # main flock and roll again.' The option plus_without_route = "step" skips the
    # diagonal route.
    from importlib import resources

    from sheepsim.games.panic.rules import load_rules

    text = "b..\n...\n..g\n..r"
    assert flock(text).routes(0, "+") == flock(text).routes(0, "X")
    std = resources.files("sheepsim.games.panic").joinpath("standard.toml").read_text()
    path = tmp_path / "step.toml"
    path.write_text(std.replace('plus_without_route = "diagonal"',
                                'plus_without_route = "step"'))
    stepper = Flock.parse(text, rules=load_rules(path))
    assert stepper.routes(0, "+") == [("e", 1, None), ("s", 1, None)]
    assert stepper.regroup(faces="+X") == [("e", 1, None), ("se", 1, None)]
    assert str(stepper) == "b\ng\nr"


def test_teammates_scoring():
    # "The active player scores 1 point when their sheep touch diagonally, and 2 points
    # if they touch on a side."
    assert together_scores(flock("bb\ngr\nrg")) == {"b": 2, "g": 1, "r": 1, "y": 0}
    assert together_scores(flock("b.b")) == {"b": 0, "g": 0, "r": 0, "y": 0}


def test_black_sheep_scoring():
    # "1 point for each of their sheep touching the black sheep by a corner, and 2
    # points for each of their sheep touching the black sheep by a side."
    s = black_scores(flock("bgr\nykb\n..g"))
    assert s == {"b": 1 + 2, "g": 2 + 1, "r": 1, "y": 2}


def test_ram_scoring_rows_from_the_front():
    # "4 points for the row closest to Roger the Ram (row 1), 3 points for row 2, 2
    # points for row 3, and 1 point for row 4." shared/rulebooks/README.md: each further row scores 0.
    f = flock("b\ng\nr\ny\nb\ng\nk")
    assert ram_scores(f) == {"b": 4 + 0, "g": 3 + 0, "r": 2, "y": 1}
    down = flock("b\ng\nr\ny\nb\ng\nk", facing="down")
    assert ram_scores(down) == {"b": 0 + 2, "g": 0 + 3, "r": 0, "y": 1}
    right = flock("bgr\n..y", facing="right")
    assert ram_scores(right) == {"b": 2, "g": 3, "r": 4, "y": 4}


def test_rulebook_shearing_example():
    # "one poor green sheep is all alone in front of the Shearer: it is removed from the
    # game. ... Red scores 3 points (2+1), Green 2 points (2+0), Yellow 5 points (3+2),
    # and Blue 5 points (4+1)."
    f = flock("""
        .g.
        rb.
        rgy
        .yk
        .b.""")
    points, removed = shear(f)
    assert removed == ["g"]
    assert points == {"r": 3, "g": 2, "y": 5, "b": 5}
    assert f.count() == 8 and f.count("g") == 1


def test_shearing_follows_the_facing():
    # "the row closest to the Shearer is removed" (shared/rulebooks/README.md: the Shearer
    # stands at the front)
    f = flock("bg\nry", facing="left")
    points, removed = shear(f)
    assert removed == ["b", "r"]
    assert points == {"b": 0, "g": 4, "r": 0, "y": 4}


def test_one_colour_flock_is_not_shorn():
    # "If the flock consists of a single colour of sheep (congratulations!), no shearing
    # takes place, and the flock is scored as normal." shared/rulebooks/README.md: black aside.
    f = flock("b\nk\nb")
    points, removed = shear(f)
    assert removed == []
    assert f.count() == 3
    assert points["b"] == 4 + 2


def test_shearing_split_flock_is_regrouped_after_scoring():
    # "If the flock is split apart as a result of the shearing, scoring is carried out
    # first, and only afterwards is the regrouping carried out by the active player."
    f = flock("bgr\nb.y\nk.y")
    points, removed = shear(f)
    assert removed == ["b", "g", "r"]
    assert points == {"b": 3, "g": 0, "r": 0, "y": 4 + 3}
    assert not f.is_connected()
    f.regroup(faces="+")
    assert f.is_connected()


@pytest.mark.parametrize("action,params,needle", [
    ("somersault", {}, "unknown action"),
    (None, {}, "unknown action"),
    ("alignment", {"side": "front", "sheep": (0, 0)}, "takes"),
    ("lamb_push", {"sheep": (0, 0), "direction": "sideways"}, "unknown direction"),
    ("lamb_push", {"sheep": (0, 0), "direction": 2}, "direction must be a name"),
    ("lamb_push", {"sheep": (5, 5), "direction": "n"}, "no sheep at"),
    ("lamb_push", {"direction": "n"}, "lamb_push needs sheep="),
    ("lamb_push", {"sheep": (0, 0)}, "lamb_push needs direction="),
    ("lamb_push", {"sheep": 0, "direction": "n"}, r"sheep must be a \(row, col\) pair"),
    ("lamb_push", {"sheep": ("0", 0), "direction": "n"}, "sheep row must be a whole number"),
    ("lamb_roll", {"sheep": (0, 0)}, "lamb_roll needs direction="),
    ("leapfrog", {"direction": "e"}, "leapfrog needs sheep="),
    ("line_push", {"line": 0}, "line_push needs direction="),
    ("line_push", {"direction": "e"}, "needs through=.* or line="),
    ("line_push", {"direction": "e", "line": "0"}, "line must be a whole number"),
    ("line_push", {"direction": "e", "line": True}, "line must be a whole number"),
    ("line_push", {"direction": "e", "line": 0, "through": (0, 0)}, "not both"),
    ("line_push", {"direction": "e", "line": 7}, "no sheep on that line"),
    ("line_push", {"direction": "ne", "line": 0}, "orthogonal"),
    ("diagonal_push", {"through": (0, 0), "direction": "n"}, "diagonal"),
    ("diagonal_push", {"direction": "ne"}, "needs through="),
    ("diagonal_push", {"direction": "ne", "through": "00"}, "through must be a"),
    ("alignment", {}, "alignment needs side="),
    ("alignment", {"side": "top"}, "side must be one of"),
    ("ewe_turn", {}, "ewe_turn needs direction="),
    ("ewe_turn", {"direction": "around"}, "left or right"),
])
def test_apply_rejects_bad_actions_with_a_clear_error(action, params, needle):
    f = flock(START)
    with pytest.raises(FlockError, match=needle) as err:
        f.apply(action, **params)
    assert "\n" not in str(err.value)
    assert str(f) == picture(START)  # unchanged


def test_other_flock_calls_fail_clearly():
    f = flock("b.g\n...\n..r")
    with pytest.raises(FlockError, match="no group number 3"):
        f.routes(3)
    with pytest.raises(FlockError, match="group must be a whole number"):
        f.routes("0")
    with pytest.raises(FlockError, match="unknown regroup die face"):
        f.routes(0, "O")
    with pytest.raises(FlockError, match="choices must be a list"):
        f.regroup(faces="+", choices=3)
    with pytest.raises(FlockError, match="faces must be a string"):
        f.regroup(faces=None)
    with pytest.raises(FlockError, match="state vector has shape"):
        Flock.from_state([1, 2, 3])
    with pytest.raises(FlockError, match="rules must be a PanicRules"):
        Flock.parse("b", rules="standard.toml")
    for fn in (ram_scores, shear, together_scores, black_scores):
        with pytest.raises(FlockError, match="expected a Flock"):
            fn("bk")


def test_with_two_equal_largest_groups_the_player_chooses_the_main_flock():
    # shared/rulebooks/README.md: "a group that touches the main flock (the largest group; the active
    # player chooses among equal largest) ..." and "+" moves it "in one orthogonal
    # straight line until it touches the main flock". The black sheep's group is the
    # smallest; the blue-green square and the red-yellow row are equally large: going
    # south it may stop at the square (2 steps) or, choosing the row as the main flock,
    # pass the square and stop at the row (4 steps).
    f = Flock.parse("""
        k...
        ....
        .bg.
        .bg.
        ....
        rryy
    """, free_form=True)
    assert f.routes(0, "+") == [("s", 2, None), ("s", 4, None)]


@pytest.mark.parametrize(("call", "needle"), [
    (lambda f: f.apply("line_push", direction="e", line=10**30), "line must be between"),
    (lambda f: f.apply("line_push", direction="e", line=-2**63), "line must be between"),
    (lambda f: f.apply("diagonal_push", direction="ne", through=(2**40, 0)),
     "through row must be between"),
    (lambda f: f.apply("lamb_push", sheep=(0, 10**20), direction="n"), "sheep col must be between"),
    (lambda f: f.regroup(faces="+", choices=[2**70]), "a regroup choice must be between 0 and"),
    (lambda f: f.regroup(faces="+", choices=[-1]), "a regroup choice must be between 0 and"),
    (lambda f: f.count("x"), "a colour letter is one of b, g, r, y, k, got 'x'"),
    (lambda f: f.count(3), "a colour letter is one of"),
])
def test_flock_api_refuses_huge_numbers_and_unknown_letters_with_a_flock_error(call, needle):
    """Huge integers would reach numba (TypingError, OverflowError): a FlockError
    names the parameter instead; the flock is unchanged."""
    f = flock(START)
    with pytest.raises(FlockError, match=needle) as err:
        call(f)
    assert "\n" not in str(err.value) and str(f) == picture(START)
    assert f.count("k") == 1 and f.count() == 9


def _state_of(text):
    return flock(text).st.copy()


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda st: st.__setitem__(L.ST_ALIVE, 2), "alive flags are 0 or 1"),
    (lambda st: st.__setitem__(L.ST_FACING, 7), "facing is 0-3"),
    (lambda st: st.__setitem__(L.ST_COLOUR, 9), "sheep 0: colour is 0-4"),
    (lambda st: st.__setitem__(L.ST_ROW, 2**40), "sheep 0: row and column must be between"),
    (lambda st: (st.__setitem__(L.ST_ROW + 1, st[L.ST_ROW]),
                 st.__setitem__(L.ST_COL + 1, st[L.ST_COL])), "two sheep share a cell"),
    # START has one black sheep (k); a second is more than the box holds (shared/rulebooks/README.md)
    (lambda st: st.__setitem__(L.ST_COLOUR, 4), r"2 black sheep \(k\) but the rules have only 1"),
])
def test_from_state_checks_the_vector(edit, needle):
    st = _state_of(START)
    assert str(Flock.from_state(st)) == picture(START)
    edit(st)
    with pytest.raises(FlockError, match=needle):
        Flock.from_state(st)
    with pytest.raises(FlockError, match="holds whole numbers"):
        Flock.from_state(_state_of(START) + 0.5)
