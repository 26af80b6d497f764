"""The state-machine contract: what a game built on the harness supplies.

A game's *machine* module (``Game.machine``) defines the seven ``@numba.njit`` functions
below under these names, with these arguments, plus the sizes :mod:`sheepsim.harness.machine`
reads (``RULES``, ``state_size(players)``, ``MAX_OPTIONS``, ``OPTION_WIDTH``, ``VIEW_LEN``,
``KINDS``). The harness's loop (:mod:`sheepsim.harness.loop`) calls the functions
defined here; :func:`sheepsim.jit.rebind` puts the game's own in their place, so these
bodies never run. All arrays are int64 unless said otherwise:

* ``st``: the game state, ``state_size(players)`` entries, zeroed before ``start``;
* ``R``: the rules vector, the rules file's values in the order of ``RULES`` (read-only);
* ``opts``: ``(MAX_OPTIONS, OPTION_WIDTH)`` rows, one per legal option of a decision;
* ``chance``: the game's own ``(CHANCE_STREAMS, 2)`` uint64 random streams (the deal,
  the dice), row ``p`` keyed by ``(seed, game, p)``; draw with
  ``sheepsim.rng.randbelow(chance, p, n)``. No policy ever sees them;
* ``rand``: a seat's own ``(1, 2)`` uint64 stream, keyed by ``(seed, game, seat, phase)``
  (the phase of the decision's kind); draw with ``sheepsim.rng.policy_randbelow(rand, n)``.
"""

from sheepsim.jit import njit

_UNBOUND = "the harness calls the game's own function here (sheepsim.jit.rebind)"


@njit
def start(st, R, players, chance):
    """Set up a new game of ``players`` seats in ``st`` (the deal, who moves first),
    drawing from ``chance`` only."""
    raise RuntimeError(_UNBOUND)


@njit
def to_move(st, R, opts):
    """``(seat, kind, n)``: the seat (0-based) whose decision is next, the decision's
    kind (an index into ``KINDS``) and its ``n >= 1`` legal options, written to
    ``opts[:n]``; ``seat`` is -1 when the game is over (then ``kind`` and ``n`` are 0)."""
    raise RuntimeError(_UNBOUND)


@njit
def apply(st, R, seat, kind, opts, choice, chance):
    """Play option ``opts[choice]`` of ``seat``'s decision (``0 <= choice < n``, checked by
    the harness), then every chance event that follows it, drawn from ``chance``."""
    raise RuntimeError(_UNBOUND)


@njit
def scores(st, R, out):
    """Each seat's score (or a score-like value) now, at any point of the game, into
    ``out[:players]`` (int64: totals merged by addition stay exact)."""
    raise RuntimeError(_UNBOUND)


@njit
def winner(st, R):
    """The winning seat of a finished game (the game's tie-breaks applied), -1 if nobody
    won (a draw)."""
    raise RuntimeError(_UNBOUND)


@njit
def view(st, R, seat, out):
    """What ``seat`` sees at the table, written to all ``VIEW_LEN`` entries of ``out``:
    never a rival's hidden cards, never a future die."""
    raise RuntimeError(_UNBOUND)


@njit
def decide(pid, kind, view, opts, n, rand):
    """The game's built-in policies: the index of the option policy ``pid`` (its position
    in ``Game.policies["play"]``; 0 is ``random``) picks among ``opts[:n]`` (``n >= 2``),
    seeing ``view`` and drawing from ``rand`` only. Plug-in policies have the same
    signature less ``pid``."""
    raise RuntimeError(_UNBOUND)


# -- optional slots: a machine that does not define one gets the body below ------------
@njit(inline="always")
def decide_rules(pid, kind, view, opts, n, rand, R):
    """The built-in policies with ``R`` as well (read-only: the game's tables, e.g. odds
    the built-ins read in place of a view built for them); plug-ins never see ``R``.
    A machine that defines it needs no ``decide``; by default, ``decide``."""
    return decide(pid, kind, view, opts, n, rand)


@njit
def needs_view(pid, kind):
    """Whether policy ``pid`` reads the view for a decision of ``kind`` (False: the
    harness does not build it, e.g. a ``random`` that reads nothing)."""
    return True


@njit(inline="always")
def role(kind):
    """The role of a decision of ``kind``, for a game whose seats each hold one policy per
    role (0, 1...; e.g. the race's bets and its pace): the seat's policy of that role is
    asked. By default 0: one policy a seat. (Inlined: a constant for a one-role game.)"""
    return 0


@njit
def seated(st, R, seat_pid):
    """Called after ``start`` with the policy id of each seat (a machine with the slot
    ``role``: of each role in turn, role-major), e.g. to skip bookkeeping no seated
    policy reads. The rules must not depend on it."""
    return


@njit
def tally(st, R, acc, seat_pid, rotation):
    """The game's own counts of a finished game, added to ``acc``: its block of
    ``TALLY_LEN`` entries of the accumulator (after the harness's fields, summed over
    games like them); ``rotation`` is ``r`` of the seating (slot ``j`` at seat
    ``(j + r) % players``)."""
    return


@njit
def trace_on(st, R):
    """Called on the zeroed state before ``start`` of a traced game: from now on the
    game records its events (:func:`events`)."""
    return


@njit
def events(st, R, out):
    """Moves the events the game recorded since the last call (``trace_on``) to the
    first rows of ``out`` (``EVENT_WIDTH`` columns; at most ``out.shape[0]`` rows, the
    rest dropped) and forgets them; returns the rows written. The harness calls it after
    ``start`` and after every ``apply`` of a traced game."""
    return 0


@njit
def result(st, R, out):
    """The game's own outcome of a finished game, written to all ``RESULT_LEN`` entries
    of ``out`` (one row per game, when the caller asks for the games' results:
    :func:`sheepsim.harness.jobs.run_games`), e.g. what a later run on some of the same
    games needs to know."""
    return


@njit
def own(st, R, seat, streams, scratch, report, played):
    """Play ``seat``'s stretch of the game (``to_move`` gave ``seat`` with no options:
    a built-in seat's turn, say) and the stretches after it that the machine plays
    itself, at most ``played.shape[0]`` (``OWN_STRETCHES``), each decision made with the
    seat's built-in policy (slot ``seated`` gives the seats' ids) and every chance event
    after it, as ``apply`` would have after asking each. Returns the stretches played;
    row ``j`` of ``played`` is its seat, its decisions and every seat's score after it
    (the harness counts them as if it had asked them: turns, the course). It stops
    before a decision it does not play (a plug-in's) and at the game's end. ``streams``
    are all of the game's streams as :func:`sheepsim.harness.loop.key_game` keys them:
    ``CHANCE_STREAMS`` chance rows, then seat ``s``'s stream of phase ``f`` at row
    ``CHANCE_STREAMS + f * players + s`` (it draws a seat's decisions only from that
    seat's rows); ``scratch`` is the machine's own (``new_scratch``), made once a chunk
    and never shown to a plug-in. ``report`` (zeroed before each game, read at its end)
    gets the game's counts of what it played: policies asked
    (:data:`sheepsim.harness.layout.P_ASKED`), then per kind the decisions, options
    summed and lone options (``P_KINDS``). (A machine without it is never asked to: the
    harness calls it only for a machine that defines it.)"""
    return 0


@njit(inline="always")
def own_turns(st, scratch, played, j):
    """``(turns, last seat)``: how many turns of the game stretch ``j`` of the last call
    of ``own`` spans and the seat of its last turn, for a machine whose stretch holds
    the turns of several seats (e.g. a whole race of the Sheep Race, one stretch: every
    turn's roll and move counted without a row each). The stretch's first turn is its
    row's seat's, its scores (the row's) those at the end of its last turn, and every
    turn before that ends with the scores before the stretch. By default (inlined: a
    constant) one turn, the row's seat."""
    return 1, played[j, 0]


@njit
def own_events(st, R, scratch, out):
    """Of a traced game, the events the machine's own stretches recorded (slot ``own``,
    in its ``scratch``: e.g. the one the trace's caller hands to
    :func:`sheepsim.harness.jobs.run_games`) since the last call, moved to the first rows
    of ``out`` as :func:`events` does (``EVENT_WIDTH`` columns, at most ``out.shape[0]``
    rows, the rest dropped); returns the rows written. The harness calls it after every
    call of ``own`` in a traced game."""
    return 0


#: the slots in the order :func:`sheepsim.harness.machine.Machine.functions` lists them
NAMES = ("start", "to_move", "apply", "scores", "winner", "view", "decide")
#: the optional slots (the bodies above unless the machine defines its own)
OPTIONAL = ("needs_view", "seated", "tally", "trace_on", "events", "result", "own",
            "own_events", "decide_rules", "role", "own_turns")
