"""Hand-built Aw, Sheep! states for the rules tests (hands as dicts of card kinds), and the
round's state machine (:mod:`sheepsim.games.awsheep.machine`) driven step by step as the
harness drives it: the seat's own stream, the view only when the policy reads it, every
event recorded."""

import numpy as np

from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep import machine as M
from sheepsim.games.awsheep.policies import POLICY_IDS, decide
from sheepsim.games.awsheep.rules import load_rules
from sheepsim.harness.loop import key_game

KIND = {name: i for i, name in enumerate(L.KIND_NAMES)}
#: the steps that belong to the turn being played (its sub-decisions, the Sheep Show)
WITHIN_TURN = (M.GIVE, M.RETURN, M.DISCARD, M.GUESS)


def rules_vector(players=4, **options):
    """The machine's rules vector (no card value replacement) with ``options`` set."""
    R = np.concatenate([load_rules().kernel_array(players), [-1, -1]]).astype(np.int64)
    for key, value in options.items():
        R[getattr(L, f"R_{key.upper()}")] = value
    return R


def state(hands, pile=(), run=None, track=True):
    """A state with ``hands`` (one dict kind name -> count per seat) and ``pile``,
    recording its events."""
    n = len(hands)
    st = np.zeros(M.state_size(n) + M.SCRATCH_LEN, dtype=np.int64)
    st[L.ST_N_PLAYERS] = n
    st[L.ST_TRACK] = int(track)
    st[M.X_TRACE] = 1
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


class Table:
    """The policies at the table (by name per seat) and the streams of ``game`` of
    ``seed`` keyed as the harness keys them; ``events`` the rows the machine recorded."""

    def __init__(self, policies, seed=0, game=0):
        n = len(policies)
        self.n = n
        self.streams = np.zeros((M.CHANCE_STREAMS + 2 * n, 2), dtype=np.uint64)
        key_game(self.streams, seed, game, M.CHANCE_STREAMS, 2, n)
        self.chance = self.streams[:M.CHANCE_STREAMS]
        self.seat_pid = np.array([POLICY_IDS[p] for p in policies], dtype=np.int64)
        self.opts = np.zeros((M.MAX_OPTIONS, M.OPTION_WIDTH), dtype=np.int64)
        self.view = np.zeros(M.VIEW_LEN, dtype=np.int64)
        self.events = []
        self._out = np.zeros((M.EVENT_CAP, M.EVENT_WIDTH), dtype=np.int64)

    def collect(self, st, R):
        m = M.events(st, R, self._out)
        self.events += [tuple(int(x) for x in row) for row in self._out[:m]]

    def step(self, st, R):
        """The pending decision, asked and applied (a lone option taken unasked)."""
        seat, kind, n = M.to_move(st, R, self.opts)
        assert seat >= 0 and n >= 1
        choice = 0
        if n > 1:
            pid = self.seat_pid[seat]
            if M.needs_view(pid, kind):
                M.view(st, R, seat, self.view)
            row = M.CHANCE_STREAMS + M.KIND_PHASES[kind] * self.n + seat
            choice = decide(pid, kind, self.view, self.opts[:n], n, self.streams[row:row + 1])
            assert 0 <= choice < n
        M.apply(st, R, seat, kind, self.opts, choice, self.chance)
        self.collect(st, R)

    def finish_turn(self, st, R):
        """Every decision left in the turn (Doghouse, Methane, the Sheep Show)."""
        while st[M.X_STEP] in WITHIN_TURN:
            self.step(st, R)


def scratch(policies, seed=0, game=0):
    return Table(policies, seed, game)


def deal(st, R, t):
    """The deal alone (no draft, whatever ``R`` says): the first player's turn waits."""
    st[:M.state_size(t.n)] = 0
    st[M.X_TRACE] = 1
    R = R.copy()
    R[L.R_DRAFT] = 0
    M.start(st, R, t.n, t.chance)
    M.seated(st, R, t.seat_pid)
    t.collect(st, R)


def draft(st, R, t):
    """The Animal Auction on the dealt hands (they become the packs) until play starts."""
    n = st[L.ST_N_PLAYERS]
    for i in range(n * L.N_KINDS):
        st[L.ST_START_HAND + i] = st[L.ST_HAND + i]
        st[L.ST_HAND + i] = 0
    st[M.X_STEP], st[M.X_SEAT], st[M.X_PICK] = M.DRAFT, 0, 0
    while st[M.X_STEP] == M.DRAFT:
        t.step(st, R)


def play_turn(st, R, t, seat):
    """``seat``'s whole turn: its play, the decisions the card asks of others and the end
    check (the Flock Off and the Sheep Show included)."""
    M.begin_turn(st, seat)
    t.step(st, R)
    t.finish_turn(st, R)


def resolve(st, R, t, seat, kind, target):
    """``seat`` has played ``kind`` at ``target`` (the card not taken from its hand): the
    effect, then the rest of the turn."""
    M.begin_turn(st, seat)
    M.resolve(st, R, seat, kind, target, t.chance)
    t.collect(st, R)
    t.finish_turn(st, R)


def check_end(st, R, t):
    """The end check after a turn (the Flock Off and Sheep Show played out)."""
    M.check_end(st, R, t.chance)
    t.collect(st, R)
    t.finish_turn(st, R)


def sheep_show(st, R, t):
    """The Sheep Show among the seats marked tied."""
    M.show_card(st, 0, t.chance)
    t.collect(st, R)
    t.finish_turn(st, R)


def start_round(st, R, t):
    """A fresh round up to the first player's turn: the deal and, if ``R`` says so, the
    draft (and the card value's replacement, machine ``RX_*``)."""
    st[:M.state_size(t.n)] = 0
    M.start(st, R, t.n, t.chance)
    M.seated(st, R, t.seat_pid)
    while st[M.X_STEP] == M.DRAFT:
        t.step(st, R)


def play_round(st, R, t):
    """A whole round from the deal."""
    start_round(st, R, t)
    while st[M.X_STEP] != M.OVER:
        t.step(st, R)


next_seat = M.next_seat


def hand(st, seat):
    """``{kind name: count}`` of the cards ``seat`` holds."""
    row = st[L.ST_HAND + seat * L.N_KINDS:L.ST_HAND + (seat + 1) * L.N_KINDS]
    return {L.KIND_NAMES[k]: int(c) for k, c in enumerate(row) if c}


def pile(st):
    return [L.KIND_NAMES[k] for k in st[L.ST_PILE:L.ST_PILE + st[L.ST_PILE_LEN]]]


def events(t):
    """The recorded events as ``(event, seat, kind, target, a, b)`` tuples."""
    return [e[:6] for e in t.events]


def total_cards(st):
    """Cards in hands + pile + set aside, by kind."""
    n = st[L.ST_N_PLAYERS]
    hands = st[L.ST_HAND:L.ST_HAND + n * L.N_KINDS].reshape(n, L.N_KINDS).sum(axis=0)
    on_pile = np.bincount(st[L.ST_PILE:L.ST_PILE + st[L.ST_PILE_LEN]], minlength=L.N_KINDS)
    return hands + on_pile + st[L.ST_ASIDE:L.ST_ASIDE + L.N_KINDS]
