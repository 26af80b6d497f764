"""Greedy's memo of menu options that leave the same flock (kernels).

Within one greedy decision many menu options leave exactly the same flock: two tiles
with the same action (Lamb Push of time 1 and of time 3), or two actions that move the
same sheep to the same cells. Measured on 4-player greedy games (seed 1, 3 games): 45%
of the options repeat the flock of an earlier option of the same decision; of the
repeats, 53% leave a connected flock and 47% a broken one, which the look-ahead regroups
once per kind of regroup-die face.

What an option's value needs apart from its tile's time, the look-ahead flock after
each regrouping, is the same for every option that leaves the same flock, so it is kept
here, keyed like the look-ahead memo of :mod:`.lookahead` (positions, facing, the mask of
live sheep) in ``w.opt_memo``:

* whether the flock is connected (then nothing is regrouped);
* for each kind of face, the positions after the look-ahead regrouping, **only if that
  regrouping drew nothing** from the POLICY stream. A regrouping that broke a tie drew a
  number, and its repeat must draw again at the same moment for the same results
  (tables stay byte-identical for a seed), so it is recomputed; a regrouping without a
  tie depends only on the flock, so its repeat would give the same positions and draw
  nothing either.

The value itself (counter moved by the tile's time, points, positional score) is
computed for every option from these positions, as before.

That is ``greedy-v1`` (greedy before issue 34). ``greedy`` (:func:`option_slot_crn`)
draws a flock's regrouping once per decision (common random numbers), so it keeps every
regrouping, tie or not, and keeps per time class the index of the option whose value is
the flock's (:func:`known_value`): a later option leaving the same flock with a tile of
that class takes that value.
"""

from sheepsim import rng
from sheepsim.games.panic.policies.lookahead import (
    KEY_LEN,
    M_GEN,
    M_KEY,
    M_N,
    POS_LEN,
    memo_find,
    memo_key,
)
from sheepsim.games.panic.scratch import MEMO_SLOTS, OPT_MEMO_SLOTS, OPT_MEMO_VALUES, OPT_MEMO_WIDTH
from sheepsim.jit import kernel

#: Row of ``w.opt_memo``: [generation, status, key (the look-ahead memo's layout: positions,
#: facing, live mask, 0, :data:`OPTION_KIND`), positions after the "+" regrouping,
#: positions after the "X" regrouping, then (``greedy`` only, not ``greedy-v1``)
#: ``OPT_MEMO_VALUES`` pairs [time class + 1 (0: empty), index of the option whose value
#: it is]].
O_GEN, O_STATUS, O_KEY = M_GEN, M_N, M_KEY
O_PLUS = O_KEY + KEY_LEN
O_CROSS = O_PLUS + POS_LEN
O_VALUES = O_CROSS + POS_LEN
assert OPT_MEMO_WIDTH == O_VALUES + 2 * OPT_MEMO_VALUES and OPT_MEMO_SLOTS == MEMO_SLOTS
#: Status bits: the flock is connected; the "+" / "X" positions are stored.
CONNECTED, PLUS_KNOWN, CROSS_KNOWN = 1, 2, 4
BOTH_KNOWN = PLUS_KNOWN | CROSS_KNOWN
#: The key's "kind" (no group: mask 0): one that no look-ahead key uses.
OPTION_KIND = 7


@kernel
def option_slot(memo, st, alive, gen):
    """Row of ``memo`` for the flock ``st`` in the decision ``gen``: the row holding it,
    or a new row with status 0 (probed as the look-ahead memo's rows)."""
    slot, found = memo_find(memo, st, alive, 0, OPTION_KIND, gen)
    if not found:
        row = memo[slot]
        row[O_GEN] = gen
        row[O_STATUS] = 0
        memo_key(row, st, alive, 0, OPTION_KIND)
    return slot


@kernel
def policy_state(streams):
    """The POLICY stream's state word: it changes exactly when a number is drawn."""
    return streams[rng.POLICY, 0]


@kernel
def store_positions(row, at, st):
    for i in range(POS_LEN):
        row[at + i] = st[i]


@kernel
def load_positions(st, row, at):
    for i in range(POS_LEN):
        st[i] = row[at + i]



@kernel
def option_slot_crn(memo, st, alive, gen):
    """:func:`option_slot` for ``greedy`` (common random numbers in a decision): a new row
    also starts with no value known (see :func:`known_value`)."""
    slot, found = memo_find(memo, st, alive, 0, OPTION_KIND, gen)
    if not found:
        row = memo[slot]
        row[O_GEN] = gen
        row[O_STATUS] = 0
        memo_key(row, st, alive, 0, OPTION_KIND)
        for k in range(OPT_MEMO_VALUES):
            row[O_VALUES + 2 * k] = 0
    return slot


@kernel
def known_value(row, cls):
    """Index of an earlier option of this decision that left the row's flock with a tile
    of the time class ``cls`` (its value is this option's too), else -1."""
    for k in range(OPT_MEMO_VALUES):
        c = row[O_VALUES + 2 * k]
        if c == 0:
            return -1
        if c == cls + 1:
            return row[O_VALUES + 2 * k + 1]
    return -1


@kernel
def remember_value(row, cls, i):
    """Option ``i``'s value is the row's flock's for the time class ``cls`` (kept while a
    pair is free)."""
    for k in range(OPT_MEMO_VALUES):
        if row[O_VALUES + 2 * k] == 0:
            row[O_VALUES + 2 * k] = cls + 1
            row[O_VALUES + 2 * k + 1] = i
            return
