"""``rollout``'s playouts (issue 34): each stops when the rollout seat is next to move,
after one turn of every other seat, and is then valued greedy's way for every player
(:func:`~sheepsim.games.panic.policies.rollout.value_margin`); a playout that reaches
the end of the game is valued by the final points. ``rollout-v1`` plays to the end
(its games are pinned byte for byte in ``test_panic_pinned.py``)."""

import numba
import numpy as np
import pytest
from panic_helpers import early_positions

from sheepsim import rng
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.geometry.flockops import legal_actions
from sheepsim.games.panic.policies.decide import (
    GREEDY,
    POSITION_WEIGHT,
    RANDOM,
    ROLLOUT,
    ROLLOUT_V1,
    positional,
)
from sheepsim.games.panic.policies.rollout import margin, rollout_choose, value_margin
from sheepsim.games.panic.rules import load_rules
from sheepsim.games.panic.scratch import copy_state, new_scratch
from sheepsim.games.panic.turns import after_turn, execute_turn, play_turn


@numba.njit
def _one_playout_each(st, R, seat, opts, n, w, turns_after, out, ended):
    """What one playout per option must give, written as the rule says: the option (greedy
    sub-decisions), then exactly ``turns_after`` random turns (fewer if the game ends),
    dice and choices from the POLICY row; the final points margin if the game ended, else
    ``value_margin``."""
    w.ctx[L.CTX_DICE_PURPOSE] = rng.POLICY
    sim = w.play
    for i in range(n):
        copy_state(sim, st, L.ST_LEN)
        execute_turn(sim, R, seat, np.int64(GREEDY), opts[i, 0], opts[i, 1], opts[i, 2], w)
        s = after_turn(sim, R, seat, np.bool_(True), w)
        k = 0
        while sim[L.ST_ENDED] == 0 and k < turns_after:
            acted = play_turn(sim, R, s, np.int64(RANDOM), w.play_opts, w)
            s = after_turn(sim, R, s, acted, w)
            k += 1
        ended[i] = sim[L.ST_ENDED] != 0
        out[i] = margin(sim, R, seat) if ended[i] else value_margin(sim, R, seat, w)
    w.ctx[L.CTX_DICE_PURPOSE] = rng.DICE


@pytest.mark.parametrize("players", [3, 4])
def test_a_rollout_playout_stops_when_the_seat_is_next_to_move(players):
    """Early in the game no seat is out of sheep, so "until the seat is next to move" is
    one turn of each of the other ``players - 1`` seats: with one playout per option and
    the same stream, every option's value equals that of a playout of exactly that many
    turns, and differs from one a turn shorter or longer for most options."""
    R = load_rules().kernel_array(players)
    w = new_scratch(np.int64(1), 1)
    opts = np.zeros((L.MAX_OPTS, L.OPT_WIDTH), dtype=np.int64)
    out = np.zeros(L.MAX_OPTS)
    ended = np.zeros(L.MAX_OPTS, dtype=np.bool_)
    compared = shorter_differs = longer_differs = 0
    for position, st in early_positions(R, 12, players, 4):
        st[L.ST_COUNTER] = position % 20  # early on the track: no playout ends the game
        seat = position % players
        n = legal_actions(st, R, seat, opts)
        rng.seed_streams(w.streams, 5, position)
        saved = w.streams.copy()
        rollout_choose(st, R, seat, np.int64(ROLLOUT), opts, n, w)
        values = w.values[:n].copy()
        for turns, check in ((players - 1, "equal"), (players - 2, "shorter"), (players, "longer")):
            w.streams[:] = saved
            _one_playout_each(st, R, seat, opts, n, w, turns, out, ended)
            assert not ended[:n].any()
            if check == "equal":
                assert np.array_equal(values, out[:n])
                compared += n
            elif check == "shorter":
                shorter_differs += int((values != out[:n]).sum())
            else:
                longer_differs += int((values != out[:n]).sum())
    assert compared > 500  # exercised, not vacuous
    assert shorter_differs > compared // 2 and longer_differs > compared // 2


def test_rollout_v1_plays_every_playout_to_the_end():
    """``rollout-v1`` (rollout before issue 34): the same values as playouts run to the end
    of the game, each valued by the final points margin."""
    R = load_rules().kernel_array(3)
    w = new_scratch(np.int64(1), 1)
    opts = np.zeros((L.MAX_OPTS, L.OPT_WIDTH), dtype=np.int64)
    out = np.zeros(L.MAX_OPTS)
    ended = np.zeros(L.MAX_OPTS, dtype=np.bool_)
    for position, st in early_positions(R, 3, 11, 4):
        seat = position % 3
        n = legal_actions(st, R, seat, opts)
        rng.seed_streams(w.streams, 6, position)
        saved = w.streams.copy()
        rollout_choose(st, R, seat, np.int64(ROLLOUT_V1), opts, n, w)
        w.streams[:] = saved
        _one_playout_each(st, R, seat, opts, n, w, 1 << 40, out, ended)
        assert ended[:n].all()
        assert np.array_equal(w.values[:n], out[:n])


def test_value_margin_is_points_plus_half_the_positional_score_minus_the_best_rival():
    """Greedy's valuation for every player (points + ``POSITION_WEIGHT`` x the positional
    score for the counter's field), own minus the best opponent's, on positions with the
    counter in every field of the track and unequal scores."""
    R = load_rules().kernel_array(4)
    w = new_scratch(np.int64(1), None)
    fields = set()
    for position, st in early_positions(R, 40, 4, 4):
        st[L.ST_COUNTER] = (position * 5) % R[L.R_TRACK_LEN]
        for s in range(4):
            st[L.ST_SCORE + s] = (position * (s + 3)) % 11
        v = [st[L.ST_SCORE + s] + POSITION_WEIGHT * positional(st, R, s, st[L.ST_COUNTER], w.shear)
             for s in range(4)]
        fields.add(positional(st, R, 0, st[L.ST_COUNTER], w.shear) != 0)
        for seat in range(4):
            expected = v[seat] - max(v[s] for s in range(4) if s != seat)
            assert value_margin(st, R, seat, w) == pytest.approx(expected, abs=1e-12)
    assert fields == {True, False}  # some positions score positionally, some do not
