"""Races with every sheep ``greedy`` played from per-card transition tables
(:mod:`sheepsim.games.race.greedy_table`) give the engine's results race by race.

Rulebook: "The active player chooses the pace of the selected sheep" and ``greedy`` (the
shared/rulebooks/README.md's reference policy) looks only at that sheep's square and cubes, and at
the blue supply only to know whether it may recover; the tables apply when the supply
cannot run short (:func:`supply_never_binds`) and must then change nothing.
"""

import numpy as np
import pytest

from sheepsim.games.race import greedy_table
from sheepsim.games.race.kernels import empty_race_counts, race_chunk
from sheepsim.games.race.layout import FINAL, SEMIFINAL
from sheepsim.games.race.rules import load_rules


def _counts(rules, lanes, random_deal, stage, tables, seed=5, n=20_000):
    out = empty_race_counts(rules.cards.shape[0])
    race_chunk(seed, 1000, n, rules, np.asarray(lanes, dtype=np.int64), random_deal, stage,
               None, out, tables=tables)
    return out


def test_the_standard_supply_never_binds_and_a_smaller_one_may():
    kr = load_rules().kernel_rules()
    assert kr.blue_total == 19 and kr.max_cubes == 3
    assert greedy_table.supply_never_binds(kr)  # 19 >= 6 * 3 + 1
    short = kr._replace(blue_total=18)
    assert not greedy_table.supply_never_binds(short)
    assert greedy_table.new_tables(short).shape == (0,)  # the engine's loop, then


@pytest.mark.parametrize("stage", [SEMIFINAL, FINAL], ids=["semifinal", "final"])
@pytest.mark.parametrize("random_deal", [False, True], ids=["dealt", "random-deal"])
def test_tables_give_the_engines_counts_on_the_standard_cards(stage, random_deal):
    kr = load_rules().kernel_rules()
    a = _counts(kr, range(6), random_deal, stage, tables=True)
    b = _counts(kr, range(6), random_deal, stage, tables=False)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)
    assert a[2][0] > 0


def test_tables_give_the_engines_counts_on_thin_cards_and_a_long_end_zone():
    """A variant deck (cards with 0-2 cubes, trot 1-3, gallop 2-5) and an End Zone from
    square 6: other tables, other races, the same counts."""
    kr = load_rules().kernel_rules()
    cards = np.array([[0, 1, 0, 2, 3], [1, 0, 0, 3, 4], [0, 0, 1, 2, 5], [1, 1, 0, 2, 4],
                      [0, 2, 0, 1, 3], [0, 0, 0, 2, 2], [1, 0, 1, 3, 5]], dtype=np.int64)
    thin = kr._replace(cards=cards, ez_first=6)
    assert greedy_table.supply_never_binds(thin)
    for stage in (SEMIFINAL, FINAL):
        a = _counts(thin, range(6), True, stage, tables=True)
        b = _counts(thin, range(6), True, stage, tables=False)
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)
