"""The random policy's shortcut (:mod:`sheepsim.games.panic.policies.menucount`) must count exactly
the options :func:`~sheepsim.games.panic.geometry.flockops.legal_actions` lists and find each of
them in the same place, so that a random seat draws the same index and plays the same
option as before. Rulebook, step A: "choose one of your command tiles that you have not
used yet" and carry out its action; shared/rulebooks/README.md fixes which options each action has
and which reverse moves a tile refuses. The pinned digests of ``test_panic_pinned.py``
check whole random games byte for byte on top of this."""

import numba
import numpy as np
import pytest
from panic_helpers import opening, state_from

from sheepsim import rng
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.geometry.flockops import flock_lines, legal_actions
from sheepsim.games.panic.geometry.groups import popcount
from sheepsim.games.panic.policies.menucount import count_actions, nth_action
from sheepsim.games.panic.rules import load_rules
from sheepsim.games.panic.scratch import new_scratch
from sheepsim.games.panic.state import init_state
from sheepsim.games.panic.turns import play_turn

#: The standard menu with every sheep tile's "own_sheep" restriction lifted (a variant a
#: designer might try): Lamb Push, Roll and Leapfrog may then move any sheep.
ANY_SHEEP = {'restriction = "own_sheep"': 'restriction = "none"'}


def _rules(tmp_path, replace=None):
    if not replace:
        return load_rules()
    from importlib import resources

    text = resources.files("sheepsim.games.panic").joinpath("standard.toml").read_text()
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "variant.toml"
    path.write_text(text)
    return load_rules(path)


@numba.njit
def _menu_mismatch(st, R, seat, listed, scratch):
    """``(count, first index where nth_action differs from legal_actions or -1)``
    (count_actions and nth_action are kernel-only, so they are called from here)."""
    n = legal_actions(st, R, seat, listed)
    box, lines = flock_lines(st)
    if count_actions(st, R, seat, scratch, box, lines) != n:
        return n, n
    for i in range(n):
        row = nth_action(st, R, seat, i, scratch, box, lines)
        for j in range(3):
            if scratch[row, j] != listed[i, j]:
                return n, i
    return n, -1


def _same_menu(st, R, seat):
    """Assert count and every option agree with legal_actions; returns the count."""
    listed = np.zeros((L.MAX_OPTS, L.OPT_WIDTH), dtype=np.int64)
    scratch = np.full((L.MAX_OPTS, L.OPT_WIDTH), -7, dtype=np.int64)
    n, wrong = _menu_mismatch(st, R, np.int64(seat), listed, scratch)
    assert wrong == -1, (n, wrong)
    return n


def test_popcount():
    assert [popcount(m) for m in (0, 1, 2, 3, 255, 1 << 40, (1 << 62) - 1)] == [
        0, 1, 1, 2, 8, 1, 62]


@pytest.mark.parametrize("players,variant", [(4, None), (3, None), (4, ANY_SHEEP)],
                         ids=["4p", "3p", "4p-any-sheep"])
def test_count_and_nth_option_are_those_of_the_full_list(players, variant, tmp_path):
    """Every position of 12 random games, for every seat: the same count and the same
    option at every index (used tiles, refused reverses, sheep sheared off included)."""
    R = _rules(tmp_path, variant).kernel_array(players)
    w = new_scratch(np.int64(1), None)
    opts = np.zeros((L.MAX_OPTS, L.OPT_WIDTH), dtype=np.int64)
    positions = options = refusing = 0
    for game in range(12):
        rng.seed_streams(w.streams, 5, game)
        st = np.zeros(L.ST_LEN, dtype=np.int64)
        init_state(st, R)
        opening(st, R, None, w)
        seat = 0
        for _ in range(200):  # a game ends within 60 turns; passes need after_turn
            if st[L.ST_ENDED]:
                break
            for s in range(players):
                options += _same_menu(st, R, s)
                positions += 1
            refusing += st[L.ST_PREV_KIND] in (L.LINE_PUSH, L.DIAG_PUSH, L.EWE_TURN)
            play_turn(st, R, seat, None, opts, w)
            seat = (seat + 1) % players
    # exercised, not vacuous: hundreds of positions, tens of thousands of options, and
    # positions after a move some tile may refuse to reverse
    assert positions > 500 and options > 20_000 and refusing > 50


def test_a_flock_too_spread_for_line_masks_is_counted_by_listing():
    """Two sheep 80 columns apart (only a free-form test flock gets there): the line
    pushes are listed line by line, as legal_actions does."""
    R = load_rules().kernel_array(4)
    st = state_from("b" + "." * 79 + "g\n", free_form=True)
    assert _same_menu(st, R, 0) == _same_menu(st, R, 1) > 0


def test_no_sheep_no_option():
    R = load_rules().kernel_array(4)
    st = state_from("b\n")
    st[L.ST_ALIVE] = 0
    assert _same_menu(st, R, 0) == 0


#: Flocks standing on one line (free-form test flocks: a diagonal line touches only at
#: corners): then one of the four line masks has a single bit and the others one per
#: sheep, the case where a count formula off by one for a one-line mask would show.
ONE_LINE_FLOCKS = {
    "row": "bgy\n",
    "column": "b\ng\ny\n",
    "diagonal": "b..\n.g.\n..y\n",
    "anti-diagonal": "..b\n.g.\ny..\n",
}


@pytest.mark.parametrize("shape", list(ONE_LINE_FLOCKS))
def test_a_flock_on_one_line_is_counted_as_listed(shape):
    """Every seat, with no previous action and right after each line push and Ewe Turn
    direction (shared/rulebooks/README.md, "Reverse move": the tiles that refuse it leave it out)."""
    R = load_rules().kernel_array(4)
    st = state_from(ONE_LINE_FLOCKS[shape], free_form=True)
    # the previous action as a game leaves it: a Line Push goes along a row or column
    # (even directions), a Diagonal Push along a diagonal (odd), an Ewe Turn right or left
    previous = {L.LINE_PUSH: (range(0, 8, 2), range(-3, 6)),
                L.DIAG_PUSH: (range(1, 8, 2), range(-3, 6)),
                L.EWE_TURN: ((L.TURN_RIGHT, L.TURN_LEFT), [0])}
    checked = 0
    for seat in range(4):
        st[L.ST_PREV_KIND] = -1
        checked += _same_menu(st, R, seat) > 0
        for kind, (directions, targets) in previous.items():
            for direction in directions:
                for target in targets:
                    st[L.ST_PREV_KIND] = kind
                    st[L.ST_PREV_DIR] = direction
                    st[L.ST_PREV_TARGET] = target
                    st[L.ST_PREV_DIE] = 0
                    checked += _same_menu(st, R, seat) > 0
    assert checked == 4 * (1 + 2 * 4 * 9 + 2)  # every case had options to compare


def test_the_module_says_which_tiles_are_counted_by_listing():
    """menucount's docstring said every unused tile's count came from the masks; since
    906d629 count_actions lists Alignment and Ewe Turn (and a spread flock's pushes) with
    tile_options, and the docstring says so now. The test above checks hundreds of
    positions per menu (``positions > 500``), not thousands."""
    import inspect

    from sheepsim.games.panic.policies import menucount

    doc = " ".join(menucount.__doc__.split())
    assert "each unused tile's count comes from" not in doc
    assert "counted by listing their options" in doc and "Alignment and Ewe Turn" in doc
    assert "too spread for the line masks" in doc and "hundreds of positions" in doc
    # the code it describes: the tiles neither sheep nor mask-counted pushes are listed
    assert "elif refuses or not sheep_tile:" in inspect.getsource(menucount)
