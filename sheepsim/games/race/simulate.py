"""The Sheep Race's kernels for Python: policies resolved, inputs validated, chunk functions.

:func:`race_chunk_fn` (single races) gives the chunk function of single races and
:func:`game_counts` the whole games' counts from per-game rows (the race machine's:
``jobs.GamesJob.rows``),
which the jobs of :mod:`~sheepsim.games.race.jobs` run (``race_counts``, ``play_games``
and the ``estimate_*`` functions are there); their integer counts
(:class:`RaceCounts`, :class:`GameResults`) are identical for any thread count or chunk
size; :mod:`~sheepsim.games.race.analysis` turns them into DataFrames.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sheepsim import driver, jit
from sheepsim.errors import SheepsimError
from sheepsim.games.race.game import GAME, MACHINE
from sheepsim.games.race.layout import FINAL, N_BOARD, PACE, SEMIFINAL
from sheepsim.games.race.policies import (
    BET_POLICIES,
    FIRST_USER_ID,
    PACE_POLICIES,
    USER_POLICY_ARGS,
    WHOLE_GAME_PACE,
)
from sheepsim.games.race.rules import N_LANES, RaceRules, check_stage, load_rules
from sheepsim.harness.layout import F_CODE
from sheepsim.jit import is_njit_function
from sheepsim.output import base_meta
from sheepsim.plugins import check_arguments, load_object
from sheepsim.stats import group_sums

#: Races behind the public odds table that bet policies use (per stage, random deals).
ODDS_TABLE_GAMES = 200_000
ODDS_TABLE_SEED = 20130  # fixed: the table is like a published odds chart


# ------------------------------------------------------------------ policies
@dataclass(frozen=True)
class PolicySet:
    """Resolved policy names: ids for the kernels and the user functions behind ids
    past the built-ins."""

    pace_names: tuple[str, ...]
    pace_ids: np.ndarray
    bet_names: tuple[str, ...] = ()
    bet_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    user_pace: tuple = ()
    user_bets: tuple = ()

    @property
    def has_plugins(self) -> bool:
        """Whether a seat plays a user's (plug-in) pace or bet policy."""
        return bool(self.user_pace or self.user_bets)

    def kernels(self):
        """The kernels of this line-up (:func:`~sheepsim.games.race.kernels.plugged`:
        its plug-ins passed to single races as function values)."""
        from sheepsim.games.race.kernels import plugged

        return plugged(self.user_pace, self.user_bets)

    def policy_name(self, seat: int, kind: int, pid: int) -> str:
        """The ``policy_name(seat, kind, pid)`` of the harness's failure line: the seat's
        policy as the user gave it, by its role (its pace for a ``PACE`` decision, else
        its bets)."""
        return (self.pace_names if kind == PACE else self.bet_names)[seat]

    def raise_failure(self, fail, players: int) -> None:
        """The one line for a failure recorded in ``fail`` (the harness's record, of a
        harness run of the race machine or of the engine's single races), nothing if
        none: the harness's (:func:`sheepsim.harness.jobs.raise_run_failure`), the
        policy named by :meth:`policy_name`."""
        if fail[F_CODE] == 0:  # no failure (and the machine is not loaded)
            return
        from sheepsim.harness.jobs import raise_run_failure
        from sheepsim.harness.machine import load

        raise_run_failure(fail, load(MACHINE), GAME.title, players, self.policy_name)

    def check(self, asks) -> None:
        """Raise the one-line error of a chunk's policy failure (``asks.fail``) in
        single races: :meth:`raise_failure`."""
        self.raise_failure(asks.fail, len(self.pace_names))


def _resolve(names, builtins, what, first_user_id):
    """Ids of ``names``: a built-in's index, or ``first_user_id + k`` for the k-th
    distinct plug-in (returned in that order)."""
    ids, users = [], []
    for name in names:
        name = name.strip()
        if name in builtins:
            ids.append(builtins.index(name))
            continue
        if ":" not in name:
            raise SheepsimError(f"unknown {what} {name!r}; built-in: {', '.join(builtins)}, "
                                "or package.module:function")
        fn = load_object(name, what)
        if not is_njit_function(fn):
            raise SheepsimError(f"{what} {name!r} must be a @numba.njit function")
        check_arguments(fn, USER_POLICY_ARGS, what, name)
        if fn not in users:
            users.append(fn)
        ids.append(first_user_id + users.index(fn))
    return np.array(ids, dtype=np.int64), tuple(users)


def _split(names) -> list[str]:
    if isinstance(names, str):
        names = names.split(",")
    names = [n.strip() for n in names]
    if not names or any(not n for n in names):
        raise SheepsimError("policy list is empty or has an empty name")
    return names


def resolve_policies(pace, bets=None, players: int = 1) -> PolicySet:
    """Policies per seat from names (a single name is used by every seat). ``bets``
    None: single races, where no seat bets, so whole-game pace policies are refused."""
    pace = _split(pace)
    if bets is None:
        for name in set(pace) & set(WHOLE_GAME_PACE):
            raise SheepsimError(f"the {name} pace policy plays whole games only (race play, "
                                "race compare): it values each option by the player's bets")
    bets = _split(bets) if bets is not None else ["random"]
    for what, lst in (("pace policies", pace), ("bet policies", bets)):
        if len(lst) not in (1, players):
            raise SheepsimError(f"give 1 or {players} {what}, got {len(lst)}")
    pace = pace * players if len(pace) == 1 else pace
    bets = bets * players if len(bets) == 1 else bets
    # one id space for both roles (one dispatch chain): bet plug-ins after pace plug-ins
    pace_ids, user_pace = _resolve(pace, PACE_POLICIES, "pace policy", FIRST_USER_ID)
    bet_ids, user_bets = _resolve(bets, BET_POLICIES, "bet policy",
                                  FIRST_USER_ID + len(user_pace))
    return PolicySet(tuple(pace), pace_ids, tuple(bets), bet_ids, user_pace, user_bets)


def _rules(rules) -> RaceRules:
    return load_rules() if rules is None else (rules if isinstance(rules, RaceRules) else load_rules(rules))


# ------------------------------------------------------------------ single races
@dataclass
class RaceCounts:
    """Merged counts of many single races.

    ``joint`` ``(216,)`` counts of ordered (1st, 2nd, 3rd) lanes as ``36a + 6b + c``
    (semifinal); ``card_place`` ``(n_cards, 6, 3)`` counts of card-in-lane placings;
    ``turns`` total turns; ``games`` races simulated.
    """

    rules: RaceRules
    stage: str
    policy: str
    seed: int
    games: int
    lanes: np.ndarray | None  # card per lane, None for random deals
    joint: np.ndarray
    card_place: np.ndarray
    turns: int

    @property
    def place_counts(self) -> np.ndarray:
        """``(6, 3)`` counts of lane finishing 1st/2nd/3rd."""
        return self.card_place.sum(axis=0)

    def meta(self) -> dict:
        return base_meta(
            game="sheep-race", rules=self.rules.source, rules_sha256=self.rules.sha256,
            stage=self.stage, policy=self.policy, seed=self.seed, games=self.games,
            lanes=None if self.lanes is None else [self.rules.cards[i].name for i in self.lanes],
        )


def race_chunk_fn(rules=None, lanes=None, stage: str = "semifinal", policy: str = "greedy",
                  seed: int = 0, *, random_deal: bool = False):
    """Validate the inputs of single-race simulations and build their chunk function:
    ``run_chunk(start, count)`` gives the integer accumulators ``[joint, card_place,
    turns]`` of races ``start..start+count-1`` (:class:`RaceCounts`' fields; the job,
    :class:`~sheepsim.games.race.jobs.RacesJob`, merges and tables them).

    ``lanes``: card names or indices for lanes 1-6 (default: the file's first six), or
    ``random_deal=True`` to draw six cards for every race.
    """
    rules = _rules(rules)
    stage = check_stage(stage)
    seed = driver.check_seed(seed)
    pol = resolve_policies([policy] if isinstance(policy, str) else policy)
    if len(pol.pace_ids) != 1:
        raise SheepsimError("race odds take exactly one pace policy")
    lane_cards_ = None if random_deal else lane_cards(rules, lanes)
    k = pol.kernels()
    kernel_rules = rules.kernel_rules()
    stage_id = FINAL if stage == "final" else SEMIFINAL
    lanes_arr = lane_cards_ if lane_cards_ is not None else np.arange(N_LANES, dtype=np.int64)

    def run_chunk(start, count):
        from sheepsim.games.race.kernels import empty_race_counts, kernel_pace_ids

        out = empty_race_counts(len(rules.cards))
        pol.check(k.race_chunk(seed, start, count, kernel_rules, lanes_arr, random_deal, stage_id,
                               kernel_pace_ids(pol.pace_ids), out))
        return list(out)

    return run_chunk


def lane_cards(rules: RaceRules, lanes) -> np.ndarray:
    if lanes is None or isinstance(lanes, str) or (len(lanes) and isinstance(lanes[0], str)):
        return rules.lanes(lanes)
    arr = np.asarray(lanes, dtype=np.int64)
    if arr.shape != (N_LANES,) or len(set(arr.tolist())) != N_LANES or arr.min() < 0 \
            or arr.max() >= len(rules.cards):
        raise SheepsimError("lanes must be 6 different card indices")
    return arr


# ------------------------------------------------------------------ whole games
ODDS_CACHE: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def odds_tables(rules: RaceRules) -> tuple[np.ndarray, np.ndarray]:
    """Public odds per (card, lane, place) over random deals, semifinal and final: each
    ``(n_cards, 6, 3)`` float64. Memoised per rules-file hash in this process and on
    disk (:func:`odds_cache_file`), so only the first process with these rules and this
    sheepsim source simulates the 2 x ODDS_TABLE_GAMES races."""
    if rules.sha256 in ODDS_CACHE:
        return ODDS_CACHE[rules.sha256]
    path = odds_cache_file(rules)
    inputs = _kernel_rules_digest(rules)
    tables = _read_odds(path, len(rules.cards), inputs)
    if tables is None:
        tables = tuple(_simulate_odds(rules, stage) for stage in ("semifinal", "final"))
        _write_odds(path, tables, inputs)
    ODDS_CACHE[rules.sha256] = tables
    return tables


def canonical_dice(rules: RaceRules) -> RaceRules:
    """``rules`` with each die's faces in one fixed order (blank faces last, the others
    ascending; the shipped dice are already in it): the same dice, so the same races in
    distribution. The odds tables are simulated with it, so two rules files whose dice
    differ only in the order of their faces get the very same table (no private noise of
    ``ev-approx`` in a difference between them: issue 49)."""
    import dataclasses

    def order(dice):
        return [sorted(die, key=lambda f: (f == 0, f)) for die in dice]

    semi, final = order(rules.dice_semifinal), order(rules.dice_final)
    if semi == [list(d) for d in rules.dice_semifinal] and final == [list(d) for d in rules.dice_final]:
        return rules
    return dataclasses.replace(rules, dice_semifinal=semi, dice_final=final)


def _simulate_odds(rules: RaceRules, stage: str) -> np.ndarray:
    # the races' kernel straight, in one chunk: the counts of any chunking are the same,
    # and going through the driver's jobs (jobs.race_counts) would make this module,
    # which the jobs build on, import them back; on the dice in their canonical order
    run_chunk = race_chunk_fn(canonical_dice(rules), stage=stage, policy="greedy",
                              seed=ODDS_TABLE_SEED, random_deal=True)
    card_place = run_chunk(0, ODDS_TABLE_GAMES)[1]
    # a given card runs in a given lane in 1/n_cards of random deals
    runs_per_cell = ODDS_TABLE_GAMES / len(rules.cards)
    return np.ascontiguousarray(card_place / runs_per_cell)


#: the modules an odds table is computed by: the races' kernel module (its closure is
#: everything compiled into the kernel, policies included) and this one (which calls it)
ODDS_MODULES = ("games/race/kernels.py", "games/race/simulate.py")


def odds_code_digest(root=jit.PACKAGE_DIR) -> str:
    """The digest of the code an odds table comes from: the kernel module's
    :func:`~sheepsim.jit.module_closure` and this module's own source, with the sheepsim
    and numba versions (:func:`sheepsim.jit.files_digest`). This module's own imports
    (the driver, the rules files and through them every game) only check and convert the
    inputs, and the converted input, the kernel's rules record, is checked on every read
    (:func:`_kernel_rules_digest`), so an edit elsewhere in the package (a report,
    another game) keeps the table. ``root``: the package folder (tests: a copy)."""
    kernels, this = ODDS_MODULES
    return jit.files_digest(jit.module_closure(kernels, root) | {this}, root)


def _kernel_rules_digest(rules: RaceRules) -> str:
    """SHA-256 of the kernel's rules record of ``rules`` (what the rules code made of the
    rules file): an odds table is read only if it was computed from the same."""
    import hashlib

    h = hashlib.sha256()
    for name, value in zip(rules.kernel_rules()._fields, rules.kernel_rules(), strict=True):
        arr = np.asarray(value)
        h.update(f"{name} {arr.dtype.str} {arr.shape}".encode())
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()


def odds_cache_file(rules: RaceRules):
    """Where the odds table of these rules is kept: the user cache root
    (:func:`sheepsim.jit.cache_root`), named by the rules file's SHA-256, the digest of
    the code that computes it (:func:`odds_code_digest`: a change to the kernel, a
    policy or anything they import never reuses an old table), the race count and the
    seed."""
    name = (f"odds-{rules.sha256[:20]}-{odds_code_digest()}-{ODDS_TABLE_GAMES}-"
            f"{ODDS_TABLE_SEED}.npz")
    return jit.cache_root() / "odds" / name  # read at the call: a moved cache root is seen


def _read_odds(path, n_cards: int, inputs: str):
    try:
        with np.load(path) as f:
            if str(f["kernel_rules"]) != inputs:
                return None  # computed from other kernel rules: simulate again
            tables = (np.ascontiguousarray(f["semifinal"]), np.ascontiguousarray(f["final"]))
    except (OSError, KeyError, ValueError):
        return None  # missing or unreadable: simulate again
    if any(t.shape != (n_cards, N_LANES, 3) or t.dtype != np.float64 for t in tables):
        return None
    return tables


def _write_odds(path, tables, inputs: str) -> None:
    import os
    import tempfile

    try:  # atomic: a reader sees the old file or the whole new one
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            np.savez(f, semifinal=tables[0], final=tables[1], kernel_rules=np.array(inputs))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs time


@dataclass
class GameResults:
    """Merged results of whole games.

    Per seat ``(n_players,)``: ``wins``, ``score_sum``, ``score_sq``; ``wins_by_order``
    ``(n_players,)`` wins by position in semifinal 1's turn order (0 = first player);
    ``score_hist`` ``(n_players, MAX_SCORE+1)``; ``turns`` ``(3,)`` total turns per race;
    ``final_wins_by_card`` ``(n_cards,)``; ``tied_first`` ``(n_players + 1,)`` games by
    how many seats share the top score (1: no tie; 2+: the token stack decided);
    ``tie_wins_by_order`` ``(n_players,)`` the wins of ``wins_by_order`` that came from a
    tie; per policy pair (:func:`policy_groups` order) ``policy_win_sq`` and
    ``policy_score_sq`` ``(n_groups,)``: sums over games of the squared per-game total
    wins / score of the seats playing it (the game as the unit of pooled intervals);
    ``games``.
    """

    rules: RaceRules
    policies: PolicySet
    seed: int
    games: int
    wins: np.ndarray
    score_sum: np.ndarray
    score_sq: np.ndarray
    wins_by_order: np.ndarray
    score_hist: np.ndarray
    turns: np.ndarray
    final_wins_by_card: np.ndarray
    tied_first: np.ndarray
    tie_wins_by_order: np.ndarray
    policy_win_sq: np.ndarray
    policy_score_sq: np.ndarray

    @property
    def players(self) -> int:
        return len(self.wins)

    def meta(self) -> dict:
        return base_meta(
            game="sheep-race", rules=self.rules.source, rules_sha256=self.rules.sha256,
            players=self.players, bet_policies=list(self.policies.bet_names),
            pace_policies=list(self.policies.pace_names), seed=self.seed, games=self.games,
            odds_table={"games": ODDS_TABLE_GAMES, "seed": ODDS_TABLE_SEED, "pace": "greedy"},
        )


MAX_SCORE = 200
#: names of :func:`game_counts`' accumulators (in :class:`GameResults` field order)
GAME_COUNTS = ("wins", "score_sum", "score_sq", "wins_by_order", "score_hist", "turns",
               "final_wins_by_card", "tied_first", "tie_wins_by_order", "policy_win_sq",
               "policy_score_sq")


def policy_groups(pol: PolicySet) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """Seats grouped by (bet policy, pace policy): the group index of each seat
    ``(n_players,)`` and the pairs in order of first appearance."""
    pairs = list(dict.fromkeys(zip(pol.bet_names, pol.pace_names, strict=True)))
    groups = [pairs.index(p) for p in zip(pol.bet_names, pol.pace_names, strict=True)]
    return np.array(groups, dtype=np.int64), pairs


def tie_counts(scores: np.ndarray, order: np.ndarray):
    """From per-game ``scores`` ``(count, n)`` and the winner's position in semifinal 1's
    turn order ``(count,)``: games by number of seats sharing the top score ``(n + 1,)`` and wins by
    turn order in games with a tie for first ``(n,)``."""
    n = scores.shape[1]
    tied = (scores == scores.max(axis=1, keepdims=True)).sum(axis=1)
    return (np.bincount(tied, minlength=n + 1),
            np.bincount(order[tied > 1], minlength=n))


def check_players(rules: RaceRules, players) -> int:
    if isinstance(players, bool) or not isinstance(players, int | np.integer) \
            or not GAME.min_players <= players <= GAME.max_players:
        raise SheepsimError(f"players must be {GAME.players_text}, got {players!r}")
    if len(rules.cards) < 12:
        raise SheepsimError(f"a whole game needs at least 12 cards; {rules.source} has "
                            f"{len(rules.cards)}")
    return int(players)


def game_counts(rows, pol: PolicySet, n_cards: int) -> list[np.ndarray]:
    """:class:`GameResults`' accumulators (named by :data:`GAME_COUNTS`) of the per-game
    ``rows`` of :meth:`~.jobs.GamesJob.rows` (``scores, winner, first, turns, race_cards``)."""
    scores, winner, first, turns, race_cards = rows
    players = len(pol.pace_ids)
    groups, pairs = policy_groups(pol)
    hist = np.zeros((players, MAX_SCORE + 1), dtype=np.int64)
    for s in range(players):
        hist[s] = np.bincount(np.minimum(scores[:, s], MAX_SCORE), minlength=MAX_SCORE + 1)
    order = (winner - first) % players
    won = (winner[:, None] == np.arange(players)).astype(np.int64)
    tied_first, tie_wins_by_order = tie_counts(scores, order)
    return [np.bincount(winner, minlength=players), scores.sum(0), (scores ** 2).sum(0),
            np.bincount(order, minlength=players), hist, turns.sum(0),
            np.bincount(race_cards[:, 2, 0], minlength=n_cards), tied_first,
            tie_wins_by_order, group_sums(won, groups, len(pairs))[1],
            group_sums(scores, groups, len(pairs))[1]]


def board_array() -> np.ndarray:
    return np.zeros((N_LANES, N_BOARD), dtype=np.int64)
