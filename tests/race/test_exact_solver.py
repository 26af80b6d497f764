"""The exact race solver against brute-force enumeration and against Monte Carlo.

Brute force: a memoised recursion over whole engine states (board and race arrays,
supply included) with every dice total at its exact probability, using the engine's
own rule functions; it shares nothing with the solver's lane graphs, joint numbering or
crossing-order bookkeeping, and the two must agree to rounding.
"""

import itertools
from functools import cache

import numpy as np
import pytest

from sheepsim.errors import SheepsimError
from sheepsim.games.race import engine
from sheepsim.games.race import layout as L
from sheepsim.games.race.exact import exact_odds, exact_reason, pace_function, start_position
from sheepsim.games.race.jobs import race_counts
from sheepsim.games.race.policies import policy_stream
from sheepsim.games.race.rules import load_rules
from sheepsim.rng import new_streams

from .helpers import load_text, standard_text

CARDS = [  # name, red, blue, white, trot, gallop
    ("A", 1, 0, 0, 2, 3), ("B", 0, 1, 0, 2, 3), ("C", 0, 0, 1, 1, 2),
    ("D", 1, 1, 0, 1, 3), ("E", 0, 2, 0, 2, 2), ("F", 1, 0, 1, 2, 4),
]


def tiny_rules_text(blue: int, track: int = 4, end_zone: int = 2) -> str:
    head = standard_text()
    head = head[: head.index("[[race.cards]]")]
    head = head.replace("track_length = 20", f"track_length = {track}")
    head = head.replace("end_zone = 5", f"end_zone = {end_zone}").replace("blue = 19", f"blue = {blue}")
    return head + "".join(
        f'\n[[race.cards]]\nname = "{n}"\nnation = "Test"\nred = {r}\nblue = {b}\nwhite = {w}\n'
        f"trot = {t}\ngallop = {g}\n" for n, r, b, w, t, g in CARDS)


def brute_force(rules, stage, policy):
    """``(216,)`` exact outcome distribution by recursion over full engine states."""
    totals = rules.total_distribution(stage)
    board0, race0 = start_position(rules, np.arange(6), stage)
    pace = pace_function(policy)
    legal, seen = np.zeros(L.N_OPTIONS, np.bool_), np.zeros((2, 6), np.int64)
    rand = policy_stream(new_streams())

    @cache
    def solve(state):
        board = np.array(state[0], np.int64).reshape(6, L.N_BOARD)
        race = np.array(state[1], np.int64)
        out = np.zeros(216)
        if engine.race_over(board, race):
            engine.place_remaining(board, race)
            places = [0, 0, 0]
            for lane in range(6):
                if 1 <= board[lane, L.PLACE] <= 3:
                    places[board[lane, L.PLACE] - 1] = lane
            out[36 * places[0] + 6 * places[1] + places[2]] = 1.0
            return out
        stay = 0.0
        for total, p in totals.items():
            b, r = board.copy(), race.copy()
            lane, _ = engine.select_sheep(b, total)
            engine.legal_options(b, r, lane, legal)
            engine.apply_option(b, r, lane, pace(lane, b, r, seen, legal, rand))
            r[L.TURN] = 0  # the turn count does not change what happens next
            nxt = (tuple(b.ravel()), tuple(r))
            if nxt == state:  # a rest that recovered nothing: the turn is wasted
                stay += p
            else:
                out += p * solve(nxt)
        return out / (1.0 - stay)

    race0[L.TURN] = 0
    return solve((tuple(board0.ravel()), tuple(race0)))


CASES = [(policy, stage, blue) for policy in ("greedy", "saver", "steady")
         for stage in ("semifinal", "final") for blue in (4, 5, 12)]
# the semifinal recursion takes seconds in Python: greedy covers every supply, the
# other policies one binding supply each
CASES = [c for c in CASES if c[0] == "greedy" or c[1] == "final" or c[2] == {"saver": 5, "steady": 4}[c[0]]]


@pytest.mark.parametrize(("policy", "stage", "blue"), CASES)
def test_exact_equals_brute_force_on_tiny_tracks(tmp_path, policy, stage, blue):
    # blue 4: the six cards hold all 4 blue cubes, the supply starts empty and binds
    # ("the sheep recovers only what is there"); 12: it never binds.
    rules = load_text(tmp_path, tiny_rules_text(blue))
    res = exact_odds(rules, None, stage, policy)
    want = brute_force(rules, stage, policy)
    assert res.supply_binds == (blue < 12)
    if stage == "final":
        assert np.allclose(res.winner, want.reshape(6, 36).sum(axis=1), atol=1e-12)
    else:
        assert np.allclose(res.joint, want, atol=1e-12)
    assert res.p_place[:, 0].sum() == pytest.approx(1.0)


def test_user_policy_declared_own_state_equals_brute_force(tmp_path):
    name = "sheepsim.games.race.examples:always_gallop"
    assert exact_reason(name) is None
    rules = load_text(tmp_path, tiny_rules_text(5))
    res = exact_odds(rules, None, "semifinal", name)
    assert np.allclose(res.joint, brute_force(rules, "semifinal", name), atol=1e-12)


def _check_against_mc(rules, lanes, stage, policy, n, seed):
    """Every P(place) and every joint cell with an expected count of at least 25 within
    4.5 binomial standard errors at the exact p (fixed seed, so deterministic); a cell
    the solver says is impossible must never occur."""
    exact = exact_odds(rules, lanes, stage, policy)
    counts = race_counts(rules, lanes, stage, policy, n, seed=seed, progress=False)
    k = 3 if stage == "semifinal" else 1
    p, got = np.clip(exact.p_place[:, :k], 0, 1), counts.place_counts[:, :k] / n
    assert np.all(np.abs(got - p) <= 4.5 * np.sqrt(p * (1 - p) / n) + 1e-9)
    if stage == "semifinal":
        q, c = exact.joint, counts.joint
        big = q * n >= 25
        assert np.all(np.abs(c[big] / n - q[big]) <= 4.5 * np.sqrt(q[big] * (1 - q[big]) / n) + 1e-9)
        assert np.all(c[q == 0] == 0)
    return exact


@pytest.mark.parametrize("stage", ["semifinal", "final"])
def test_standard_lanes_against_monte_carlo(stage):
    res = _check_against_mc(load_rules(), None, stage, "greedy", 100_000, 11)
    assert not res.supply_binds  # shared/rulebooks/README.md: never binds with the standard set


def test_twenty_random_deals_against_monte_carlo():
    rules = load_rules()
    gen = np.random.default_rng(2013)
    for i in range(20):
        lanes = gen.permutation(len(rules.cards))[:6]
        stage = ("semifinal", "final")[i % 2]
        policy = ("greedy", "saver", "steady")[i % 3]
        _check_against_mc(rules, lanes, stage, policy, 20_000, 100 + i)


@pytest.mark.parametrize("variant", ["short", "small_end_zone", "scarce_blue"])
def test_variant_files_against_monte_carlo(tmp_path, variant):
    text = standard_text()
    if variant == "short":
        text = text.replace("track_length = 20", "track_length = 12").replace("end_zone = 5", "end_zone = 3")
    elif variant == "small_end_zone":
        text = text.replace("end_zone = 5", "end_zone = 2")
    else:  # the six cards with the most blue hold 11: the least the file may have
        text = text.replace("blue = 19", "blue = 11")
    rules = load_text(tmp_path, text)
    # steady rests most, so it meets an empty supply most; greedy keeps the test quick
    policy = "greedy" if variant == "scarce_blue" else "steady"
    for stage in ("semifinal", "final"):
        res = _check_against_mc(rules, None, stage, policy, 20_000, 5)
        assert res.supply_binds == (variant == "scarce_blue")


def test_random_and_bet_aware_policies_are_refused():
    assert "random" in exact_reason("random")
    assert "bets" in exact_reason("partisan")
    with pytest.raises(SheepsimError, match="no exact solution"):
        exact_odds(None, None, "semifinal", "partisan")


def test_all_120_orders_sum_to_one():
    res = exact_odds()
    orders = [36 * a + 6 * b + c for a, b, c in itertools.permutations(range(6), 3)]
    assert res.joint[orders].sum() == pytest.approx(1.0, abs=1e-12)
    assert np.delete(res.joint, orders).sum() == 0.0
