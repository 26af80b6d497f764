"""Every card effect and end condition from hand-built states; each test cites the
rulebook (or shared/rulebooks/README.md where the rulebook is silent)."""

import numpy as np

from sheepsim.games.awsheep import layout as L

from .aw_helpers import (
    check_end,
    deal,
    events,
    hand,
    pile,
    play_turn,
    resolve,
    rules_vector,
    scratch,
    sheep_show,
    state,
    total_cards,
)


def test_doghouse_is_a_trade_the_target_chooses_two_from_its_hand_before_it():
    # Rulebook: "In the Doghouse - User trades one card to another player in return for
    # two cards of their choosing." shared/rulebooks/README.md: "they choose two cards from the hand they
    # hold *before* the trade ..., and at the same time you give them one card of your
    # choice." greedy gives its least useful card (methane before sheep) and the target
    # hands over its least useful of its own two kinds (horse, then a sheep): the
    # methane is not in the hand it chooses from.
    st = state([{"methane": 1, "sheep": 2}, {"horse": 1, "sheep": 3}, {"sheep": 1}])
    w = scratch(["greedy"] * 3)
    resolve(st, rules_vector(3), w, 0, L.DOGHOUSE, 1)
    assert hand(st, 0) == {"horse": 1, "sheep": 3}
    assert hand(st, 1) == {"methane": 1, "sheep": 2}
    assert hand(st, 2) == {"sheep": 1}
    assert [e[0] for e in events(w)] == [L.EV_TAKE, L.EV_TAKE, L.EV_GIVE]
    assert st[L.ST_MOVED] == 3


def test_doghouse_target_never_hands_back_the_card_it_is_given():
    # shared/rulebooks/README.md: "They never hand back the card you give." greedy hands over its least
    # useful card first, a Doghouse before anything; the actor gives one, yet the target
    # (holding only sheep before the trade) hands over two sheep and keeps the Doghouse.
    st = state([{"doghouse": 1, "sheep": 1}, {"sheep": 3}, {"sheep": 1}])
    w = scratch(["greedy"] * 3)
    resolve(st, rules_vector(3), w, 0, L.DOGHOUSE, 1)
    assert hand(st, 0) == {"sheep": 3} and hand(st, 1) == {"doghouse": 1, "sheep": 1}


def test_doghouse_cards_drawn_at_random_with_the_option():
    # shared/rulebooks/README.md: "with true you draw two of their cards at random" (the option
    # doghouse_cards = "drawn_at_random", formerly doghouse_taker_chooses = true), from
    # the hand they hold before the trade. The target's choice would be the doghouse
    # and horse, never the sheep, so a sheep drawn shows chance; the methane given is
    # never drawn back.
    drawn_sheep = 0
    for seed in range(40):
        st = state([{"methane": 1}, {"doghouse": 1, "horse": 1, "sheep": 4}, {"sheep": 1}])
        w = scratch(["greedy"] * 3, seed=seed)
        resolve(st, rules_vector(3, taker_chooses=1), w, 0, L.DOGHOUSE, 1)
        assert sum(hand(st, 0).values()) == 2 and sum(hand(st, 1).values()) == 5
        assert "methane" not in hand(st, 0) and hand(st, 1)["methane"] == 1
        drawn_sheep += hand(st, 0).get("sheep", 0)
    # 40 rounds x 2 draws, each a sheep with probability >= 4/6 (mean >= 53): fewer
    # than 21 is more than 8 standard deviations (sd <= 4.2) below it
    assert drawn_sheep > 20


def test_doghouse_target_with_one_card_gives_it_keeps_yours_and_stays_in():
    # shared/rulebooks/README.md: "Fewer than two: they hand over what they have (a rival with one card
    # gives it and keeps yours, so stays in)." Seat 0 has played the Doghouse at
    # seat 1, which holds one sheep; greedy gives the methane.
    st = state([{"methane": 1, "pig": 1}, {"sheep": 1}, {"horse": 1}])
    R = rules_vector(3)
    w = scratch(["greedy"] * 3)
    resolve(st, R, w, 0, L.DOGHOUSE, 1)
    assert hand(st, 0) == {"pig": 1, "sheep": 1}
    assert hand(st, 1) == {"methane": 1}
    assert st[L.ST_MOVED] == 2
    assert st[L.ST_ENDED] == 0  # the end check closed the turn and L.EV_OUT not in [e[0] for e in events(w)]
    # the same through a whole turn (greedy plays a Doghouse at one of the two rivals,
    # each holding one card): nobody goes out
    st = state([{"doghouse": 2, "sheep": 1}, {"sheep": 1}, {"horse": 1}])
    w = scratch(["greedy"] * 3)
    play_turn(st, R, w, 0)
    assert pile(st) == ["doghouse"]
    assert sum(hand(st, 1).values()) == 1 and sum(hand(st, 2).values()) == 1
    assert L.EV_OUT not in [e[0] for e in events(w)]


def test_doghouse_as_last_card_has_no_effect():
    # Rulebook: "If this is the last card in your hand, it has no effect and you're
    # stuck in the doghouse!"
    st = state([{"doghouse": 1}, {"sheep": 2}, {"horse": 1}])
    w = scratch(["greedy"] * 3)
    play_turn(st, rules_vector(3), w, 0)
    assert hand(st, 0) == {} and hand(st, 1) == {"sheep": 2} and hand(st, 2) == {"horse": 1}
    assert pile(st) == ["doghouse"]
    assert (L.EV_OUT, 0, -1, -1, 0, 0) in events(w)


def test_methane_target_discards_two_of_its_choice():
    # Rulebook: "Power of Methane - Select a player to discard 2 cards."; "If you are
    # forced to discard when another player plays a cow, these also go in the discard
    # pile." greedy discards the doghouse, then the pig.
    st = state([{"sheep": 1}, {"doghouse": 1, "pig": 1, "sheep": 2}, {"sheep": 1}],
               pile=["methane"])
    w = scratch(["greedy"] * 3)
    resolve(st, rules_vector(3), w, 0, L.METHANE, 1)
    assert hand(st, 1) == {"sheep": 2}
    assert pile(st) == ["methane", "doghouse", "pig"]


def test_methane_discards_all_when_fewer_and_sheep_discards_count_in_the_run():
    # shared/rulebooks/README.md: "they discard 2 cards of their choice (all if they hold fewer)";
    # "consecutive sheep cards ... that reached the discard pile, played or discarded".
    st = state([{"sheep": 1}, {"golden": 1}, {"sheep": 1}], pile=["methane"], run=0)
    w = scratch(["greedy"] * 3)
    resolve(st, rules_vector(3), w, 0, L.METHANE, 1)
    assert hand(st, 1) == {} and pile(st) == ["methane", "golden"]
    assert st[L.ST_RUN] == 1


def test_horse_swaps_hands():
    # Rulebook: "Horsin' Around - Swap hands with a selected player!"
    st = state([{"sheep": 1}, {"pig": 2, "golden": 1}, {"sheep": 3}])
    w = scratch(["greedy"] * 3)
    resolve(st, rules_vector(3), w, 0, L.HORSE, 1)
    assert hand(st, 0) == {"pig": 2, "golden": 1} and hand(st, 1) == {"sheep": 1}
    assert hand(st, 2) == {"sheep": 3}


def test_pig_takes_every_sheep_including_the_golden():
    # Rulebook: "Piggin' Out - Take all of a selected player's sheep (including the
    # golden sheep)".
    st = state([{"methane": 1}, {"sheep": 3, "golden": 1, "horse": 1}, {"sheep": 2}])
    w = scratch(["greedy"] * 3)
    resolve(st, rules_vector(3), w, 0, L.PIG, 1)
    assert hand(st, 0) == {"methane": 1, "sheep": 3, "golden": 1}
    assert hand(st, 1) == {"horse": 1}
    assert events(w)[-1] == (L.EV_PIG, 0, L.PIG, 1, 3, 1)


def test_sheep_have_no_effect_and_lengthen_the_run_action_cards_reset_it():
    # Rulebook: "Feelin' Sheepish - No special effect when played"; shared/rulebooks/README.md: "Any
    # non-sheep card reaching the pile resets the run to 0."
    st = state([{"sheep": 2}, {"pig": 1, "sheep": 1}, {"sheep": 3}, {"sheep": 3}],
               pile=["sheep"], run=1)
    R = rules_vector(4)
    w = scratch(["greedy"] * 4)
    play_turn(st, R, w, 0)
    assert st[L.ST_RUN] == 2 and hand(st, 0) == {"sheep": 1}
    assert hand(st, 2) == {"sheep": 3}
    play_turn(st, R, w, 1)  # greedy spends the pig (at the rival showing most cards)
    assert pile(st)[-1] == "pig" and st[L.ST_RUN] == 0


def test_action_card_with_no_rival_holding_cards_has_no_effect():
    # shared/rulebooks/README.md: "An action card with no rival holding cards has no effect."
    st = state([{"pig": 1, "horse": 1}, {}, {}])
    w = scratch(["random"] * 3)
    play_turn(st, rules_vector(3), w, 0)
    assert sum(hand(st, 0).values()) == 1 and hand(st, 1) == {} and hand(st, 2) == {}
    assert events(w)[0][3] == L.NO_TARGET


def test_last_player_with_cards_wins():
    # Rulebook: "If you are the last player with cards, congratulations, you win!"
    st = state([{"methane": 1, "horse": 1}, {"sheep": 2}, {}])
    R = rules_vector(3)
    w = scratch(["greedy"] * 3)
    play_turn(st, R, w, 0)
    assert st[L.ST_ENDED] == 1 and st[L.ST_WINNER] == 0
    assert st[L.ST_END_REASON] == L.END_LAST


def test_run_equal_to_players_in_starts_the_flock_off_golden_worth_three():
    # Rulebook: "If the number of consecutive sheep played is equal to the number of
    # remaining players, all players now enter the Flock Off."; "The Golden Sheep is
    # worth 3 sheep!" Seat 2 is out, so two sheep in a row end the round; the golden
    # sheep (3) beats two plain sheep.
    st = state([{"golden": 1, "sheep": 1}, {"sheep": 3}, {}], pile=["pig", "sheep"], run=1)
    R = rules_vector(3)
    w = scratch(["greedy"] * 3)
    play_turn(st, R, w, 1)
    assert st[L.ST_RUN] == 2
    assert st[L.ST_END_REASON] == L.END_FLOCK_OFF and st[L.ST_WINNER] == 0


def test_run_passing_the_players_in_starts_the_flock_off_unless_equals_is_asked():
    # Rulebook: "If the number of consecutive sheep played is equal to the number of
    # remaining players, all players now enter the Flock Off." It is silent on a run that
    # passes that number: seat 0 plays its last card, a sheep, so the run grows to 3
    # while only 2 players are left in. At the table the flock has been reached: with
    # flock_off_run = "reaches" (standard) the Flock Off starts; with "equals" (the
    # literal reading) the round goes on.
    hands = [{"sheep": 1}, {"sheep": 3}, {"sheep": 1, "pig": 1}]
    for run_passes, ended in ((1, 1), (0, 0)):
        st = state(hands, pile=["pig", "sheep", "sheep"], run=2)
        R = rules_vector(3, run_passes=run_passes)
        w = scratch(["greedy"] * 3)
        play_turn(st, R, w, 0)
        assert st[L.ST_RUN] == 3 and hand(st, 0) == {}
        assert st[L.ST_ENDED] == ended
        if ended:
            assert st[L.ST_END_REASON] == L.END_FLOCK_OFF and st[L.ST_WINNER] == 1


def test_run_shorter_than_players_in_does_not_end():
    # Rulebook: "If the number of consecutive sheep played is equal to the number of
    # remaining players ...": one sheep in a row with three players in is not enough.
    st = state([{"sheep": 1}, {"sheep": 3}, {"sheep": 1}], pile=["sheep"], run=1)
    R = rules_vector(3)
    check_end(st, R, scratch(["greedy"] * 3))
    assert st[L.ST_ENDED] == 0


def test_everyone_out_at_once_holds_the_flock_off_among_those_in_before():
    # shared/rulebooks/README.md: "If everyone is out at once, the Flock Off is held among the players who
    # were in before that turn, with the hands they hold (empty hands count 0)." Seat 0
    # plays its last card, a Methane, at seat 1's last two cards: both are out, both
    # count 0 and tie; seat 2 was out already and takes no part.
    st = state([{"methane": 1}, {"doghouse": 1, "horse": 1}, {}])
    R = rules_vector(3)
    w = scratch(["greedy"] * 3)
    play_turn(st, R, w, 0)
    assert st[L.ST_ENDED] == 1 and st[L.ST_WINNER] in (0, 1)
    assert st[L.ST_END_REASON] in (L.END_SHEEP_SHOW, L.END_DRAW)
    flock = [e for e in events(w) if e[0] == L.EV_FLOCK_OFF]
    assert flock == [(L.EV_FLOCK_OFF, -1, -1, -1, 0, 2)]


def test_sheep_show_all_wrong_nobody_drops_then_a_fair_draw():
    # shared/rulebooks/README.md: "wrong guessers drop out unless all are wrong; ... (if the pile runs out,
    # a fair draw among those left)". Both players guess the majority of the unread
    # cards: card 1 (methane) is guessed "sheep" by both (2 of 3 unread are sheep), so
    # nobody drops; the rest are guessed right; the pile runs out; a fair draw.
    st = state([{"sheep": 1}, {"sheep": 1}, {}], pile=["methane", "sheep", "sheep"])
    st[L.ST_TIED:L.ST_TIED + 2] = 1
    w = scratch(["greedy"] * 3)
    sheep_show(st, rules_vector(3), w)
    assert st[L.ST_END_REASON] == L.END_DRAW and st[L.ST_SHOW_CARDS] == 3
    guesses = [e for e in events(w) if e[0] == L.EV_GUESS]
    assert [(e[1], e[4], e[5]) for e in guesses] == [(0, 1, 0), (1, 1, 0), (0, 1, 1),
                                                      (1, 1, 1), (0, 1, 2), (1, 1, 2)]


def test_sheep_show_wrong_guesser_drops_out():
    # Rulebook: "guess if the top card: Is a sheep / Is not a sheep"; shared/rulebooks/README.md: "wrong
    # guessers drop out". With one sheep and one methane unread the default guess is a
    # coin flip per player; whenever the two guesses differ the wrong one drops out and
    # the other wins on the first card.
    decided = 0
    for seed in range(40):
        st = state([{"sheep": 1}, {"sheep": 1}, {}], pile=["sheep", "methane"])
        st[L.ST_TIED:L.ST_TIED + 2] = 1
        w = scratch(["greedy"] * 3, seed=seed)
        sheep_show(st, rules_vector(3), w)
        ev = events(w)
        g = {e[1]: e[4] for e in ev if e[0] == L.EV_GUESS and e[5] == 0}
        if g[0] != g[1]:
            decided += 1
            assert st[L.ST_END_REASON] == L.END_SHEEP_SHOW
            assert g[st[L.ST_WINNER]] == 1  # the first card is a sheep
            assert (L.EV_DROP, 1 - st[L.ST_WINNER], -1, -1, 0, 0) in ev
        else:
            assert st[L.ST_END_REASON] == L.END_DRAW
    # P(guesses differ) = 1/2 per seed: 40 seeds with none (or all) is impossible
    assert 5 < decided < 35


def test_tie_break_draw_option_skips_the_sheep_show():
    st = state([{"sheep": 2}, {"sheep": 2}, {"sheep": 1}], pile=["sheep", "sheep"], run=3)
    R = rules_vector(3, tie_break=L.TIE_DRAW)
    w = scratch(["greedy"] * 3)
    check_end(st, R, w)
    assert st[L.ST_END_REASON] == L.END_DRAW and st[L.ST_WINNER] in (0, 1)
    assert not [e for e in events(w) if e[0] == L.EV_GUESS]


def test_deal_sizes_and_set_aside_per_player_count():
    # Rulebook: "With 4 players: remove 4 random cards"; "With 5 players: remove 1";
    # "With 6 players: remove 0"; "With 3 players ... Remove 2 horses and 2 pigs ...
    # remove 8 random cards"; shared/rulebooks/README.md: dealt equally 3p 8, 4p 8, 5p 7, 6p 6.
    for n, size, aside in ((3, 8, 12), (4, 8, 4), (5, 7, 1), (6, 6, 0)):
        for seed in range(5):
            R = rules_vector(n)
            st = state([{}] * n)
            w = scratch(["random"] * n, seed=seed)
            deal(st, R, w)
            assert [sum(hand(st, s).values()) for s in range(n)] == [size] * n
            assert st[L.ST_ASIDE:L.ST_ASIDE + L.N_KINDS].sum() == aside
            assert list(st[L.ST_ASIDE:L.ST_ASIDE + L.N_KINDS] >= R[L.R_REMOVE:L.R_REMOVE + 6]) \
                == [True] * 6
            assert np.array_equal(total_cards(st), R[L.R_DECK:L.R_DECK + L.N_KINDS])
            assert 0 <= st[L.ST_FIRST] < n and st[L.ST_PILE_LEN] == 0

