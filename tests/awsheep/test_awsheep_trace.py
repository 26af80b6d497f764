"""The trace: every turn with card, target, cards moved, hand sizes, run and hands;
the same round as the simulation kernels."""

import numpy as np
import pytest

from sheepsim.errors import SheepsimError
from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep.simulate import setting
from sheepsim.games.awsheep.trace import trace_round


@pytest.mark.parametrize("players,draft", [(4, False), (3, True), (6, False)])
def test_trace_matches_the_simulated_round(players, draft):
    pols = ["counter", "greedy"] + ["random"] * (players - 2)
    for game in range(3):
        tr = trace_round(players=players, policies=pols, seed=9, game=game, draft=draft)
        s = setting(None, players, pols, draft)
        acc = s.rounds(9, game, 1, False)[0]
        assert acc[L.A_WINS + tr.winner] == 1
        assert acc[L.A_END + L.END_NAMES.index(tr.end)] == 1
        text = "\n".join(tr.lines)
        turns = [ln for ln in tr.lines if ln.startswith("Turn ")]
        assert len(turns) == int(tr.state[L.ST_TURNS]) >= 1
        assert text.count("cards moved") == len(turns)
        assert "hand sizes" in text and f"seat {tr.winner + 1} wins" in text
        assert tr.lines[0].startswith(f"Aw, Sheep!, {players} players, draft "
                                      f"{'on' if draft else 'off'}")
        if draft:
            assert "Hands after the draft:" in text and "draft pick" in text


def test_trace_hands_follow_the_cards():
    tr = trace_round(players=4, policies="greedy", seed=2, game=0)
    sizes = tr.log[:, L.LOG_HEAD:L.LOG_HEAD + 4]
    hands = tr.log[:, L.LOG_HEAD + L.MAX_PLAYERS:L.LOG_HEAD + L.MAX_PLAYERS + 4 * L.N_KINDS]
    assert np.array_equal(sizes, hands.reshape(len(tr.log), 4, L.N_KINDS).sum(axis=2))
    assert tr.log[0, 0] == L.EV_DEAL and tr.log[-1, 0] == L.EV_END


def test_trace_bad_game_index():
    with pytest.raises(SheepsimError, match="game must be a whole number"):
        trace_round(game=-1)
