"""The ``win`` bet policy (whole games): in the final, the pair of bets with the highest
chance of winning the game; in the semifinals, the ``ev`` bets.

The final's bets are all hidden and simultaneous, so a seat sees no rival's final bet;
what it sees at the table is the scores, the stack of score tokens (``stamp``: the
higher the later a token moved, so the higher on top) and the final's first player
(``start``, the score leader). Given the lane that wins the final and every seat's pair,
the game's winner is decided (:func:`game_winner`: points are paid in turn order from
``start``, a token that scores goes on top, then the most points wins, ties to the token
on top; ``engine.score_race`` and ``engine.leader`` as one function), so the chance of
winning the game is one more objective on the deal's exact distribution of the final's
winner (the one solve ``ev`` seats read). Rivals are assumed to bet the pair of highest
expected points, the ``ev`` policy's choice (as ``race ev --scores`` assumes by default,
:mod:`sheepsim.games.race.standings`). The pair with the highest chance wins; among
equal chances the higher expected points, then the first in pair order (the order of
``race ev --objective win``'s table): when no pair can win the game, or all win it
surely, ``win`` bets as ``ev``.

In a semifinal ``win`` bets as ``ev``: a semifinal's chance of winning the game depends on
the two races after it, which no exact solve of one race gives (``race ev`` refuses the
``win`` objective there too).
"""

import numpy as np

from sheepsim.games.race.exact.game import exact_ev_bets
from sheepsim.games.race.layout import BET_FINAL, N_LANES
from sheepsim.jit import njit


@njit
def game_winner(scores, stamp, start, bets, payoffs, w):
    """The seat that wins the game when lane ``w`` wins the final, the seats holding
    ``bets`` ``(n, 6)`` (1 = bet) with ``scores`` and token ``stamp`` ``(n,)`` before the
    final whose first player is ``start``."""
    n = scores.shape[0]
    top = 0
    for k in range(n):
        top = max(top, stamp[k])
    best, best_score, best_stamp = -1, -1, -1
    for i in range(n):
        p = (start + i) % n
        score, st = scores[p], stamp[p]
        if bets[p, w] != 0 and payoffs[3, w] > 0:  # paid in turn order: lands on top
            score += payoffs[3, w]
            st = top + 1 + i
        if score > best_score or (score == best_score and st > best_stamp):
            best, best_score, best_stamp = p, score, st
    return best


@njit
def final_pair_values(seat, scores, stamp, start, joint, payoffs, bonus):
    """``(p_win (6, 6), ev (6, 6), rival pair (2,))``: for each pair ``a < b`` of final
    bets of ``seat``, the chance of winning the game and the expected points, every rival
    on the ``ev`` pair; ``joint`` the deal's ``(216,)`` distribution (the winner at
    ``36 * lane``)."""
    n = scores.shape[0]
    rival = np.zeros(2, np.int64)
    exact_ev_bets(BET_FINAL, joint, payoffs, bonus, np.zeros(N_LANES, np.bool_), -1, rival)
    bets = np.zeros((n, N_LANES), np.int64)
    for k in range(n):
        if k != seat:
            bets[k, rival[0]] = 1
            bets[k, rival[1]] = 1
    p_win = np.full((N_LANES, N_LANES), -1.0)
    ev = np.zeros((N_LANES, N_LANES))
    for a in range(N_LANES):
        for b in range(a + 1, N_LANES):
            bets[seat, :] = 0
            bets[seat, a] = 1
            bets[seat, b] = 1
            p = 0.0
            for w in range(N_LANES):
                if game_winner(scores, stamp, start, bets, payoffs, w) == seat:
                    p += joint[36 * w]
            p_win[a, b] = p
            ev[a, b] = joint[36 * a] * payoffs[3, a] + joint[36 * b] * payoffs[3, b]
    return p_win, ev, rival


@njit
def win_final_pair(seat, scores, stamp, start, joint, payoffs, bonus, out):
    """The ``win`` policy's final bets for ``seat``: ``out[0] < out[1]``."""
    p_win, ev, _ = final_pair_values(seat, scores, stamp, start, joint, payoffs, bonus)
    best_p, best_ev = -1.0, -np.inf
    for a in range(N_LANES):
        for b in range(a + 1, N_LANES):
            if p_win[a, b] > best_p or (p_win[a, b] == best_p and ev[a, b] > best_ev):
                best_p, best_ev = p_win[a, b], ev[a, b]
                out[0], out[1] = a, b


@njit
def win_bets(kind, joint, payoffs, bonus, taken, my_open, seat, standings, start, out):
    """The ``win`` bet policy for ``seat`` (the engine's call, as ``exact_ev_bets``):
    ``standings`` ``(scores, stamp)`` before this race, ``start`` its first player.
    Semifinals: the ``ev`` bets; the final: :func:`win_final_pair`."""
    if kind != BET_FINAL:
        exact_ev_bets(kind, joint, payoffs, bonus, taken, my_open, out)
        return
    scores, stamp = standings
    win_final_pair(seat, scores, stamp, start, joint, payoffs, bonus, out)
