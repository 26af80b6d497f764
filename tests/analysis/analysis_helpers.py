"""Race counts built by hand from a known distribution, for the analysis tests."""

import numpy as np

from sheepsim.games.race.simulate import RaceCounts


def counts_from_outcomes(rules, outcomes: dict, stage: str = "semifinal", seed: int = 0) -> RaceCounts:
    """RaceCounts for lanes 1-6 = the first six cards from ``{(a, b, c): races}`` (lanes
    0-5; semifinal) or ``{winner lane: races}`` (final); card_place agrees with joint."""
    lanes = np.arange(6)
    joint = np.zeros(216, dtype=np.int64)
    card_place = np.zeros((len(rules.cards), 6, 3), dtype=np.int64)
    for key, k in outcomes.items():
        placed = (key,) if stage == "final" else key
        for place, lane in enumerate(placed):
            card_place[lanes[lane], lane, place] += k
        if stage != "final":
            a, b, c = key
            joint[36 * a + 6 * b + c] += k
    games = int(sum(outcomes.values()))
    return RaceCounts(rules, stage, "greedy", seed, games, lanes, joint, card_place, 10 * games)


def random_outcomes(seed: int, races: int = 500) -> dict:
    """A lopsided random distribution over ordered top-three outcomes."""
    rng = np.random.default_rng(seed)
    strength = rng.dirichlet(np.ones(6) * 0.7)
    out: dict = {}
    for _ in range(races):
        order = tuple(int(x) for x in rng.choice(6, size=3, replace=False, p=strength))
        out[order] = out.get(order, 0) + 1
    return out
