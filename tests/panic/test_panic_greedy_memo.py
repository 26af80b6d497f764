"""Greedy's shortcuts must not change a single choice: the option memo
(:mod:`sheepsim.games.panic.policies.optionmemo`) and the "slides only" reuse of the "+" look-ahead
regrouping for "X". The pinned digests of ``test_panic_pinned.py`` check whole greedy
games byte for byte; these tests check the two facts the shortcuts rest on, and (issue
34) that ``greedy``'s values shared between options equal values computed alone."""

import numba
import numpy as np
from panic_helpers import early_positions

from sheepsim import rng
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.geometry.flockops import alive_mask, apply_action, legal_actions
from sheepsim.games.panic.geometry.groups import is_connected, side_contacts
from sheepsim.games.panic.policies.greedy import _value_after, greedy_action_crn, relinked
from sheepsim.games.panic.policies.lookahead import lookahead_regroup, memo_find
from sheepsim.games.panic.policies.optionmemo import (
    CONNECTED,
    CROSS_KNOWN,
    O_CROSS,
    O_PLUS,
    O_STATUS,
    OPTION_KIND,
    PLUS_KNOWN,
    load_positions,
    option_slot,
)
from sheepsim.games.panic.rules import load_rules
from sheepsim.games.panic.scratch import OPT_MEMO_SLOTS, OPT_MEMO_WIDTH, new_scratch
from sheepsim.games.panic.state import init_state


def test_option_slot_finds_the_same_flock_again_within_one_decision_only():
    R = load_rules().kernel_array(4)
    st = np.zeros(L.ST_LEN, dtype=np.int64)
    init_state(st, R)
    memo = np.zeros((OPT_MEMO_SLOTS, OPT_MEMO_WIDTH), dtype=np.int64)
    alive = alive_mask(st)
    slot = option_slot(memo, st, alive, 1)
    assert memo[slot, O_STATUS] == 0  # a new flock
    memo[slot, O_STATUS] = CONNECTED
    assert option_slot(memo, st, alive, 1) == slot
    assert memo[slot, O_STATUS] == CONNECTED  # found again, status kept
    turned = st.copy()
    turned[L.ST_FACING] = (turned[L.ST_FACING] + 1) % 4  # same cells, other facing
    other = option_slot(memo, turned, alive, 1)
    assert other != slot and memo[other, O_STATUS] == 0
    moved = st.copy()
    moved[L.ST_ROW] += 5
    assert option_slot(memo, moved, alive, 1) not in (slot, other)
    assert memo[slot, O_STATUS] == CONNECTED  # the other keys left it alone
    # the next decision (generation 2) starts empty
    assert memo[option_slot(memo, st, alive, 2), O_STATUS] == 0


@numba.njit
def _regroup_both(cand, R, seat, w):
    """The look-ahead regrouping of ``cand`` for "+" and for "X": positions, the "+"
    call's slides-only answer, and whether each drew from the POLICY stream."""
    links = side_contacts(cand)
    plus = cand.copy()
    cross = cand.copy()
    before = w.streams[rng.POLICY, 0]
    slides_only = lookahead_regroup(plus, R, seat, w, np.int64(L.FACE_ORTHO), links)
    drew_plus = w.streams[rng.POLICY, 0] != before
    before = w.streams[rng.POLICY, 0]
    lookahead_regroup(cross, R, seat, w, np.int64(L.FACE_DIAG), links)
    drew_cross = w.streams[rng.POLICY, 0] != before
    return plus[:2 * L.N_SHEEP], cross[:2 * L.N_SHEEP], slides_only, drew_plus, drew_cross


def test_a_slides_only_plus_regrouping_without_a_draw_is_the_x_one():
    """Broken flocks from every legal action of random early positions: whenever the "+"
    look-ahead regrouping says it only slid and drew nothing, the "X" one gives the same
    cells and draws nothing either (so greedy may skip it)."""
    R = load_rules().kernel_array(4)
    w = new_scratch(np.int64(1), None)
    rng.seed_streams(w.streams, 7, 0)
    opts = np.zeros((L.MAX_OPTS, L.OPT_WIDTH), dtype=np.int64)
    checked = broken = 0
    for _, st in early_positions(R, 120, 7, 4):  # a few random connected moves from the start
        n = legal_actions(st, R, 0, opts)
        for i in range(n):
            cand = st.copy()
            apply_action(cand, R[L.R_TILE_KIND + opts[i, 0]], opts[i, 1], opts[i, 2])
            if is_connected(cand):
                continue
            broken += 1
            w.ctx[L.CTX_MEMO_GEN] += 1
            plus, cross, slides_only, drew_plus, drew_cross = _regroup_both(cand, R, 0, w)
            if slides_only and not drew_plus:
                checked += 1
                assert np.array_equal(plus, cross) and not drew_cross
    assert broken > 4000 and checked > 150  # exercised (4,387 broken, 185 checked), not vacuous


# ------------------------------------------------ greedy (issue 34): values shared per flock
@numba.njit
def _direct_values(st, R, seat, opts, n, w, out):
    """Every option's greedy value computed on its own (no value taken from another
    option) from the regroupings the decision just made kept in the option memo: NaN
    where its flock's row is gone. Returns how many rows were broken flocks."""
    n_plus = 0
    n_cross = 0
    for k in range(R[L.R_N_REGROUP_FACES]):
        if R[L.R_REGROUP_FACES + k] == L.FACE_DIAG:
            n_cross += 1
        else:
            n_plus += 1
    gen = w.ctx[L.CTX_MEMO_GEN]
    broken = 0
    for i in range(n):
        tile = opts[i, 0]
        time = R[L.R_TILE_TIME + tile]
        cand = st.copy()
        apply_action(cand, R[L.R_TILE_KIND + tile], opts[i, 1], opts[i, 2])
        slot, found = memo_find(w.opt_memo, cand, alive_mask(cand), 0, OPTION_KIND, gen)
        if not found:
            out[i] = np.nan
            continue
        row = w.opt_memo[slot]
        if row[O_STATUS] & CONNECTED:
            out[i] = _value_after(cand, st, R, seat, time, w)
            continue
        broken += 1
        total = 0.0
        if n_plus > 0:
            if not row[O_STATUS] & PLUS_KNOWN:
                raise ValueError("the '+' regrouping of a broken flock is not kept")
            reg = cand.copy()
            load_positions(reg, row, O_PLUS)
            total += n_plus * _value_after(reg, st, R, seat, time, w)
        if n_cross > 0:
            if not row[O_STATUS] & CROSS_KNOWN:
                raise ValueError("the 'X' regrouping of a broken flock is not kept")
            reg = cand.copy()
            load_positions(reg, row, O_CROSS)
            total += n_cross * _value_after(reg, st, R, seat, time, w)
        out[i] = total / (n_plus + n_cross)
    return broken


def test_greedy_values_shared_between_options_equal_values_computed_alone():
    """``greedy`` gives an option the value of an earlier option of the same decision
    when both leave the same flock with tiles of one time class (the same action and
    parameters on a twin tile, or a flock found again in the option memo). On positions
    from random play, with the counter on every space of the track (so that the tiles'
    times fall in one class or in several, across gates and pens), every value must equal
    the one computed for the option alone from the same regroupings."""
    R = load_rules().kernel_array(4)
    w = new_scratch(np.int64(1), None)
    rng.seed_streams(w.streams, 3, 0)
    opts = np.zeros((L.MAX_OPTS, L.OPT_WIDTH), dtype=np.int64)
    out = np.zeros(L.MAX_OPTS)
    compared = broken = 0
    for position, st in early_positions(R, 60, 3, 5):
        st[L.ST_COUNTER] = (position * 7) % R[L.R_TRACK_LEN]
        seat = position % 4
        n = legal_actions(st, R, seat, opts)
        base = side_contacts(st)
        for i in range(n):  # each option's side contacts from the position's
            cand = st.copy()
            apply_action(cand, R[L.R_TILE_KIND + opts[i, 0]], opts[i, 1], opts[i, 2])
            assert relinked(cand, st, base[0], base[1], alive_mask(st)) == side_contacts(cand)
        choice = greedy_action_crn(st, R, seat, opts, n, w)
        assert 0 <= choice < n
        broken += _direct_values(st, R, seat, opts, n, w, out)
        ok = ~np.isnan(out[:n])
        assert np.array_equal(out[:n][ok], w.values[:n][ok])
        compared += int(ok.sum())
        best = w.values[:n].max()
        assert w.values[choice] > best - 1e-9
    assert compared > 3000 and broken > 1000  # exercised, not vacuous
