"""Aw, Sheep! policies: ``random``, ``greedy``, ``counter`` and user policies.

Every decision is one call ``decide(pid, kind, view, opts, n, rand)`` returning an
index into ``opts[:n]`` (the engine checks it: an index outside ``0..n-1`` stops the run).
``view`` (layout ``V_*``) holds only what the deciding player sees at the table (own
hand, hand sizes, the face-up pile, what it saw of other hands, see :mod:`.knowledge`);
``rand`` is its one random stream (a ``(1, 2)`` stream array: draw with
``sheepsim.rng.policy_randbelow(rand, k)`` or ``policy_uniform(rand)``), the deciding
seat's own, keyed by ``(seed, game, seat, phase)`` (phase 0 play, 1 draft):
what one seat draws never shifts another seat's draws.

Decisions (``kind``) and option rows ``[a, b]``:

* ``K_PLAY`` ``[card kind, target seat or -1]``; ``K_GIVE`` ``[kind, target]`` (the
  Doghouse card handed over); ``K_RETURN`` ``[kind, actor]`` (one of the two cards the
  Doghouse target hands back); ``K_DISCARD`` ``[kind, actor]`` (one of the two Methane
  discards); ``K_DRAFT`` ``[kind, copies in the pack]``; ``K_GUESS`` ``[1 sheep / 0 not
  a sheep, pile position]``.

Built-in policies
-----------------
* ``random``: uniform over the option rows of every decision: for a play, the legal
  ``[card kind, target]`` rows, not the cards in hand (see ``layout.RANDOM_CHOOSES``).
* ``greedy``: keeps sheep and spends action cards: Piggin' Out on the rival known to
  hold the most sheep (else the one showing most cards), Power of Methane and In the
  Doghouse on the rival showing most cards, Horsin' Around only when a rival's hand is
  known exactly and is worth more than its own; gives, hands back and discards its
  least useful cards; drafts Piggin' Out, Horsin' Around, In the Doghouse,
  Power of Methane, then sheep.
* ``counter``: tracks the public card flow (the deck minus the pile, its own hand and
  the cards it has seen) to estimate each rival's sheep, and plays the card with the
  best estimated margin (own sheep minus the best rival's), counting a Flock Off it
  would trigger and the risk of running out of cards; sub-decisions as ``greedy``.

Every built-in guesses in the Sheep Show by the README's default rule: the majority of
the pile cards not yet read (the guesser saw the whole pile go down), a fair coin on an
exact tie.

User policies
-------------
An ``@numba.njit`` function ``my_policy(kind, view, opts, n, rand) -> int``, given as
``--policy package.module:my_policy`` (or the function itself in Python). It is handed
copies of ``view`` and ``opts[:n]`` (:func:`sheepsim.jit.user_policy_chain`): a policy
that writes to them, or answers outside ``0..n-1``, stops the run with one line naming
the policy, its seat, the round and the answer.
"""

from __future__ import annotations

import numpy as np

from sheepsim import plugins, rng
from sheepsim.jit import njit
from sheepsim.plugins import PolicyTable, policy_name  # noqa: F401 - policy_name: the game API

from .inference import counter_score
from .layout import (
    ANY_SHEEP,
    BUILTIN_POLICIES,
    COUNTER,
    DOGHOUSE,
    FIRST_USER_ID,
    GOLDEN,
    GREEDY,
    K_DRAFT,
    K_GUESS,
    K_PLAY,
    METHANE,
    N_KINDS,
    N_KNOW,
    PIG,
    RANDOM,
    SHEEP,
    V_GOLDEN_WORTH,
    V_HAND,
    V_KNOWN,
    V_PILE,
    V_PILE_LEN,
    V_SHOW_POS,
    V_SIZES,
)

POLICY_IDS = {name: i for i, name in enumerate(BUILTIN_POLICIES)}

# Greedy preferences by card kind (doghouse, methane, horse, pig, sheep, golden).
# Handing over / discarding: the card least useful to keep goes first.
SHED_ORDER = np.array([6.0, 4.0, 5.0, 3.0, 1.0, 0.0])
# Draft: the cards that take sheep or hands first, sheep last: in undrafted rounds a
# starting hand wins more often with more action cards and less often with more sheep
# (``card_power``, starting-hand composition, counter and random players, 3-6 players;
# measured before the Doghouse became a trade; ``card_value`` is the paired value of
# each card against a plain sheep).
DRAFT_ORDER = np.array([4.0, 3.0, 5.0, 6.0, 1.0, 2.0])


@njit
def argmax_random_ties(scores, n, rand):
    """Index of the largest of ``scores[:n]``; ties broken uniformly with ``rand``."""
    best = scores[0]
    for i in range(1, n):
        if scores[i] > best:
            best = scores[i]
    ties = 0
    for i in range(n):
        if scores[i] == best:
            ties += 1
    j = rng.policy_randbelow(rand, ties) if ties > 1 else 0
    for i in range(n):
        if scores[i] == best:
            if j == 0:
                return i
            j -= 1
    return 0


@njit
def default_guess(view, opts, n, rand):
    """Sheep Show: guess the majority of the unread pile cards (coin on a tie)."""
    sheep = 0
    pos = view[V_SHOW_POS]
    m = view[V_PILE_LEN]
    for i in range(pos, m):
        k = view[V_PILE + i]
        if k == SHEEP or k == GOLDEN:
            sheep += 1
    other = (m - pos) - sheep
    want = 1 if sheep > other else 0
    if sheep == other:
        want = rng.policy_randbelow(rand, 2)
    for i in range(n):
        if opts[i, 0] == want:
            return i
    return 0


@njit
def known_value(view, h):
    """Sheep value the viewer has seen in ``h``'s hand."""
    base = V_KNOWN + h * N_KNOW
    return (view[base + SHEEP] + view[V_GOLDEN_WORTH] * view[base + GOLDEN]
            + view[base + ANY_SHEEP])


@njit
def known_count(view, h):
    c = 0
    for slot in range(N_KNOW):
        c += view[V_KNOWN + h * N_KNOW + slot]
    return c


@njit
def greedy_play_score(view, kind, target):
    """Preference of the greedy policy for playing ``kind`` at ``target``."""
    own = view[V_HAND + SHEEP] + view[V_GOLDEN_WORTH] * view[V_HAND + GOLDEN]
    if kind == SHEEP:
        return 10.0
    if kind == GOLDEN:
        return 2.0
    if target < 0:
        return 3.0  # no rival holds cards: the card does nothing
    size = view[V_SIZES + target]
    if kind == PIG:
        return 50.0 + 10.0 * known_value(view, target) + size
    if kind == METHANE:
        return 40.0 + size + (20.0 if size <= 2 else 0.0)
    if kind == DOGHOUSE:
        mine = 0
        for k in range(N_KINDS):
            mine += view[V_HAND + k]
        return 30.0 + size if mine > 1 else 5.0
    # Horsin' Around: only when the rival's hand is known and worth more.
    theirs = known_value(view, target)
    if known_count(view, target) == size and theirs > own:
        return 60.0 + theirs - own
    return 1.0


@njit
def greedy(kind, view, opts, n, rand):
    scores = np.empty(n)
    for i in range(n):
        k = opts[i, 0]
        if kind == K_PLAY:
            scores[i] = greedy_play_score(view, k, opts[i, 1])
        elif kind == K_DRAFT:
            scores[i] = DRAFT_ORDER[k]
        else:
            scores[i] = SHED_ORDER[k]
    return argmax_random_ties(scores, n, rand)


@njit
def counter(kind, view, opts, n, rand):
    if kind != K_PLAY:
        return greedy(kind, view, opts, n, rand)
    scores = np.empty(n)
    for i in range(n):
        scores[i] = counter_score(view, opts[i, 0], opts[i, 1])
    return argmax_random_ties(scores, n, rand)


@njit
def decide(pid, kind, view, opts, n, rand):
    """Index of the chosen row of ``opts[:n]`` for built-in policy ``pid``."""
    if kind == K_GUESS:
        return default_guess(view, opts, n, rand)
    if pid == GREEDY:
        return greedy(kind, view, opts, n, rand)
    if pid == COUNTER:
        return counter(kind, view, opts, n, rand)
    return rng.policy_randbelow(rand, n)


#: The arguments a user policy is called with (see "User policies" above): a plug-in is
#: checked against these before anything compiles.
USER_POLICY_ARGS = plugins.USER_POLICY_ARGS


#: the game's policy table (the shared machinery's one convention, sheepsim.plugins)
TABLE = PolicyTable(POLICY_IDS, FIRST_USER_ID, USER_POLICY_ARGS)
#: ``(id or None, user function or None)`` for a policy name, spec or njit function
policy_spec = TABLE.spec
#: policy ids per seat and the user functions (user ids start at FIRST_USER_ID)
resolve_policies = TABLE.resolve


__all__ = ["POLICY_IDS", "RANDOM", "GREEDY", "COUNTER", "decide", "resolve_policies",
           "policy_name"]
