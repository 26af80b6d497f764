"""One race's betting rounds played on the race machine's own slots
(``sheepsim/games/race/machine.py``), decision by decision as the harness asks them: the
bet rows of ``to_move``, the built-in bet policies of ``decide_rules`` (``machine_bets``,
the ``ev``/``win`` bets of ``exact_bets``), the bets written by ``apply``. For the
tests of the betting rules and of the bet policies in whole games.

The slots run as Python (``py_func``, as :mod:`sheepsim.testing.reference` reads the
harness's loop); what they call (the bet policies, the exact solver) runs compiled, so
nothing is compiled here that whole games do not compile already, but the Python entry
points of what they call.
"""

from __future__ import annotations

import numpy as np

from sheepsim.games.race import machine as M
from sheepsim.games.race import policies as P
from sheepsim.harness.loop import key_game


def _py(fn):
    return getattr(fn, "py_func", fn)


def bet_rounds(rules, lane_cards, final, bet_ids, first, pace_ids=None, standings=None,
               odds=None, payoffs=None, seed=(5, 0)):
    """The bets of one race: the open and hidden rounds of a semifinal, or the final's
    round (``final``), each in turn order from seat ``first``.

    ``rules`` a :class:`~sheepsim.games.race.rules.RaceRules`; ``lane_cards`` ``(6,)``
    the race's cards by lane; ``bet_ids`` ``(n,)`` each seat's bet policy id;
    ``pace_ids`` ``(n,)`` their pace policy ids (None: every seat ``greedy``), which the
    ``ev``/``win`` bets' exact odds assume (``exact.game.odds_pace``); ``standings``
    ``(scores (n,), stamp (n,))`` before the race (the ``win`` bets read them; default
    zeros and the stack ``n, ..., 1`` from seat 0); ``odds`` ``(6, 3)`` the race's
    public odds (default: from zero card odds, all zero); ``payoffs`` ``(payoffs (4, 6),
    bonus (2,))`` in place of the rules'. The seats' bet streams are keyed by ``seed``
    ``(seed, game)`` as the harness keys a game's.

    Returns ``(bets (n, 6), open lanes (n,), rival_open (n, 6))``: 1 where a seat bet,
    its open bet (-1: none), how many rivals bet each lane openly.
    """
    n = len(bet_ids)
    bet_ids = np.asarray(bet_ids, dtype=np.int64)
    pace_ids = np.full(n, P.GREEDY, np.int64) if pace_ids is None else \
        np.asarray(pace_ids, dtype=np.int64)
    pids = np.concatenate([bet_ids, pace_ids])
    zero = np.zeros((len(rules.cards), 6, 3))
    R = list(M.make_R(rules, n, (zero, zero), pids))
    if payoffs is not None:
        R[M.X_PAY], R[M.X_BON] = payoffs
    R = tuple(R)
    scores, stamp = standings if standings is not None else \
        (np.zeros(n, np.int64), np.arange(n, 0, -1, dtype=np.int64))
    st = np.zeros(M.state_size(n), dtype=np.int64)
    st[M.N], st[M.START], st[M.RIDX] = n, first, 2 if final else 0
    st[M.SC:M.SC + n] = scores
    R[M.X_STAMP][:] = stamp
    (R[M.X_FINALC] if final else R[M.X_DECK][:6])[:] = lane_cards
    _py(M.begin_race)(st, R[M.X_LANES], R[M.X_DECK], R[M.X_FINALC], R[M.X_CO_SEMI],
                      R[M.X_CO_FINAL], R[M.X_ODDS], R[M.X_W])
    if odds is not None:
        R[M.X_ODDS][:] = odds
    _py(M.seated)(st, R, pids)
    streams = np.zeros((M.CHANCE_STREAMS + 2 * n, 2), dtype=np.uint64)
    key_game(streams, seed[0], seed[1], M.CHANCE_STREAMS, 2, n)
    chance = streams[:M.CHANCE_STREAMS]
    opts = np.zeros((M.MAX_OPTIONS, M.OPTION_WIDTH), dtype=np.int64)
    view = np.zeros(1)
    to_move, apply, decide = _py(M.to_move), _py(M.apply), _py(M.decide_rules)
    while True:
        seat, kind, m = to_move(st, R, opts)
        if kind == M.PACE:  # the bets are done: the race (own) is next
            break
        assert m >= 1
        choice = 0
        if m > 1:  # a lone option is taken without asking, as the harness does
            row = M.CHANCE_STREAMS + M.KIND_PHASES[kind] * n + seat
            choice = decide(bet_ids[seat], kind, view, opts[:m], m, streams[row:row + 1], R)
            assert 0 <= choice < m
        apply(st, R, seat, kind, opts, choice, chance)
    w = R[M.X_W]
    return R[M.X_BETS].copy(), w[M.W_OPEN:M.W_OPEN + n].copy(), R[M.X_RIVAL].copy()
