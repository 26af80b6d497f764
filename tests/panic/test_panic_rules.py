"""Rules files: the standard set loads; each kind of mistake gives one clear error
naming the file and the key (issue 3: "Validation with one clear message per problem")."""

from importlib import resources

import pytest

from sheepsim.errors import RulesError, SheepsimError
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.rules import load_rules

STANDARD = resources.files("sheepsim.games.panic").joinpath("standard.toml").read_text()


def variant(tmp_path, old, new, count=1):
    assert STANDARD.count(old) >= 1, old
    path = tmp_path / "variant.toml"
    path.write_text(STANDARD.replace(old, new, count))
    return path


def test_standard_rules_match_the_rules_readme(rules):
    # shared/rulebooks/README.md: "Command menu, identical for every player, 12 tiles"; "3 players 56
    # spaces, 4 players 74"; panic spaces and field limits as tabled. Revised menu:
    # "tile 2 is Lamb Push 3 (was 2) and the Leapfrog is time 2 (was 3), keeping four
    # tiles of each time".
    assert len(rules.menu) == 12
    assert [t.time for t in rules.menu] == [1, 3, 1, 3, 2, 3, 2, 3, 1, 2, 2, 1]
    assert sorted(t.time for t in rules.menu) == [1] * 4 + [2] * 4 + [3] * 4
    assert [L.ACTION_NAMES[t.action] for t in rules.menu] == [
        "lamb_push", "lamb_push", "line_push", "line_push", "diagonal_push",
        "diagonal_push", "alignment", "alignment", "lamb_roll", "lamb_roll", "leapfrog",
        "ewe_turn"]
    assert [L.RESTRICTION_NAMES[t.restriction] for t in rules.menu] == [
        "own_sheep", "own_sheep", "no_reverse", "no_reverse_unless_die", "no_reverse",
        "no_reverse_unless_die", "none", "none", "own_sheep", "own_sheep", "own_sheep",
        "no_reverse"]
    assert rules.slide_without_roll and rules.plus_fallback == L.PLUS_FALLBACK_DIAGONAL
    assert rules.sheep_counts() == {"b": 2, "g": 2, "r": 2, "y": 2, "k": 1}
    assert rules.tracks[3].spaces == 56 and rules.tracks[4].spaces == 74
    assert rules.tracks[4].panic == (6, 10, 17, 24, 31, 41, 46, 55, 66, 71)
    assert [(f.first, f.last, f.gate_after) for f in rules.tracks[4].fields] == [
        (1, 12, -1), (13, 37, 25), (38, 49, -1), (50, 74, 62)]
    assert [(f.first, f.last, f.gate_after) for f in rules.tracks[3].fields] == [
        (1, 9, -1), (10, 28, 19), (29, 37, -1), (38, 56, 47)]
    assert rules.seat_colour_list(4) == [L.BLUE, L.GREEN, L.RED, L.YELLOW]
    assert rules.seat_colour_list(3) == [L.BLUE, L.GREEN, L.RED]  # yellow neutral
    assert rules.name == "<standard>/standard.toml" and len(rules.sha256) == 64


def test_two_players_is_a_clear_error(rules):
    with pytest.raises(SheepsimError, match="2-player variant is not supported yet"):
        rules.kernel_array(2)
    with pytest.raises(SheepsimError, match="3 or 4"):
        rules.kernel_array(5)


@pytest.mark.parametrize("old,new,key,problem", [
    ('{ kind = "ram", first = 13,', '{ kind = "ram", first = 12,', "tracks.4.fields[1].first",
     "overlaps"),
    ('{ kind = "ram", first = 13,', '{ kind = "ram", first = 14,', "tracks.4.fields[1].first",
     "gap"),
    ('last = 74, gate_after = 62', 'last = 73, gate_after = 62', "tracks.4.fields",
     "gap at the end"),
    ("gate_after = 62", "gate_after = 80", "tracks.4.fields[3].gate_after", "outside"),
    ("panic = [6, 10,", "panic = [99, 10,", "tracks.4.panic", "outside the track"),
    ('action = "leapfrog"', 'action = "somersault"', "menu[10].action", "unknown action"),
    ('restriction = "no_reverse"', 'restriction = "maybe"', "menu[2].restriction",
     "unknown restriction"),
    ('restriction = "none"', 'restriction = "own_sheep"', "menu[6].restriction",
     "own_sheep only applies"),
    ('restriction = "none"', 'restriction = "no_reverse"', "menu[6].restriction",
     "no_reverse only applies to line_push, diagonal_push and ewe_turn"),
    ('plus_without_route = "diagonal"', 'plus_without_route = "wait"',
     "regroup.plus_without_route", "must be one of diagonal, step"),
    ("byg\nrkb\nygr", "byg.k\nr.b\nygr", "flock.start", "not orthogonally connected"),
    ("byg\nrkb\nygr", "byg\nrkb\nygg", "flock.start", "wrong sheep"),
    ("byg\nrkb\nygr", "byg\nrxb\nygr", "flock.start", "unknown character"),
    ('"black", "white"]', '"black", "purple"]', "dice.panic", "unknown panic die face"),
    ('regroup = ["+", "+"', 'regroup = ["O", "+"', "dice.regroup", "unknown regroup die face"),
    ('facing = "up"', 'facing = "north"', "flock.facing", "must be one of"),
    ('neutral_colour_3p = "yellow"', 'neutral_colour_3p = "black"', "game.neutral_colour_3p",
     "must be blue"),
    ("[scoring]", "[scoring]\nbonus = 3", "scoring.bonus", "unknown key"),
    ('kind = "teammates", first = 1, last = 12 }', 'kind = "meadow", first = 1, last = 12 }',
     "tracks.4.fields[0].kind", "unknown field kind"),
])
def test_each_problem_names_file_and_key(tmp_path, old, new, key, problem):
    path = variant(tmp_path, old, new)
    with pytest.raises(RulesError) as err:
        load_rules(path)
    msg = str(err.value)
    assert err.value.key == key, msg
    assert problem in msg
    assert str(path) in msg
    assert "\n" not in msg


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(RulesError, match="file not found"):
        load_rules(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[game\n")
    with pytest.raises(RulesError, match="not valid TOML"):
        load_rules(bad)


def test_variant_file_loads_the_same_way(tmp_path):
    # shared/rulebooks/README.md: "a designer testing a variant edits a copy of the file and runs the same
    # commands"
    path = variant(tmp_path, "ram_row_points = [4, 3, 2, 1]", "ram_row_points = [5, 3, 1]")
    r = load_rules(path)
    assert r.ram_points == (5, 3, 1)
    assert r.name == str(path)
    assert r.sha256 != load_rules().sha256


def test_plus_fallback_option_is_read(tmp_path):
    path = variant(tmp_path, 'plus_without_route = "diagonal"', 'plus_without_route = "step"')
    r = load_rules(path)
    assert r.plus_fallback == L.PLUS_FALLBACK_STEP
    assert r.kernel_array(4)[L.R_PLUS_FALLBACK] == L.PLUS_FALLBACK_STEP
