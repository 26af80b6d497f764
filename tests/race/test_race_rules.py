"""Rules file loading and validation (issue 2, section 2)."""

import pytest

from sheepsim.errors import RulesError
from sheepsim.games.race.rules import load_rules

from .helpers import load_text, standard_text


def test_standard_rules_match_the_readme_table():
    rules = load_rules()
    assert rules.track_length == 20 and rules.end_zone == 5 and rules.max_cubes == 3
    assert rules.supply.tolist() == [14, 19, 7]
    assert len(rules.cards) == 12
    req = rules.cards[0]
    # Rulebook: "Requeijao starts with 1 blue, 1 red, and 1 white cube ... 1 space if he
    # chooses to walk, 2 if he decides to trot, or 6 spaces if he decides to gallop."
    assert (req.name, req.red, req.blue, req.white, req.trot, req.gallop) == (
        "Requeijao", 1, 1, 1, 2, 6)
    table = rules.card_table()
    # shared/rulebooks/README.md: "Totals: 14 red, 15 blue, 7 white on the twelve cards"
    assert table[:, :3].sum(axis=0).tolist() == [14, 15, 7]
    assert rules.payoff_semifinal.tolist() == [[12, 11, 9, 8, 7, 6], [9, 8, 6, 5, 4, 3],
                                               [7, 6, 4, 3, 2, 1]]
    assert rules.payoff_final.tolist() == [18, 17, 16, 15, 14, 13]
    assert (rules.bonus_two, rules.bonus_three) == (1, 3)
    assert rules.dice_semifinal == [[1, 2, 3, 4, 5, 6], [1, 2, 3, 0, 0, 0]]
    assert rules.dice_final == [[1, 2, 3, 4, 5, 6], [2, 0, 0, 0, 0, 0]]
    assert len(rules.sha256) == 64


def test_user_variant_loads_and_is_hashed(tmp_path):
    text = standard_text().replace("bonus_three = 3", "bonus_three = 2")
    rules = load_text(tmp_path, text)
    assert rules.bonus_three == 2
    assert rules.sha256 != load_rules().sha256
    assert rules.source.endswith("variant.toml")


def _card_block(name, red=1, blue=1, white=1, trot=2, gallop=5, nation="X"):
    return (f'\n[[race.cards]]\nname = "{name}"\nnation = "{nation}"\nred = {red}\n'
            f'blue = {blue}\nwhite = {white}\ntrot = {trot}\ngallop = {gallop}\n')


def _head(text):
    return text[: text.index("[[race.cards]]")]


BAD_CASES = [
    # (description, transform of the standard text, key named in the error, words in it)
    ("unknown key", lambda t: t.replace("max_cubes = 3", "max_cubes = 3\nspeed = 2"),
     "race.speed", "unknown key"),
    ("missing key", lambda t: t.replace("max_cubes = 3\n", ""), "race.max_cubes", "missing"),
    ("wrong type", lambda t: t.replace("track_length = 20", 'track_length = "20"'),
     "race.track_length", "whole number"),
    ("payoff row not 6 lanes", lambda t: t.replace("final = [18, 17, 16, 15, 14, 13]",
                                                   "final = [18, 17, 16, 15, 14]"),
     "race.payoffs.final", "6 entries"),
    ("semifinal payoff row not 6", lambda t: t.replace("[7, 6, 4, 3, 2, 1]]", "[7, 6, 4, 3, 2]]"),
     "race.payoffs.semifinal", "6 entries"),
    ("empty die", lambda t: t.replace("final = [[1, 2, 3, 4, 5, 6], [2, 0, 0, 0, 0, 0]]",
                                      "final = [[1, 2, 3, 4, 5, 6], []]"),
     "race.dice.final", "empty"),
    ("negative face", lambda t: t.replace("[1, 2, 3, 0, 0, 0]", "[1, 2, 3, 0, 0, -1]"),
     "race.dice.semifinal", "at least 0"),
    ("card over max_cubes", lambda t: t.replace("red = 1\nblue = 1\nwhite = 1\ntrot = 2\ngallop = 6",
                                                "red = 2\nblue = 1\nwhite = 1\ntrot = 2\ngallop = 6"),
     "race.cards[0]", "more than max_cubes"),
    ("negative card value", lambda t: t.replace("trot = 2\ngallop = 6", "trot = -2\ngallop = 6"),
     "race.cards[0].trot", "at least 0"),
    ("end zone too long", lambda t: t.replace("end_zone = 5", "end_zone = 21"), "race.end_zone",
     "larger than track_length"),
    ("fewer than 6 cards", lambda t: _head(t) + "".join(_card_block(f"C{i}") for i in range(5)),
     "race.cards", "at least 6"),
    ("duplicate card names", lambda t: t + _card_block("Feta"), "race.cards[12].name", "duplicate"),
    ("supply too small", lambda t: t.replace("white = 7\n", "white = 5\n", 1), "race.supply.white",
     "six cards"),
    ("not TOML", lambda t: t + "\n[race\n", "-", "not valid TOML"),
    # shared/rulebooks/README.md: "A sheep with no cubes outside the End Zone can only
    # REST" and REST "recover[s] 2 blue; only if the sheep then holds at most 3 cubes":
    # with max_cubes 1 it never could
    ("max_cubes below 2", lambda t: t.replace("max_cubes = 3", "max_cubes = 1"),
     "race.max_cubes", "at least 2"),
]


@pytest.mark.parametrize("desc,transform,key,words", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_each_validation_error_names_file_and_key(tmp_path, desc, transform, key, words):
    with pytest.raises(RulesError) as info:
        load_text(tmp_path, transform(standard_text()))
    msg = str(info.value)
    assert "variant.toml" in msg and key in msg and words in msg, msg
    assert "\n" not in msg


def test_a_card_is_named_as_a_designer_counts_it(tmp_path):
    """The 13th ``[[race.cards]]`` table is the 13th card, not card 12."""
    with pytest.raises(RulesError) as info:
        load_text(tmp_path, standard_text() + _card_block("Feta"))
    assert str(info.value).endswith(
        "race.cards[12].name (the 13th [[race.cards]] table): duplicate card name 'Feta'")
    from sheepsim.errors import _ordinal

    assert [_ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th"]


def test_a_variant_may_have_six_cards(tmp_path):
    text = _head(standard_text()) + "".join(_card_block(f"C{i}") for i in range(6))
    rules = load_text(tmp_path, text)
    assert len(rules.cards) == 6


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(RulesError, match="file not found"):
        load_rules(tmp_path / "nope.toml")
