"""Rules shared/rulebooks/README.md fixes that no other test pins: the initial token stack, the
all-exhausted final, and WALK paying white in the End Zone."""

import numpy as np

from sheepsim import rng
from sheepsim.games.race import engine
from sheepsim.games.race import layout as L

from .helpers import legal_set, make_state


def test_deal_stacks_the_first_player_on_top_then_clockwise():
    # shared/rulebooks/README.md: "Score ties ... go to the token on top of the stack: initially the first
    # player on top, then clockwise order"; "the first player of semifinal 1 is drawn at
    # random"; "the 12 cards are shuffled". A higher stamp is higher in the stack.
    firsts = set()
    for game in range(40):
        streams = rng.new_streams()
        rng.seed_streams(streams, 11, game)
        deck, stamp = np.zeros(12, dtype=np.int64), np.zeros(4, dtype=np.int64)
        first = engine.deal_arrays(streams, deck, stamp, 4)  # the race machine's deal
        firsts.add(int(first))
        assert sorted(deck.tolist()) == list(range(12))
        stack = [int(stamp[(first + i) % 4]) for i in range(4)]
        assert stack == [4, 3, 2, 1]
        assert engine.leader(np.zeros(4, dtype=np.int64), stamp) == first
    assert firsts == {0, 1, 2, 3}  # every seat is drawn first in 40 deals


def test_an_all_exhausted_final_goes_to_the_closest_sheep_lowest_lane_on_a_tie():
    # shared/rulebooks/README.md: "Final: ends when the first sheep crosses; if all are exhausted, the closest
    # wins, ties to the lowest-numbered lane."
    ex = L.EXHAUSTED
    board, race = make_state(positions=(16, 19, 17, 19, 18, 16), cubes=((0, 0, 0),) * 6,
                             stage=L.FINAL, status=(ex,) * 6)
    race[L.N_RUNNING] = 0
    assert engine.race_over(board, race)
    engine.place_remaining(board, race)
    assert board[:, L.PLACE].tolist() == [0, 1, 0, 0, 0, 0]  # lane 2 (19) before lane 4 (19)


def test_walk_in_the_end_zone_pays_white_or_is_free_and_never_recovers():
    # shared/rulebooks/README.md: "WALK: 1 square. ... In the End Zone: pay 1 white or move for free (nothing
    # recovered)." and "REST: ... never in the End Zone."
    board, race = make_state(positions=(17,) * 6, cubes=((0, 1, 1),) * 6)
    options = legal_set(board, race, 0)
    assert {"WALK_WHITE", "WALK_FREE"} <= options
    assert "WALK_RECOVER" not in options and not any(o.startswith("REST") for o in options)
