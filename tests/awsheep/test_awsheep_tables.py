"""The designer's tables: card value on common random numbers, card use, ties and
endings, turn order per policy field; exact checks against traces and hand-made counts."""

import numpy as np
import pandas as pd
import pytest

from sheepsim import driver
from sheepsim.games.awsheep import analysis as A
from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep import machine as M
from sheepsim.games.awsheep.jobs import round_counts
from sheepsim.games.awsheep.simulate import count_frames
from sheepsim.stats import holm_adjusted

from .aw_helpers import play_round, rules_vector, scratch, start_round


def test_a_policy_on_every_seat_wins_exactly_one_in_n_and_has_no_interval():
    slots = pd.DataFrame({"players": 4, "draft": False, "slot": [1, 2, 3, 4],
                          "policy": "counter", "games": 100, "wins": [30, 20, 25, 25]})
    t = A.win_rate_by_policy(slots).iloc[0]
    assert t["win_rate"] == 0.25 and t["exact"]
    assert np.isnan(t["win_rate_lo"]) and np.isnan(t["win_rate_hi"])


def test_first_player_holm_adjusted_per_field():
    # two fields: Holm runs over the 4 positions of each field, not over all 8 rows
    order = pd.DataFrame({"players": 4, "draft": False, "position": [1, 2, 3, 4] * 2,
                          "field": ["greedy"] * 4 + ["random"] * 4, "games": 4000,
                          "wins": [1300, 900, 900, 900, 1000, 1000, 1000, 1000]})
    t = A.first_player_test(order)
    g = t[t["field"] == "greedy"]
    p = g["pvalue"].to_numpy()
    order_p = np.sort(p)
    # step-down: the k-th smallest times (4 - k), running maximum
    expect = np.maximum.accumulate([min(1.0, (4 - k) * order_p[k]) for k in range(4)])
    assert np.allclose(np.sort(g["pvalue_holm"].to_numpy()), expect)
    assert g["significant"].iloc[0] and not t[t["field"] == "random"]["significant"].any()
    assert t[t["field"] == "random"]["chi2_pvalue"].iloc[0] == 1.0
    assert (holm_adjusted(p) <= 0.05).tolist() == g["significant"].tolist()


def test_the_turn_order_finding_names_its_field():
    from sheepsim.games.awsheep.studies import turn_order_finding

    order = pd.DataFrame({"players": 5, "draft": True, "position": [1, 2, 3, 4, 5],
                          "field": "greedy", "games": 10_000,
                          "wins": [750, 1500, 2000, 2500, 3250]})
    line = turn_order_finding(A.first_player_test(order))
    assert line.startswith("Turn order with every seat playing greedy: position 1 is "
                           "furthest from a fair share, winning 7.5% of rounds")


def test_ratio_interval_is_the_cluster_formula():
    # rounds g with X_g successes over N_g trials: the delta-method variance of the
    # ratio is sum (X_g - m N_g)^2 / N^2 * G / (G - 1)
    x = np.array([1, 0, 2, 1, 0, 1])
    n = np.array([2, 1, 3, 2, 2, 1])
    m, lo, hi, se = A.ratio_interval(x.sum(), (x * x).sum(), (x * n).sum(), n.sum(),
                                     (n * n).sum(), len(x))
    assert m == pytest.approx(5 / 11)
    expect = np.sqrt(((x - m * n) ** 2).sum() * 6 / 5) / 11
    assert se == pytest.approx(expect)
    assert hi - m == pytest.approx(1.959963984540054 * expect)


def test_card_power_interval_is_clustered_by_round_not_by_seat():
    # 1000 rounds, in each two seats start with 4 sheep and one of them wins in 400
    # rounds: the 2000 seat-rounds are not 2000 trials (one winner a round). Per round
    # W in {0, 1} over H = 2: the clustered se is sd(W) / sqrt(G) / 2.
    sh = pd.DataFrame({"players": 4, "draft": False, "slot": 1, "policy": "counter",
                       "kind": "sheep", "count": 4, "games": 1000, "players_with": 2000,
                       "wins": 400, "players_with_sq": 4000, "wins_x_players": 800},
                      index=[0])
    t = A.card_power(sh).iloc[0]
    w = np.r_[np.ones(400), np.zeros(600)]
    se = w.std(ddof=1) / np.sqrt(1000) / 2
    assert t["win_rate"] == 0.2
    assert t["win_rate_hi"] - 0.2 == pytest.approx(1.959963984540054 * se)


def _trace_facts(rules, n, policies, seed, games):
    """Per round, from the trace log alone: end, trigger, margin, players out, and per
    card kind: plays, the player's and the target's flock value change, knock-outs."""
    from sheepsim.games.awsheep.trace import trace_round

    worth = rules.golden_worth
    base = L.LOG_HEAD + L.MAX_PLAYERS

    def value(row, s):
        h = row[base + s * L.N_KINDS:base + (s + 1) * L.N_KINDS]
        return int(h[L.SHEEP] + worth * h[L.GOLDEN])

    use = np.zeros((L.N_KINDS, 4), dtype=np.int64)
    facts = []
    for g in range(games):
        tr = trace_round(rules, n, policies, seed, g)
        log = tr.log
        plays = np.nonzero(log[:, 0] == L.EV_PLAY)[0]
        stops = list(plays[1:]) + [len(log)]
        for i, j in zip(plays, stops, strict=True):
            seat, kind, target = (int(v) for v in log[i, 1:4])
            turn = log[i:j]
            turn = turn[~np.isin(turn[:, 0], (L.EV_FLOCK_OFF, L.EV_GUESS, L.EV_DROP,
                                               L.EV_DRAW, L.EV_END))]
            before = log[i - 1]
            after = turn[-1]
            use[kind, 0] += 1
            use[kind, 1] += value(after, seat) - value(before, seat)
            if target >= 0:
                use[kind, 2] += value(after, target) - value(before, target)
            use[kind, 3] += sum(1 for r in turn if r[0] == L.EV_OUT and r[1] != seat)
        last = log[plays[-1]:]
        last = last[~np.isin(last[:, 0], (L.EV_FLOCK_OFF, L.EV_GUESS, L.EV_DROP, L.EV_DRAW,
                                          L.EV_END))][-1]
        sizes = last[L.LOG_HEAD:L.LOG_HEAD + n]
        out = int((sizes == 0).sum())
        trigger = margin = None
        flock = log[log[:, 0] == L.EV_FLOCK_OFF]
        if len(flock):
            run = int(last[6])
            left = n - out
            trigger = ("everyone_out" if left == 0 else
                       "run_equals" if run == left else "run_passes")
            before = log[plays[-1] - 1]
            contenders = [s for s in range(n) if (before[L.LOG_HEAD + s] > 0 if left == 0
                                                  else sizes[s] > 0)]
            vals = sorted((value(last, s) for s in contenders), reverse=True)
            margin = vals[0] - vals[1]
        facts.append((tr.end, trigger, margin, out))
    return facts, use


def test_endings_and_card_use_agree_with_the_traces():
    # The accumulators against an independent reading of each round's trace: how it
    # ended, what started the Flock Off, the winning margin, players out, and each
    # play's effect on the player's and the target's flocks.
    from sheepsim.games.awsheep.rules import load_rules

    rules = load_rules()
    for n, policies in ((3, "counter"), (5, "random,greedy,counter,random,greedy")):
        games = 40
        s, acc = round_counts(rules, n, policies, games=games, seed=11, rotate=False,
                              progress=False)
        facts, use = _trace_facts(rules, n, s.names, 11, games)
        f = count_frames(acc, n, s.names, False)
        ends = f["ends"].set_index("end")["games"]
        assert ends.to_dict() == {e: sum(1 for x in facts if x[0] == e) for e in L.END_NAMES}
        trig = f["triggers"].set_index("trigger")["games"]
        for name in L.TRIGGER_NAMES[1:]:
            assert trig[name] == sum(1 for x in facts if x[1] == name), name
        margins = f["margins"].set_index("margin")["games"].to_dict()
        seen = pd.Series([x[2] for x in facts if x[2] is not None]).value_counts().to_dict()
        assert margins == seen
        ko = f["knockouts"].set_index("players_out")["games"]
        assert all(ko[k] == sum(1 for x in facts if x[3] == k) for k in range(n + 1))
        cu = f["card_use"].groupby("kind")[["plays", "own_sheep_change",
                                           "target_sheep_change", "knockouts"]].sum()
        for k, name in enumerate(L.KIND_NAMES):
            assert cu.loc[name].tolist() == use[k].tolist(), name


def test_doghouse_never_knocks_anyone_out():
    # shared/rulebooks/README.md: "a rival with one card gives it and keeps yours, so stays in": under the
    # trade a Doghouse leaves its target holding at least one card.
    s, acc = round_counts(None, 6, "random", games=3000, seed=4, progress=False)
    t = A.card_use(count_frames(acc, 6, s.names, False)["card_use"]).set_index("kind")
    assert t.loc["doghouse", "plays"] > 5000 and t.loc["doghouse", "knockouts"] == 0
    assert t.loc["methane", "knockouts"] > 0 and t.loc["sheep", "own_sheep_change"] == -1
    assert t.loc["golden", "own_sheep_change"] == -3


def test_the_replayed_round_replaces_one_card_and_keeps_the_deal_and_streams():
    # card value's counterfactual: the same deal (and draft), one card of the kind in
    # the seat's starting hand now a plain sheep, the same first player
    for draft in (0, 1):
        R = rules_vector(4, draft=draft)
        for game in range(10):
            st = np.zeros(M.state_size(4), dtype=np.int64)
            play_round(st, R, scratch(["counter"] * 4, seed=5, game=game))
            start = st[L.ST_START_HAND:L.ST_START_HAND + 4 * L.N_KINDS].reshape(4, L.N_KINDS).copy()
            first = st[L.ST_FIRST]
            seat = game % 4
            kind = int(np.nonzero(start[seat][:L.SHEEP])[0][0])  # an action card it holds
            R_replay = R.copy()
            R_replay[M.RX_SEAT], R_replay[M.RX_KIND] = seat, kind
            play_round(st, R_replay, scratch(["counter"] * 4, seed=5, game=game))
            again = st[L.ST_START_HAND:L.ST_START_HAND + 4 * L.N_KINDS].reshape(4, L.N_KINDS)
            expect = start.copy()
            expect[seat, kind] -= 1
            expect[seat, L.SHEEP] += 1
            assert (again == expect).all() and st[L.ST_FIRST] == first


def test_the_replayed_round_is_played_and_seen_with_the_deck_it_holds():
    """Issue 49: in card value's replay every player (``counter`` counts cards from it)
    reasons from the public deck of the replayed round: one card of the replaced kind
    fewer and one sheep more than the rules file's. Before, the view kept the plain
    round's deck, so ``counter`` counted the replaced card as still in play (a bias of
    up to 0.32 percentage points in card values)."""
    from sheepsim.games.awsheep.knowledge import build_view

    for draft in (0, 1):
        R = rules_vector(4, draft=draft)
        for game in range(6):
            st = np.zeros(M.state_size(4), dtype=np.int64)
            play_round(st, R, scratch(["counter"] * 4, seed=3, game=game))
            seat = game % 4
            start = st[L.ST_START_HAND:L.ST_START_HAND + 4 * L.N_KINDS].reshape(4, L.N_KINDS)
            kind = int(np.nonzero(start[seat][:L.SHEEP])[0][0])
            R_replay = R.copy()
            R_replay[M.RX_SEAT], R_replay[M.RX_KIND] = seat, kind
            start_round(st, R_replay, scratch(["counter"] * 4, seed=3, game=game))
            hands = st[L.ST_HAND:L.ST_HAND + 4 * L.N_KINDS].reshape(4, L.N_KINDS).sum(axis=0)
            aside = st[L.ST_ASIDE:L.ST_ASIDE + L.N_KINDS] - R[L.R_REMOVE:L.R_REMOVE + L.N_KINDS]
            in_play = hands + aside  # no card played yet: the deck after the named removals
            for viewer in range(4):
                view = np.zeros(L.V_LEN, dtype=np.int64)
                M.view(st, R_replay, viewer, view)  # the machine's view in the replay
                assert (view[L.V_DECK:L.V_DECK + L.N_KINDS] == in_play).all()
                build_view(st, R, viewer, -1, -1, view)  # the plain round's deck: off by one
                deck = view[L.V_DECK:L.V_DECK + L.N_KINDS]
                assert deck[kind] == in_play[kind] + 1 and deck[L.SHEEP] == in_play[L.SHEEP] - 1


#: wins of the replayed rounds by kind, 300 rounds of seed 2, 4 players, before issue
#: 49's fix
REPLACED_WINS_BEFORE = {"greedy": [223, 188, 167, 163, 0, 61],
                        "counter": [248, 189, 167, 206, 0, 65]}


@pytest.mark.parametrize("field", ["greedy", "counter"])
def test_only_a_field_that_reads_the_deck_replays_differently(field):
    """Only the players that read the public deck (``counter``) play the replay
    differently: a ``greedy`` field's card values are those of before the fix,
    ``counter``'s move (the replay's deck is now the real one)."""
    from sheepsim.games.awsheep.jobs import CardValueJob

    job = CardValueJob(None, 4, field, 2)
    res = driver.run(job, games=300, chunk_games=77, progress=False)
    wins = res.counts["cv"][..., L.CV_WINS_REPLACED].sum(axis=0).tolist()
    assert (wins == REPLACED_WINS_BEFORE[field]) == (field == "greedy")


def test_card_value_counts_agree_with_the_plain_rounds():
    # The plain rounds of a card-value run are the rounds of a play run: the holders
    # and their wins are card power's players starting with >= 1 of the kind; value =
    # win_rate_holding - win_rate_with_sheep_instead exactly; sheep have no row.
    from sheepsim.games.awsheep.jobs import CardValueJob

    job = CardValueJob(None, 4, "greedy", 2)
    res = driver.run(job, games=300, chunk_games=77, progress=False)
    cv = res.tables["card_value"].set_index("kind")
    play = round_counts(None, 4, "greedy", games=300, seed=2, rotate=False, progress=False)[1]
    assert (res.counts["acc"] == play).all()
    cp = A.card_power(count_frames(play, 4, ["greedy"] * 4, False)["start_hands"])
    held = cp[cp["count"] > 0].groupby("kind")[["players_with", "wins"]].sum()
    assert "sheep" not in cv.index
    for kind in cv.index:
        assert cv.loc[kind, "holders"] == held.loc[kind, "players_with"]
        assert cv.loc[kind, "win_rate_holding"] * cv.loc[kind, "holders"] == pytest.approx(
            held.loc[kind, "wins"])
        assert cv.loc[kind, "value"] == pytest.approx(
            cv.loc[kind, "win_rate_holding"] - cv.loc[kind, "win_rate_with_sheep_instead"])
    assert res.tables["golden_value"]["kind"].tolist() == ["golden"]
    # the chunking does not matter
    again = driver.run(CardValueJob(None, 4, "greedy", 2), games=300, chunk_games=300,
                       progress=False)
    assert (again.counts["cv"] == res.counts["cv"]).all()


def test_fields_job_pickles_and_counts_each_field_on_the_same_rounds():
    # what a Dask worker receives; each field's counts are those of its own play run
    import pickle

    from sheepsim.games.awsheep.jobs import FieldsJob, PlayJob

    job = FieldsJob(None, 3, "random,greedy", 1)
    again = pickle.loads(pickle.dumps(job))
    a, b = job.chunk(3, 20), again.chunk(3, 20)
    assert a.keys() == b.keys() == {"acc_0", "acc_1"}
    assert all((a[k] == b[k]).all() for k in a)
    assert (a["acc_1"] == PlayJob(None, 3, "greedy", 1).chunk(3, 20)["acc"]).all()
    first = job.tables(a, 20)["first_player"]
    assert first["field"].tolist() == ["random"] * 3 + ["greedy"] * 3


def test_margins_and_knockouts_from_hand_made_counts():
    m = pd.DataFrame({"players": 4, "draft": False, "margin": [0, 2, 5], "games": [3, 4, 1]})
    t = A.winning_margins(m).iloc[0]
    assert t["flock_offs"] == 8 and t["mean_margin"] == 13 / 8 and t["share_tied"] == 3 / 8
    assert t["median_margin"] == 2 and t["p90_margin"] == 5 and t["max_margin"] == 5
    x = np.r_[0, 0, 0, 2, 2, 2, 2, 5]
    assert t["mean_margin_hi"] - t["mean_margin"] == pytest.approx(
        1.959963984540054 * x.std(ddof=1) / np.sqrt(8))
    k = pd.DataFrame({"players": 3, "draft": False, "players_out": [0, 1, 2, 3],
                      "games": [1, 2, 1, 0]})
    t = A.knockouts(k)
    assert (t["mean_out"] == 1.0).all() and t["share"].tolist() == [0.25, 0.5, 0.25, 0.0]


def test_metric_tables_are_the_tables_each_built_when_read():
    # the variants' jackknife reads its metrics' tables through metric_tables, 21 times a
    # variant: the same tables as tables(), in the same order, each built only when read
    from sheepsim.games.awsheep.jobs import PlayJob

    job = PlayJob(None, 4, "counter,random,random,random", 1, rotate=True)
    counts = job.chunk(0, 300)
    full, lazy = job.tables(counts, 300), job.metric_tables(counts, 300)
    assert list(lazy) == list(full) and len(lazy) == len(full) > 12  # the harness's too
    assert lazy["by_policy"].equals(full["by_policy"])
    assert list(lazy._built) == ["by_policy"]
    assert lazy["golden"].equals(full["golden"])  # built from card_power, built with it
    assert set(lazy._built) == {"by_policy", "golden", "card_power"}
    for name, table in full.items():
        assert lazy[name].equals(table), name
