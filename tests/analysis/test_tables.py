"""Exact checks of the balance and whole-game tables from hand-made counts."""

import numpy as np
import pytest
from scipy import stats as st

from sheepsim.games.race import analysis as an
from sheepsim.games.race.simulate import GameResults, resolve_policies
from sheepsim.stats import paired_difference


def test_card_strength_flags_and_pvalues(rules):
    n_cards, games = len(rules.cards), 6000
    rng = np.random.default_rng(0)
    # every race: six random cards in lanes; card 0 wins whenever it runs, others at random
    card_place = np.zeros((n_cards, 6, 3), dtype=np.int64)
    for _ in range(games):
        dealt = rng.permutation(n_cards)[:6]
        order = rng.permutation(6)
        if 0 in dealt:
            pos = int(np.flatnonzero(dealt == 0)[0])
            order = np.r_[pos, [o for o in order if o != pos]]
        for k in range(3):
            card_place[dealt[order[k]], order[k], k] += 1
    table = an.card_strength_table(card_place, games, rules)
    assert table.loc[0, "flag_win"] == "over"
    wins = card_place[:, :, 0].sum(axis=1)
    assert table.loc[0, "p_win"] == pytest.approx(wins[0] / (games * 6 / n_cards))
    # card 0 runs in Binomial(games, 1/2) races and wins them all, so the estimate of
    # P(win | runs) = 1 has standard error sqrt(games / 4) / (games / 2) = 0.0129; allow 4 se
    assert table.loc[0, "p_win"] == pytest.approx(1.0, abs=4 * np.sqrt(games / 4) / (games / 2))
    wins = card_place[:, :, 0].sum(axis=1)
    for c in (0, 5):
        expected = st.binomtest(int(wins[c]), games, 1 / n_cards).pvalue
        assert table.loc[c, "pvalue_win_raw"] == pytest.approx(expected)
    # P(win | runs) averages 1/6 over cards: exactly one of the six runners wins
    assert table["p_win"].mean() == pytest.approx(1 / 6)
    assert table["p_top3"].mean() == pytest.approx(1 / 2)
    assert (table["p_win_lo"] <= table["p_win"]).all() and (table["p_win"] <= table["p_win_hi"]).all()


def test_card_strength_equal_cards_not_flagged(rules):
    # multinomial winners with equal cards: Holm keeps the family-wise error at 5%, and
    # with this fixed seed no card is flagged
    rng = np.random.default_rng(1)
    n_cards, games = len(rules.cards), 20000
    card_place = np.zeros((n_cards, 6, 3), dtype=np.int64)
    for k in range(3):
        np.add.at(card_place[:, :, k], (rng.integers(0, n_cards, games), rng.integers(0, 6, games)), 1)
    table = an.card_strength_table(card_place, games, rules)
    assert (table["flag_win"] == "").all()


def test_final_lane_wins():
    # game 1: SF1 top3 cards 0,1,2; SF2 3,4,5; final won by card 4 (2nd of SF2 -> lane 3)
    # game 2: final won by card 0 (1st of SF1 -> lane 6); game 3: card 5 (3rd SF2 -> lane 1)
    rc = np.array(
        [
            [[0, 1, 2], [3, 4, 5], [4, -1, -1]],
            [[0, 1, 2], [3, 4, 5], [0, -1, -1]],
            [[0, 1, 2], [3, 4, 5], [5, -1, -1]],
        ]
    )
    assert an.final_lane_wins(rc).tolist() == [1, 0, 1, 0, 0, 1]


def _results(rules, hist, wins_by_order):
    players = hist.shape[0]
    pol = resolve_policies("greedy", "random", players)
    games = int(hist[0].sum())
    v = np.arange(hist.shape[1])
    return GameResults(
        rules,
        pol,
        0,
        games,
        np.array(wins_by_order),
        hist @ v,
        hist @ (v * v),
        np.array(wins_by_order),
        hist,
        np.zeros(3, dtype=np.int64),
        np.zeros(len(rules.cards), dtype=np.int64),
        np.r_[0, games, np.zeros(players - 1, dtype=np.int64)],  # no ties for first
        np.zeros(players, dtype=np.int64),
        np.array([games]),  # one policy pair: it wins every game
        np.zeros(1, dtype=np.int64),  # (not read by these tests)
    )


def test_score_distribution_and_first_player(rules):
    rng = np.random.default_rng(2)
    scores = rng.integers(10, 60, size=(500, 3))
    hist = np.stack([np.bincount(scores[:, s], minlength=201) for s in range(3)])
    res = _results(rules, hist, [200, 150, 150])
    dist = an.score_distribution_table(res)
    for s in range(3):
        row = dist.iloc[s]
        assert row["mean_score"] == pytest.approx(scores[:, s].mean())
        assert row["sd_score"] == pytest.approx(scores[:, s].std(ddof=1))
        q = np.quantile(scores[:, s], [0.1, 0.25, 0.5, 0.75, 0.9], method="inverted_cdf")
        assert [row["p10"], row["p25"], row["median"], row["p75"], row["p90"]] == q.tolist()
        assert row["min_score"] == scores[:, s].min() and row["max_score"] == scores[:, s].max()
    order = an.first_player_table(res)
    assert order.loc[0, "pvalue_raw"] == pytest.approx(st.binomtest(200, 500, 1 / 3).pvalue)
    assert order.loc[0, "pvalue_all_orders"] == pytest.approx(st.chisquare([200, 150, 150]).pvalue)
    assert bool(order.loc[0, "significant"])


def test_compare_table_matches_paired_difference():
    rng = np.random.default_rng(3)
    win_a = rng.random(400) < 0.3
    win_b = rng.random(400) < 0.25
    sa, sb = rng.integers(0, 60, 400), rng.integers(0, 60, 400)
    d = sa - sb
    acc = [
        win_a.sum(),
        win_b.sum(),
        (win_a & ~win_b).sum(),
        (win_b & ~win_a).sum(),
        sa.sum(),
        (sa * sa).sum(),
        sb.sum(),
        (sb * sb).sum(),
        d.sum(),
        (d * d).sum(),
    ]
    from sheepsim.headtohead import compare_table

    table = compare_table(acc, 400, "ev,greedy", "random,greedy", "ev,greedy", 1)
    win, score = table.iloc[0], table.iloc[1]
    ref = paired_difference(win_a.astype(int), win_b.astype(int))
    assert win["diff"] == pytest.approx(ref["diff"]) and win["diff_lo"] == pytest.approx(ref["lo"])
    ref = paired_difference(sa, sb)
    assert score["diff"] == pytest.approx(ref["diff"]) and score["diff_hi"] == pytest.approx(ref["hi"])
    assert score["a"] == pytest.approx(sa.mean())
    b01, b10 = int((win_a & ~win_b).sum()), int((win_b & ~win_a).sum())
    assert win["pvalue"] == pytest.approx(st.binomtest(b01, b01 + b10, 0.5).pvalue)


def test_a_win_rate_difference_interval_stays_within_minus_one_and_one():
    # 2 games, a won one that b lost and tied the other: the normal interval, 0.5 +- 0.98,
    # would reach 1.48; a difference of two rates cannot exceed 1
    from sheepsim.headtohead import compare_table

    acc = [1, 0, 1, 0, 10, 100, 8, 64, 2, 4]
    win = compare_table(acc, 2, "a", "b", "f", 1).iloc[0]
    assert win["diff"] == 0.5 and win["diff_hi"] == 1.0 and -1.0 <= win["diff_lo"] < 0.0


def test_a_difference_no_game_moved_is_not_shown_as_exact():
    """400 games, seat 1 never tied with A nor with B, the same score change (0) every
    game, win rates 0.3 and 0.3 with no game won by one side alone: the run did not see a
    difference, it did not show there is none (variant_runs.paired_jackknife's rule).
    The interval is the two values' (rates: the Wilson intervals' difference; score:
    diff ± z (se_a + se_b)), diff_se empty; the same policy on both sides plays the same
    games, so there each difference is exactly 0."""
    from sheepsim.headtohead import compare_table, pairing_gain
    from sheepsim.stats import mean_interval, wilson_interval

    sa = np.arange(400) % 50  # scores 0..49, the same with A and B
    acc = [120, 120, 0, 0, sa.sum(), (sa * sa).sum(), sa.sum(), (sa * sa).sum(), 0, 0]
    ties = [0] * 8
    t = compare_table(acc, 400, "greedy", "random", "random", 1, ties=ties).set_index("metric")
    lo, hi = (float(x) for x in wilson_interval(120, 400))
    assert t.loc["win_rate", "diff"] == 0 and t.loc["win_rate", "pvalue"] == 1
    assert t.loc["win_rate", ["diff_lo", "diff_hi"]].tolist() == pytest.approx([lo - hi, hi - lo])
    hi0 = float(wilson_interval(0, 400)[1])
    assert t.loc["tie_rate", ["diff_lo", "diff_hi"]].tolist() == pytest.approx([-hi0, hi0])
    assert hi0 > 0.005  # not [0, 0]
    se = mean_interval(sa.sum(), (sa * sa).sum(), 400)[3]
    assert t.loc["mean_score", "diff_hi"] == pytest.approx(1.959964 * 2 * se, rel=1e-6)
    assert t.loc["mean_score", "diff_lo"] == -t.loc["mean_score", "diff_hi"]
    assert t["diff_se"].isna().all()
    assert np.isnan(pairing_gain(t.reset_index())["win_rate_se_ratio"])
    same = compare_table(acc, 400, "random", "random", "random", 1, ties=ties)
    assert (same[["diff", "diff_lo", "diff_hi", "diff_se"]] == 0).all().all()
    # a difference some game moved keeps its paired interval
    seen = compare_table([120, 119, 1, 0, *acc[4:]], 400, "greedy", "random", "random", 1)
    assert seen.loc[0, "diff_se"] > 0 and seen.loc[0, "diff_hi"] < hi - lo


def _ties(tied_a, tied_b, win_a, win_b):
    from sheepsim.headtohead import tie_sums

    return tie_sums(tied_a, tied_b, win_a, win_b)


def test_compare_table_reports_ties_and_tiebreak_wins_of_each_side():
    from sheepsim.headtohead import compare_table, paired_sums, tie_sentence, tied_for_top

    rng = np.random.default_rng(5)
    n = 300
    # coarse scores so that many games tie for the top; seat 0 is the focal seat
    sa, sb = rng.integers(0, 4, (n, 3)) * 5, rng.integers(0, 4, (n, 3)) * 5
    # tie-break: the lowest seat among the tied (a rule that exists only for this test)
    win_a, win_b = sa.argmax(1) == 0, sb.argmax(1) == 0
    tied_a, tied_b = tied_for_top(sa, 0), tied_for_top(sb, 0)
    by_hand = [(sa[i, 0] == sa[i].max()) and (sa[i] == sa[i].max()).sum() > 1 for i in range(n)]
    assert tied_a.tolist() == by_hand
    table = compare_table(paired_sums(win_a, win_b, sa[:, 0], sb[:, 0]), n, "x", "y", "z", 1,
                          ties=_ties(tied_a, tied_b, win_a, win_b)).set_index("metric")
    assert table.index.tolist() == ["win_rate", "mean_score", "tie_rate", "tiebreak_win_rate"]
    assert table.loc["tie_rate", "a"] == tied_a.mean() and table.loc["tie_rate", "b"] == tied_b.mean()
    assert table.loc["tiebreak_win_rate", "a"] == (tied_a & win_a).mean()
    assert table.loc["tiebreak_win_rate", "b"] == (tied_b & win_b).mean()
    ref = paired_difference(tied_a.astype(int), tied_b.astype(int))
    assert table.loc["tie_rate", "diff"] == pytest.approx(ref["diff"])
    assert table.loc["tie_rate", "diff_se"] == pytest.approx(ref["stderr"])
    text = tie_sentence(table.reset_index(), 1)
    # each side named by its line-up (0.6.0: "with a", "with b")
    assert text.startswith(f"Seat 1 tied for the top score in {tied_a.mean():.1%} of games "
                           f"playing x (a) and {tied_b.mean():.1%} playing y (b), ")
    assert "included in the win rates" in text


def test_compare_shows_a_and_b_with_the_same_decimals():
    """A rare tie with b (1 in 200 games) gave b's column a decimal more than a's (0.6.0:
    ``race compare`` printed 0.244 beside 0.1255): a and b read side by side, one decimals."""
    import re

    from sheepsim.headtohead import compare_table, paired_sums
    from sheepsim.output import format_table

    rng = np.random.default_rng(7)
    n = 2000
    win_a, win_b = rng.random(n) < 0.25, rng.random(n) < 0.12
    tied_a, tied_b = rng.random(n) < 0.3, np.arange(n) % 200 == 0
    sa, sb = rng.integers(20, 45, n), rng.integers(10, 30, n)
    table = compare_table(paired_sums(win_a, win_b, sa, sb), n, "x", "y", "z", 1,
                          ties=_ties(tied_a, tied_b, win_a, win_b))
    lines = format_table(table).splitlines()
    assert lines[0].split()[:5] == ["metric", "a", "(95%", "CI)", "b"]

    def decimals(cell):
        return {len(d) for d in re.findall(r"\d+\.(\d+)", cell)}

    for line in lines[1:5]:
        a, b = re.findall(r"\S+ \[\S+, \S+\]", line)[:2]
        assert decimals(a) == decimals(b) and len(decimals(a)) == 1, line


def test_pairing_gain_is_measured_from_the_run():
    from sheepsim.headtohead import compare_table, paired_sums, pairing_gain

    rng = np.random.default_rng(6)
    n = 2000
    common = rng.integers(0, 40, n)  # what both line-ups share: pairing removes it
    sa, sb = common + rng.integers(0, 10, n), common + rng.integers(0, 10, n)
    win_a, win_b = rng.random(n) < 0.3, rng.random(n) < 0.3
    table = compare_table(paired_sums(win_a, win_b, sa, sb), n, "x", "y", "z", 1)
    score = table.set_index("metric").loc["mean_score"]
    unpaired = np.hypot(sa.std(ddof=1), sb.std(ddof=1)) / np.sqrt(n)
    assert score["unpaired_se"] == pytest.approx(unpaired)
    gain = pairing_gain(table)
    assert gain["mean_score_se_ratio"] == pytest.approx(score["diff_se"] / unpaired)
    # the shared part dominates (variance 133 against 8 + 8): the ratio is about
    # sqrt(16.5 / 283) = 0.24; independent win indicators gain nothing (ratio about 1)
    assert 0.15 < gain["mean_score_se_ratio"] < 0.35
    assert 0.9 < gain["win_rate_se_ratio"] < 1.1
