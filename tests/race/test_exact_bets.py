"""``best_bets`` (exact per-deal bets) agrees with what ``race ev`` recommends."""

import numpy as np
import pytest

from sheepsim.games.race.cli_exact import ev_builders
from sheepsim.games.race.exact import exact_odds
from sheepsim.games.race.exact.bets import best_bets, set_ev
from sheepsim.games.race.exact.from_position import exact_tables
from sheepsim.games.race.rules import load_rules


@pytest.mark.parametrize("deal", range(6))
def test_best_bets_match_race_ev_tables(deal):
    rules = load_rules()
    gen = np.random.default_rng(500 + deal)
    lanes = gen.permutation(len(rules.cards))[:6]
    stage = "final" if deal % 3 == 2 else "semifinal"
    taken = () if stage == "final" else tuple(sorted(gen.choice(6, size=deal % 3, replace=False)))
    res = exact_odds(rules, lanes, stage)
    choice = best_bets(res, taken)
    tables = exact_tables(res, ev_builders(stage, tuple(t + 1 for t in taken)))
    top = tables["sets"].iloc[0]
    if stage == "final":
        assert choice.open_lane is None
        assert top["lanes"] == ",".join(str(x + 1) for x in choice.hidden)
        assert choice.ev == pytest.approx(top["ev"], abs=1e-12)
        return
    row = tables["open_bet"][tables["open_bet"]["recommended"]].iloc[0]
    assert row["lane"] == choice.open_lane + 1
    assert row["hidden_lanes"] == ",".join(str(x + 1) for x in choice.hidden)
    assert choice.ev == pytest.approx(row["ev_set"], abs=1e-12)
    assert choice.ev == pytest.approx(set_ev(res, (choice.open_lane, *choice.hidden)))
    assert choice.open_lane not in taken
