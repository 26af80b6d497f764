"""Invariants over whole games (hypothesis draws seeds, player counts and policies):
sheep are conserved except when shorn, the flock is connected after every regrouping,
scores never decrease, every game ends."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st_

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.flock import Flock
from sheepsim.games.panic.simulate import trace_game

BASE = L.LOG_HEAD + 3 * L.N_SHEEP
# Events after which the flock must be whole again: the score step comes after the
# regrouping (B), and a new action or opening push starts from a regrouped flock.
CONNECTED_BEFORE = (L.EV_ACTION, L.EV_SCORE, L.EV_OPENING, L.EV_PANIC_DIE)


def flock_of(row):
    st = np.zeros(L.ST_LEN, dtype=np.int64)
    st[:3 * L.N_SHEEP] = row[L.LOG_HEAD:BASE]
    return st


@settings(max_examples=25, deadline=None)
@given(seed=st_.integers(0, 2**40), players=st_.sampled_from([3, 4]),
       policies=st_.lists(st_.sampled_from(["random", "greedy"]), min_size=4, max_size=4))
def test_game_invariants(rules, seed, players, policies):
    tr = trace_game(rules, players=players, policies=policies[:players], seed=seed)
    log = tr.log
    assert len(log) < L.MAX_LOG  # the log never overflowed
    assert int(log[-1, 0]) == L.EV_END  # the game ended
    colours = tr.state[L.ST_COLOUR:L.ST_COLOUR + L.N_SHEEP]
    prev = None
    for row in log:
        ev = int(row[0])
        alive = row[L.LOG_HEAD + 2 * L.N_SHEEP:BASE]
        if prev is not None:
            prev_alive = prev[L.LOG_HEAD + 2 * L.N_SHEEP:BASE]
            # sheep only leave the flock at a shearing (scored, then logged; or the
            # final one when the menus run out)
            if ev not in (L.EV_SCORE, L.EV_SHEAR, L.EV_END):
                assert np.array_equal(alive, prev_alive)
            assert not (alive > prev_alive).any()
            # scores never decrease
            assert (row[BASE + 2:BASE + 6] >= prev[BASE + 2:BASE + 6]).all()
            if ev in CONNECTED_BEFORE:
                # the drawn rules may hold another colour mix than the standard box
                f = Flock.from_state(flock_of(prev), free_form=True)
                assert f.is_connected(), (ev, str(f))
            # positions never overlap
            cells = {(int(row[L.LOG_HEAD + s]), int(row[L.LOG_HEAD + 9 + s]))
                     for s in range(9) if alive[s]}
            assert len(cells) == int(alive.sum())
        prev = row
    shorn = tr.state[L.ST_SHORN:L.ST_SHORN + 5]
    alive_end = tr.state[L.ST_ALIVE:L.ST_ALIVE + 9]
    assert shorn.sum() + alive_end.sum() == 9
    for c in range(5):
        assert shorn[c] == 2 - int(alive_end[colours == c].sum()) if c < 4 else True
    assert tr.state[L.ST_TURNS] <= players * len(rules.menu)
