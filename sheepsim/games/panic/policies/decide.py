"""How a seat decides: the one policy dispatch, the seats' own streams, the check of
every choice; the sub-decisions (which smallest group, which route, which sheep panics,
which way to turn) and the positional score the greedy policy uses.

* :func:`decide` ``(pid, kind, view, opts, n, rand) -> i`` is the dispatch with the one
  policy signature (:mod:`.policies`); a plug-in seat's decisions are asked by the
  harness instead (:mod:`..cut`). The built-ins keep fast
  paths on the game's own state (greedy and rollout value moves on ``st``/``R``;
  random draws its menu option without listing them, :mod:`.menucount`), so
  :func:`ask_policy` builds a view only for a user policy.
* :func:`decide_sub` is the one entry point the regrouping and panic kernels call (and
  :func:`.policies.decide_action` the menu's): it branches on an integer policy id so
  that cached kernels never receive a function object (see :mod:`.policies` for why).
  The id is None when every seat plays ``random``: numba then prunes the other branches
  by type, so a random-only run never compiles the greedy machinery.
* :func:`checked`: every returned choice, built-in or plug-in, passes it; the first one
  that is not a legal index is recorded (``layout.CTX_FAIL_*``) and the game stops.
* Each seat draws from its own stream (the harness keys one per seat and game): the
  POLICY row of the scratch's streams holds the stream of the seat whose turn it is
  (:func:`..machine.stretch` copies it in and back), so every draw of the turn, the
  sub-decisions' and the rollout playouts' included, comes from that seat's stream and
  no other seat's draws depend on it.
"""

from sheepsim import rng
from sheepsim.games.panic.geometry.flockops import (
    alive_mask,
    apply_action,
    copy_flock,
    push_from,
)
from sheepsim.games.panic.geometry.groups import (
    contact_slides,
    main_of,
    move_group,
    regroup_routes,
    routes_to,
    side_contacts,
    slides_with,
)
from sheepsim.games.panic.geometry.scoring import (
    black_points,
    ram_points,
    shear_front_row,
    shear_points,
    together_points,
)
from sheepsim.games.panic.layout import (
    BLACK_SHEEP,
    CTX_COUNT_ON,
    CTX_COUNTS,
    CTX_DECISIONS_N,
    CTX_FAIL_CHOICE,
    CTX_FAIL_CODE,
    CTX_FAIL_GAME,
    CTX_FAIL_N,
    CTX_FAIL_SEAT,
    CTX_GAME,
    CTX_LOG_ON,
    CTX_SCRIPT,
    CTX_SCRIPT_LEN,
    CTX_SCRIPT_POS,
    D_CHOICE,
    D_KIND,
    D_N,
    D_SEAT,
    EWE_TURN,
    FACE_DIAG,
    K_GROUP,
    K_KINDS,
    K_PANIC_PUSH,
    K_PANIC_TURN,
    K_ROUTE,
    N_SHEEP,
    R_FIELD_KIND,
    R_LEN,
    R_N_REGROUP_FACES,
    R_PLUS_FALLBACK,
    R_REGROUP_FACES,
    R_SEAT_COLOUR,
    R_SLIDE_WITHOUT_ROLL,
    RAM,
    SHEARING,
    ST_COLOUR,
    ST_COUNTER,
    ST_LEN,
    TEAMMATES,
    V_RULES,
    V_SEAT,
    V_STATE,
)
from sheepsim.games.panic.scratch import ZERO
from sheepsim.games.panic.track import field_of
from sheepsim.jit import WROTE_INPUTS_CHOICE, kernel
from sheepsim.plugins import ILLEGAL_CHOICE, WROTE_INPUTS
from sheepsim.rng import policy_randbelow as randbelow  # noqa: F401 - the policies' API
from sheepsim.rng import policy_stream  # noqa: F401
from sheepsim.rng import policy_uniform as uniform  # noqa: F401

# Built-in policy ids (stable: they are baked into cached kernels).
RANDOM, GREEDY, ROLLOUT, SCRIPTED = 0, 1, 2, 3
# greedy as it played before issue 34 let it change how it uses its stream: kept to play
# head-to-heads against today's and to reproduce earlier results for a fixed seed.
GREEDY_V1 = 4
# rollout as it played before issue 34 shortened its playouts (to the end of the game):
# kept for the same reasons.
ROLLOUT_V1 = 5
BUILTIN_POLICIES = ("random", "greedy", "rollout", "greedy-v1", "rollout-v1")
FIRST_USER_ID = 6
# Greedy: weight of the positional score against points scored now.
POSITION_WEIGHT = 0.5


# --------------------------------------------------------- dispatch and checking
@kernel
def decide(pid, kind, view, opts, n, rand):
    """Index of the option chosen among ``opts[:n]`` by policy ``pid``, with the one
    policy signature (:mod:`.policies`). Built in here: ``random`` (``randbelow(rand,
    n)``: the choice its fast paths make); a plug-in is asked by the harness
    (:mod:`..cut`); any other id raises ValueError."""
    if pid == RANDOM:
        return randbelow(rand, n)
    raise ValueError("unknown Shear Panic policy id")


@kernel
def ask_policy(pid, kind, st, R, seat, opts, n, w):
    """:func:`decide` asked with ``seat``'s view of the table (``layout.V_*``: the seat,
    the state and the rules vectors, all public in Shear Panic), ``opts[:n]`` and the
    seat's own stream (the POLICY row: :func:`..machine.stretch`)."""
    view = w.policy_view
    view[V_SEAT] = seat
    for j in range(ST_LEN):
        view[V_STATE + j] = st[j]
    for j in range(R_LEN):
        view[V_RULES + j] = R[j]
    return decide(pid, kind, view, opts[:n], n, policy_stream(w.streams))


@kernel(inline="always")
def count_decision(ctx, kind, n):
    """Count a decision of ``kind`` with ``n >= 1`` options while counting is on
    (``layout.CTX_COUNTS``)."""
    if ctx[CTX_COUNT_ON]:
        ctx[CTX_COUNTS] += 1
        ctx[CTX_COUNTS + 1 + kind] += 1
        ctx[CTX_COUNTS + 1 + K_KINDS + kind] += n
        ctx[CTX_COUNTS + 1 + 2 * K_KINDS + kind] += n == 1


@kernel
def checked(i, n, seat, kind, w):
    """``i`` if it is a legal index (``0 <= i < n``), logged in the trace's decision log
    when the trace is on. Otherwise the first such failure is recorded (code
    ``WROTE_INPUTS`` for :data:`sheepsim.jit.WROTE_INPUTS_CHOICE`, else
    ``ILLEGAL_CHOICE``; the game, seat, choice and ``n``) and -1 returned: the callers
    stop the turn, the game loop stops the game and the chunk returns (the Python layer
    raises :func:`sheepsim.plugins.policy_failure`)."""
    ctx = w.ctx
    if 0 <= i < n:
        if ctx[CTX_LOG_ON]:
            k = ctx[CTX_DECISIONS_N]
            log = w.decisions
            if k < log.shape[0]:
                log[k, D_SEAT] = seat
                log[k, D_KIND] = kind
                log[k, D_N] = n
                log[k, D_CHOICE] = i
                ctx[CTX_DECISIONS_N] = k + 1
        return i
    if ctx[CTX_FAIL_CODE] == 0:
        ctx[CTX_FAIL_CODE] = WROTE_INPUTS if i == WROTE_INPUTS_CHOICE else ILLEGAL_CHOICE
        ctx[CTX_FAIL_GAME] = ctx[CTX_GAME]
        ctx[CTX_FAIL_SEAT] = seat
        ctx[CTX_FAIL_CHOICE] = i
        ctx[CTX_FAIL_N] = n
    return ZERO - 1


@kernel
def next_scripted(ctx, n):
    """Next explicit choice given to :class:`~..flock.Flock` (0 when the script is used up)."""
    pos = ctx[CTX_SCRIPT_POS]
    if pos < ctx[CTX_SCRIPT_LEN]:
        ctx[CTX_SCRIPT_POS] = pos + 1
        choice = ctx[CTX_SCRIPT + pos]
        if 0 <= choice < n:
            return choice
        return -1
    return 0


@kernel
def positional(st, R, seat, space, sh):
    """What ``seat``'s sheep are worth now for the field ``space`` is in (points-like).

    Teammates: own pair together; Ram: own sheep by rows from the front; Black Sheep:
    own sheep next to the black sheep; Shearing: own sheep by rows from the back after
    the front row is shorn, minus 4 per own sheep in the front row. ``sh`` is a scratch
    state vector (overwritten: the scratch record's ``shear``).
    """
    colour = R[R_SEAT_COLOUR + seat]
    f = field_of(R, max(space, 1))
    kind = R[R_FIELD_KIND + f]
    if kind == TEAMMATES:
        return together_points(st, colour)
    if kind == RAM:
        return ram_points(st, R, colour)
    if kind == BLACK_SHEEP:
        return black_points(st, colour)
    if kind == SHEARING:
        copy_flock(sh, st)
        removed = shear_front_row(sh)
        lost = 0
        for s in range(N_SHEEP):
            if (removed >> s) & 1 and st[ST_COLOUR + s] == colour:
                lost += 1
        return shear_points(sh, R, colour) - 4 * lost
    return 0


@kernel
def best_of_routes(st, R, seat, routes, n, w):
    """Greedy value of the best of the routes ``routes[:n]`` (0.0 if there is none)."""
    ev = w.sub
    best = -1e18
    for i in range(n):
        copy_flock(ev, st)
        move_group(ev, routes[i, 0], routes[i, 1], routes[i, 2], routes[i, 3])
        best = max(best, float(positional(ev, R, seat, st[ST_COUNTER], w.shear)))
    return best if n > 0 else 0.0


@kernel
def best_route_value(st, R, seat, mask, face, w):
    """Greedy value of regrouping ``mask`` for one die face (best route)."""
    routes = w.routes
    n = ZERO
    if R[R_SLIDE_WITHOUT_ROLL]:
        n = contact_slides(st, mask, routes)
    if n == 0:
        n = regroup_routes(st, mask, face, R[R_PLUS_FALLBACK], routes)
    return best_of_routes(st, R, seat, routes, n, w)


@kernel
def first_face(R, diag):
    """The regroup die's first face that is the diagonal ``X`` (``diag``) or not, else -1."""
    for i in range(R[R_N_REGROUP_FACES]):
        face = R[R_REGROUP_FACES + i]
        if (face == FACE_DIAG) == diag:
            return face
    return -1


@kernel
def face_mean(R, plus, cross):
    """Mean over the regroup die's faces of ``cross`` (an ``X`` face) or ``plus`` (any
    other), summed face by face in die order (the standard die repeats "+" and "X" three
    times each, so each kind is valued once: the same sums with less work)."""
    nf = R[R_N_REGROUP_FACES]
    total = 0.0
    for i in range(nf):
        total += cross if R[R_REGROUP_FACES + i] == FACE_DIAG else plus
    return total / nf


@kernel
def group_value(st, R, seat, mask, w):
    """Greedy value of regrouping ``mask``: :func:`face_mean` of the best route's value
    for each kind of face (a free slide is the same for every face)."""
    routes = w.routes
    n = ZERO
    lo, hi = side_contacts(st)
    if R[R_SLIDE_WITHOUT_ROLL]:
        n = slides_with(st, lo, hi, mask, routes)
    if n > 0:
        v = best_of_routes(st, R, seat, routes, n, w)
        return face_mean(R, v, v)
    target = main_of(lo, hi, alive_mask(st), mask)
    plus = cross = 0.0
    face = first_face(R, False)
    if face >= 0:
        k = routes_to(st, target, mask, face, R[R_PLUS_FALLBACK], routes)
        plus = best_of_routes(st, R, seat, routes, k, w)
    face = first_face(R, True)
    if face >= 0:
        k = routes_to(st, target, mask, face, R[R_PLUS_FALLBACK], routes)
        cross = best_of_routes(st, R, seat, routes, k, w)
    return face_mean(R, plus, cross)


@kernel
def sub_value(kind, st, R, seat, opts, i, w):
    """Greedy value of the sub-decision option ``opts[i]``."""
    if kind == K_GROUP:
        return group_value(st, R, seat, opts[i, 0], w)
    ev = w.sub
    copy_flock(ev, st)
    if kind == K_ROUTE:
        move_group(ev, opts[i, 0], opts[i, 1], opts[i, 2], opts[i, 3])
    elif kind == K_PANIC_PUSH:
        push_from(ev, opts[i, 0], opts[i, 1])
    elif kind == K_PANIC_TURN:
        apply_action(ev, EWE_TURN, 0, opts[i, 0])
    return float(positional(ev, R, seat, st[ST_COUNTER], w.shear))


@kernel
def argmax_random_ties(values, n, streams):
    """Index of the largest of ``values[:n]``; ties broken uniformly (POLICY stream)."""
    best = 0
    ties = 1
    for i in range(1, n):
        if values[i] > values[best] + 1e-9:
            best = i
            ties = 1
        elif values[i] > values[best] - 1e-9:
            ties += 1
            if rng.randbelow(streams, rng.POLICY, ties) == 0:
                best = i
    return best


@kernel
def greedy_sub(kind, st, R, seat, opts, n, w):
    """The greedy choice among the sub-decision options ``opts[:n]``."""
    vals = w.sub_values
    for i in range(n):
        vals[i] = sub_value(kind, st, R, seat, opts, i, w)
    return argmax_random_ties(vals, n, w.streams)


@kernel
def decide_sub(pid, kind, st, R, seat, opts, n, w):
    """Index of the chosen option among ``opts[:n]`` for a sub-decision of ``kind``.

    ``st`` is the live state (do not modify); ``pid`` the policy id, or None when every
    seat plays random (then nothing else is compiled). A lone option is taken without
    asking (nothing drawn, nothing logged). Every answer passes :func:`checked`: -1 for
    one that is not a legal index (scripted choices out of range too); an id that is
    not built-in (a plug-in seat's turn is cut and asked by the harness, :mod:`..cut`)
    raises ValueError.
    """
    count_decision(w.ctx, kind, n)
    if n == 1:
        return 0
    if pid is None:
        return checked(randbelow(policy_stream(w.streams), n), n, seat, kind, w)
    if pid == RANDOM:
        i = randbelow(policy_stream(w.streams), n)
    elif pid == SCRIPTED:
        i = next_scripted(w.ctx, n)
    elif pid == GREEDY or pid == ROLLOUT or pid == GREEDY_V1 or pid == ROLLOUT_V1:
        # rollout spends its playouts on the menu action; its sub-decisions are greedy's
        i = greedy_sub(kind, st, R, seat, opts, n, w)
    else:
        i = ask_policy(pid, kind, st, R, seat, opts, n, w)
    return checked(i, n, seat, kind, w)

