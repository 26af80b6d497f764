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
  Within one menu decision the look-ahead uses common random numbers (issue 34): the
  regrouping of a flock for a kind of face is computed once, its tie-breaks drawn once,
  and every option that leaves that flock uses it.
* ``rollout``: for each legal menu choice, ``playouts`` random playouts of one round:
  the choice, then one turn of every other seat (each ``random``; every die and every
  choice drawn from the rollout seat's own policy stream, never the real dice), stopping
  when the rollout seat is next to move. The playout is then valued greedy's way for
  every player (points plus ``0.5 *`` the positional score for the counter's field) and
  scored as own value minus the best opponent's; a playout that ends the game scores the
  final points margin. Picks the best mean. Its sub-decisions are the greedy ones
  (playouts for every group and route choice would multiply the cost for little gain).
  Cost grows as (legal choices ~100) x playouts x players: about 30 games per CPU second
  with one rollout seat among 4 players and 4 playouts, 43 among 3 (docs/performance-archive.md).
* ``rollout-v1``: ``rollout`` as it played before issue 34 shortened its playouts: every
  playout runs to the end of the game and scores the final points margin (about 6.7x
  slower: 4.3 games per CPU second, one seat among 4 players). Kept for head-to-heads
  and to reproduce earlier results for a fixed seed.
* ``greedy-v1``: ``greedy`` as it played before issue 34 changed how it uses its
  stream (sheepsim 0.1.0), kept to play head-to-heads against today's and to reproduce
  earlier results for a fixed seed.
  ``greedy-v1`` values the same way as ``greedy`` but regroups a flock again, drawing
  its tie-breaks again, for every option whose look-ahead regrouping broke a tie.

Every seat draws from its own policy stream, keyed by ``(seed, game, seat)`` (by the
harness): replacing one seat's policy leaves every other
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
policy id for the built-ins. A plug-in seat gets an id from
:data:`~.decide.FIRST_USER_ID` upwards and plays on the harness: its turn is cut at each
of its decisions (:mod:`..cut`) and the harness asks the plug-in, compiled once per
plug-in and cached on its own (:func:`sheepsim.policy_values.policy_values`), so a new
line-up of plug-ins compiles no game kernel again.

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
rules slices: :mod:`..geometry.flockops` (``apply_action``), :mod:`..geometry.groups`
(``is_connected``), :mod:`..geometry.scoring` (points). Pass it as ``--policy
package.module:my_policy``.
"""

from __future__ import annotations

from sheepsim import plugins
from sheepsim.games.panic.policies.decide import (
    FIRST_USER_ID,
    GREEDY,
    GREEDY_V1,
    RANDOM,
    ROLLOUT,
    ROLLOUT_V1,
)
from sheepsim.plugins import PolicyTable, policy_name  # noqa: F401 - policy_name: the game API
from sheepsim.rng import policy_randbelow as randbelow  # noqa: F401 - the policies' API
from sheepsim.rng import policy_uniform as uniform  # noqa: F401 - the policies' API

POLICY_IDS = {"random": RANDOM, "greedy": GREEDY, "rollout": ROLLOUT,
              "greedy-v1": GREEDY_V1, "rollout-v1": ROLLOUT_V1}
#: The arguments a user policy is called with (see "Writing a user policy" above): a
#: plug-in is checked against these before anything compiles.
USER_POLICY_ARGS = plugins.USER_POLICY_ARGS
DEFAULT_PLAYOUTS = 4


#: the game's policy table (the shared machinery's one convention, sheepsim.plugins)
TABLE = PolicyTable(POLICY_IDS, FIRST_USER_ID, USER_POLICY_ARGS)
#: ``(id or None, user function or None)`` for a policy name, spec or njit function
policy_spec = TABLE.spec
#: policy ids per seat and the user functions (user ids start at FIRST_USER_ID)
resolve_policies = TABLE.resolve
