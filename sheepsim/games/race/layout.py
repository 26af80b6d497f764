"""Names for the plain arrays the Sheep Race kernels and policies share.

The built-in policies read the race as two int64 arrays (a plug-in gets them inside its
``view``, at the ``V_*`` offsets below, with the decision ``kind`` and its ``opts`` rows;
see :mod:`~sheepsim.games.race.policies`):

``board`` ``(6, N_BOARD)``, one row per lane (lane 1 is row 0):
    ``POS`` square (0 = starting line, > track_length = crossed), ``RED``, ``BLUE``,
    ``WHITE`` cubes on the card, ``STATUS`` (``RUNNING``, ``FINISHED``, ``EXHAUSTED``),
    ``TROT``/``GALLOP`` squares for those paces, ``PLACE`` (1, 2, 3 once placed; 0 before).
``race`` ``(N_RACE,)``:
    ``TRACK`` length in squares, ``EZ_FIRST`` first square of the End Zone,
    ``MAX_CUBES``, ``STAGE`` (``SEMIFINAL`` or ``FINAL``), ``SUPPLY_BLUE`` blue cubes
    in the supply, ``N_PLACED`` sheep placed so far, ``TURN`` turns played,
    ``N_RUNNING`` sheep neither finished nor exhausted.

Everything in them is public at the table. Importing this module compiles nothing.

The kernels pass their state as a few named records (namedtuples of arrays and ints,
which numba compiles to plain structs): :class:`KernelRules` (the rules file, built once
per file by :meth:`RaceRules.kernel_rules`), :class:`Table` (what a pace policy sees),
:class:`Seats` (each seat's bets) and :class:`Asks` (the policies' plumbing).
"""

from collections import namedtuple

#: lanes in a race, and the joint top-3 outcome index ``N_LANES**2 * a + N_LANES * b + c``
#: (lanes 0-5 finishing 1st, 2nd, 3rd) over ``N_JOINT`` cells
N_LANES = 6
N_JOINT = N_LANES ** 3

# board columns
POS, RED, BLUE, WHITE, STATUS, TROT, GALLOP, PLACE = range(8)
N_BOARD = 8
# race entries
TRACK, EZ_FIRST, MAX_CUBES, STAGE, SUPPLY_BLUE, N_PLACED, TURN, N_RUNNING = range(8)
N_RACE = 8
# rows of a pace policy's ``seen`` array
MY_BETS, RIVAL_OPEN = 0, 1
# sheep status
RUNNING, FINISHED, EXHAUSTED = 0, 1, 2
# stages
SEMIFINAL, FINAL = 0, 1

# The 9 pace options (the active player's choice of pace and payment).
REST = 0          # no move; recover 2 blue (outside the End Zone only)
WALK_RECOVER = 1  # 1 square; recover 1 blue (outside the End Zone)
WALK_FREE = 2     # 1 square; nothing paid or recovered (End Zone only)
WALK_WHITE = 3    # 1 square; pay 1 white
TROT_BLUE = 4     # trot squares; pay 1 blue
TROT_WHITE = 5    # trot squares; pay 1 white
GALLOP_RED = 6    # gallop squares; pay 1 red
GALLOP_BLUE2 = 7  # gallop squares; pay 2 blue
GALLOP_WHITE = 8  # gallop squares; pay 1 white
N_OPTIONS = 9
OPTION_NAMES = (
    "REST", "WALK_RECOVER", "WALK_FREE", "WALK_WHITE", "TROT_BLUE",
    "TROT_WHITE", "GALLOP_RED", "GALLOP_BLUE2", "GALLOP_WHITE",
)

# Why a sheep was selected (trace).
BY_DICE, LAZY_NINE, LAZY_EXHAUSTED, LAZY_FINISHED = range(4)
REASON_NAMES = ("dice", "Lazy Sheep (total 9)", "Lazy Sheep (selected sheep exhausted)",
                "Lazy Sheep (selected sheep finished)")

# The decision kinds a policy is asked (``kind``, the first argument of every policy):
# the three bet rounds and the pace of the selected sheep. ``KIND_NAMES`` name them in
# the trace's ``decisions`` table.
BET_OPEN, BET_HIDDEN, BET_FINAL, PACE = range(4)
KIND_NAMES = ("BET_OPEN", "BET_HIDDEN", "BET_FINAL", "PACE")
#: A seat's two policy streams (the ``phase`` of :func:`sheepsim.rng.seed_policy_stream`):
#: pace decisions draw from one, bets from the other, so how many turns a seat played
#: never shifts its bets' draws. Row ``N_PHASES * seat + phase`` of a game's policy streams.
PACE_PHASE, BET_PHASE = 0, 1
N_PHASES = 2

# --------------------------------------------------------------------- policy inputs
# What a policy sees: ``view`` (N_VIEW,) float64, everything public at the table plus the
# deciding seat's own bets (never rivals' hidden bets, never the dice to come):
V_LANE = 0        # the selected sheep's lane 0-5 (PACE); -1 when betting
V_SEAT = 1        # the deciding seat, 0-based
V_PLAYERS = 2     # seats at the table (1 in single races)
V_MY_OPEN = 3     # this seat's open bet this race (BET_HIDDEN), else -1
V_BOARD = 4       # 6 x N_BOARD, row-major: the board (zeros while betting)
V_RACE = V_BOARD + 6 * N_BOARD       # N_RACE: the race entries (zeros while betting)
V_MY_BETS = V_RACE + N_RACE          # 6: 1 where this seat bet this race (open or hidden)
V_RIVAL_OPEN = V_MY_BETS + N_LANES   # 6: rivals' open bets per lane
V_TAKEN = V_RIVAL_OPEN + N_LANES     # 6: 1 where a lane is bet openly
V_ODDS = V_TAKEN + N_LANES           # 6 x 3: the public odds table, P(lane 1st/2nd/3rd)
V_PAYOFFS = V_ODDS + 3 * N_LANES     # 4 x 6: payoffs (semifinal 1st-3rd, final)
V_BONUS = V_PAYOFFS + 4 * N_LANES    # 2: bonus for two, three placed
N_VIEW = V_BONUS + 2
# ``opts`` rows: PACE and BET_OPEN one column (the option 0-8 / the lane), in increasing
# order; BET_HIDDEN and BET_FINAL two columns ``[a, b]``, ``a < b``, in increasing order.
MAX_OPTS = 15  # C(6, 2) pairs: the most rows a decision has

# --------------------------------------------------------------------- kernel records
#: The rules as kernels read them. ``track``, ``ez_first`` (first End Zone square),
#: ``max_cubes``, ``blue_total`` (blue cubes in the game) are ints; ``cards``
#: ``(n_cards, 5)`` int64 (red, blue, white, trot, gallop); ``faces_semi``/``faces_final``
#: ``(n_dice, max_faces)`` and ``nfaces_semi``/``nfaces_final`` ``(n_dice,)`` int64 dice;
#: ``payoffs`` ``(4, 6)`` int64 (semifinal 1st-3rd, final); ``bonus`` ``(2,)`` int64.
KernelRules = namedtuple("KernelRules", [
    "track", "ez_first", "max_cubes", "blue_total", "cards", "faces_semi", "nfaces_semi",
    "faces_final", "nfaces_final", "payoffs", "bonus"])
#: One race as a pace policy sees it: ``board`` ``(6, N_BOARD)``, ``race`` ``(N_RACE,)``,
#: ``seen`` ``(2, 6)`` (the active seat's bets) int64 and ``legal`` ``(N_OPTIONS,)`` bool.
Table = namedtuple("Table", ["board", "race", "seen", "legal"])
#: The bets of each seat ``(n_players, 6)`` int64: ``bets`` 1 where the seat bet this
#: race, ``rival_open`` its rivals' open bets per lane.
Seats = namedtuple("Seats", ["bets", "rival_open"])
#: A run's policy plumbing: ``streams`` ``(N_PHASES * seats, 2)`` uint64 the seats' own
#: policy streams; ``pview`` ``(N_VIEW,)`` float64 (a policy's ``view``: numba's arrays
#: have a ``view`` attribute, so a record field cannot take that name), ``opts1``
#: ``(MAX_OPTS, 1)`` and ``opts2`` ``(MAX_OPTS, 2)`` int64 the plug-ins' inputs; ``fail``
#: ``(FAIL_WIDTH,)`` the first failure, the harness's record
#: (:mod:`sheepsim.harness.layout`'s ``F_*``, written by :mod:`sheepsim.harness.ask`).
Asks = namedtuple("Asks", ["streams", "pview", "opts1", "opts2", "fail"])
