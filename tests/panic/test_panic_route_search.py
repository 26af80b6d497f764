"""The regroup route search's kernels against plain-Python definitions (issue 34).

``first_contact``, ``probe``, ``route_steps4``, ``one_step_slides``, ``grow`` and
``lowest_bit`` were rewritten or added for speed (the kind of direction decided outside
the loops over pairs, the other sheep as one mask, the four directions' route lengths
and one-cell slides from one pass, a group grown from its frontier's sheep only). The
pinned digests of ``test_panic_pinned.py`` check whole games byte for byte; these tests
check each kernel on its own, on random flocks (one sheep a cell) with dead sheep, any
group and empty targets, against a definition written without the kernels' shortcuts.
"""

import numpy as np

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.geometry.flockops import _BIG
from sheepsim.games.panic.geometry.groups import (
    first_contact,
    grow,
    lowest_bit,
    one_step_slides,
    probe,
    route_steps4,
    side_contacts,
)

DR = L.DIR_ROW
DC = L.DIR_COL
FAR = 40  # no contact is possible beyond this many steps on the boards drawn below


def _random_case(rng):
    st = np.zeros(L.ST_LEN, dtype=np.int64)
    cells = rng.choice(11 * 11, L.N_SHEEP, replace=False)  # one sheep a cell
    st[L.ST_ROW:L.ST_ROW + L.N_SHEEP] = cells // 11 - 5
    st[L.ST_COL:L.ST_COL + L.N_SHEEP] = cells % 11 - 5
    st[L.ST_ALIVE:L.ST_ALIVE + L.N_SHEEP] = rng.random(L.N_SHEEP) < 0.85
    alive = sum(1 << s for s in range(L.N_SHEEP) if st[L.ST_ALIVE + s])
    mask = int(rng.integers(1, 1 << L.N_SHEEP)) & alive
    target = int(rng.integers(0, 1 << L.N_SHEEP)) & alive & ~mask
    return st, alive, mask, target


def _random_cases(rng, count):
    """``count`` random cases with a non-empty group."""
    while count:
        st, alive, mask, target = _random_case(rng)
        if mask:
            count -= 1
            yield st, alive, mask, target


def _probe_by_cells(st, alive, mask, tr, tc, target):
    """2 if the shifted group lands on another live sheep, else 1 if it touches a sheep
    of ``target`` on a side, else 0 (the rules' words, cell by cell)."""
    cell = {(int(st[L.ST_ROW + s]), int(st[L.ST_COL + s])): s
            for s in range(L.N_SHEEP) if (alive >> s) & 1 and not (mask >> s) & 1}
    shifted = [(int(st[L.ST_ROW + a]) + tr, int(st[L.ST_COL + a]) + tc)
               for a in range(L.N_SHEEP) if (mask >> a) & 1]
    if any(c in cell for c in shifted):
        return 2
    for r, c in shifted:
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            s = cell.get((nr, nc))
            if s is not None and (target >> s) & 1:
                return 1
    return 0


def test_probe_matches_the_cells():
    rng = np.random.default_rng(34)
    for st, alive, mask, target in _random_cases(rng, 3000):
        tr, tc = (int(x) for x in rng.integers(-3, 4, 2))
        assert probe(st, mask, tr, tc, target) == _probe_by_cells(st, alive, mask, tr, tc, target)


def test_first_contact_is_the_first_probe_answer():
    """``first_contact(st, mask, d, target)`` = ``(k_hit, k_touch)``: the first ``k >= 1``
    at which the group shifted ``k`` steps along ``d`` lands on another sheep, and the
    first at which it touches the target (compared where that comes before ``k_hit``:
    the route search reads it only there)."""
    rng = np.random.default_rng(35)
    compared = touches = 0
    for st, alive, mask, target in _random_cases(rng, 1500):
        for d in range(8):
            answers = [_probe_by_cells(st, alive, mask, k * DR[d], k * DC[d], target)
                       for k in range(1, FAR)]
            hit = next((k for k, a in enumerate(answers, 1) if a == 2), _BIG)
            touch = next((k for k, a in enumerate(answers, 1) if a == 1 and k < hit), _BIG)
            k_hit, k_touch = first_contact(st, mask, d, target)
            assert k_hit == hit, (d, mask, target)
            assert (k_touch < k_hit) == (touch < hit)
            if touch < hit:
                assert k_touch == touch
                touches += 1
            compared += 1
    assert compared > 10_000 and touches > 1_000  # exercised, not vacuous


def _route_steps_by_sheep(st, mask, d, target):
    """The route length of direction ``d`` as the kernel ``route_steps`` had it, one
    direction at a time (before ``route_steps4``): ``(rest_max + 1 - g_min) // per_step
    + 1``, clamped to ``0..MAX_ROUTE_STEPS``, with ``g_min`` the group's nearest
    projection on ``d``, ``rest_max`` the target's furthest, ``per_step`` 2 for a
    diagonal; 0 without a target."""
    def proj(s):
        return int(st[L.ST_ROW + s]) * DR[d] + int(st[L.ST_COL + s]) * DC[d]
    aim = [proj(s) for s in range(L.N_SHEEP) if (target >> s) & 1]
    if not aim:
        return 0
    g_min = min(proj(s) for s in range(L.N_SHEEP) if (mask >> s) & 1)
    k = (max(aim) + 1 - g_min) // (2 if d % 2 else 1) + 1
    return max(0, min(k, L.MAX_ROUTE_STEPS))


def test_route_steps4_gives_each_of_its_four_directions_route_length():
    rng = np.random.default_rng(36)
    for st, _, mask, target in _random_cases(rng, 4000):
        for d0 in (0, 1):
            four = route_steps4(st, mask, target, d0)
            assert list(four) == [_route_steps_by_sheep(st, mask, d0 + 2 * i, target)
                                  for i in range(4)]


def test_grow_is_the_orthogonally_connected_group_and_lowest_bit_the_lowest_sheep():
    rng = np.random.default_rng(37)
    compared = larger = 0
    assert lowest_bit(0) == -1
    assert [lowest_bit(m) for m in range(1, 1 << L.N_SHEEP)] == [
        min(s for s in range(L.N_SHEEP) if (m >> s) & 1) for m in range(1, 1 << L.N_SHEEP)]
    for _ in range(2000):
        st, alive, _, _ = _random_case(rng)
        if alive == 0:
            continue
        st[L.ST_ROW:L.ST_ROW + L.N_SHEEP] //= 2  # denser flocks: larger groups
        st[L.ST_COL:L.ST_COL + L.N_SHEEP] //= 2
        cells = {}
        for s in range(L.N_SHEEP):
            cells.setdefault((int(st[L.ST_ROW + s]), int(st[L.ST_COL + s])), s)
        if len(cells) < L.N_SHEEP:
            continue  # two sheep on a cell after the halving: not a flock
        lo, hi = side_contacts(st)
        within = int(rng.integers(0, 1 << L.N_SHEEP)) & alive
        start = lowest_bit(within) if within else lowest_bit(alive)
        within |= 1 << start
        group, todo = {start}, [start]
        while todo:  # breadth-first over side contacts inside ``within``
            a = todo.pop()
            ra, ca = int(st[L.ST_ROW + a]), int(st[L.ST_COL + a])
            for nr, nc in ((ra - 1, ca), (ra + 1, ca), (ra, ca - 1), (ra, ca + 1)):
                b = cells.get((nr, nc))
                if b is not None and (within >> b) & 1 and (alive >> b) & 1 and b not in group:
                    group.add(b)
                    todo.append(b)
        assert grow(lo, hi, start, within) == sum(1 << b for b in group)
        compared += 1
        larger += len(group) >= 3
    assert compared > 500 and larger > 50  # exercised (799 flocks, 76 groups of 3 or more)


def test_one_step_slides_is_four_probes_and_the_corner_contact():
    rng = np.random.default_rng(38)
    slides = 0
    for st, alive, mask, main in _random_cases(rng, 4000):
        found = one_step_slides(st, mask, alive & ~mask, main)
        for i in range(4):
            d = 2 * i
            assert (found >> i) & 1 == (probe(st, mask, DR[d], DC[d], main) == 1)
            slides += (found >> i) & 1
        corner = any(abs(int(st[L.ST_ROW + a] - st[L.ST_ROW + b])) == 1
                     and abs(int(st[L.ST_COL + a] - st[L.ST_COL + b])) == 1
                     for a in range(L.N_SHEEP) if (mask >> a) & 1
                     for b in range(L.N_SHEEP) if (main >> b) & 1)
        assert (found >> 4) & 1 == corner
    assert slides > 500  # exercised, not vacuous
