"""Python entry points: validated runs of the kernels and their raw count tables.

:func:`setting` validates a line-up and builds its kernels (the jobs in :mod:`.jobs`
run them on the driver; :func:`.jobs.round_counts` runs many rounds and returns integer
counts); :func:`count_frames` turns counts into raw-count DataFrames that
:mod:`.analysis` turns into rates with intervals. Input is validated here; the kernels
trust it. Totals depend only on the inputs and the seed (never on chunks or threads).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sheepsim import plugins
from sheepsim.errors import SheepsimError
from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep.rules import AwSheepRules, load_rules
from sheepsim.harness import layout as H


def as_rules(rules) -> AwSheepRules:
    return rules if isinstance(rules, AwSheepRules) else load_rules(rules)


def seat_policies(policies, players: int) -> list:
    """One policy per seat: names, ``package.module:function`` specs or njit functions;
    a comma-separated string works too; one policy is repeated for every seat."""
    return plugins.seat_policies(policies, players, L.BUILTIN_POLICIES)


def check_draft(draft):
    if draft is not None and not isinstance(draft, bool):
        raise SheepsimError(f"draft must be true, false or None (the rules file), got {draft!r}")
    return draft


#: the round as a state machine for the shared harness
MACHINE = "sheepsim.games.awsheep.machine"


@dataclass
class Setting:
    """A validated run setting: rules vector, policy ids per slot, the plug-in policies
    (ids from ``layout.FIRST_USER_ID``); :meth:`rounds` plays it on the harness."""

    rules: AwSheepRules
    players: int
    draft: bool
    names: list[str]
    pids: np.ndarray
    users: tuple
    R: np.ndarray

    @property
    def machine(self):
        from sheepsim.harness.machine import load

        return load(MACHINE)

    @property
    def kernel(self):
        """The harness's entry kernel with this game's machine and plug-ins bound in."""
        return self.machine.kernel(self.users, L.FIRST_USER_ID)

    def rounds(self, seed: int, first_game: int, n_games: int, rotate: bool,
               outcomes: bool = False, R=None):
        """Rounds ``[first_game, first_game + n_games)`` of ``seed``: ``(acc, winners,
        scores)``, ``acc`` the game's counts (``layout.A_*``, a policy failure in its
        ``A_FAILURE`` fields), ``winners``/``scores`` per round if ``outcomes`` (the
        winning seat, every seat's flock value); ``R`` instead of the setting's rules
        vector (the card value's replays, machine ``RX_*``)."""
        own, _, winners, scores = self.play(seed, first_game, n_games, rotate, outcomes, R)
        return own, winners, scores

    def play(self, seed: int, first_game: int, n_games: int, rotate: bool,
             outcomes: bool = False, R=None, games=None, hands: bool = False,
             counts: bool = True):
        """As :meth:`rounds`, with the harness's own counts: ``(acc, harness, winners,
        scores)``, ``harness`` the accumulator's harness block (the fields of
        :mod:`sheepsim.harness.layout`, read by :func:`sheepsim.harness.tables.play_tables`).
        ``games``: the round indices to play instead of the range (int64); ``hands``
        (with ``outcomes``): also every seat's starting hand per round ``(n_games,
        players, N_KINDS)`` (machine ``result``) at the end. Without ``counts`` the
        accumulators are zero but for a failure (the card value's replays)."""
        from sheepsim.harness.jobs import run_games

        m = self.machine
        R = self.R if R is None else R
        acc, fail, winners, scores, _, *res = run_games(
            m, self.kernel, R, self.players, self.pids, rotate, seed, first_game, n_games,
            outcomes, games=games, results=hands, counts=counts)
        if not counts:
            acc = np.zeros(m.offsets(self.players)[-1], dtype=np.int64)
        cut = m.offsets(self.players)[H.O_GAME]
        own = acc[cut:].copy()
        own[L.A_FAILURE:L.A_FAILURE + L.FAIL_WIDTH] = fail[:L.FAIL_WIDTH]
        found = (own, acc[:cut].copy(), winners, scores)
        if hands:
            n = self.players
            found += (res[0][:, :n * L.N_KINDS].reshape(-1, n, L.N_KINDS),)
        return found


def check_failure(record, *settings: Setting) -> None:
    """Raise the one-line error (:func:`sheepsim.plugins.policy_failure`) for a policy
    failure the harness recorded (``record``: the ``F_*`` fields, ``layout.A_FAILURE`` of
    an accumulator, or the harness's failure record); nothing if none. The policy is
    named as the ``settings`` name the failing policy id."""
    code = int(record[L.F_CODE])
    if code == 0:
        return
    pid = int(record[L.F_PID])
    name = next((name for s in settings for name, p in zip(s.names, s.pids, strict=True)
                 if p == pid), f"policy id {pid}")
    raise plugins.policy_failure(code, name, int(record[L.F_SEAT]), int(record[L.F_GAME]),
                                 int(record[L.F_CHOICE]), int(record[L.F_N]),
                                 plugins.kind_name(L.KIND_DECISIONS, int(record[L.F_KIND])))


def setting(rules, players, policies, draft=None) -> Setting:
    from sheepsim.games.awsheep.policies import policy_name, resolve_policies

    rules = as_rules(rules)
    players = rules.check_players(players)
    draft = check_draft(draft)
    chosen = seat_policies(policies, players)
    ids, users = resolve_policies(chosen)
    # the machine's rules vector: the rules and no card value replacement (machine RX_*)
    R = np.concatenate([rules.kernel_array(players, draft=draft), [-1, -1]]).astype(np.int64)
    return Setting(rules, players, bool(R[L.R_DRAFT]), [policy_name(p) for p in chosen],
                   np.array(ids, dtype=np.int64), tuple(users), R)


def count_frames(acc, players: int, names: list[str], draft: bool) -> dict[str, pd.DataFrame]:
    """Raw integer counts as DataFrames, each with leading ``players``, ``draft`` and
    ``field`` (the seats' policies, :func:`field_name`) columns so that runs of several
    settings concatenate:

    * ``seats``: ``seat, games, wins, wins_on_tie, rounds_out``;
    * ``slots``: ``slot, policy, games, wins`` (policy slots; seat-fair when rotated);
    * ``order``: ``position`` (1 = first player), ``games, wins, wins_on_tie``;
    * ``ends``: ``end, games``; ``turns``: ``turns, games`` (histogram);
    * ``triggers``: ``trigger, games`` (how the Flock Off started; ``none``: no Flock Off);
    * ``margins``: ``margin, games`` (Flock Off rounds by winning margin, 0 = a tie);
    * ``knockouts``: ``players_out, games`` (rounds by players without cards at the end);
    * ``start_hands``: ``slot`` (the first slot of the policy), ``policy, kind, count,
      games, players_with, wins, players_with_sq, wins_x_players`` (starting hands after
      the draft; per round H = the policy's seats with that count, W = 1 if one of them
      won: sums of H, W, H^2 and W * H over rounds);
    * ``card_use``: ``slot, policy, kind, games`` and for each quantity X of
      :data:`~.layout.USE_NAMES` the sums over rounds of the policy's round total
      ``X``, ``X_sq`` and ``X_x_plays`` (X times the round's plays of the kind).
    """
    n = int(acc[L.A_GAMES])
    head = {"players": players, "draft": draft, "field": field_name(names)}
    seats = pd.DataFrame({**head, "seat": np.arange(1, players + 1), "games": n,
                          "wins": acc[L.A_WINS:L.A_WINS + players],
                          "wins_on_tie": acc[L.A_TIE_WINS:L.A_TIE_WINS + players],
                          "rounds_out": acc[L.A_OUT:L.A_OUT + players]})
    slots = pd.DataFrame({**head, "slot": np.arange(1, players + 1), "policy": names,
                          "games": n, "wins": acc[L.A_WINS_BY_SLOT:L.A_WINS_BY_SLOT + players]})
    order = pd.DataFrame({**head, "position": np.arange(1, players + 1), "games": n,
                          "wins": acc[L.A_WINS_BY_ORDER:L.A_WINS_BY_ORDER + players],
                          "wins_on_tie": acc[L.A_TIE_WINS_BY_ORDER:
                                             L.A_TIE_WINS_BY_ORDER + players]})
    ends = pd.DataFrame({**head, "end": list(L.END_NAMES), "games": acc[L.A_END:L.A_END + 4]})
    hist = acc[L.A_TURN_HIST:L.A_TURN_HIST + L.MAX_TURNS + 1]
    present = np.nonzero(hist)[0]
    turns = pd.DataFrame({**head, "turns": present, "games": hist[present]})
    triggers = pd.DataFrame({**head, "trigger": list(L.TRIGGER_NAMES),
                             "games": acc[L.A_TRIGGER:L.A_TRIGGER + len(L.TRIGGER_NAMES)]})
    mh = acc[L.A_MARGIN:L.A_MARGIN + L.MAX_MARGIN + 1]
    present = np.nonzero(mh)[0]
    margins = pd.DataFrame({**head, "margin": present, "games": mh[present]})
    oh = acc[L.A_OUT_HIST:L.A_OUT_HIST + players + 1]
    knockouts = pd.DataFrame({**head, "players_out": np.arange(players + 1), "games": oh})
    shape = (L.MAX_PLAYERS, L.N_KINDS, L.START_STRIDE)
    size = L.MAX_PLAYERS * L.N_KINDS * L.START_STRIDE

    def block(start):
        return acc[start:start + size].reshape(shape)

    start_n = block(L.A_START_N)
    slot, kind, count = np.nonzero(start_n[:players])
    start = pd.DataFrame({**head, "slot": slot + 1, "policy": [names[i] for i in slot],
                          "kind": [L.KIND_NAMES[k] for k in kind], "count": count,
                          "games": n, "players_with": start_n[slot, kind, count],
                          "wins": block(L.A_START_WINS)[slot, kind, count],
                          "players_with_sq": block(L.A_START_SQ)[slot, kind, count],
                          "wins_x_players": block(L.A_START_WH)[slot, kind, count]})
    use = acc[L.A_USE:L.A_USE + L.MAX_PLAYERS * L.N_KINDS * L.USE_WIDTH * L.USE_SUMS].reshape(
        L.MAX_PLAYERS, L.N_KINDS, L.USE_WIDTH, L.USE_SUMS)[:players]
    groups = sorted({names.index(p) for p in names})  # the first slot of each policy
    rows = []
    for g in groups:
        for k in range(L.N_KINDS):
            row = {**head, "slot": g + 1, "policy": names[g], "kind": L.KIND_NAMES[k],
                   "games": n}
            for q, name in enumerate(L.USE_NAMES):
                row[name] = use[g, k, q, 0]
                row[f"{name}_sq"] = use[g, k, q, 1]
                row[f"{name}_x_plays"] = use[g, k, q, 2]
            rows.append(row)
    card_use = pd.DataFrame(rows)
    return {"seats": seats, "slots": slots, "order": order, "ends": ends, "turns": turns,
            "triggers": triggers, "margins": margins, "knockouts": knockouts,
            "start_hands": start, "card_use": card_use}


def field_name(names: list[str]) -> str:
    """The policy field of a line-up: the one policy of every seat, or the seats'
    policies joined by commas in seat order."""
    return names[0] if len(set(names)) == 1 else ",".join(names)


def card_value_counts(s: Setting, seed: int, first_game: int, n_games: int, rotate: bool):
    """Card value on common random numbers: ``(acc, cv)`` of rounds ``[first_game,
    first_game + n_games)``. Every round is played as dealt (counted in ``acc``) and
    replayed for every seat and non-sheep kind with one card of that kind in the seat's
    starting hand (after the draft) replaced by a plain sheep (machine ``RX_*``: the same
    deal, draft and streams; a seat without the kind plays no replay: only the rounds
    whose starting hands, machine ``result``, give the seat the kind are replayed). ``cv``
    ``(MAX_PLAYERS, N_KINDS, CV_WIDTH)`` gets per policy group (the first slot of the
    seat's policy) and kind, per round, the holders H and the paired win difference D
    (layout ``CV_*``)."""
    from sheepsim.games.awsheep.machine import RX_KIND, RX_SEAT

    n = s.players
    cv = np.zeros((L.MAX_PLAYERS, L.N_KINDS, L.CV_WIDTH), dtype=np.int64)
    acc, _, win, _, hands = s.play(seed, first_game, n_games, rotate, True, hands=True)
    if acc[L.A_FAILURE + L.F_CODE]:
        return acc, cv
    seat = np.arange(n)
    r = np.arange(first_game, first_game + n_games) % n if rotate else np.zeros(n_games, int)
    slot = (seat[None, :] - r[:, None]) % n  # [round, seat]: the seat's slot
    pid = s.pids[slot]
    same = pid[:, :, None] == pid[:, None, :]
    group = np.where(same, slot[:, None, :], n).min(axis=2)  # the first slot of its policy
    won = win[:, None] == seat[None, :]
    for k in range(L.N_KINDS):
        if k == L.SHEEP:
            continue
        held = np.zeros((n_games, n), dtype=bool)
        won_replaced = np.zeros((n_games, n), dtype=bool)
        for t in range(n):
            rows = np.flatnonzero(hands[:, t, k])  # the rounds to replay
            if not len(rows):
                continue
            R = s.R.copy()
            R[RX_SEAT], R[RX_KIND] = t, k
            replay, _, w, _ = s.play(seed, 0, 0, rotate, True, R, games=rows + first_game,
                                     counts=False)
            if replay[L.A_FAILURE + L.F_CODE]:
                acc[L.A_FAILURE:L.A_FAILURE + L.FAIL_WIDTH] = \
                    replay[L.A_FAILURE:L.A_FAILURE + L.FAIL_WIDTH]
                return acc, cv
            held[rows, t] = w >= 0
            won_replaced[rows, t] = w == t
        for g in range(n):
            mine = held & (group == g)
            h = mine.sum(axis=1)
            a = (won & mine).sum(axis=1)
            b = (won_replaced & mine).sum(axis=1)
            d = a - b
            c = cv[g, k]
            c[L.CV_HOLDERS] += h.sum()
            c[L.CV_HOLDERS_SQ] += (h * h).sum()
            c[L.CV_WINS] += a.sum()
            c[L.CV_WINS_REPLACED] += b.sum()
            c[L.CV_ONLY_WITH] += (won & ~won_replaced & mine).sum()
            c[L.CV_ONLY_REPLACED] += (won_replaced & ~won & mine).sum()
            c[L.CV_D] += d.sum()
            c[L.CV_D_SQ] += (d * d).sum()
            c[L.CV_DH] += (d * h).sum()
    return acc, cv


def card_value_frame(cv, players: int, names: list[str], draft: bool,
                     games: int) -> pd.DataFrame:
    """The counts of :func:`card_value_counts` ``(MAX_PLAYERS, N_KINDS,
    CV_WIDTH)`` as rows ``players, draft, field, slot`` (the policy's first slot),
    ``policy, kind, games, holders, holders_sq, wins_holding, wins_replaced, diff,
    diff_sq, diff_x_holders, only_holding, only_replaced`` (sheep excluded: replacing a
    sheep by a sheep changes nothing)."""
    rows = []
    for g in sorted({names.index(p) for p in names}):
        for k in range(L.N_KINDS):
            if k == L.SHEEP:
                continue
            c = cv[g, k]
            rows.append({"players": players, "draft": draft, "field": field_name(names),
                         "slot": g + 1, "policy": names[g], "kind": L.KIND_NAMES[k],
                         "games": games, "holders": c[L.CV_HOLDERS],
                         "holders_sq": c[L.CV_HOLDERS_SQ], "wins_holding": c[L.CV_WINS],
                         "wins_replaced": c[L.CV_WINS_REPLACED], "diff": c[L.CV_D],
                         "diff_sq": c[L.CV_D_SQ], "diff_x_holders": c[L.CV_DH],
                         "only_holding": c[L.CV_ONLY_WITH],
                         "only_replaced": c[L.CV_ONLY_REPLACED]})
    return pd.DataFrame(rows)


def pair_frame(pairs, players: int, names_a, names_b, draft: bool, games: int) -> pd.DataFrame:
    """Paired outcomes per slot: ``slot, policy_a, policy_b, games, both, a_only,
    b_only`` (win indicators of that slot's player in the A and B plays of a round)."""
    return pd.DataFrame({"players": players, "draft": draft,
                         "slot": np.arange(1, players + 1), "policy_a": names_a,
                         "policy_b": names_b, "games": games, "both": pairs[:, 0],
                         "a_only": pairs[:, 1], "b_only": pairs[:, 2]})


__all__ = ["check_failure", "count_frames", "card_value_frame", "pair_frame", "setting",
           "seat_policies", "field_name"]
