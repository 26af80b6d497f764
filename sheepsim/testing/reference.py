"""A plain-Python reading of the harness's game loop (:func:`sheepsim.harness.loop.play_games`),
for tests and benchmarks: the same games, written as the contract says, calling the
machine's functions as Python (``py_func``; the random streams stay compiled). Its
counts must equal the kernel's, byte for byte."""

from __future__ import annotations

import numpy as np

from sheepsim.harness import layout as H
from sheepsim.harness import slots
from sheepsim.harness.loop import key_game


def _py(fn):
    return getattr(fn, "py_func", fn)


def play_games(job, seed: int, first_game: int, n_games: int) -> np.ndarray:
    """The accumulator of games ``[first_game, first_game + n_games)`` of ``job`` (a
    :class:`sheepsim.harness.jobs.PlayJob` of built-in policies)."""
    m = job.machine
    mod = m.module
    start, to_move, apply_, scores, winner, view, decide = (_py(f) for f in m.functions())
    players = job.players
    ids, users = job._table().resolve(job.policies)
    assert not users, "the reference plays built-in policies only"
    R = job.rules.kernel_array()
    off = m.offsets(players)
    opt = {n: _py(getattr(mod, n)) for n in slots.OPTIONAL if hasattr(mod, n)}  # defined
    if "decide_rules" in opt:  # the built-ins that read R (slot decide_rules)
        def decide(pid, kind, seen, opts, n, rand):
            return opt["decide_rules"](pid, kind, seen, opts, n, rand, R)
    acc = np.zeros(off[-1], dtype=np.int64)
    chance_n = m.chance_streams
    phases = int(m.kind_phase.max()) + 1
    for game in range(first_game, first_game + n_games):
        streams = np.zeros((chance_n + phases * players, 2), dtype=np.uint64)
        key_game(streams, seed, game, chance_n, phases, players)  # the kernel's own keying
        chance = streams[0:chance_n]
        r = game % players if job.rotate else 0
        seat_pid = np.array([ids[q * players + (s - r) % players] for q in range(m.roles)
                             for s in range(players)], dtype=np.int64)  # role-major
        st = np.zeros(mod.state_size(players) + m.scratch_len, dtype=np.int64)
        opts = np.zeros((mod.MAX_OPTIONS, mod.OPTION_WIDTH), dtype=np.int64)
        seen = np.zeros(mod.VIEW_LEN, dtype=np.int64)
        start(st, R, players, chance)
        if "seated" in opt:
            opt["seated"](st, R, seat_pid)
        decisions = turns = asked = 0
        last = -1
        hist = []  # every seat's score at the end of each turn
        while True:
            seat, kind, n = to_move(st, R, opts)
            if seat < 0:
                break
            if seat != last:
                if last >= 0:
                    hist.append(_scores(scores, st, R, players))
                turns, last = turns + 1, seat
            choice = 0
            if n > 1:
                pid = seat_pid[int(m.kind_role[kind]) * players + seat]
                if "needs_view" not in opt or opt["needs_view"](pid, kind):
                    view(st, R, seat, seen)
                row = chance_n + int(m.kind_phase[kind]) * players + seat
                choice = decide(pid, kind, seen, opts[:n], n, streams[row:row + 1])
                assert 0 <= choice < n
                asked += 1
            acc[off[H.O_KIND_DECISIONS] + kind] += 1
            acc[off[H.O_KIND_OPTIONS] + kind] += n
            acc[off[H.O_KIND_FORCED] + kind] += n == 1
            apply_(st, R, seat, kind, opts, choice, chance)
            decisions += 1
        score = np.zeros(players, dtype=np.int64)
        scores(st, R, score)
        win = winner(st, R)
        acc[off[H.O_GAMES]] += 1
        if win >= 0:
            acc[off[H.O_WINS] + win] += 1
            acc[off[H.O_SLOT_WINS] + (win - r) % players] += 1
            if turns:
                _course(acc, off, hist + [score.copy()], win)
        else:
            acc[off[H.O_NO_WINNER]] += 1
        acc[off[H.O_TIED]] += int((score == score.max()).sum() > 1)
        acc[off[H.O_SCORE]:off[H.O_SCORE] + players] += score
        acc[off[H.O_SCORE_SQ]:off[H.O_SCORE_SQ] + players] += score * score
        for field, v in ((H.O_DECISIONS, decisions), (H.O_TURNS, turns)):
            acc[off[field]] += v
            acc[off[field + 1]] += v * v
        acc[off[H.O_ASKED]] += asked
        if "tally" in opt:
            opt["tally"](st, R, acc[off[H.O_GAME]:], seat_pid, r)
    return acc


def _scores(scores, st, R, players) -> np.ndarray:
    out = np.zeros(players, dtype=np.int64)
    scores(st, R, out)
    return out


def _course(acc, off, hist: list, win: int) -> None:
    """The course fields of one won game, as :func:`sheepsim.harness.loop.course` defines
    them, from the list of every seat's scores at each turn's end."""
    def leader(row):
        top = row.max()
        return int(row.argmax()) if (row == top).sum() == 1 else -1

    leaders = [leader(row) for row in hist]
    sole = [x for x in leaders if x >= 0]
    changes = sum(a != b for a, b in zip(sole, sole[1:], strict=False))
    last_not = max((t for t, x in enumerate(leaders) if x != win), default=-1)
    decided = (last_not + 1) * H.COURSE_SCALE // len(hist)
    deficit = max(int(row.max() - row[win]) for row in hist)
    mid = hist[(len(hist) - 1) // 2]
    for field, v in ((H.O_LEAD_CHANGES, changes), (H.O_DECIDED_AT, decided),
                     (H.O_DEFICIT, deficit)):
        acc[off[field]] += v
        acc[off[field + 1]] += v * v
    acc[off[H.O_WON]] += 1
    acc[off[H.O_COMEBACK]] += int(mid[win] < mid.max())
