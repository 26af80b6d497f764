"""Plain-integer layouts shared by the Aw, Sheep! kernels (no numba here).

Cards of one kind are interchangeable, so a hand is a count vector over the six kinds
(``N_KINDS``); only the discard pile keeps an order (the Sheep Show reads it). The
kernels work on flat ``int64`` vectors:

* the **rules vector** ``R`` (``R_LEN``): one player count's rules
  (:meth:`sheepsim.games.awsheep.rules.AwSheepRules.kernel_array`);
* the **state vector** ``st`` (``ST_LEN``): hands, pile, set-aside cards, turn, run,
  and the public-knowledge bookkeeping (what each player has seen of each hand);
* the **view vector** ``view`` (``V_LEN``, offsets ``V_*``): what one player sees, the
  only game data a policy receives;
* the **option rows** ``opts`` (``(n, OPT_WIDTH)``, columns by decision kind ``K_*``);
* the **accumulator** ``acc`` (``ACC_LEN``): integer counts summed over games;

Vectors are laid out with :func:`sheepsim.kernelstate.alloc` (the conventions shared by
the games).
"""

from sheepsim.kernelstate import alloc

# ------------------------------------------------------------------------- cards
DOGHOUSE, METHANE, HORSE, PIG, SHEEP, GOLDEN = range(6)
N_KINDS = 6
KIND_NAMES = ("doghouse", "methane", "horse", "pig", "sheep", "golden")
KIND_TITLES = ("In the Doghouse", "Power of Methane", "Horsin' Around", "Piggin' Out",
               "Feelin' Sheepish", "Gold Baaahhrs")
ACTION_KINDS = (DOGHOUSE, METHANE, HORSE, PIG)
# Knowledge slot for "a sheep card, plain or golden, not known which" (after an
# observed Piggin' Out); slots 0..5 are the kinds themselves.
ANY_SHEEP = 6
N_KNOW = 7

# kernel array sizes: the declaration's player range (game.py), written as numbers because
# importing the declaration would key every kernel's cache on the whole package (the
# registry names every module); tests/test_declared_once.py checks they are the
# declaration's
MIN_PLAYERS, MAX_PLAYERS = 3, 6  # kernel sizes
MAX_DECK = 64  # a variant deck may hold at most this many cards
NO_TARGET = -1

# ------------------------------------------------------------ random purposes
# The game's chance streams (machine ``CHANCE_STREAMS``). The game's own rows (S_CHANCE, S_DEAL, S_TIE) are
# keyed by ``(seed, game, row)`` with ``sheepsim.rng.seed_stream`` (the keyed streams every
# game uses). Every seat draws its decisions from its own rows, keyed by ``(seed, game,
# seat, phase)`` with ``sheepsim.rng.seed_policy_stream`` (Philox: a policy's stream tells
# nothing about the deal): changing one seat's policy leaves every other seat's draws as
# they were (common random numbers for head-to-heads and card values).
S_CHANCE = 0     # first player, random Doghouse draws (the shared DICE number)
S_DEAL = 1       # shuffle, set aside, deal (the shared DEAL number)
S_TIE = 2        # the fair draw that ends an undecided Sheep Show
N_GAME_STREAMS = 3  # rows 0..2: the game's own streams
PHASE_PLAY, PHASE_DRAFT = 0, 1  # a seat's stream phases (seed_policy_stream's ``phase``)
PHASE_NAMES = ("play", "draft")
# (the harness keys a seat's stream of each phase; a draft pick is PHASE_DRAFT, every
# other decision PHASE_PLAY: play decisions draw the same whether the draft is on or off)

# ------------------------------------------------------------------ decisions
# A policy answers one of these (its ``kind`` argument; the name in the trace's
# ``decisions`` table is KIND_DECISIONS[kind]); options are rows ``[a, b]``:
K_PLAY = 0      # [kind, target or NO_TARGET]: the card to play and its target
K_GIVE = 1      # [kind, target]: Doghouse, the card given to the target
K_RETURN = 2    # [kind, actor]: Doghouse target, one of the two cards handed over
K_DISCARD = 3   # [kind, actor]: Methane target, one of the two cards discarded
K_DRAFT = 4     # [kind, copies in the pack]: the card kept from the pack in hand
K_GUESS = 5     # [1 sheep / 0 not a sheep, pile position]: Sheep Show guess
KIND_DECISIONS = ("play", "give", "return", "discard", "draft", "guess")
OPT_WIDTH = 2
MAX_OPTS = N_KINDS * MAX_PLAYERS + 2

# ---------------------------------------------------------------- end reasons
END_LAST, END_FLOCK_OFF, END_SHEEP_SHOW, END_DRAW = range(4)
END_NAMES = ("last_with_cards", "flock_off", "sheep_show", "draw")


# ------------------------------------------------------------------- rules R
_r, R_LEN = alloc([
    ("n_players", 1), ("deck", N_KINDS), ("remove", N_KINDS), ("aside_random", 1),
    ("hand_size", 1), ("golden_worth", 1), ("draft", 1), ("taker_chooses", 1),
    ("tie_break", 1), ("run_passes", 1),
])
R_N_PLAYERS = _r["n_players"]
R_DECK = _r["deck"]              # cards of each kind in the box
R_REMOVE = _r["remove"]          # removed by kind before the random set-aside
R_ASIDE_RANDOM = _r["aside_random"]
R_HAND_SIZE = _r["hand_size"]    # cards dealt to each player
R_GOLDEN_WORTH = _r["golden_worth"]
R_DRAFT = _r["draft"]
#: 1: the Doghouse player draws the target's two cards at random (``doghouse_cards =
#: "drawn_at_random"``, formerly ``doghouse_taker_chooses = true``); 0: the target chooses
R_TAKER_CHOOSES = _r["taker_chooses"]
DOGHOUSE_CARDS_NAMES = ("target_chooses", "drawn_at_random")  # index = R_TAKER_CHOOSES
R_TIE_BREAK = _r["tie_break"]    # TIE_SHEEP_SHOW or TIE_DRAW
TIE_SHEEP_SHOW, TIE_DRAW = 0, 1
TIE_BREAK_NAMES = ("sheep_show", "draw")
#: 1: a run of sheep that passes the players still in starts the Flock Off too (a player
#: who goes out on their last sheep lowers the count as the run grows); 0: only equal
R_RUN_PASSES = _r["run_passes"]
FLOCK_OFF_RUN_NAMES = ("equals", "reaches")  # index = R_RUN_PASSES

# ------------------------------------------------------------------ state st
# What a play did, per play: the player's flock value change (the card itself included:
# playing a sheep loses it), its target's flock value change, rivals who went out, and
# whether the player went out (played its last card).
U_PLAYS, U_OWN, U_TARGET, U_KNOCKOUTS, U_SELF_OUT = range(5)
USE_WIDTH = 5
USE_NAMES = ("plays", "own_sheep_change", "target_sheep_change", "knockouts", "self_out")
# How the Flock Off started: the run equal to the players still in, the run past them
# (a player went out on their last sheep, or a Methane discarded two), everyone out.
TRIGGER_NONE, TRIGGER_RUN_EQUALS, TRIGGER_RUN_PASSES, TRIGGER_EVERYONE_OUT = range(4)
TRIGGER_NAMES = ("none", "run_equals", "run_passes", "everyone_out")

P, K = MAX_PLAYERS, N_KINDS
_s, ST_LEN = alloc([
    ("n_players", 1), ("hand", P * K), ("start_hand", P * K), ("aside", K),
    ("pile", MAX_DECK), ("pile_len", 1), ("run", 1), ("turn_seat", 1), ("first", 1),
    ("turns", 1), ("ended", 1), ("end_reason", 1), ("winner", 1), ("in_before", P),
    ("tied", P), ("show_cards", 1), ("known", P * P * N_KNOW), ("no_sheep", P * P),
    ("track", 1), ("moved", 1), ("use", P * K * USE_WIDTH), ("trigger", 1), ("margin", 1),
])
ST_N_PLAYERS = _s["n_players"]
ST_HAND = _s["hand"]             # [seat * N_KINDS + kind]
ST_START_HAND = _s["start_hand"]  # hands when play starts (after the draft)
ST_ASIDE = _s["aside"]           # set aside unseen (removed + random), by kind
ST_PILE = _s["pile"]             # discard pile, first card first
ST_PILE_LEN = _s["pile_len"]
ST_RUN = _s["run"]               # consecutive sheep on top of the pile
ST_TURN_SEAT = _s["turn_seat"]   # seat to play next (the player on turn)
ST_FIRST = _s["first"]           # first player
ST_TURNS = _s["turns"]
ST_ENDED = _s["ended"]
ST_END_REASON = _s["end_reason"]
ST_WINNER = _s["winner"]
ST_IN_BEFORE = _s["in_before"]   # 1 if the seat held cards before the last turn
ST_TIED = _s["tied"]             # 1 if in the Sheep Show (or still in it)
ST_SHOW_CARDS = _s["show_cards"]  # pile cards read in the Sheep Show
ST_KNOWN = _s["known"]           # [(viewer * P + holder) * N_KNOW + slot]: lower bounds
ST_NO_SHEEP = _s["no_sheep"]     # [viewer * P + holder]: 1 if the holder's cards the
#                                  viewer does not know hold no sheep
ST_TRACK = _s["track"]           # 1: keep the knowledge up to date (a policy reads it)
ST_MOVED = _s["moved"]           # cards moved between players in the last turn
#: [(seat * N_KINDS + kind) * USE_WIDTH + U_*]: this round's plays of each kind by each
#: seat and what they did (see U_*)
ST_USE = _s["use"]
ST_TRIGGER = _s["trigger"]       # what started the Flock Off (TRIGGER_*), 0 if none
ST_MARGIN = _s["margin"]         # Flock Off: best flock value minus the next contender's


# ------------------------------------------------------------------ view
_v, V_LEN = alloc([
    ("seat", 1), ("n_players", 1), ("hand", K), ("sizes", P), ("first", 1), ("turns", 1),
    ("run", 1), ("players_in", 1), ("pile_counts", K), ("pile_len", 1), ("pile", MAX_DECK),
    ("known", P * N_KNOW), ("no_sheep", P), ("deck", K), ("aside_total", 1),
    ("golden_worth", 1), ("other", 1), ("show_pos", 1),
])
V_SEAT = _v["seat"]
V_N_PLAYERS = _v["n_players"]
V_HAND = _v["hand"]              # own hand by kind
V_SIZES = _v["sizes"]            # every player's hand size
V_FIRST = _v["first"]
V_TURNS = _v["turns"]
V_RUN = _v["run"]
V_PLAYERS_IN = _v["players_in"]
V_PILE_COUNTS = _v["pile_counts"]
V_PILE_LEN = _v["pile_len"]
V_PILE = _v["pile"]              # the discard pile in order (all face up)
V_KNOWN = _v["known"]            # [holder * N_KNOW + slot]: cards seen in each hand
V_NO_SHEEP = _v["no_sheep"]      # [holder]
V_DECK = _v["deck"]              # the deck after the named removals (public)
V_ASIDE_TOTAL = _v["aside_total"]  # cards set aside (kinds unknown to players)
V_GOLDEN_WORTH = _v["golden_worth"]
V_OTHER = _v["other"]            # the other player of a sub-decision (actor/target)
V_SHOW_POS = _v["show_pos"]      # Sheep Show: the pile position being guessed

# --------------------------------------------------------------- trace log
# Row: [event, seat, kind, target, a, b, run, pile_len, sizes (P), hands (P * K)]
EV_DEAL, EV_DRAFT, EV_PLAY, EV_GIVE, EV_TAKE, EV_DISCARD, EV_SWAP, EV_PIG, EV_OUT, \
    EV_FLOCK_OFF, EV_GUESS, EV_DROP, EV_DRAW, EV_END = range(14)
LOG_HEAD = 8
LOG_WIDTH = LOG_HEAD + P + P * K
MAX_LOG = 2048  # rows of a trace's event log and of its decisions log

# --------------------------------------------------------------- accumulator
# The first policy failure of a chunk (the harness's record, the chunk stops there): F_CODE is
# ``sheepsim.plugins.ILLEGAL_CHOICE`` or ``WROTE_INPUTS`` (0: none), then the round, the
# seat, its policy id, the returned index, the number of options and the decision's
# kind (the harness's failure record, ``sheepsim.harness.layout.F_*``).
F_CODE, F_GAME, F_SEAT, F_PID, F_CHOICE, F_N, F_KIND = range(7)
FAIL_WIDTH = 7
MAX_TURNS = MAX_DECK + 1
MAX_MARGIN = 64  # winning margins above this count as this
USE_SUMS = 3     # per use quantity X and round g: sum X_g, sum X_g^2, sum X_g * plays_g
_a, ACC_LEN = alloc([
    ("games", 1), ("wins", P), ("wins_by_order", P), ("end", 4), ("turns", 1),
    ("turns_sq", 1), ("turn_hist", MAX_TURNS + 1), ("start_n", P * K * (MAX_DECK + 1)),
    ("start_wins", P * K * (MAX_DECK + 1)),
    ("out", P), ("show_cards", 1), ("failure", FAIL_WIDTH), ("wins_by_slot", P),
    ("start_sq", P * K * (MAX_DECK + 1)), ("start_wh", P * K * (MAX_DECK + 1)),
    ("use", P * K * USE_WIDTH * USE_SUMS), ("trigger", 4),
    ("margin", MAX_MARGIN + 1), ("out_hist", P + 1), ("tie_wins", P),
    ("tie_wins_by_order", P),
])
A_GAMES = _a["games"]
A_WINS = _a["wins"]                    # by seat
A_WINS_BY_ORDER = _a["wins_by_order"]  # by position in turn order (0 = first player)
A_END = _a["end"]                      # by END_* reason
A_TURNS = _a["turns"]
A_TURNS_SQ = _a["turns_sq"]
A_TURN_HIST = _a["turn_hist"]
START_STRIDE = MAX_DECK + 1
A_START_N = _a["start_n"]      # [(slot * K + kind) * START_STRIDE + count]: players
A_START_WINS = _a["start_wins"]  # same index: of whom won
A_OUT = _a["out"]                      # by seat: rounds ended without cards
A_SHOW_CARDS = _a["show_cards"]        # pile cards read in Sheep Shows
A_FAILURE = _a["failure"]              # [F_*]: the chunk's first policy failure
A_WINS_BY_SLOT = _a["wins_by_slot"]    # by policy slot (seat before rotation)
# Starting hands are counted by policy group (the first slot of the seat's policy), so
# that per round the seats of one policy with one count of a kind form one cluster:
# A_START_N[i] = sum over rounds of H, A_START_SQ = sum of H^2, A_START_WH = sum of W * H
# (H the seats with that count, W = 1 if one of them won).
A_START_SQ = _a["start_sq"]
A_START_WH = _a["start_wh"]
#: [((group * N_KINDS + kind) * USE_WIDTH + U_*) * USE_SUMS + j]: per round g, the
#: group's total X_g of that use quantity (U_PLAYS: plays); j = 0: sum X_g, 1: sum
#: X_g^2, 2: sum X_g * plays_g
A_USE = _a["use"]
A_TRIGGER = _a["trigger"]              # rounds by TRIGGER_* (none = no Flock Off)
A_MARGIN = _a["margin"]                # Flock Off rounds by winning margin
A_OUT_HIST = _a["out_hist"]            # rounds by number of players out at the end
A_TIE_WINS = _a["tie_wins"]            # by seat: wins from a tie for first
A_TIE_WINS_BY_ORDER = _a["tie_wins_by_order"]  # by position in turn order

# ------------------------------------------------------------------ card value
# Counts of :func:`~.simulate.card_value_counts`, ``(MAX_PLAYERS groups, N_KINDS,
# CV_WIDTH)`` int64: per policy group and kind, over rounds g, H_g = seats of the group
# starting with the kind (each replayed with one such card replaced by a plain sheep),
# D_g = their wins in the plain round minus their wins in their replayed round.
CV_HOLDERS, CV_HOLDERS_SQ, CV_WINS, CV_WINS_REPLACED, CV_D, CV_D_SQ, CV_DH, \
    CV_ONLY_WITH, CV_ONLY_REPLACED = range(9)
CV_WIDTH = 9

# --------------------------------------------------------------- decision log
# The trace's ``decisions`` table: one row per decision a policy was asked (a lone
# option is taken without asking and is not a row): [seat, phase, kind, n options,
# choice].
D_SEAT, D_PHASE, D_KIND, D_N, D_CHOICE = range(5)
DEC_WIDTH = 5

# Built-in policy ids (stable: they are baked into cached kernels).
RANDOM, GREEDY, COUNTER = 0, 1, 2
BUILTIN_POLICIES = ("random", "greedy", "counter")
#: how the built-in ``random`` policy chooses: said in the CLI help, the metadata of every
#: output of a run with a random seat, and the README
RANDOM_CHOOSES = ("random picks uniformly among the legal [card kind, target] rows of each "
                  "decision, not among the cards in hand (two sheep are one row; a Pig with "
                  "three rivals holding cards is three rows)")

FIRST_USER_ID = 3

#: the harness's play tables (:func:`sheepsim.harness.tables.play_tables`) a play job adds
#: to the game's own: their names are not the game's (its ``by_seat``, ``by_policy`` are)
HARNESS_TABLES = ("game_length", "decisions", "course")
