"""The harness's entry kernel: whole games of any game, the game's functions bound in
place of :mod:`sheepsim.harness.slots` (imported as ``machine_*``: numba refuses a call
spelled ``<anything>.view(...)`` that is not numpy's) by :func:`sheepsim.jit.rebind` (one compile per
game, cached on disk). Plug-in policies are an argument, first-class function values
(:func:`sheepsim.policy_values.policy_values`, each compiled once and cached on its own),
so a new line-up of plug-ins recompiles no game kernel.

Game ``g`` of seed ``s`` is keyed by ``(s, g)`` alone: its chance stream of purpose
``p`` (``0 <= p < CHANCE_STREAMS``) by ``rng.seed_stream(streams, p, s, g)``, seat
``k``'s stream of phase ``f`` (a decision kind's ``KIND_PHASES`` entry) by
``rng.seed_policy_stream(streams, row, s, g, k, f)``. So any split of the games into
chunks, threads or workers gives the same counts, and replacing one seat's policy leaves
every other seat's draws and the chance draws where they were (common random numbers).
"""

import numpy as np

from sheepsim import rng
from sheepsim.harness.ask import ask_plugin, bad_choice, record_failure
from sheepsim.harness.layout import (
    COURSE_SCALE,
    L_ASKED,
    L_CHOICE,
    L_KIND,
    L_N,
    L_PID,
    L_SEAT,
    LOG_HEAD,
    O_ASKED,
    O_COMEBACK,
    O_DECIDED_AT,
    O_DECIDED_AT_SQ,
    O_DECISIONS,
    O_DECISIONS_SQ,
    O_DEFICIT,
    O_DEFICIT_SQ,
    O_GAME,
    O_GAMES,
    O_KIND_DECISIONS,
    O_KIND_FORCED,
    O_KIND_OPTIONS,
    O_LEAD_CHANGES,
    O_LEAD_CHANGES_SQ,
    O_NO_WINNER,
    O_SCORE,
    O_SCORE_SQ,
    O_SLOT_WINS,
    O_TIED,
    O_TURNS,
    O_TURNS_SQ,
    O_WINS,
    O_WON,
    P_ASKED,
    P_KINDS,
    RULES_BROKEN,
    TOO_LONG,
    Z_CHANCE,
    Z_KIND_WIDTHS,
    Z_KINDS,
    Z_MAX_DECISIONS,
    Z_OPTION_WIDTH,
    Z_OPTIONS,
    Z_OWN,
    Z_PHASES,
    Z_ROLES,
    Z_SCRATCH,
    Z_STATE,
    Z_VIEW,
)
from sheepsim.harness.slots import apply as machine_apply
from sheepsim.harness.slots import decide_rules as machine_decide
from sheepsim.harness.slots import events as machine_events
from sheepsim.harness.slots import needs_view as machine_needs_view
from sheepsim.harness.slots import own as machine_own
from sheepsim.harness.slots import own_events as machine_own_events
from sheepsim.harness.slots import own_turns as machine_own_turns
from sheepsim.harness.slots import result as machine_result
from sheepsim.harness.slots import role as machine_role
from sheepsim.harness.slots import scores as machine_scores
from sheepsim.harness.slots import seated as machine_seated
from sheepsim.harness.slots import start as machine_start
from sheepsim.harness.slots import tally as machine_tally
from sheepsim.harness.slots import to_move as machine_to_move
from sheepsim.harness.slots import trace_on as machine_trace_on
from sheepsim.harness.slots import view as machine_view
from sheepsim.harness.slots import winner as machine_winner
from sheepsim.jit import kernel, njit


@njit(inline="always")
def _put(dst, at, src, n):
    """``dst[at:at + n] = src[:n]``, element by element: numba compiles, per number of
    dimensions, the formatting of a slice copy's "cannot assign slice of shape" message
    (string joins, ``repr`` of ints; about 2 s of a cold compile), a loop nothing."""
    for j in range(n):
        dst[at + j] = src[j]


@njit(inline="always")
def _changed(hist, rows, score, players):
    """Whether ``score`` differs from row ``rows - 1`` of ``hist`` (or there is none)."""
    if rows == 0:
        return True
    for s in range(players):
        if hist[rows - 1, s] != score[s]:
            return True
    return False


@njit
def _grown(hist):
    """``hist`` with twice the rows, the first ones copied."""
    bigger = np.zeros((2 * hist.shape[0], hist.shape[1]), dtype=np.int64)
    for j in range(hist.shape[0]):
        _put(bigger[j], 0, hist[j], hist.shape[1])
    return bigger


@njit(inline="always")
def _write_row(hist, row, t, score, players):
    _put(hist[row], 0, score, players)
    hist[row, players] = t


@njit
def _record(hist, row, t, score, players):
    """``hist`` with row ``row`` set to ``score`` (every seat's score) from the end of turn
    ``t`` on (column ``players``), doubled when full. Written only where a score changed
    (:func:`_changed`, checked in the loop: an unchanged turn makes no call): the course
    reads runs of equal turns as one row (:func:`course`)."""
    if row >= hist.shape[0]:
        hist = _grown(hist)
    _write_row(hist, row, t, score, players)
    return hist


@njit(inline="always")
def _turn_end(hist, rows, t, score, players):
    """:func:`_record` in place (``hist`` has room for row ``rows``) where a score
    changed: returns the rows now written."""
    if _changed(hist, rows, score, players):
        _write_row(hist, rows, t, score, players)
        rows += 1
    return rows


@njit
def key_game(streams, seed, game, chance_n, phases, players):
    """Key one game's streams: rows ``0 .. chance_n - 1`` its chance purposes, then for
    each phase ``f`` seat ``s``'s stream at row ``chance_n + f * players + s``."""
    for p in range(chance_n):
        rng.seed_stream(streams, p, seed, game)
    for f in range(phases):
        for s in range(players):
            rng.seed_policy_stream(streams, chance_n + f * players + s, seed, game, s, f)


@njit(inline="always")
def top_score(scores, players):
    """The highest of ``scores[:players]``."""
    top = scores[0]
    for s in range(1, players):
        top = max(top, scores[s])
    return top


@njit(inline="always")
def sole_leader(scores, t, players):
    """The seat with the strictly highest score in row ``t``, or -1 on a tie for the top."""
    best = 0
    tied = False
    for s in range(1, players):
        if scores[t, s] > scores[t, best]:
            best = s
            tied = False
        elif scores[t, s] == scores[t, best]:
            tied = True
    return -1 if tied else best


@njit
def course(acc, off, hist, rows, turns, players, win):
    """Add the course of one won game to ``acc``: ``hist[:rows]`` every seat's score at
    the end of a turn, column ``players`` that turn's index: the scores from there until
    the next row's turn (the last row's until the last turn, ``turns - 1``: the final
    scores); the first row is turn 0's. ``win`` is the winner. Per turn:

    * lead changes: times the sole leader became another seat (a tie for the top keeps
      the leader it interrupts);
    * decided at: the share of the turns played when the winner became the sole leader
      for good (0: from the first turn on), in whole 1/COURSE_SCALE;
    * the winner's largest deficit to the top score at a turn's end;
    * a comeback: the winner was behind the top score at the middle turn
      (``(turns - 1) // 2``)."""
    changes = 0
    prev = -1
    last_not = -1
    deficit = 0
    mid = (turns - 1) // 2
    at_mid = 0
    for j in range(rows):
        lead = sole_leader(hist, j, players)
        if lead >= 0:
            if prev >= 0 and lead != prev:
                changes += 1
            prev = lead
        if lead != win:  # the run's last turn
            last_not = hist[j + 1, players] - 1 if j + 1 < rows else turns - 1
        deficit = max(deficit, top_score(hist[j], players) - hist[j, win])
        if hist[j, players] <= mid:
            at_mid = j
    top = top_score(hist[at_mid], players)
    decided = (last_not + 1) * COURSE_SCALE // turns
    acc[off[O_WON]] += 1
    acc[off[O_LEAD_CHANGES]] += changes
    acc[off[O_LEAD_CHANGES_SQ]] += changes * changes
    acc[off[O_DECIDED_AT]] += decided
    acc[off[O_DECIDED_AT_SQ]] += decided * decided
    acc[off[O_DEFICIT]] += deficit
    acc[off[O_DEFICIT_SQ]] += deficit * deficit
    acc[off[O_COMEBACK]] += hist[at_mid, win] < top


@njit(inline="always")
def new_view(n):
    """The asked seat's view, ``n`` int64 entries (a machine's default ``VIEW_DTYPE``)."""
    return np.zeros(n, dtype=np.int64)


@njit(inline="always")
def new_float_view(n):
    """:func:`new_view` for a machine whose ``VIEW_DTYPE`` is float64, bound in its place
    (:meth:`sheepsim.harness.machine.Machine.kernel`)."""
    return np.zeros(n, dtype=np.float64)


@njit
def _narrowed(opts, width):
    """A C-contiguous copy of ``opts[:, :width]`` (the columns a plug-in is shown)."""
    out = np.empty((opts.shape[0], width), dtype=np.int64)
    for a in range(opts.shape[0]):
        for c in range(width):
            out[a, c] = opts[a, c]
    return out


@njit(inline="always")  # a call of its own per decision costs the built-ins a fifth of their speed
def ask(pid, kind, view, opts, n, width, rand, users, R):
    """The choice of policy ``pid``: the game's built-in ``decide``, or for an id from
    ``users[0]`` on plug-in ``users[1 + pid - users[0]]`` (a function value,
    :func:`~sheepsim.harness.ask.ask_plugin`), shown the first ``width`` columns of
    ``opts`` (the kind's ``OPTION_WIDTHS`` entry)."""
    if pid >= users[0]:
        shown = opts if width == opts.shape[1] else _narrowed(opts, width)
        return ask_plugin(pid, kind, view, shown, n, rand, users)
    return machine_decide(pid, kind, view, opts, n, rand, R)


@njit(inline="always")
def ask_builtin(pid, kind, view, opts, n, width, rand, users, R):
    """:func:`ask` for a line-up of built-in policies only (``users`` is just the first
    plug-in id), bound in its place (:meth:`sheepsim.harness.machine.Machine.kernel`):
    the built-ins' kernel holds no call through a function value."""
    return machine_decide(pid, kind, view, opts, n, rand, R)


@njit(inline="always")
def _stretches(st, scratch, played, done, counting, score, players, hist, rows, turns, last):
    """The ``done`` stretches slot ``own`` just played (``played``; ``score`` every seat's
    score before them), counted as if each decision had been asked: a stretch of another
    seat than the last starts a turn, and the scores before it end the turn before (as
    :func:`play_games` ends an asked turn; ``hist`` has room for ``played``'s rows more);
    a stretch spanning more turns (slot ``own_turns``) adds them, its last turn's seat the
    last. Returns ``(rows, turns, last seat, decisions played)``. (The caller calls
    ``own``: an inlined function that took ``R`` and held it across the call would count
    a reference to each of its arrays.)"""
    decisions = 0
    for j in range(done):
        d = played[j, 1]
        if d > 0 and played[j, 0] != last:
            if last >= 0 and counting:  # the turn that ends here
                rows = _turn_end(hist, rows, turns - 1, score, players)
            turns += 1
            last = played[j, 0]
        span, end = machine_own_turns(st, scratch, played, j)
        if d > 0 and span > 1:  # (by default a constant 1: compiled out)
            if counting:  # its first turn (perhaps the last seat's, going on) ends here
                rows = _turn_end(hist, rows, turns - 1, score, players)
            turns += span - 1  # the turns after it but the last: the same scores, no row
            last = end
        decisions += d
        if counting:  # every seat's score after it: before the next one
            for s in range(players):
                score[s] = played[j, 2 + s]
    return rows, turns, last, decisions


@njit(inline="always")
def _count_game(acc, off, st, R, score, win, r, players, seat_pid, hist, rows, turns,
                decisions, asked, report, kinds, has_own):
    """Add a finished game to ``acc``: ``score`` its final scores, ``win`` the winner, ``r``
    its rotation; with ``has_own`` what slot ``own`` played (``report``); ``hist`` has
    room for one row more."""
    acc[off[O_GAMES]] += 1
    if win >= 0:
        acc[off[O_WINS] + win] += 1
        acc[off[O_SLOT_WINS] + (win - r) % players] += 1
        if turns > 0:
            rows = _turn_end(hist, rows, turns - 1, score, players)
            course(acc, off, hist, rows, turns, players, win)
    else:
        acc[off[O_NO_WINNER]] += 1
    top = top_score(score, players)
    at_top = 0
    for s in range(players):
        at_top += score[s] == top
        acc[off[O_SCORE] + s] += score[s]
        acc[off[O_SCORE_SQ] + s] += score[s] * score[s]
    if at_top > 1:
        acc[off[O_TIED]] += 1
    acc[off[O_DECISIONS]] += decisions
    acc[off[O_DECISIONS_SQ]] += decisions * decisions
    acc[off[O_TURNS]] += turns
    acc[off[O_TURNS_SQ]] += turns * turns
    acc[off[O_ASKED]] += asked
    if has_own:  # what the machine played itself
        acc[off[O_ASKED]] += report[P_ASKED]
        for k in range(kinds):
            acc[off[O_KIND_DECISIONS] + k] += report[P_KINDS + k]
            acc[off[O_KIND_OPTIONS] + k] += report[P_KINDS + kinds + k]
            acc[off[O_KIND_FORCED] + k] += report[P_KINDS + 2 * kinds + k]
    machine_tally(st, R, acc[off[O_GAME]:], seat_pid, r)


@njit
def play_games(R, players, pids, rotate, seed, games, sizes, kind_phase, off, out, scratch,
               users):
    """Play the games ``games`` (int64 game indices, e.g. a range; ``n_games`` of them)
    of ``seed``.

    ``pids`` (roles x players, role-major): the policy id of each slot in each role (one
    role unless the machine defines the slot ``role``: a decision of kind ``k`` is asked
    of the seat's policy of role ``role(k)``); with ``rotate`` game ``g`` seats slot ``j``
    at seat ``(j + g) % players``. ``sizes``/``off``: :mod:`~.layout`'s ``Z_*`` sizes and
    accumulator offsets, ``kind_phase`` the stream phase of each decision kind;
    ``out`` is the outputs record (:data:`~.layout.Outputs`): ``acc`` is added to (if
    it has no entries, nothing is counted: a run that reads only the outcomes);
    ``winners`` (n_games) and
    ``final_scores`` (n_games, players) get each game's outcome when they have
    ``n_games`` rows (else they have none), and so does ``results`` (``RESULT_LEN``
    columns) each game's own result (slot ``result``); ``log`` gets one row per decision
    (a trace: ``n_games`` is 1) while it has room, ``fail[F_CODE]`` is set at the first
    failure and the chunk stops there. With ``log`` rows (a trace) the game's own
    events (slots ``trace_on``/``events``) go to ``events`` while it has room and the
    final state to ``final_st`` (else both have no rows). ``scratch``: the machine's own
    scratch for the chunk (slot ``own``), None for a machine without ``own`` (numba
    then compiles nothing of it).
    ``users``: the first plug-in's
    policy id, then the plug-ins as function values (:func:`ask`). Returns ``(log rows,
    event rows)`` written."""
    acc, winners, final_scores, log, fail = out.acc, out.winners, out.scores, out.log, out.fail
    events, final_st, results = out.events, out.final, out.results
    n_games = games.shape[0]
    state_n = sizes[Z_STATE]
    st = np.zeros(state_n + sizes[Z_SCRATCH], dtype=np.int64)  # the state, the game's scratch
    opts = np.zeros((sizes[Z_OPTIONS], sizes[Z_OPTION_WIDTH]), dtype=np.int64)
    seen = new_view(sizes[Z_VIEW])  # the asked seat's view (VIEW_DTYPE)
    max_decisions = sizes[Z_MAX_DECISIONS]
    kinds = sizes[Z_KINDS]
    chance_n = sizes[Z_CHANCE]
    phases = sizes[Z_PHASES]
    # rows: the chance purposes, then each phase's seat streams
    streams = np.zeros((chance_n + phases * players, 2), dtype=np.uint64)
    score = np.zeros(players, dtype=np.int64)
    roles = sizes[Z_ROLES]
    seat_pid = np.zeros(roles * players, dtype=np.int64)  # role-major, as pids
    counting = acc.shape[0] > 0  # else only the outcomes are read: no counts at all
    outcomes = winners.shape[0] > 0
    own_results = results.shape[0] > 0
    # every seat's score at the end of a turn where one changed, then the turn: grown
    hist = np.zeros((64, players + 1), dtype=np.int64)
    has_own = sizes[Z_OWN] > 0  # the machine plays stretches itself (slot own)
    report = np.zeros(P_KINDS + 3 * kinds, dtype=np.int64)  # what the stretches played
    # the stretches one call of own played: seat, decisions, every seat's score after it
    played = np.zeros((sizes[Z_OWN], 2 + players), dtype=np.int64)
    logged = 0
    evn = 0
    trace = log.shape[0] > 0
    for i in range(n_games):
        game = games[i]
        key_game(streams, seed, game, chance_n, phases, players)
        chance = streams[0:chance_n]
        r = game % players if rotate else 0
        for q in range(roles):
            for s in range(players):
                seat_pid[q * players + s] = pids[q * players + (s - r) % players]
        st[:state_n] = 0
        if trace:
            machine_trace_on(st, R)
        machine_start(st, R, players, chance)
        machine_seated(st, R, seat_pid)
        if trace:
            evn += machine_events(st, R, events[evn:])
        if has_own:
            for j in range(report.shape[0]):
                report[j] = 0
        decisions = 0
        turns = 0
        rows = 0  # of hist
        asked = 0
        last = -1
        while True:
            seat, kind, n = machine_to_move(st, R, opts)
            if seat < 0:
                break
            if n == 0 and seat < players:  # stretches the machine plays itself (own)
                if scratch is not None:  # (pruned by numba for a machine without own)
                    while rows + played.shape[0] >= hist.shape[0]:
                        hist = _grown(hist)
                    if counting:  # every seat's score before them
                        machine_scores(st, R, score)
                    done = machine_own(st, R, seat, streams, scratch, report, played)
                    rows, turns, last, d = _stretches(st, scratch, played, done, counting,
                                                      score, players, hist, rows, turns, last)
                    decisions += d
                    if trace:
                        evn += machine_own_events(st, R, scratch, events[evn:])
                    if decisions > max_decisions:
                        record_failure(fail, TOO_LONG, game, seat, -1, -1, n, kind)
                        return logged, evn
                    continue
            if seat >= players or kind < 0 or kind >= kinds or n < 1 or n > opts.shape[0]:
                record_failure(fail, RULES_BROKEN, game, seat, -1, -1, n, kind)
                return logged, evn
            if decisions >= max_decisions:
                record_failure(fail, TOO_LONG, game, seat, -1, -1, n, kind)
                return logged, evn
            if seat != last:
                if last >= 0 and counting:  # the turn that ends here: every seat's score
                    machine_scores(st, R, score)
                    if _changed(hist, rows, score, players):
                        hist = _record(hist, rows, turns - 1, score, players)
                        rows += 1
                turns += 1
                last = seat
            choice = 0
            pid = seat_pid[machine_role(kind) * players + seat]  # its policy of the kind's role
            if n > 1:  # a lone option is taken without asking
                if machine_needs_view(pid, kind):
                    machine_view(st, R, seat, seen)
                own = chance_n + kind_phase[kind] * players + seat  # the seat's own stream
                choice = ask(pid, kind, seen, opts[:n], n, sizes[Z_KIND_WIDTHS + kind],
                             streams[own:own + 1], users, R)
                if choice < 0 or choice >= n:
                    bad_choice(fail, game, seat, pid, choice, n, kind)
                    return logged, evn
                asked += 1
            if counting:
                acc[off[O_KIND_DECISIONS] + kind] += 1
                acc[off[O_KIND_OPTIONS] + kind] += n
                if n == 1:
                    acc[off[O_KIND_FORCED] + kind] += 1
            tracing = logged < log.shape[0]
            if tracing:  # the chosen option as offered, before apply may reuse opts
                row = log[logged]
                row[L_SEAT] = seat
                row[L_KIND] = kind
                row[L_N] = n
                row[L_CHOICE] = choice
                row[L_ASKED] = n > 1
                row[L_PID] = pid
                _put(row, LOG_HEAD, opts[choice], opts.shape[1])
            machine_apply(st, R, seat, kind, opts, choice, chance)
            decisions += 1
            if trace:
                evn += machine_events(st, R, events[evn:])
            if tracing:  # every seat's score after the decision
                machine_scores(st, R, score)
                w = LOG_HEAD + opts.shape[1]
                _put(log[logged], w, score, players)
                logged += 1
        machine_scores(st, R, score)
        win = machine_winner(st, R)
        if counting:
            if rows >= hist.shape[0]:
                hist = _grown(hist)
            _count_game(acc, off, st, R, score, win, r, players, seat_pid, hist, rows, turns,
                        decisions, asked, report, kinds, has_own)
        if outcomes:
            winners[i] = win
            _put(final_scores[i], 0, score, players)
        if own_results:
            machine_result(st, R, results[i])
        if trace:
            for j in range(final_st.shape[0]):
                final_st[j] = st[j]
    return logged, evn


@kernel
def play_own_games(R, players, pids, rotate, seed, games, sizes, off, out, scratch, work):
    """:func:`play_games` (the same counts and outcomes) for a line-up the machine plays
    itself from start to end (slot ``own``: built-ins alone, a machine declaring
    ``OWN_BUILTINS``): no policy is asked, so nothing of asking, applying or logging a
    decision is compiled in (a trace runs :func:`play_games`), and it allocates nothing
    (``work``: :data:`~.layout.OwnWork`, whose ``hist`` has room for every turn a game
    can have before it runs past ``MAX_DECISIONS``), so it is compiled without numba's
    reference counting (:func:`sheepsim.jit.kernel`). ``to_move`` only tells the game's
    end. Returns ``(0, 0)``."""
    acc, winners, final_scores, fail = out.acc, out.winners, out.scores, out.fail
    results = out.results
    st, opts, streams, score = work.st, work.opts, work.streams, work.score
    seat_pid, hist, report, played = work.seat_pid, work.hist, work.report, work.played
    n_games = games.shape[0]
    state_n = sizes[Z_STATE]
    max_decisions = sizes[Z_MAX_DECISIONS]
    kinds = sizes[Z_KINDS]
    chance_n = sizes[Z_CHANCE]
    phases = sizes[Z_PHASES]
    counting = acc.shape[0] > 0
    outcomes = winners.shape[0] > 0
    own_results = results.shape[0] > 0
    zero = np.int64(0)
    for i in range(n_games):
        game = games[i]
        key_game(streams, seed, game, chance_n, phases, players)
        r = game % players if rotate else 0
        for s in range(players):
            seat_pid[s] = pids[(s - r) % players]
        for j in range(state_n):
            st[j] = 0
        machine_start(st, R, players, streams[0:chance_n])
        machine_seated(st, R, seat_pid)
        for j in range(report.shape[0]):
            report[j] = 0
        decisions = zero
        turns = zero
        rows = zero
        last = zero - 1
        while True:
            seat, kind, n = machine_to_move(st, R, opts)
            if seat < 0:
                break
            if n != 0 or seat >= players:  # a decision to ask: not a line-up for this entry
                record_failure(fail, RULES_BROKEN, game, seat, -1, -1, n, kind)
                return zero, zero
            if rows + played.shape[0] >= hist.shape[0]:  # (room while decisions fit)
                record_failure(fail, TOO_LONG, game, seat, -1, -1, n, kind)
                return zero, zero
            if counting:  # every seat's score before them
                machine_scores(st, R, score)
            done = machine_own(st, R, seat, streams, scratch, report, played)
            rows, turns, last, d = _stretches(st, scratch, played, done, counting, score,
                                              players, hist, rows, turns, last)
            decisions += d
            if decisions > max_decisions:
                record_failure(fail, TOO_LONG, game, seat, -1, -1, n, kind)
                return zero, zero
        machine_scores(st, R, score)
        win = machine_winner(st, R)
        if counting:
            _count_game(acc, off, st, R, score, win, r, players, seat_pid, hist, rows, turns,
                        decisions, zero, report, kinds, True)
        if outcomes:
            winners[i] = win
            _put(final_scores[i], 0, score, players)
        if own_results:
            machine_result(st, R, results[i])
    return zero, zero
