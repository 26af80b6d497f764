"""Rules files: the standard set matches the rulebook; each kind of mistake gives one
clear error naming the file and the key."""

from importlib import resources

import pytest

from sheepsim.errors import RulesError, SheepsimError
from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep.rules import load_rules

STANDARD = resources.files("sheepsim.games.awsheep").joinpath("standard.toml").read_text()


def variant(tmp_path, old, new):
    assert STANDARD.count(old) == 1, old
    path = tmp_path / "variant.toml"
    path.write_text(STANDARD.replace(old, new))
    return path


def test_standard_deck_matches_the_rulebook():
    # Rulebook: "(6): In the Doghouse", "(4): Power of Methane", "(4): Horsin' Around",
    # "(4): Piggin' Out", "(17): Feelin' Sheepish", "(1): Gold Baaahhrs";
    # "Shuffle the 36 card deck"; "The Golden Sheep is worth 3 sheep!"
    rules = load_rules()
    assert rules.deck == (6, 4, 4, 4, 17, 1) and rules.deck_size == 36
    assert rules.golden_worth == 3
    assert rules.draft is False and rules.taker_chooses is False
    assert rules.tie_break == L.TIE_SHEEP_SHOW
    assert rules.run_passes is True  # flock_off_run = "reaches" (sheepsim's reading)
    assert rules.source == "<standard>/standard.toml" and len(rules.sha256) == 64


def test_deck_reduction_and_hand_sizes_per_player_count():
    # Rulebook: "With 4 players: remove 4 random cards", "With 5 players: remove 1",
    # "With 6 players: remove 0 cards", "With 3 players ... Remove 2 horses and 2 pigs
    # ... remove 8 random cards"; shared/rulebooks/README.md: "dealt equally (3p 8, 4p 8, 5p 7, 6p 6)".
    rules = load_rules()
    s = rules.setups
    assert s[3].remove == (0, 0, 2, 2, 0, 0) and s[3].aside_random == 8
    assert [s[n].aside_random for n in (4, 5, 6)] == [4, 1, 0]
    assert all(sum(s[n].remove) == 0 for n in (4, 5, 6))
    assert [s[n].hand_size for n in (3, 4, 5, 6)] == [8, 8, 7, 6]
    R = rules.kernel_array(5, draft=True)
    assert R[L.R_HAND_SIZE] == 7 and R[L.R_DRAFT] == 1 and R[L.R_ASIDE_RANDOM] == 1


@pytest.mark.parametrize("n", [2, 7, True, "4"])
def test_player_counts_outside_3_to_6_are_rejected(n):
    with pytest.raises(SheepsimError, match="players must be 3, 4, 5 or 6"):
        load_rules().kernel_array(n)


@pytest.mark.parametrize("old,new,key,problem", [
    ("sheep = 17", "sheep = -1", "deck.sheep", "at least 0"),
    ("sheep = 17", "sheep = 17\ncow = 1", "deck.cow", "unknown key"),
    # an oversized deck is the whole deck's problem (it named deck.sheep before 0.7.0)
    ("horse = 4 ", "horse = 40 ", "deck", "72 cards in all (doghouse 6, methane 4, horse 40, "
     "pig 4, sheep 17, golden 1); sheepsim plays at most 64 (the rulebook's deck has 36)"),
    ("golden_worth = 3", 'golden_worth = "3"', "scoring.golden_worth", "whole number"),
    ("remove = { horse = 2, pig = 2 }", "remove = { horse = 5, pig = 2 }",
     "setup.3.remove.horse", "deck has 4"),
    ("remove = { horse = 2, pig = 2 }", "remove = { hen = 2 }", "setup.3.remove.hen",
     "unknown card kind"),
    ("set_aside_random = 4", "set_aside_random = 3", "setup.4.set_aside_random",
     "do not deal equally"),
    ("set_aside_random = 0", "set_aside_random = 40", "setup.6.set_aside_random",
     "only 36 cards"),
    ("draft = false", "draft = 0", "options.draft", "true or false"),
    ('tie_break = "sheep_show"', 'tie_break = "coin"', "options.tie_break", "must be one of"),
    ('flock_off_run = "reaches"', 'flock_off_run = "passes"', "options.flock_off_run",
     "must be one of"),
    ("[setup.6]\nremove = {}\nset_aside_random = 0\n", "", "setup.6", "missing"),
])
def test_bad_rules_name_the_file_and_key(tmp_path, old, new, key, problem):
    """A ``setup.N`` that does not fit the deck is refused when ``N`` players play (issue
    49: an edit is judged for the counts a run plays); every other problem at load."""
    path = variant(tmp_path, old, new)
    with pytest.raises(RulesError) as exc:
        rules = load_rules(path)
        if key.startswith("setup.") and key != "setup.6" and "unknown" not in problem:
            n = int(key.split(".")[1])
            assert all(rules.check_players(m) == m for m in (3, 4, 5, 6) if m != n)
            rules.check_players(n)
    assert exc.value.key == key
    assert problem in exc.value.problem
    assert str(exc.value).startswith(str(path))
    assert "\n" not in str(exc.value)


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(RulesError, match="file not found"):
        load_rules(tmp_path / "nope.toml")


def test_doghouse_cards_option_and_its_older_name(tmp_path):
    # shared/rulebooks/README.md: "(option `doghouse_taker_chooses = false`; with true you draw two of their
    # cards at random)": the clearer doghouse_cards names the same choice; the older
    # boolean is still read; both at once is refused.
    line = 'doghouse_cards = "target_chooses"'
    assert load_rules().taker_chooses is False
    path = variant(tmp_path, line, 'doghouse_cards = "drawn_at_random"')
    assert load_rules(path).taker_chooses is True
    for old, drawn in (("true", True), ("false", False)):
        path = variant(tmp_path, line, f"doghouse_taker_chooses = {old}")
        assert load_rules(path).taker_chooses is drawn
    path = variant(tmp_path, line, line + "\ndoghouse_taker_chooses = true")
    with pytest.raises(RulesError, match="not both"):
        load_rules(path)
    path = variant(tmp_path, line, 'doghouse_cards = "taker"')
    with pytest.raises(RulesError, match="doghouse_cards.*must be one of target_chooses, "
                                         "drawn_at_random"):
        load_rules(path)
