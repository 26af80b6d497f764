"""Shear Panic policies: ``random``, ``greedy``, ``rollout`` and user policies.

Built-in policies
-----------------
* ``random``: uniform over the legal (tile, parameters) choices, and uniform over the
  options of every sub-decision (which smallest group, which route, which sheep panics
  and where it goes, which way to turn).
* ``greedy``: one ply. For each legal choice it applies the action, regroups (expected
  value over the regroup die: each face type weighted by its share of the die; when a
  regrouping needs several rolls the look-ahead assumes the later rolls show the same
  face as the first), moves the counter and scores, then values
  ``points gained now + 0.5 * positional score`` where the positional score is what the
  player's sheep are worth for the field the counter is in (see
  :func:`~.decide.positional`). Panic dice are not anticipated. Sub-decisions maximise
  the positional score. Ties are broken uniformly with the seat's own policy stream.
* ``rollout``: for each legal menu choice, ``playouts`` random playouts to the end of the
  game (every player ``random``, every die and every choice drawn from the rollout
  seat's own policy stream, never the real dice); picks the best mean score margin (own
  points minus the best opponent's). Its sub-decisions are the greedy ones (playouts for
  every group and route choice would multiply the cost for little gain). Cost grows as
  (legal choices ~100) x playouts x remaining turns: about 8-11 games/s on one thread
  with one rollout seat among 3 players and 4 playouts (greedy: ~300-470 games/s,
  random: ~11,000-16,000; benchmarks/README.md).

Every seat draws from its own policy stream, keyed by ``(seed, game, seat)``
(:func:`~.decide.seed_game_streams`): replacing one seat's policy leaves every other
seat's draws unchanged.

Decision kinds and options
--------------------------
Every choice is one of these kinds (``layout.K_*``); its legal options are the rows of
``opts[:n]``, four int64 columns each:

* ``K_ACTION`` (0, "action"), the turn's menu choice: ``[tile, a, b, 0]``, the menu
  tile (0-based), then the sheep slot (Lamb Push, Lamb Roll, Leapfrog) or line key
  (Line/Diagonal Push) or 0, then the direction 0-7 (N, NE, ... clockwise), the side
  (Alignment) or the turn (Ewe Turn: ``TURN_RIGHT`` 1, ``TURN_LEFT`` 3);
* ``K_GROUP`` (1, "group"), which smallest group regroups: ``[group mask, size, 0, 0]``
  (bit ``s`` of the mask: sheep slot ``s``);
* ``K_ROUTE`` (2, "route"), where it goes: ``[direction, steps, slide direction or -1,
  group mask]``;
* ``K_PANIC_PUSH`` (3, "panic_push"), the panic die's (or the opening's) Lamb Push:
  ``[sheep slot, direction, 0, 0]``;
* ``K_PANIC_TURN`` (4, "panic_turn"), the white face's Ewe Turn: ``[turn, 0, 0, 0]``.

A policy is asked every decision with more than one option (a lone option is taken
without asking: nothing drawn, so ``n >= 2``); each answer is checked: an index outside
``0..n-1`` stops the run with one error line naming the policy, its seat, the game and
the choice.

Why integer ids
---------------
numba's on-disk cache (``cache=True``) does not hit across processes for a kernel that
receives a dispatcher as an argument or captures one in a closure. So the cached kernels
call :func:`decide_action` / :func:`~.decide.decide_sub`, which branch on an integer
policy id and ask :func:`~.decide.decide`, the one dispatch with the policy signature,
for anything that is not a built-in's fast path. User policies get ids from
:data:`~.decide.FIRST_USER_ID` upwards and a variant of the kernels is compiled for them
(:func:`.engine.kernels_for`): :func:`sheepsim.jit.user_policy_chain` extends ``decide``
to them and :func:`sheepsim.jit.rebind` re-jits every function that reaches it. Each new
set of user policies costs one compilation (about 30-60 s); the variant is cached on
disk, keyed by a fingerprint of the policies (:func:`sheepsim.jit.variant_key`), so the
next process loads it.

Writing a user policy
---------------------
::

    import numba
    from sheepsim.games.panic import layout as L
    from sheepsim.games.panic.policies import randbelow

    @numba.njit
    def my_policy(kind, view, opts, n, rand):
        if kind == L.K_ACTION:
            return n - 1  # the last legal menu option
        return randbelow(rand, n)  # index of the chosen row of opts[:n]

``kind`` is one of the kinds above, ``opts[:n]`` their rows (``n >= 2``). ``view`` is
what the seat sees at the table, a 1-D int64 array (``layout.V_*``): Shear Panic hides
nothing but the dice to come, so it holds the deciding seat ``view[L.V_SEAT]``, the whole
state vector ``view[L.V_STATE:L.V_STATE + L.ST_LEN]`` (flock, facing, counter, menus
used, scores, the previous action; offsets ``L.ST_*``) and the rules vector
``view[L.V_RULES:L.V_RULES + L.R_LEN]`` (menu, track, seat colours, dice; offsets
``L.R_*``). ``rand`` is the seat's own policy random stream (``(1, 2)`` uint64), the only
one a policy receives: draw from it with :func:`randbelow` ``(rand, k)`` (uniform in
``0..k-1``) or :func:`uniform` ``(rand)`` (float in ``[0, 1)``) from this module. The
view and the options are copies: a policy that writes to them stops the run, as does
one returning an index outside ``0..n-1``. Useful helpers on copies of the state and
rules slices: :mod:`.flockops` (``apply_action``), :mod:`.groups` (``is_connected``),
:mod:`.scoring` (points). Pass it as ``--policy package.module:my_policy``.
"""

from __future__ import annotations

import numpy as np

from sheepsim.games.panic.decide import (
    FIRST_USER_ID,
    GREEDY,
    POSITION_WEIGHT,
    RANDOM,
    ROLLOUT,
    SCRIPTED,
    argmax_random_ties,
    ask_policy,
    checked,
    next_scripted,
    positional,
    randbelow,  # noqa: F401  (re-exported for user policies, as below)
    uniform,  # noqa: F401  (re-exported: user policies draw with randbelow/uniform)
)
from sheepsim.games.panic.flockops import alive_mask, apply_action
from sheepsim.games.panic.groups import connected_with, side_contacts
from sheepsim.games.panic.layout import (
    CTX_MEMO_GEN,
    FACE_DIAG,
    FACE_ORTHO,
    K_ACTION,
    LOOKAHEAD_LEN,
    N_SHEEP,
    R_N_REGROUP_FACES,
    R_REGROUP_FACES,
    R_TILE_KIND,
    R_TILE_TIME,
    ST_COUNTER,
    ST_ROW,
    ST_SCORE,
)
from sheepsim.games.panic.lookahead import lookahead_regroup
from sheepsim.games.panic.optionmemo import (
    BOTH_KNOWN,
    CONNECTED,
    CROSS_KNOWN,
    O_CROSS,
    O_PLUS,
    O_STATUS,
    PLUS_KNOWN,
    load_positions,
    option_slot,
    policy_state,
    store_positions,
)
from sheepsim.games.panic.scratch import ZERO, copy_state, kernel
from sheepsim.games.panic.track import advance_and_score

POLICY_IDS = {"random": RANDOM, "greedy": GREEDY, "rollout": ROLLOUT}
#: The arguments a user policy is called with (see "Writing a user policy" above): a
#: plug-in is checked against these before anything compiles.
USER_POLICY_ARGS = ("kind", "view", "opts", "n", "rand")
DEFAULT_PLAYOUTS = 4


@kernel(inline="always")
def _value_after(x, st, R, seat, time, w):
    """Move the counter and score on the look-ahead copy ``x``; value for ``seat``."""
    advance_and_score(x, R, seat, time)
    gained = x[ST_SCORE + seat] - st[ST_SCORE + seat]
    return gained + POSITION_WEIGHT * positional(x, R, seat, x[ST_COUNTER], w.shear)


@kernel
def _same_positions(x, y):
    """Do the look-ahead states ``x`` and ``y`` have every sheep in the same cell?"""
    for i in range(2 * N_SHEEP):
        if x[ST_ROW + i] != y[ST_ROW + i]:
            return False
    return True


#: What :func:`_regroup_face` did: the regrouping drew a number (nothing stored); its
#: positions are stored; they are stored and every move was a slide (any face: the same).
DREW, STORED, SLIDES_ONLY = 0, 1, 2


@kernel(inline="always")
def _regroup_face(cand, R, seat, w, reg, face, links, row, known, at):
    """``reg`` = ``cand`` regrouped with every die showing ``face``: the positions stored
    at ``row[at:]`` when ``known``, else the look-ahead regrouping, whose positions are
    stored when it drew nothing (see :mod:`.optionmemo`). Returns DREW, STORED or
    SLIDES_ONLY."""
    copy_state(reg, cand, LOOKAHEAD_LEN)
    if known:
        load_positions(reg, row, at)
        return STORED
    drawn = policy_state(w.streams)
    slides_only = lookahead_regroup(reg, R, seat, w, face, links)
    if policy_state(w.streams) != drawn:
        return DREW
    store_positions(row, at, reg)
    return SLIDES_ONLY if slides_only else STORED


@kernel(inline="always")
def _option_value(st, R, seat, tile, a, b, n_plus, n_cross, w):
    """Greedy's value of the menu option ``[tile, a, b]``: apply it to a copy, regroup for
    each regroup-die face (weighted by its share of the die, "+" first), score. What
    depends only on the flock the option leaves comes from ``w.opt_memo`` when an earlier
    option of this decision left the same flock (:mod:`.optionmemo`), and a "+"
    regrouping made of slides alone, without a tie, is the "X" one too."""
    time = R[R_TILE_TIME + tile]
    cand = w.cand
    copy_state(cand, st, LOOKAHEAD_LEN)
    apply_action(cand, R[R_TILE_KIND + tile], a, b)
    alive = alive_mask(cand)
    row = w.opt_memo[option_slot(w.opt_memo, cand, alive, w.ctx[CTX_MEMO_GEN])]
    status = row[O_STATUS]
    if status & CONNECTED:
        return _value_after(cand, st, R, seat, time, w)
    links = (ZERO, ZERO)
    if (status & BOTH_KNOWN) != BOTH_KNOWN:
        links = side_contacts(cand)  # shared by the connection test and the regroupings
        if status == 0 and connected_with(links[0], links[1], alive):
            row[O_STATUS] = CONNECTED
            return _value_after(cand, st, R, seat, time, w)
    total = 0.0
    reg = w.reg
    v = 0.0
    if n_plus > 0:
        done = _regroup_face(cand, R, seat, w, reg, np.int64(FACE_ORTHO), links, row,
                             (status & PLUS_KNOWN) != 0, O_PLUS)
        if done != DREW:
            status |= PLUS_KNOWN
        if done == SLIDES_ONLY:  # the "X" regrouping would be the same, drawing nothing
            store_positions(row, O_CROSS, reg)
            status |= CROSS_KNOWN
        v = _value_after(reg, st, R, seat, time, w)  # scoring moves no sheep
        total += n_plus * v
    if n_cross > 0:
        reg2 = w.reg2
        if _regroup_face(cand, R, seat, w, reg2, np.int64(FACE_DIAG), links, row,
                         (status & CROSS_KNOWN) != 0, O_CROSS) != DREW:
            status |= CROSS_KNOWN
        if n_plus == 0 or not _same_positions(reg, reg2):
            v = _value_after(reg2, st, R, seat, time, w)
        total += n_cross * v  # the same flock as for "+" (often: a slide): the same value
    row[O_STATUS] = status
    return total / (n_plus + n_cross)


@kernel
def greedy_action(st, R, seat, opts, n, w):
    """The greedy menu choice (see the module docstring)."""
    n_plus = ZERO
    n_cross = ZERO
    for i in range(R[R_N_REGROUP_FACES]):
        if R[R_REGROUP_FACES + i] == FACE_DIAG:
            n_cross += 1
        else:
            n_plus += 1
    w.ctx[CTX_MEMO_GEN] += 1  # a new decision: the look-ahead memo starts empty
    vals = w.values
    for i in range(n):
        vals[i] = _option_value(st, R, seat, opts[i, 0], opts[i, 1], opts[i, 2], n_plus,
                                n_cross, w)
    return argmax_random_ties(vals, n, w.streams)


@kernel
def decide_action(pid, st, R, seat, opts, n, w):
    """Index of the chosen menu option among ``opts[:n]`` (``[tile, a, b, 0]`` rows),
    checked (:func:`~.decide.checked`: -1 if it is not a legal index).

    ``random`` never reaches here (:func:`.turns.play_turn` draws its option with
    :func:`.menucount.random_option`, without listing them), nor does ``rollout`` (the
    game loop runs its playouts; see engine); the rest go to the one dispatch
    (:func:`~.decide.ask_policy`), where an id that is neither built-in nor a user
    policy compiled into the kernels raises."""
    kind = np.int64(K_ACTION)
    if pid == SCRIPTED:
        i = next_scripted(w.ctx, n)
    elif pid == GREEDY:
        i = greedy_action(st, R, seat, opts, n, w)
    else:
        i = ask_policy(pid, kind, st, R, seat, opts, n, w)
    return checked(i, n, seat, kind, w)


def policy_name(policy) -> str:
    """Display name: built-in names and specs as given; a function as ``module:name``."""
    if hasattr(policy, "py_func"):
        return f"{policy.py_func.__module__}:{policy.py_func.__name__}"
    return str(policy).strip()


def policy_spec(name):
    """``(id or None, user function or None)`` for a policy name, a
    ``package.module:function`` spec or an ``@numba.njit`` function itself."""
    from sheepsim.plugins import policy_spec as spec

    return spec(name, POLICY_IDS, USER_POLICY_ARGS)


def resolve_policies(names: list) -> tuple[list[int], tuple]:
    """Policy ids per seat and the user functions (user ids start at FIRST_USER_ID)."""
    from sheepsim.plugins import resolve_policy_ids

    return resolve_policy_ids(names, POLICY_IDS, FIRST_USER_ID, USER_POLICY_ARGS)
