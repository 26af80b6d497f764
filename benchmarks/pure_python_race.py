"""A naive pure-Python Sheep Race (semifinal, greedy policy) for speed comparisons.

Written independently of the numba engine in plain Python objects (dicts and lists),
but drawing dice from the same SplitMix64 streams, so for a given seed it must produce
exactly the engine's placings: the benchmark checks that before timing anything.
"""

from __future__ import annotations

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
M1, M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
G1, G2 = 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53


def mix64(z):
    z = ((z ^ (z >> 30)) * M1) & MASK
    z = ((z ^ (z >> 27)) * M2) & MASK
    return z ^ (z >> 31)


class Stream:
    """The dice stream of one race: sheepsim.rng keyed by (seed, game, DICE=0)."""

    def __init__(self, seed, game, purpose=0):
        k = mix64((seed + GOLDEN) & MASK)
        k = mix64(k ^ ((game * M2 + GOLDEN) & MASK))
        k = mix64(k ^ ((purpose * G1 + M1) & MASK))
        self.state = mix64(k)
        z = (k + GOLDEN) & MASK
        z = ((z ^ (z >> 33)) * G1) & MASK
        z = ((z ^ (z >> 33)) * G2) & MASK
        self.gamma = (z ^ (z >> 33)) | 1

    def below(self, n):
        while True:
            self.state = (self.state + self.gamma) & MASK
            m = (mix64(self.state) >> 32) * n
            low = m & 0xFFFFFFFF
            if low >= n or low >= ((1 << 32) - n) % n:
                return m >> 32


CROSS_ORDER = ["walk_free", "walk_recover", "trot_blue", "gallop_blue2", "gallop_red",
               "walk_white", "trot_white", "gallop_white"]
FAR_ORDER = ["gallop_red", "gallop_blue2", "gallop_white", "trot_blue", "trot_white",
             "walk_free", "walk_recover", "walk_white", "rest"]


def options(sheep, supply, track, ez_first):
    """{option: (squares, red, blue, white change)} of the legal options."""
    r, b, w = sheep["red"], sheep["blue"], sheep["white"]
    cubes = r + b + w
    opts = {}
    if r:
        opts["gallop_red"] = (sheep["gallop"], -1, 0, 0)
    if b >= 2:
        opts["gallop_blue2"] = (sheep["gallop"], 0, -2, 0)
    if w:
        opts["gallop_white"] = (sheep["gallop"], 0, 0, -1)
        opts["trot_white"] = (sheep["trot"], 0, 0, -1)
        opts["walk_white"] = (1, 0, 0, -1)
    if b:
        opts["trot_blue"] = (sheep["trot"], 0, -1, 0)
    if sheep["pos"] >= ez_first:
        if cubes:
            opts["walk_free"] = (1, 0, 0, 0)
    else:
        if cubes and cubes + min(1, supply) <= 3:
            opts["walk_recover"] = (1, 0, min(1, supply), 0)
        if cubes + min(2, supply) <= 3:
            opts["rest"] = (0, 0, min(2, supply), 0)
    return opts


def greedy(sheep, opts, track, ez_first):
    for name in CROSS_ORDER:
        if name in opts and sheep["pos"] + opts[name][0] > track:
            return name
    cubes = sheep["red"] + sheep["blue"] + sheep["white"]

    def exhausts(name):
        d, dr, db, dw = opts[name]
        end = sheep["pos"] + d
        return ez_first <= end <= track and cubes + dr + db + dw == 0

    for skip_exhausting in (True, False):
        best, best_d = None, -1
        for name in FAR_ORDER:
            if name in opts and not (skip_exhausting and exhausts(name)) and opts[name][0] > best_d:
                best, best_d = name, opts[name][0]
        if best is not None:
            return best
    raise AssertionError("no legal option")


def run_semifinal(cards, seed, game, track=20, end_zone=5, blue_total=19,
                  dice=((1, 2, 3, 4, 5, 6), (1, 2, 3, 0, 0, 0))):
    """One semifinal; returns the lanes (0-5) placed 1st, 2nd, 3rd and the turns."""
    stream = Stream(seed, game)
    ez_first = track - end_zone + 1
    sheep = [dict(pos=0, status="running", red=c[0], blue=c[1], white=c[2], trot=c[3],
                  gallop=c[4]) for c in cards]
    supply = blue_total - sum(s["blue"] for s in sheep)
    crossed = []
    turns = 0
    while len(crossed) < 3 and any(s["status"] == "running" for s in sheep):
        total = sum(die[stream.below(len(die))] for die in dice)
        lane = {7: 5, 8: 4}.get(total, total - 1)
        if total >= 9 or sheep[lane]["status"] != "running":
            running = [i for i, s in enumerate(sheep) if s["status"] == "running"]
            lane = min(running, key=lambda i: (sheep[i]["pos"], -i))
        s = sheep[lane]
        opts = options(s, supply, track, ez_first)
        d, dr, db, dw = opts[greedy(s, opts, track, ez_first)]
        s["red"] += dr
        s["blue"] += db
        s["white"] += dw
        supply -= db
        s["pos"] += d
        if s["pos"] > track:
            s["status"] = "finished"
            crossed.append(lane)
        elif s["pos"] >= ez_first and s["red"] + s["blue"] + s["white"] == 0:
            s["status"] = "exhausted"
        turns += 1
    rest = sorted((i for i in range(6) if i not in crossed), key=lambda i: (-sheep[i]["pos"], i))
    return (crossed + rest)[:3], turns
