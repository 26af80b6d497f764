"""Hand-built Aw, Sheep! states for the rules tests (hands as dicts of card kinds)."""

import numpy as np

from sheepsim import rng
from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep.kernels import new_scratch
from sheepsim.games.awsheep.rules import load_rules

KIND = {name: i for i, name in enumerate(L.KIND_NAMES)}


def rules_vector(players=4, **options):
    R = load_rules().kernel_array(players)
    for key, value in options.items():
        R[getattr(L, f"R_{key.upper()}")] = value
    return R


def state(hands, pile=(), run=None, track=True):
    """A state with ``hands`` (one dict kind name -> count per seat) and ``pile``."""
    n = len(hands)
    st = np.zeros(L.ST_LEN, dtype=np.int64)
    st[L.ST_N_PLAYERS] = n
    st[L.ST_TRACK] = int(track)
    for s, hand in enumerate(hands):
        for name, c in hand.items():
            st[L.ST_HAND + s * L.N_KINDS + KIND[name]] = c
    for i, name in enumerate(pile):
        st[L.ST_PILE + i] = KIND[name]
    st[L.ST_PILE_LEN] = len(pile)
    st[L.ST_RUN] = 0 if run is None else run
    return st


def fill_aside(st, R):
    """Put the deck's cards not in a hand or on the pile aside (a consistent deal)."""
    st[L.ST_ASIDE:L.ST_ASIDE + L.N_KINDS] = 0
    st[L.ST_ASIDE:L.ST_ASIDE + L.N_KINDS] = R[L.R_DECK:L.R_DECK + L.N_KINDS] - total_cards(st)
    assert (st[L.ST_ASIDE:L.ST_ASIDE + L.N_KINDS] >= R[L.R_REMOVE:L.R_REMOVE + L.N_KINDS]).all()
    return st


def scratch(policies, seed=0, game=0, log_rows=256):
    """``w`` for the kernels: policies by name per seat, streams keyed, log on."""
    from sheepsim.games.awsheep.policies import POLICY_IDS

    w = new_scratch(log_rows)
    key_streams(w, seed, game, len(policies))
    w.ctx[L.CTX_LOG_ON] = 1
    w.ctx[L.CTX_PHASE] = L.PHASE_PLAY
    for s, p in enumerate(policies):
        w.seat_pid[s] = POLICY_IDS[p]
    return w


def key_streams(w, seed, game, seats):
    """Key ``w``'s streams for ``game`` of ``seed`` as ``kernels.start_game`` does: the
    game's rows by ``(seed, game, row)``, each seat's play and draft rows by ``(seed,
    game, seat, phase)``."""
    for row in range(L.N_GAME_STREAMS):
        rng.seed_stream(w.streams, row, seed, game)
    for s in range(seats):
        rng.seed_policy_stream(w.streams, L.S_POLICY + s, seed, game, s, L.PHASE_PLAY)
        rng.seed_policy_stream(w.streams, L.S_DRAFT + s, seed, game, s, L.PHASE_DRAFT)


def hand(st, seat):
    """``{kind name: count}`` of the cards ``seat`` holds."""
    row = st[L.ST_HAND + seat * L.N_KINDS:L.ST_HAND + (seat + 1) * L.N_KINDS]
    return {L.KIND_NAMES[k]: int(c) for k, c in enumerate(row) if c}


def pile(st):
    return [L.KIND_NAMES[k] for k in st[L.ST_PILE:L.ST_PILE + st[L.ST_PILE_LEN]]]


def events(w):
    """The trace log rows as ``(event, seat, kind, target, a, b)`` tuples."""
    log = w.log[:w.ctx[L.CTX_LOG_N]]
    return [tuple(int(x) for x in row[:6]) for row in log]


def total_cards(st):
    """Cards in hands + pile + set aside, by kind."""
    n = st[L.ST_N_PLAYERS]
    hands = st[L.ST_HAND:L.ST_HAND + n * L.N_KINDS].reshape(n, L.N_KINDS).sum(axis=0)
    on_pile = np.bincount(st[L.ST_PILE:L.ST_PILE + st[L.ST_PILE_LEN]], minlength=L.N_KINDS)
    return hands + on_pile + st[L.ST_ASIDE:L.ST_ASIDE + L.N_KINDS]
