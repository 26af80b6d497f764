"""Plain-integer layouts shared by the Shear Panic kernels (no numba here).

The kernels work on three flat ``int64`` vectors so that a whole game state can be
copied in one slice (greedy look-ahead, rollouts) and passed to numba without records:

* the **rules vector** ``R`` (length ``R_LEN``): one player count's rules, built by
  :meth:`sheepsim.games.panic.rules.PanicRules.kernel_array`;
* the **state vector** ``st`` (length ``ST_LEN``): flock, facing, counter, menus, scores;
* the **context vector** ``ctx`` (length ``CTX_LEN``): where dice come from, scripted
  choices (for :class:`~sheepsim.games.panic.flock.Flock`) and the trace log switch.

The kernels' other scratch arrays travel together in one record (:mod:`.scratch`).

Grid coordinates: ``row`` grows downwards, ``col`` to the right, both unbounded
(positions, not array indices: the flock never hits an edge and never needs re-centring).
"""

from sheepsim.kernelstate import alloc as _alloc  # the one layout helper of every game

# --------------------------------------------------------------------------- colours
BLUE, GREEN, RED, YELLOW, BLACK = range(5)
N_COLOURS = 5
WHITE_FACE = 5  # panic die face: the whole flock turns
COLOUR_LETTERS = "bgryk"
COLOUR_NAMES = ("blue", "green", "red", "yellow", "black")
FACE_NAMES = COLOUR_NAMES + ("white",)
NO_SEAT = -1

# ------------------------------------------------------------------------ directions
# Index d: 0 N, 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW (clockwise). Even = orthogonal.
DIR_NAMES = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
DIR_ROW = (-1, -1, 0, 1, 1, 1, 0, -1)
DIR_COL = (0, 1, 1, 1, 0, -1, -1, -1)
# Facing f (0 up, 1 right, 2 down, 3 left): the heads point along direction 2*f.
FACING_NAMES = ("up", "right", "down", "left")

# --------------------------------------------------------------------------- actions
LAMB_PUSH, LINE_PUSH, DIAG_PUSH, ALIGNMENT, LAMB_ROLL, LEAPFROG, EWE_TURN = range(7)
ACTION_NAMES = ("lamb_push", "line_push", "diagonal_push", "alignment", "lamb_roll",
                "leapfrog", "ewe_turn")
# Restrictions printed on a menu tile.
R_NONE, R_OWN, R_NO_REVERSE, R_NO_REVERSE_UNLESS_DIE = range(4)
RESTRICTION_NAMES = ("none", "own_sheep", "no_reverse", "no_reverse_unless_die")
# Actions that move one chosen sheep (the only ones "own sheep" can restrict).
SHEEP_ACTIONS = (LAMB_PUSH, LAMB_ROLL, LEAPFROG)
# Ewe Turn parameter: facing change (+1 right = clockwise, 3 = left).
TURN_RIGHT, TURN_LEFT = 1, 3

# ----------------------------------------------------------------------------- fields
TEAMMATES, RAM, BLACK_SHEEP, SHEARING = range(4)
FIELD_KINDS = ("teammates", "ram", "black_sheep", "shearing")

# ------------------------------------------------------------------------ regrouping
FACE_ORTHO, FACE_DIAG = 0, 1  # regroup die faces "+" and "X"
REGROUP_FACE_NAMES = ("+", "X")
NO_SLIDE = -1
# A "+" with no orthogonal route (sheepsim's decision, rules option
# ``regroup.plus_without_route``): take a diagonal route, or step one space towards the
# main flock and roll again.
PLUS_FALLBACK_DIAGONAL, PLUS_FALLBACK_STEP = 0, 1
PLUS_FALLBACK_NAMES = ("diagonal", "step")

# ---------------------------------------------------------------------- decisions
# Every choice a player makes is one of these; options are rows of 4 int64.
K_ACTION = 0      # [tile, a, b, 0]: a = sheep id / line key, b = direction / side / turn
K_GROUP = 1       # [group mask, size, 0, 0]: which smallest group to regroup
K_ROUTE = 2       # [direction, steps, slide direction or NO_SLIDE, group mask]
K_PANIC_PUSH = 3  # [sheep id, direction, 0, 0]: the panic (or opening) Lamb Push
K_PANIC_TURN = 4  # [turn (TURN_RIGHT/TURN_LEFT), 0, 0, 0]: white face, Ewe Turn
#: The decision kinds by name (the ``kind`` column of trace's ``decisions`` table).
KIND_NAMES = ("action", "group", "route", "panic_push", "panic_turn")
K_KINDS = len(KIND_NAMES)
OPT_WIDTH = 4
MAX_OPTS = 1024
MAX_SUB_OPTS = 64

# --------------------------------------------------------------------------- sizes
N_SHEEP = 9
# a kernel array size: the declaration's (game.py) largest player count, written as a
# number because importing the declaration would key every kernel's cache on the whole
# package (the registry names every module); tests/test_declared_once.py checks it
MAX_PLAYERS = 4  # kernel size
MAX_TILES = 16
MAX_FIELDS = 8
MAX_TRACK = 128
MAX_FACES = 12
MAX_ROW_POINTS = 8
MAX_ROUTE_STEPS = 24  # a straight regroup route never needs more than the flock's span


# ------------------------------------------------------------------------ rules R
_r, R_LEN = _alloc([
    ("start_row", N_SHEEP), ("start_col", N_SHEEP), ("start_colour", N_SHEEP),
    ("start_facing", 1), ("n_tiles", 1), ("tile_kind", MAX_TILES), ("tile_time", MAX_TILES),
    ("tile_restr", MAX_TILES), ("n_players", 1), ("seat_colour", MAX_PLAYERS),
    ("colour_seat", N_COLOURS), ("track_len", 1), ("n_fields", 1),
    ("field_kind", MAX_FIELDS), ("field_first", MAX_FIELDS), ("field_last", MAX_FIELDS),
    ("field_gate", MAX_FIELDS), ("panic", MAX_TRACK + 1), ("n_panic_faces", 1),
    ("panic_faces", MAX_FACES), ("n_regroup_faces", 1), ("regroup_faces", MAX_FACES),
    ("ram_points", MAX_ROW_POINTS), ("shear_points", MAX_ROW_POINTS),
    ("slide_without_roll", 1), ("plus_fallback", 1),
])
R_START_ROW = _r["start_row"]
R_START_COL = _r["start_col"]
R_START_COLOUR = _r["start_colour"]
R_START_FACING = _r["start_facing"]
R_N_TILES = _r["n_tiles"]
R_TILE_KIND = _r["tile_kind"]
R_TILE_TIME = _r["tile_time"]
R_TILE_RESTR = _r["tile_restr"]
R_N_PLAYERS = _r["n_players"]
R_SEAT_COLOUR = _r["seat_colour"]
R_COLOUR_SEAT = _r["colour_seat"]
R_TRACK_LEN = _r["track_len"]
R_N_FIELDS = _r["n_fields"]
R_FIELD_KIND = _r["field_kind"]
R_FIELD_FIRST = _r["field_first"]
R_FIELD_LAST = _r["field_last"]
R_FIELD_GATE = _r["field_gate"]  # gate "after space g": crossing g -> g+1; -1 none
R_PANIC = _r["panic"]  # 1 on panic spaces, indexed by space 0..MAX_TRACK
R_N_PANIC_FACES = _r["n_panic_faces"]
R_PANIC_FACES = _r["panic_faces"]
R_N_REGROUP_FACES = _r["n_regroup_faces"]
R_REGROUP_FACES = _r["regroup_faces"]
R_RAM_POINTS = _r["ram_points"]  # points by row from the front (row 1 first), 0 beyond
R_SHEAR_POINTS = _r["shear_points"]  # points by row from the back after shearing
R_SLIDE_WITHOUT_ROLL = _r["slide_without_roll"]
R_PLUS_FALLBACK = _r["plus_fallback"]  # PLUS_FALLBACK_* code

# ------------------------------------------------------------------------ state st
_s, ST_LEN = _alloc([
    ("row", N_SHEEP), ("col", N_SHEEP), ("alive", N_SHEEP), ("colour", N_SHEEP),
    ("facing", 1),
    ("counter", 1), ("prev_kind", 1), ("prev_target", 1), ("prev_dir", 1), ("prev_die", 1),
    ("score", MAX_PLAYERS),
    ("used", MAX_PLAYERS * MAX_TILES), ("field_pts", MAX_PLAYERS * MAX_FIELDS),
    ("shorn", N_COLOURS), ("last_actor", 1), ("turns", 1), ("ended", 1),
    ("end_reason", 1), ("next_seat", 1), ("passes", 1), ("tie_break", 1), ("panics", 1),
    ("regroup_rolls", 1),
])
ST_ROW = _s["row"]
ST_COL = _s["col"]
ST_ALIVE = _s["alive"]
ST_COLOUR = _s["colour"]
ST_FACING = _s["facing"]
FLOCK_LEN = ST_FACING + 1  # st[:FLOCK_LEN] is "the flock" (positions, colours, facing)
ST_COUNTER = _s["counter"]
# The last menu action of the previous acting player (skipped players and passes leave
# it alone), for the reverse restriction:
ST_PREV_KIND = _s["prev_kind"]  # its action type; -1: no menu action yet
ST_PREV_TARGET = _s["prev_target"]  # its sheep slot or line key
ST_PREV_DIR = _s["prev_dir"]  # its direction / side / turn (a reverse goes the other way)
ST_PREV_DIE = _s["prev_die"]  # 1 if a panic or regroup die was rolled since it was chosen
ST_SCORE = _s["score"]
ST_USED = _s["used"]  # [seat * MAX_TILES + tile]
ST_FIELD_PTS = _s["field_pts"]  # [seat * MAX_FIELDS + field]
ST_SHORN = _s["shorn"]  # per colour
ST_LAST_ACTOR = _s["last_actor"]
ST_TURNS = _s["turns"]
ST_ENDED = _s["ended"]
ST_END_REASON = _s["end_reason"]
ST_NEXT_SEAT = _s["next_seat"]
ST_PASSES = _s["passes"]
ST_TIE_BREAK = _s["tie_break"]  # 0 points decided, 1 sheep left, 2 turn order
ST_PANICS = _s["panics"]
ST_REGROUP_ROLLS = _s["regroup_rolls"]
# st[:LOOKAHEAD_LEN] (flock, counter, previous action, scores) is all that greedy's
# look-ahead reads; it copies only this part of the state for each candidate.
LOOKAHEAD_LEN = ST_SCORE + MAX_PLAYERS
END_PEN, END_MENUS = 0, 1

# -------------------------------------------------------------------- context ctx
MAX_SCRIPT = 64
_c, CTX_LEN = _alloc([
    ("dice_purpose", 1), ("log_on", 1), ("log_n", 1), ("script_pos", 1), ("script_len", 1),
    ("script", MAX_SCRIPT), ("face_pos", 1), ("face_len", 1), ("faces", MAX_SCRIPT),
    ("rollout_playouts", 1), ("last_tile", 1), ("last_gain", 1),
    ("last_counter", 1), ("memo_gen", 1), ("game", 1), ("fail_code", 1), ("fail_game", 1),
    ("fail_seat", 1), ("fail_choice", 1), ("fail_n", 1), ("decisions_n", 1),
    ("count_on", 1), ("counts", 1 + 3 * len(KIND_NAMES)), ("log_moved", 1),
    ("decisions_moved", 1),
])
CTX_DICE_PURPOSE = _c["dice_purpose"]
CTX_LOG_ON = _c["log_on"]
CTX_LOG_N = _c["log_n"]
CTX_SCRIPT_POS = _c["script_pos"]
CTX_SCRIPT_LEN = _c["script_len"]
CTX_SCRIPT = _c["script"]
CTX_FACE_POS = _c["face_pos"]
CTX_FACE_LEN = _c["face_len"]
CTX_FACES = _c["faces"]
CTX_ROLLOUT_PLAYOUTS = _c["rollout_playouts"]
CTX_LAST_TILE = _c["last_tile"]  # the tile of the turn just played (-1: passed)
CTX_LAST_GAIN = _c["last_gain"]  # points the active player gained in that turn
CTX_LAST_COUNTER = _c["last_counter"]  # counter position when the tile was chosen
CTX_MEMO_GEN = _c["memo_gen"]  # generation of greedy's look-ahead memo (see .lookahead)
CTX_GAME = _c["game"]  # the game index being played (for the failure record)
# The first choice that broke the policy contract (0 code: none; plugins.ILLEGAL_CHOICE or
# WROTE_INPUTS): the game stops there and the chunk returns (see .decide.checked).
CTX_FAIL_CODE = _c["fail_code"]
CTX_FAIL_GAME = _c["fail_game"]
CTX_FAIL_SEAT = _c["fail_seat"]
CTX_FAIL_CHOICE = _c["fail_choice"]
CTX_FAIL_N = _c["fail_n"]
CTX_DECISIONS_N = _c["decisions_n"]  # rows of the trace's decision log (scratch.decisions)
# Counting the decisions of the real game (not of rollout playouts) while count_on is
# set: decisions (of the stretch), then per kind decisions, options, lone options
CTX_COUNT_ON = _c["count_on"]
CTX_COUNTS = _c["counts"]
# The rows of the trace's event log and decision log already moved to the harness's
# event rows (machine.own_events)
CTX_LOG_MOVED = _c["log_moved"]
CTX_DECISIONS_MOVED = _c["decisions_moved"]

# ------------------------------------------------------------------ policy view
# What a policy is shown (``view``, 1-D int64, length VIEW_LEN; see .policies): Shear
# Panic has no hidden information (every tile, sheep and score is on the table; only
# the dice to come are unknown), so the view is the deciding seat, the whole state
# vector and the rules vector. ``view[V_STATE:V_STATE + ST_LEN]`` and
# ``view[V_RULES:V_RULES + R_LEN]`` are laid out as ``st`` and ``R`` above, so a policy
# can run the engine's own kernels (flockops.apply_action, scoring ...) on copies of them.
V_SEAT = 0  # the deciding seat (0-based); its colour is R_SEAT_COLOUR + seat of the rules
V_STATE = 1
V_RULES = V_STATE + ST_LEN
VIEW_LEN = V_RULES + R_LEN
# The trace's decision log (scratch.decisions): one row per decision a policy was asked.
D_SEAT, D_KIND, D_N, D_CHOICE = range(4)
DECISION_WIDTH = 4

# ------------------------------------------------------------------------ trace log
# Each row: [event, a, b, c, d, rows (9), cols (9), alive (9), facing, counter, scores (4)]
EV_OPENING, EV_ACTION, EV_GROUP, EV_REGROUP_DIE, EV_ROUTE, EV_SCORE, EV_SHEAR, \
    EV_PANIC_DIE, EV_PANIC_PUSH, EV_PANIC_TURN, EV_PASS, EV_END, EV_NO_REVERSE = range(13)
# EV_NO_REVERSE [tiles refused (bit per tile), action type, line key, direction refused]
# A row of the decision log among the harness's event rows of a trace (machine.own_events):
# [EV_DECISION, seat, kind, n, choice] (D_* shifted by one), the rest 0
EV_DECISION = 13
LOG_HEAD = 5
LOG_WIDTH = LOG_HEAD + 3 * N_SHEEP + 2 + MAX_PLAYERS
MAX_LOG = 4096

# ---------------------------------------------------------------- accumulators acc
# One int64 vector per block of games; blocks are summed (exact, order-free).
MAX_TURN_HIST = MAX_PLAYERS * MAX_TILES + 1
_a, ACC_LEN = _alloc([
    ("games", 1), ("wins", MAX_PLAYERS), ("points", MAX_PLAYERS), ("points_sq", MAX_PLAYERS),
    ("field_pts", MAX_PLAYERS * MAX_FIELDS), ("sheep_left", MAX_PLAYERS),
    ("shorn", N_COLOURS), ("turns", 1), ("turns_sq", 1), ("turn_hist", MAX_TURN_HIST),
    ("end", 2), ("tie_break", 3), ("tile_n", MAX_PLAYERS * MAX_TILES),
    ("tile_counter", MAX_PLAYERS * MAX_TILES), ("tile_gain", MAX_PLAYERS * MAX_TILES),
    ("panics", 1), ("regroup_rolls", 1),
])
A_GAMES = _a["games"]
A_WINS = _a["wins"]
A_POINTS = _a["points"]
A_POINTS_SQ = _a["points_sq"]
A_FIELD_PTS = _a["field_pts"]
A_SHEEP_LEFT = _a["sheep_left"]
A_SHORN = _a["shorn"]
A_TURNS = _a["turns"]
A_TURNS_SQ = _a["turns_sq"]
A_TURN_HIST = _a["turn_hist"]
A_END = _a["end"]
A_TIE_BREAK = _a["tie_break"]
A_TILE_N = _a["tile_n"]  # [seat * MAX_TILES + tile]
A_TILE_COUNTER = _a["tile_counter"]
A_TILE_GAIN = _a["tile_gain"]
A_PANICS = _a["panics"]
A_REGROUP_ROLLS = _a["regroup_rolls"]
