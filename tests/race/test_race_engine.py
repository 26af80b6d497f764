"""Sheep Race movement, selection and race-end rules on hand-built boards.

Each test quotes the rulebook (shared/rulebooks/000_...txt) or shared/rulebooks/README.md
sentence it checks.
"""

import numpy as np

from sheepsim.games.race import engine
from sheepsim.games.race import layout as L

from .helpers import legal_set, make_state


def test_paces_and_payments_outside_end_zone():
    # Rulebook: "GALLOP ... must use 1 red breath cube or 2 blue breath cubes or 1 white
    # breath cube. TROT ... 1 blue breath cube or 1 white breath cube. WALK ... either
    # recovers 1 blue breath cube or uses 1 white breath cube."
    board, race = make_state(cubes=((1, 0, 1),) * 6)
    assert legal_set(board, race, 0) == {
        "GALLOP_RED", "GALLOP_WHITE", "TROT_WHITE", "WALK_WHITE", "WALK_RECOVER"}
    board, race = make_state(cubes=((0, 2, 0),) * 6)
    assert legal_set(board, race, 0) == {"GALLOP_BLUE2", "TROT_BLUE", "WALK_RECOVER"}


def test_walk_and_rest_limit_of_three_cubes():
    # Rulebook: "A sheep cannot walk or rest ... if the number of breath cubes on the
    # sheep card would be more than 3 at the end of the turn (regardless of color)."
    board, race = make_state(cubes=((1, 1, 1),) * 6)
    assert "REST" not in legal_set(board, race, 0)          # 3 + 2 > 3
    assert "WALK_RECOVER" not in legal_set(board, race, 0)  # 3 + 1 > 3
    board, race = make_state(cubes=((1, 1, 0),) * 6)
    assert "WALK_RECOVER" in legal_set(board, race, 0)      # 2 + 1 = 3
    assert "REST" not in legal_set(board, race, 0)          # 2 + 2 > 3
    board, race = make_state(cubes=((0, 1, 0),) * 6)
    assert "REST" in legal_set(board, race, 0)              # 1 + 2 = 3


def test_no_cubes_outside_end_zone_can_only_rest():
    # shared/rulebooks/README.md: "A sheep with no cubes cannot walk." / "A sheep with no cubes outside the
    # End Zone can only REST."
    board, race = make_state(cubes=((0, 0, 0),) * 6, positions=(10,) * 6)
    assert legal_set(board, race, 0) == {"REST"}
    engine.apply_option(board, race, 0, L.REST)
    assert board[0, L.BLUE] == 2 and board[0, L.POS] == 10 and board[0, L.STATUS] == L.RUNNING


def test_end_zone_walk_is_free_and_resting_forbidden():
    # Rulebook: "If the selected sheep is in the End Zone and it is not exhausted ... and
    # you choose the walk pace, the sheep moves either by using a white breath cube or
    # without recovering any blue breath cubes." and "A sheep cannot rest in the End Zone."
    board, race = make_state(cubes=((0, 1, 0),) * 6, positions=(16,) * 6)
    assert legal_set(board, race, 0) == {"TROT_BLUE", "WALK_FREE"}
    engine.apply_option(board, race, 0, L.WALK_FREE)
    assert board[0, L.POS] == 17 and board[0, L.BLUE] == 1 and race[L.SUPPLY_BLUE] == 10


def test_end_zone_is_judged_on_the_starting_square():
    # shared/rulebooks/README.md: '"In the End Zone" is judged on the square where the sheep starts the move.'
    board, race = make_state(cubes=((0, 1, 0),) * 6, positions=(15,) * 6)
    legal = legal_set(board, race, 0)
    assert "WALK_RECOVER" in legal and "WALK_FREE" not in legal and "REST" in legal
    engine.apply_option(board, race, 0, L.WALK_RECOVER)  # moves into square 16, recovers
    assert board[0, L.POS] == 16 and board[0, L.BLUE] == 2


def test_exhaustion_inside_end_zone_only():
    # Rulebook: "If the selected sheep uses its last breath cube ... Outside of the End
    # Zone: the sheep will have to rest ... In the End Zone: the sheep is exhausted."
    board, race = make_state(cubes=((1, 0, 0),) * 6, positions=(3, 12, 0, 0, 0, 0), gallop=5)
    engine.apply_option(board, race, 0, L.GALLOP_RED)   # 3 -> 8, outside
    assert board[0, L.STATUS] == L.RUNNING and board[0, L.POS] == 8
    engine.apply_option(board, race, 1, L.GALLOP_RED)   # 12 -> 17, inside with no cubes
    assert board[1, L.STATUS] == L.EXHAUSTED and race[L.N_RUNNING] == 5


def test_crossing_finishes_whatever_the_cubes_and_loses_extra_movement():
    # shared/rulebooks/README.md: "A sheep whose move takes it past square 20 (position >= 21) has crossed
    # the Finish Line; extra movement is lost." / "One that crosses the Finish Line is
    # finished whatever its cubes."
    board, race = make_state(cubes=((1, 0, 0),) * 6, positions=(18, 0, 0, 0, 0, 0), gallop=6)
    engine.apply_option(board, race, 0, L.GALLOP_RED)
    assert board[0, L.POS] == 21 and board[0, L.STATUS] == L.FINISHED
    assert board[0, L.PLACE] == 1 and race[L.N_PLACED] == 1


def test_cubes_go_back_to_the_supply_and_recovery_is_capped_by_it():
    # shared/rulebooks/README.md: "Red and white cubes are never recovered. If the supply holds fewer blue
    # cubes than a walk or rest would recover, the sheep recovers only what is there."
    board, race = make_state(cubes=((0, 2, 0), (0, 0, 0)) + ((0, 0, 0),) * 4, supply_blue=0)
    engine.apply_option(board, race, 0, L.GALLOP_BLUE2)
    assert race[L.SUPPLY_BLUE] == 2
    board, race = make_state(cubes=((0, 0, 0),) * 6, supply_blue=1, positions=(5,) * 6)
    engine.apply_option(board, race, 0, L.REST)
    assert board[0, L.BLUE] == 1 and race[L.SUPPLY_BLUE] == 0


def test_dice_totals_select_lanes():
    # Rulebook: 'If the result is "7", you move the sheep in Lane 6; if it's "8", the
    # sheep in Lane 5; and if you roll "9", you move the Lazy Sheep.'
    board, _ = make_state(positions=(5, 4, 3, 2, 1, 6))
    for total in range(1, 7):
        assert engine.select_sheep(board, total) == (total - 1, L.BY_DICE)
    assert engine.select_sheep(board, 7) == (5, L.BY_DICE)
    assert engine.select_sheep(board, 8) == (4, L.BY_DICE)
    assert engine.select_sheep(board, 9) == (4, L.LAZY_NINE)  # lane 5 is furthest back


def test_lazy_sheep_ties_go_to_the_highest_lane_and_skip_out_of_race_sheep():
    # Rulebook: "If there are 2 sheep in the same row, the Lazy Sheep is the one in the
    # highest numbered lane." shared/rulebooks/README.md: the Lazy Sheep is chosen "among sheep that are
    # neither exhausted nor finished".
    board, _ = make_state(positions=(2, 1, 1, 3, 1, 4),
                          status=(0, 0, 0, 0, L.EXHAUSTED, 0))
    # lanes 2, 3 and 5 are furthest back (square 1) but lane 5 is exhausted
    assert engine.lazy_sheep(board) == 2
    # Rulebook: "The Lazy Sheep is moved if ... the die roll indicates an exhausted sheep
    # in the End Zone; or ... a sheep that has already crossed the Finish Line."
    assert engine.select_sheep(board, 5) == (2, L.LAZY_EXHAUSTED)
    board[0, L.STATUS] = L.FINISHED
    assert engine.select_sheep(board, 1) == (2, L.LAZY_FINISHED)


def test_semifinal_ends_after_three_crossings():
    # Rulebook: "The race ends when either: 3 sheep cross the Finish Line; or all of the
    # sheep still in the race are exhausted"
    board, race = make_state(positions=(19,) * 6, cubes=((1, 0, 0),) * 6, gallop=3)
    for lane in range(2):
        engine.apply_option(board, race, lane, L.GALLOP_RED)
        assert not engine.race_over(board, race)
    engine.apply_option(board, race, 2, L.GALLOP_RED)
    assert engine.race_over(board, race)
    final_board, final_race = make_state(positions=(19,) * 6, stage=L.FINAL)
    engine.apply_option(final_board, final_race, 3, L.GALLOP_RED)
    # Rulebook: "The final race ends as soon as the first sheep crosses the Finish Line."
    assert engine.race_over(final_board, final_race)


def test_exhausted_sheep_are_ranked_by_distance_ties_to_lowest_lane():
    # Rulebook: "the exhausted sheep closest to the Finish Line is first, then the next
    # closest ... If there is a tie ..., the first sheep is the one in the lowest
    # numbered lane."  One sheep crossed first, the rest are exhausted.
    ex = L.EXHAUSTED
    board, race = make_state(positions=(17, 19, 21, 19, 16, 18),
                             status=(ex, ex, L.FINISHED, ex, ex, ex))
    board[2, L.PLACE] = 1
    race[L.N_PLACED] = 1
    race[L.N_RUNNING] = 0
    assert engine.race_over(board, race)
    engine.place_remaining(board, race)
    places = np.full(3, -1, dtype=np.int64)
    engine.placed_lanes(board, places)
    assert places.tolist() == [2, 1, 3]  # lane 3 crossed; lanes 2 and 4 tie on 19 -> lane 2


def test_stalemate_in_a_variant_ends_the_race():
    # Not settled by the rulebook (impossible with the standard supply): with no blue cube
    # in the supply and every running sheep empty outside the End Zone, nothing can ever
    # move; the race ends and places go by distance as for exhausted sheep.
    board, race = make_state(positions=(3, 5, 4, 0, 0, 0), cubes=((0, 0, 0),) * 6,
                             supply_blue=0)
    assert engine.race_over(board, race)
    engine.place_remaining(board, race)
    places = np.full(3, -1, dtype=np.int64)
    engine.placed_lanes(board, places)
    assert places.tolist() == [1, 2, 0]
