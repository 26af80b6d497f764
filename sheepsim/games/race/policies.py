"""Built-in Sheep Race policies (numba) and the dispatch the kernels call.

The one policy signature
------------------------
Every decision goes through :func:`decide` ``(pid, kind, view, opts, n, rand) -> int``,
and a plug-in (``package.module:function``, ``@numba.njit``) is::

    @numba.njit
    def my_policy(kind, view, opts, n, rand) -> int

``kind`` the decision (:mod:`~sheepsim.games.race.layout`): ``PACE`` (the option for the
selected sheep; ``--pace-policy``), ``BET_OPEN``, ``BET_HIDDEN``, ``BET_FINAL`` (the bet
rounds; ``--bet-policy``). ``view`` ``(N_VIEW,)`` float64 is what the deciding seat sees
at the table, at the named offsets of ``layout`` (``V_LANE`` the selected lane,
``V_SEAT``, ``V_PLAYERS``, ``V_MY_OPEN``, ``V_BOARD`` the 6 x ``N_BOARD`` board and
``V_RACE`` the race entries (both zeros while betting), ``V_MY_BETS`` its own bets,
``V_RIVAL_OPEN`` rivals' open bets (hidden bets are never shown), ``V_TAKEN``, ``V_ODDS``
the public 6 x 3 odds table (zeros in single races), ``V_PAYOFFS`` 4 x 6 and
``V_BONUS``). ``opts`` ``(n, columns)`` int64 holds the ``n >= 2`` legal choices, one
per row, in increasing order: ``PACE`` rows ``[option]`` (0-8, ``layout``'s option
names), ``BET_OPEN`` rows ``[lane]`` (lanes not taken), ``BET_HIDDEN`` rows ``[a, b]``
(``a < b``, neither this seat's open bet), ``BET_FINAL`` rows ``[a, b]``. A lone legal
choice is taken without asking. ``rand`` ``(1, 2)`` uint64 is the seat's own stream
(one for pace, one for bets), the only randomness a policy gets (the dice are the
future and are never handed over): draw with :func:`randbelow` ``(rand, k)`` or
:func:`uniform` ``(rand)``. Return the chosen row's index ``0 <= i < n``.

``view`` and ``opts`` are copies (:func:`sheepsim.jit.user_policy_chain`): a policy that
writes to them, or returns an index outside ``0..n-1``, stops the run with one line
naming it, its seat and the game (:func:`sheepsim.plugins.policy_failure`).

Pace policies
-------------
Built-in: ``greedy`` (exactly as specified: cross if possible, else farthest without
exhausting), ``random`` (uniform over legal options), ``saver`` (greedy that keeps white
cubes for the End Zone), ``steady`` (saver that rests early to bring breath into the End
Zone), ``partisan`` (bet-aware: pushes own bets, stalls and exhausts rivals' open bets),
``lookahead`` (whole games only: the option with the most points this race for the
player's own bets over imagined ``greedy`` races on common dice from its own stream; see
:mod:`~sheepsim.games.race.lookahead`), ``lookahead-exact`` (whole games only: the same
question solved exactly, every later turn ``greedy``, one backward sweep per decision,
about 0.2 CPU s a game; see :mod:`~sheepsim.games.race.exact.game`; the ``lookahead`` of
sheepsim before 0.4.0). The engine calls them on its own arrays
(:func:`choose_pace` ``(pid, lane, board, race, seen, legal, rand)``, no view built):
:func:`decide` gives the very same choices from a view.

Bet policies
------------
Built-in: ``random``, ``favourite`` (highest P(1st)), ``longshot`` (highest 1st-place
payoff), ``ev`` (whole games: the bets ``race ev`` recommends from the deal's *exact*
odds, bonus from the joint top-3 distribution; see
:mod:`~sheepsim.games.race.exact.game`), ``ev-approx`` (fast: highest expected payoff
from the public ``odds`` table, the three lanes treated as independent, the open bet
by single-lane EV), ``near-ev`` (like ``ev-approx``, but a choice drawn at random from
the policy stream among the bets whose EV is within :data:`NEAR_EV_SHARE` of the best:
identical ``ev`` players place the same bets, tie and let the tie-break decide;
``near-ev`` breaks that symmetry), ``win`` (whole games: ``ev`` in the semifinals; in the
final the pair with the highest chance of winning the game given the scores and the
token stack, rivals assumed on the ``ev`` pair; see
:mod:`~sheepsim.games.race.exact.win_bets`). The engine calls them on its own arrays
(:func:`choose_bets`, writing lanes into ``out``) and takes the row of ``opts`` they name.

A policy id that is neither built in nor given to the kernels raises ``ValueError``.
"""

import numpy as np

from sheepsim import plugins
from sheepsim.games.race.layout import (
    BET_FINAL,
    BET_HIDDEN,
    BET_OPEN,
    BLUE,
    EZ_FIRST,
    GALLOP,
    GALLOP_BLUE2,
    GALLOP_RED,
    GALLOP_WHITE,
    MY_BETS,
    N_BOARD,
    N_LANES,
    N_OPTIONS,
    N_RACE,
    N_VIEW,
    PACE,
    POS,
    RED,
    REST,
    RIVAL_OPEN,
    TRACK,
    TROT,
    TROT_BLUE,
    TROT_WHITE,
    V_BOARD,
    V_BONUS,
    V_LANE,
    V_MY_BETS,
    V_MY_OPEN,
    V_ODDS,
    V_PAYOFFS,
    V_PLAYERS,
    V_RACE,
    V_RIVAL_OPEN,
    V_SEAT,
    V_TAKEN,
    WALK_FREE,
    WALK_RECOVER,
    WALK_WHITE,
    WHITE,
)
from sheepsim.jit import njit
from sheepsim.rng import policy_randbelow as randbelow  # noqa: F401 - the policies' API
from sheepsim.rng import policy_stream  # noqa: F401
from sheepsim.rng import policy_uniform as uniform  # noqa: F401

PACE_POLICIES = ("greedy", "random", "saver", "steady", "partisan", "lookahead",
                 "lookahead-exact")
BET_POLICIES = ("random", "favourite", "longshot", "ev", "near-ev", "ev-approx", "win")
#: The arguments a user policy of every role is called with (the one signature above):
#: a plug-in is checked against these before anything compiles.
USER_POLICY_ARGS = plugins.USER_POLICY_ARGS
GREEDY, RANDOM_PACE, SAVER, STEADY, PARTISAN, LOOKAHEAD, LOOKAHEAD_EXACT = range(7)
RANDOM_BET, FAVOURITE, LONGSHOT, EV, NEAR_EV, EV_APPROX, WIN = range(7)
#: Policies that exist only inside whole games: they need the rules' payoffs and the
#: seats' bets (``lookahead``, ``lookahead-exact``), or the deal's exact odds (``ev``),
#: which only the race machine's whole games provide (see
#: :mod:`~sheepsim.games.race.lookahead`, :mod:`~sheepsim.games.race.exact.game`).
WHOLE_GAME_PACE = ("lookahead", "lookahead-exact")
N_PACE_POLICIES, N_BET_POLICIES = len(PACE_POLICIES), len(BET_POLICIES)
#: The first user policy's id: pace plug-ins take ``FIRST_USER_ID + k``, bet plug-ins the
#: ids after them (one id space, so one :func:`decide` chain serves both roles).
FIRST_USER_ID = max(N_PACE_POLICIES, N_BET_POLICIES)
#: ``near-ev`` draws among bets whose EV is at least (1 - this) times the best EV
NEAR_EV_SHARE = 0.15

# Order in which greedy takes an option that crosses the Finish Line (the spec).
CROSS_ORDER = np.array(
    [WALK_FREE, WALK_RECOVER, TROT_BLUE, GALLOP_BLUE2, GALLOP_RED, WALK_WHITE, TROT_WHITE,
     GALLOP_WHITE], dtype=np.int64)
# Tie order among options that move equally far.
FAR_ORDER = np.array(
    [GALLOP_RED, GALLOP_BLUE2, GALLOP_WHITE, TROT_BLUE, TROT_WHITE, WALK_FREE, WALK_RECOVER,
     WALK_WHITE, REST], dtype=np.int64)
# Net change of the cubes on the card per option (recovery as if the supply has them).
_DELTA = np.array([2, 1, 0, -1, -1, -1, -1, -2, -1], dtype=np.int64)


@njit(inline="always")
def move_distance(option, trot, gallop):
    """Squares the option moves a sheep whose trot and gallop move ``trot``, ``gallop``."""
    if option == REST:
        return 0
    if option <= WALK_WHITE:
        return 1
    if option <= TROT_WHITE:
        return trot
    return gallop


@njit(inline="always")
def distance(board, lane, option):
    """Squares the option moves the sheep in ``lane``."""
    return move_distance(option, board[lane, TROT], board[lane, GALLOP])


@njit(inline="always")
def cubes_after(board, race, lane, option):
    """Cubes on the card after the option (recovery assumes the supply has them)."""
    return board[lane, RED] + board[lane, BLUE] + board[lane, WHITE] + _DELTA[option]


@njit(inline="always")
def crosses(board, race, lane, option):
    return board[lane, POS] + distance(board, lane, option) > race[TRACK]


@njit(inline="always")
def exhausts(board, race, lane, option):
    """True if the option leaves the sheep with no cubes on an End Zone square."""
    end = board[lane, POS] + distance(board, lane, option)
    return end <= race[TRACK] and end >= race[EZ_FIRST] and cubes_after(board, race, lane, option) == 0


@njit(inline="always")
def pays_white(option):
    return option == WALK_WHITE or option == TROT_WHITE or option == GALLOP_WHITE


@njit(inline="always")
def first_crossing(lane, board, race, legal):
    """Greedy step 1: the first crossing option in CROSS_ORDER, or -1.

    Written out rather than looped over CROSS_ORDER: this runs on every turn, and walks
    always move 1, trots ``TROT`` and gallops ``GALLOP`` squares.
    """
    need = race[TRACK] + 1 - board[lane, POS]  # squares needed to cross
    trot = board[lane, TROT]
    gallop = board[lane, GALLOP]
    if need <= 1:
        if legal[WALK_FREE]:
            return WALK_FREE
        if legal[WALK_RECOVER]:
            return WALK_RECOVER
    if trot >= need and legal[TROT_BLUE]:
        return TROT_BLUE
    if gallop >= need:
        if legal[GALLOP_BLUE2]:
            return GALLOP_BLUE2
        if legal[GALLOP_RED]:
            return GALLOP_RED
    if need <= 1 and legal[WALK_WHITE]:
        return WALK_WHITE
    if trot >= need and legal[TROT_WHITE]:
        return TROT_WHITE
    if gallop >= need and legal[GALLOP_WHITE]:
        return GALLOP_WHITE
    return -1


@njit(inline="always")
def farthest(lane, board, race, legal, avoid_exhaust, keep_white):
    """Legal option moving farthest (ties by FAR_ORDER), or -1 if none qualifies.

    ``avoid_exhaust`` skips options that exhaust the sheep; ``keep_white`` skips options
    paying a white cube.
    """
    pos = board[lane, POS]
    cubes = board[lane, RED] + board[lane, BLUE] + board[lane, WHITE]
    best = -1
    best_d = -1
    for i in range(FAR_ORDER.shape[0]):
        o = FAR_ORDER[i]
        if not legal[o]:
            continue
        if o >= GALLOP_RED:
            d = board[lane, GALLOP]
        elif o >= TROT_BLUE:
            d = board[lane, TROT]
        elif o >= WALK_RECOVER:
            d = 1
        else:
            d = 0
        if d <= best_d:
            continue
        end = pos + d
        if avoid_exhaust and end >= race[EZ_FIRST] and end <= race[TRACK] \
                and cubes + _DELTA[o] == 0:
            continue
        if keep_white and pays_white(o):
            continue
        best = o
        best_d = d
    return best


@njit(inline="always")
def greedy(lane, board, race, seen, legal, rand):
    o = first_crossing(lane, board, race, legal)
    if o >= 0:
        return o
    o = farthest(lane, board, race, legal, True, False)
    if o >= 0:
        return o
    return farthest(lane, board, race, legal, False, False)


@njit(inline="always")
def _farther(best, best_d, option, ok, d):
    """``(option, d)`` if ``ok`` and it moves farther than ``best``, else the best so far."""
    if ok and d > best_d:
        return option, d
    return best, best_d


@njit(inline="always")
def greedy_option(pos, red, blue, white, trot, gallop, supply, track, ez_first, max_cubes):
    """``greedy``'s option for a sheep given by its values (square, cubes, trot and gallop
    squares) with ``supply`` blue cubes in the supply: the legal options are derived here
    (as ``engine.legal_options`` does) instead of read from a ``legal`` array.

    The engine plays this in the turn loop when every seat plays ``greedy``: the sheep's
    values then stay in registers and no ``legal`` array is written or read. It returns
    exactly what :func:`greedy` returns (tests/race/test_race_greedy_fast.py checks every
    sheep state of the standard and variant ranges)."""
    cubes = red + blue + white
    in_ez = pos >= ez_first
    walk_free = in_ez and cubes >= 1
    walk_recover = not in_ez and cubes >= 1 and cubes + min(1, supply) <= max_cubes
    rest = not in_ez and cubes + min(2, supply) <= max_cubes
    need = track + 1 - pos  # squares needed to cross
    # 1. cross the Finish Line, in CROSS_ORDER
    if need <= 1:
        if walk_free:
            return WALK_FREE
        if walk_recover:
            return WALK_RECOVER
    if trot >= need and blue >= 1:
        return TROT_BLUE
    if gallop >= need:
        if blue >= 2:
            return GALLOP_BLUE2
        if red >= 1:
            return GALLOP_RED
    if white >= 1:
        if need <= 1:
            return WALK_WHITE
        if trot >= need:
            return TROT_WHITE
        if gallop >= need:
            return GALLOP_WHITE
    # 2. the farthest move that does not exhaust the sheep (ties in FAR_ORDER). No legal
    # option crosses now, so an option exhausts iff it ends in the End Zone with no cube
    # left; walks that pay nothing or recover and REST never exhaust.
    gallop_ez = pos + gallop >= ez_first
    trot_ez = pos + trot >= ez_first
    last1 = cubes == 1  # paying one cube empties the card
    o, d = _farther(-1, -1, GALLOP_RED, red >= 1 and not (gallop_ez and last1), gallop)
    o, d = _farther(o, d, GALLOP_BLUE2, blue >= 2 and not (gallop_ez and cubes == 2), gallop)
    o, d = _farther(o, d, GALLOP_WHITE, white >= 1 and not (gallop_ez and last1), gallop)
    o, d = _farther(o, d, TROT_BLUE, blue >= 1 and not (trot_ez and last1), trot)
    o, d = _farther(o, d, TROT_WHITE, white >= 1 and not (trot_ez and last1), trot)
    o, d = _farther(o, d, WALK_FREE, walk_free, 1)
    o, d = _farther(o, d, WALK_RECOVER, walk_recover, 1)
    o, d = _farther(o, d, WALK_WHITE, white >= 1 and not (pos + 1 >= ez_first and last1), 1)
    o, d = _farther(o, d, REST, rest, 0)
    if o >= 0:
        return o
    # 3. every legal option exhausts the sheep: the farthest of them
    o, d = _farther(-1, -1, GALLOP_RED, red >= 1, gallop)
    o, d = _farther(o, d, GALLOP_BLUE2, blue >= 2, gallop)
    o, d = _farther(o, d, GALLOP_WHITE, white >= 1, gallop)
    o, d = _farther(o, d, TROT_BLUE, blue >= 1, trot)
    o, d = _farther(o, d, TROT_WHITE, white >= 1, trot)
    o, d = _farther(o, d, WALK_WHITE, white >= 1, 1)
    return o


@njit
def random_pace(lane, board, race, seen, legal, rand):
    n = 0
    for o in range(N_OPTIONS):
        if legal[o]:
            n += 1
    k = randbelow(rand, n)
    for o in range(N_OPTIONS):
        if legal[o]:
            if k == 0:
                return o
            k -= 1
    return -1


@njit
def saver(lane, board, race, seen, legal, rand):
    """Greedy, but outside the End Zone it never pays a white cube unless that crosses:
    white is the only cube that pays for any pace, so it is kept for the finish."""
    o = first_crossing(lane, board, race, legal)
    if o >= 0:
        return o
    outside = board[lane, POS] < race[EZ_FIRST]
    o = farthest(lane, board, race, legal, True, outside)
    if o >= 0:
        return o
    return greedy(lane, board, race, seen, legal, rand)


@njit
def steady(lane, board, race, seen, legal, rand):
    """Breath management: outside the End Zone, a sheep holding at most one cube rests
    (recovering two) instead of running itself empty; otherwise plays like ``saver``."""
    o = first_crossing(lane, board, race, legal)
    if o >= 0:
        return o
    cubes = board[lane, RED] + board[lane, BLUE] + board[lane, WHITE]
    if board[lane, POS] < race[EZ_FIRST] and cubes <= 1 and legal[REST]:
        return REST
    return saver(lane, board, race, seen, legal, rand)


@njit(inline="always")
def stall(lane, board, race, legal):
    """Hold a rival's sheep back: exhaust it if any option does, else move it as little
    as possible without crossing, burning the most cubes among equally short moves."""
    for o in range(N_OPTIONS):
        if legal[o] and exhausts(board, race, lane, o):
            return o
    best = -1
    best_key = 1 << 40
    for cross_ok in range(2):
        for o in range(N_OPTIONS):
            if not legal[o] or (cross_ok == 0 and crosses(board, race, lane, o)):
                continue
            key = distance(board, lane, o) * 16 + cubes_after(board, race, lane, o)
            if key < best_key:
                best = o
                best_key = key
        if best >= 0:
            return best
    return best


@njit
def partisan(lane, board, race, seen, legal, rand):
    """Bet-aware: push sheep this player bet on (``saver``), stall and exhaust sheep that
    only rivals' open bets are on, and run every other sheep like ``saver``."""
    if seen[MY_BETS, lane] == 0 and seen[RIVAL_OPEN, lane] > 0:
        return stall(lane, board, race, legal)
    return saver(lane, board, race, seen, legal, rand)


@njit(inline="always")
def choose_pace(policy_id, lane, board, race, seen, legal, rand):
    """Dispatch to a built-in pace policy by id (index into ``PACE_POLICIES``).

    Only ``greedy`` (the reference policy and the public odds tables' one) is inlined
    into the turn loop; the others are calls: inlining all five made the kernels several
    times slower to compile and the turn loop about 10% slower."""
    if policy_id == GREEDY:
        return greedy(lane, board, race, seen, legal, rand)
    if policy_id == RANDOM_PACE:
        return random_pace(lane, board, race, seen, legal, rand)
    if policy_id == SAVER:
        return saver(lane, board, race, seen, legal, rand)
    if policy_id == STEADY:
        return steady(lane, board, race, seen, legal, rand)
    if policy_id == PARTISAN:
        return partisan(lane, board, race, seen, legal, rand)
    if policy_id == LOOKAHEAD or policy_id == LOOKAHEAD_EXACT:  # engine.run_race calls them
        raise ValueError("the lookahead pace policies play whole games only")
    raise ValueError("unknown pace policy id")


# ---------------------------------------------------------------------------- bets
@njit
def lane_ev(odds, payoffs, lane, final):
    """Expected payoff of one bet on ``lane`` (bonus excluded)."""
    if final:
        return odds[lane, 0] * payoffs[3, lane]
    return odds[lane, 0] * payoffs[0, lane] + odds[lane, 1] * payoffs[1, lane] \
        + odds[lane, 2] * payoffs[2, lane]


@njit(inline="always")
def _score(policy_id, odds, payoffs, lane, final, rand):
    if policy_id == FAVOURITE:
        return odds[lane, 0]
    if policy_id == LONGSHOT:
        # highest 1st-place payoff; the lower lane wins ties (it pays more elsewhere)
        return (payoffs[3, lane] if final else payoffs[0, lane]) - lane * 1e-6
    if policy_id == EV_APPROX:
        return lane_ev(odds, payoffs, lane, final)
    return uniform(rand)


@njit
def _best_lane(policy_id, odds, payoffs, excluded, final, rand):
    """Best-scoring lane not in the bit mask ``excluded`` (bit ``l`` for lane ``l``)."""
    best = -1
    best_s = -np.inf
    for lane in range(6):
        if excluded >> lane & 1:
            continue
        s = _score(policy_id, odds, payoffs, lane, final, rand)
        if s > best_s:
            best = lane
            best_s = s
    return best


@njit
def set_ev(odds, payoffs, bonus, a, b, c):
    """EV of the bet set {a, b, c} with the bonus, treating the three lanes' top-3
    finishes as independent (the table gives marginals only)."""
    ev = lane_ev(odds, payoffs, a, False) + lane_ev(odds, payoffs, b, False) \
        + lane_ev(odds, payoffs, c, False)
    qa = odds[a, 0] + odds[a, 1] + odds[a, 2]
    qb = odds[b, 0] + odds[b, 1] + odds[b, 2]
    qc = odds[c, 0] + odds[c, 1] + odds[c, 2]
    p3 = qa * qb * qc
    p2 = qa * qb * (1 - qc) + qa * (1 - qb) * qc + (1 - qa) * qb * qc
    return ev + bonus[0] * p2 + bonus[1] * p3


@njit
def _choice_value(kind, odds, payoffs, bonus, taken, my_open, c):
    """EV of bet choice ``c``, or -inf where it is not a legal choice. Open bet: lane
    ``c`` (0-5), not taken. Hidden bets / final: the pair ``a = c // 6 < b = c % 6``
    (hidden: the set of three with the open bet, bonus counted; neither is ``my_open``)."""
    if kind == BET_OPEN:
        return -np.inf if taken[c] else lane_ev(odds, payoffs, c, False)
    a, b = c // 6, c % 6
    if b <= a:
        return -np.inf
    if kind == BET_HIDDEN:
        if a == my_open or b == my_open:
            return -np.inf
        return set_ev(odds, payoffs, bonus, my_open, a, b)
    return lane_ev(odds, payoffs, a, True) + lane_ev(odds, payoffs, b, True)


@njit
def near_ev_bets(kind, odds, payoffs, bonus, taken, my_open, out, rand):
    """``near-ev``: one of the choices (open lane, hidden pair or final pair) whose EV is
    within ``NEAR_EV_SHARE`` of the best, uniformly at random from the policy stream."""
    n_choices = 6 if kind == BET_OPEN else 36
    best = -np.inf
    for c in range(n_choices):
        best = max(best, _choice_value(kind, odds, payoffs, bonus, taken, my_open, c))
    floor = best - NEAR_EV_SHARE * abs(best)
    n = 0
    for c in range(n_choices):
        if _choice_value(kind, odds, payoffs, bonus, taken, my_open, c) >= floor:
            n += 1
    k = randbelow(rand, n)
    for c in range(n_choices):
        if _choice_value(kind, odds, payoffs, bonus, taken, my_open, c) >= floor:
            if k == 0:
                if kind == BET_OPEN:
                    out[0] = c
                else:
                    out[0] = c // 6
                    out[1] = c % 6
                return
            k -= 1


@njit
def builtin_bets(policy_id, kind, odds, payoffs, bonus, taken, my_open, out, rand):
    if policy_id == NEAR_EV:
        near_ev_bets(kind, odds, payoffs, bonus, taken, my_open, out, rand)
        return
    final = kind == BET_FINAL
    if kind == BET_OPEN:
        excluded = 0
        for lane in range(6):
            if taken[lane]:
                excluded |= 1 << lane
        out[0] = _best_lane(policy_id, odds, payoffs, excluded, False, rand)
        return
    if kind == BET_HIDDEN and policy_id == EV_APPROX:
        best = -np.inf
        for a in range(6):
            for b in range(a + 1, 6):
                if a == my_open or b == my_open:
                    continue
                v = set_ev(odds, payoffs, bonus, my_open, a, b)
                if v > best:
                    best = v
                    out[0] = a
                    out[1] = b
        return
    excluded = 1 << my_open if kind == BET_HIDDEN else 0
    out[0] = _best_lane(policy_id, odds, payoffs, excluded, final, rand)
    out[1] = _best_lane(policy_id, odds, payoffs, excluded | 1 << out[0], final, rand)


@njit
def choose_bets(policy_id, kind, odds, payoffs, bonus, taken, my_open, out, rand):
    """Dispatch to a built-in bet policy by id (index into ``BET_POLICIES``). ``ev``
    and ``win`` are not here: they read the deal's exact odds (``win`` the standings
    too), which the race machine passes to ``exact.game.exact_ev_bets`` and
    ``exact.win_bets.win_bets`` itself (``machine.exact_bets``)."""
    if policy_id < 0 or policy_id >= N_BET_POLICIES or policy_id == EV or policy_id == WIN:
        raise ValueError("unknown bet policy id")
    builtin_bets(policy_id, kind, odds, payoffs, bonus, taken, my_open, out, rand)


# --------------------------------------------------------- the one policy signature
@njit
def fill_table_view(view, odds, payoffs, bonus, taken):
    """The parts of a ``view`` that change once a race: odds, payoffs, bonus, taken."""
    for lane in range(N_LANES):
        for k in range(3):
            view[V_ODDS + 3 * lane + k] = odds[lane, k]
        view[V_TAKEN + lane] = 1.0 if taken[lane] else 0.0
    for r in range(4):
        for lane in range(N_LANES):
            view[V_PAYOFFS + N_LANES * r + lane] = payoffs[r, lane]
    view[V_BONUS] = bonus[0]
    view[V_BONUS + 1] = bonus[1]


@njit
def fill_pace_view(view, lane, seat, n_players, board, race, seen):
    """A pace decision's ``view`` (the odds, payoffs... are the race's, already there)."""
    view[V_LANE] = lane
    view[V_SEAT] = seat
    view[V_PLAYERS] = n_players
    view[V_MY_OPEN] = -1
    for ln in range(N_LANES):
        for c in range(N_BOARD):
            view[V_BOARD + N_BOARD * ln + c] = board[ln, c]
        view[V_MY_BETS + ln] = seen[MY_BETS, ln]
        view[V_RIVAL_OPEN + ln] = seen[RIVAL_OPEN, ln]
    for c in range(N_RACE):
        view[V_RACE + c] = race[c]


@njit
def fill_bet_view(view, seat, n_players, my_open, my_bets, rival_open, odds, payoffs, bonus,
                  taken):
    """A bet decision's ``view``: no sheep selected, the board and race zeros."""
    fill_table_view(view, odds, payoffs, bonus, taken)
    view[V_LANE] = -1
    view[V_SEAT] = seat
    view[V_PLAYERS] = n_players
    view[V_MY_OPEN] = my_open
    for i in range(V_BOARD, V_MY_BETS):
        view[i] = 0.0
    for ln in range(N_LANES):
        view[V_MY_BETS + ln] = my_bets[ln]
        view[V_RIVAL_OPEN + ln] = rival_open[ln]


@njit
def pace_rows(legal, opts):
    """Write the legal options as ``opts`` rows ``[option]``; return how many."""
    n = 0
    for o in range(N_OPTIONS):
        if legal[o]:
            opts[n, 0] = o
            n += 1
    return n


@njit
def bet_rows(kind, taken, my_open, opts):
    """Write a bet round's legal choices as ``opts`` rows (``BET_OPEN`` ``[lane]``, not
    taken; ``BET_HIDDEN`` ``[a, b]``, ``a < b``, neither ``my_open``; ``BET_FINAL``
    ``[a, b]``); return how many."""
    n = 0
    if kind == BET_OPEN:
        for lane in range(N_LANES):
            if not taken[lane]:
                opts[n, 0] = lane
                n += 1
        return n
    for a in range(N_LANES):
        for b in range(a + 1, N_LANES):
            if kind == BET_HIDDEN and (a == my_open or b == my_open):
                continue
            opts[n, 0] = a
            opts[n, 1] = b
            n += 1
    return n


@njit
def option_row(legal, option):
    """The row of ``option`` among :func:`pace_rows`' rows, or -1 if it is not legal."""
    if option < 0 or option >= N_OPTIONS or not legal[option]:
        return -1
    i = 0
    for o in range(option):
        if legal[o]:
            i += 1
    return i


@njit
def bet_row(kind, opts, n, pick):
    """The row of ``opts[:n]`` holding the lane ``pick[0]`` (``BET_OPEN``) or the pair
    ``pick[0]``, ``pick[1]`` in either order; -1 if none does."""
    for i in range(n):
        if kind == BET_OPEN:
            if opts[i, 0] == pick[0]:
                return i
        elif (opts[i, 0] == pick[0] and opts[i, 1] == pick[1]) or \
                (opts[i, 0] == pick[1] and opts[i, 1] == pick[0]):
            return i
    return -1


@njit
def _view_table(view):
    """The engine's arrays back from a ``view``: ``(board, race, seen, odds, payoffs,
    bonus, taken)`` (new arrays, of the engine's own types)."""
    board = np.empty((N_LANES, N_BOARD), dtype=np.int64)
    race = np.empty(N_RACE, dtype=np.int64)
    seen = np.empty((2, N_LANES), dtype=np.int64)
    odds = np.empty((N_LANES, 3), dtype=np.float64)
    payoffs = np.empty((4, N_LANES), dtype=np.int64)
    bonus = np.empty(2, dtype=np.int64)
    taken = np.empty(N_LANES, dtype=np.bool_)
    for ln in range(N_LANES):
        for c in range(N_BOARD):
            board[ln, c] = np.int64(view[V_BOARD + N_BOARD * ln + c])
        seen[MY_BETS, ln] = np.int64(view[V_MY_BETS + ln])
        seen[RIVAL_OPEN, ln] = np.int64(view[V_RIVAL_OPEN + ln])
        for k in range(3):
            odds[ln, k] = view[V_ODDS + 3 * ln + k]
        for r in range(4):
            payoffs[r, ln] = np.int64(view[V_PAYOFFS + N_LANES * r + ln])
        taken[ln] = view[V_TAKEN + ln] != 0
    for c in range(N_RACE):
        race[c] = np.int64(view[V_RACE + c])
    bonus[0] = np.int64(view[V_BONUS])
    bonus[1] = np.int64(view[V_BONUS + 1])
    return board, race, seen, odds, payoffs, bonus, taken


@njit
def decide(pid, kind, view, opts, n, rand):
    """The built-in policy ``pid`` through the one signature: the row of ``opts[:n]`` it
    chooses, read from ``view`` alone (the same choice as the engine's direct calls,
    :func:`choose_pace` and :func:`choose_bets`; tests/race/test_race_policies.py).
    :func:`sheepsim.jit.user_policy_chain` extends it with the plug-ins (ids from
    :data:`FIRST_USER_ID`) in the kernels, which call it for plug-ins only."""
    board, race, seen, odds, payoffs, bonus, taken = _view_table(view)
    if kind == PACE:
        if pid < 0 or pid >= N_PACE_POLICIES or pid == LOOKAHEAD or pid == LOOKAHEAD_EXACT:
            raise ValueError("unknown pace policy id (lookahead is called by the engine)")
        legal = np.zeros(N_OPTIONS, dtype=np.bool_)
        for i in range(n):
            legal[opts[i, 0]] = True
        lane = np.int64(view[V_LANE])
        return option_row(legal, choose_pace(pid, lane, board, race, seen, legal, rand))
    out = np.full(2, -1, dtype=np.int64)
    choose_bets(pid, kind, odds, payoffs, bonus, taken, np.int64(view[V_MY_OPEN]), out, rand)
    return bet_row(kind, opts, n, out)


def user_pace_option(fn, lane, board, race, seen, legal, rand) -> int:
    """The option the plug-in ``fn`` takes for ``lane`` where a Python caller has the
    engine's arrays (the exact solver's lane graphs), asked as the engine asks it (one
    seat, a lone option taken without asking, copies of its inputs); -1 if it wrote to
    them or returned no row of its options."""
    opts = np.flatnonzero(legal).astype(np.int64).reshape(-1, 1)
    n = opts.shape[0]
    if n == 1:
        return int(opts[0, 0])
    view = np.zeros(N_VIEW, dtype=np.float64)
    fill_pace_view(view, lane, 0, 1, board, race, seen)
    v, o = view.copy(), opts.copy()
    i = int(fn(PACE, v, o, n, rand))
    if not 0 <= i < n or (v != view).any() or (o != opts).any():
        return -1
    return int(opts[i, 0])
