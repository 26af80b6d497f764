"""Restrictions, the time track, panic, the end of the game and the winner, on the
kernels the games run (hand-built states), plus whole-game properties."""

import numpy as np
import pytest
from panic_helpers import legal_set, state_from

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.policies.decide import SCRIPTED
from sheepsim.games.panic.rules import load_rules
from sheepsim.games.panic.simulate import play_games, trace_game

START = "byg\nrkb\nygr"
# Standard menu tiles (0-based): 0/1 Lamb Push (own), 2 Line Push 1 (no reverse),
# 3 Line Push 3 (no reverse unless die), 4/5 Diagonal Push, 6/7 Alignment, 8/9 Lamb Roll,
# 10 Leapfrog, 11 Ewe Turn (no reverse). The reverse restriction: test_panic_reverse.py.


def test_own_sheep_restriction(R4):
    # "Sheep-face symbol: Only applies to one of your own sheep."
    st = state_from(START)
    blue_slots = {s for s in range(9) if st[L.ST_COLOUR + s] == L.BLUE}
    acts = legal_set(st, R4, 0)
    for tile in (0, 1, 8, 9, 10):
        sheep = {a for (t, a, _) in acts if t == tile}
        assert sheep and sheep <= blue_slots
    # the same kinds without the restriction would use any sheep (diagonal/line pushes)
    assert {a for (t, a, _) in acts if t == 0} == blue_slots


def test_used_tiles_are_gone(R4):
    # "This action can no longer be used for the rest of the game."
    st = state_from(START)
    st[L.ST_USED + 0 * L.MAX_TILES + 11] = 1
    assert not any(t == 11 for (t, _, _) in legal_set(st, R4, 0))
    assert any(t == 11 for (t, _, _) in legal_set(st, R4, 1))


def counter_state(text, counter, facing="up"):
    st = state_from(text, facing)
    st[L.ST_COUNTER] = counter
    return st


def scores(st, n=4):
    return [int(st[L.ST_SCORE + s]) for s in range(n)]


def test_teammates_field_scores_the_active_player_only(R4):
    # "The active player scores 1 point when their sheep touch diagonally, and 2 points
    # if they touch on a side."
    from sheepsim.games.panic.track import advance_and_score

    st = counter_state("bbg\nrgk\nyry", 3)
    advance_and_score(st, R4, 0, 2)  # counter 5: teammates
    assert scores(st) == [2, 0, 0, 0]
    advance_and_score(st, R4, 1, 1)  # green touch diagonally
    assert scores(st) == [2, 1, 0, 0]
    assert st[L.ST_FIELD_PTS + 1 * L.MAX_FIELDS + 0] == 1


def test_ram_scores_everyone_at_the_gate_and_the_pen_only(R4):
    # "Points are only scored in this field when the counter passes the gate or reaches
    # the pen." (4 players: gate after 25, pen 37)
    from sheepsim.games.panic.track import advance_and_score

    st = counter_state("bgr\nykb\ngry", 22)
    advance_and_score(st, R4, 0, 3)  # 25: on the gate's near side, nothing
    assert scores(st) == [0, 0, 0, 0]
    advance_and_score(st, R4, 0, 1)  # 26: passed the gate
    ram = [4 + 3, 4 + 2, 4 + 2, 3 + 2]  # blue, green, red, yellow by rows from the front
    assert scores(st) == ram
    advance_and_score(st, R4, 2, 3)  # 29: nothing
    st[L.ST_COUNTER] = 35
    advance_and_score(st, R4, 2, 3)  # 38: passes the pen 37, then Black Sheep field
    assert scores(st)[0] == 2 * ram[0] and scores(st)[1] == 2 * ram[1]
    assert scores(st)[3] == 2 * ram[3]
    assert scores(st)[2] == 2 * ram[2] + 1 + 2  # active red: a corner and a side


def test_black_sheep_field_scores_the_active_player(R4):
    # "The active player scores 1 point for each of their sheep touching the black sheep
    # by a corner, and 2 points for each of their sheep touching the black sheep by a
    # side."
    from sheepsim.games.panic.track import advance_and_score

    st = counter_state("bgr\nykb\ngry", 40)
    advance_and_score(st, R4, 0, 1)
    assert scores(st) == [1 + 2, 0, 0, 0]


def test_shearing_gate_and_final_pen(R4):
    # "As soon as the time counter has passed through the gate or entered the pen, the
    # row closest to the Shearer is removed ... 4 points are awarded to the sheep in the
    # row furthest from the Shearer"; "The game ends when the counter enters the final
    # pen ... One last shearing then takes place."
    from sheepsim.games.panic.track import advance_and_score

    st = counter_state("bgr\nykb\ngry", 61)
    removed = advance_and_score(st, R4, 0, 2)  # 63: passed the gate after 62
    assert bin(removed).count("1") == 3
    assert scores(st) == [3, 4, 4, 3 + 4]
    assert list(st[L.ST_SHORN:L.ST_SHORN + 5]) == [1, 1, 1, 0, 0]
    st2 = counter_state("bgr\nykb\ngry", 73)
    advance_and_score(st2, R4, 0, 3)
    assert st2[L.ST_COUNTER] == 74  # "The counter stops at the final pen."
    assert scores(st2) == [3, 4, 4, 7]


def run_panic(R, text, faces, choices=()):
    from sheepsim.games.panic.scratch import scripted_scratch
    from sheepsim.games.panic.turns import panic_push

    st = state_from(text)
    w = scripted_scratch(faces, choices, seed_game=(1, 1))
    panic_push(st, R, 0, SCRIPTED, w)
    return st, w.log[:w.ctx[L.CTX_LOG_N]]


def test_panic_rerolls_missing_colours_and_white_turns_the_flock(R4):
    # "If no sheep of the drawn colour remain in the flock (due to shearing), the die is
    # rolled again. If the die shows white, the whole flock panics and carries out an
    # Ewe Turn, 90 degrees left or right, at the active player's choice."
    st, log = run_panic(R4, "bk\nbg", [L.RED, L.WHITE_FACE], choices=[1])
    assert [int(r[0]) for r in log] == [L.EV_PANIC_DIE, L.EV_PANIC_DIE, L.EV_PANIC_TURN]
    assert st[L.ST_FACING] == 3  # left
    assert st[L.ST_PREV_DIE] == 1


def test_panic_lamb_push_by_a_sheep_of_the_rolled_colour(R4):
    # "The active player chooses a sheep of that colour and carries out a Lamb Push."
    # Options are (sheep, direction) for each green sheep: choice 2 = first green, east.
    st, log = run_panic(R4, "gbk\nyyg", [L.GREEN], choices=[2])
    assert str_flock(st) == ".gbk\nyyg."
    assert int(log[1, 0]) == L.EV_PANIC_PUSH


def str_flock(st):
    from sheepsim.games.panic.flock import Flock

    return str(Flock.from_state(st))


def test_tie_breaks_most_sheep_then_turn_order(R4):
    # "In case of a tie, the winner is whoever has the most sheep left in the flock. If
    # the tie persists, the winner ... whoever's last turn was the earliest."
    from sheepsim.games.panic.state import winner

    st = state_from("bgr\nykb\ngr.")  # sheep left: blue 2, green 2, red 2, yellow 1
    st[L.ST_SCORE:L.ST_SCORE + 4] = [10, 12, 12, 12]
    st[L.ST_LAST_ACTOR] = 1
    assert winner(st, R4) == 1 or winner(st, R4) == 2
    assert st[L.ST_TIE_BREAK] == 2
    # green and red tie on points and sheep; seat 1 (green) acted last, so red (seat 2)
    # would play next: red's last turn was the earliest.
    assert winner(st, R4) == 2
    st[L.ST_LAST_ACTOR] = 3
    assert winner(st, R4) == 1
    st[L.ST_SCORE:L.ST_SCORE + 4] = [12, 12, 11, 12]
    st[L.ST_ALIVE + 0] = 0  # blue loses a sheep: green 2 sheep beats blue 1, yellow 1
    assert winner(st, R4) == 1 and st[L.ST_TIE_BREAK] == 1
    st[L.ST_SCORE + 3] = 13
    assert winner(st, R4) == 3 and st[L.ST_TIE_BREAK] == 0


@pytest.fixture(scope="module")
def long_track_rules(tmp_path_factory):
    """A variant whose 4-player track is too long for 48 tiles: menus always run out."""
    from importlib import resources

    text = resources.files("sheepsim.games.panic").joinpath("standard.toml").read_text()
    text = text.replace("spaces = 74", "spaces = 120").replace(
        '{ kind = "shearing", first = 50, last = 74, gate_after = 62 }',
        '{ kind = "shearing", first = 50, last = 120, gate_after = 62 }')
    path = tmp_path_factory.mktemp("rules") / "long.toml"
    path.write_text(text)
    return load_rules(path)


def test_menus_running_out_triggers_the_final_shearing(long_track_rules):
    # "Once all actions are finished, the final shearing takes place, as if the counter
    # had reached the final pen."
    res = play_games(long_track_rules, players=4, policies="random", games=200, seed=3)
    ends = res.tables["game_end"].set_index("end")["games"]
    assert ends["menus_ran_out"] == 200 and ends["final_pen"] == 0
    # every game ends with all 48 tiles used, and at least two shearings happen
    assert res.tables["turns"]["max_turns"][0] <= 48
    assert res.acc[L.A_SHORN:L.A_SHORN + 5].sum() >= 2 * 200


def test_opening_pushes_do_not_score_and_leave_counter_at_zero(rules):
    # "The player's turn ends by moving their marker from the truck to the space marked
    # 0." "Note that no points have yet been scored while jumping down from the truck."
    tr = trace_game(rules, players=3, policies="random", seed=5)
    first_action = next(i for i, r in enumerate(tr.log) if r[0] == L.EV_ACTION)
    openings = [r for r in tr.log[:first_action] if r[0] == L.EV_OPENING]
    assert len(openings) == 3
    base = L.LOG_HEAD + 3 * L.N_SHEEP
    for r in tr.log[:first_action]:
        assert r[base + 1] == 0 and not r[base + 2:base + 6].any()


def test_panic_follows_every_turn_ending_on_a_panic_space(rules):
    # "If the timer ends on a space marked with the panic symbol, the active player must
    # carry out an extra Lamb Push"
    base = L.LOG_HEAD + 3 * L.N_SHEEP
    for players in (3, 4):
        panic = set(rules.tracks[players].panic)
        log = np.concatenate([trace_game(rules, players=players, policies="random",
                                         seed=seed).log for seed in (11, 12)])
        events = [int(r[0]) for r in log]
        seen = 0
        for i, r in enumerate(log):
            if events[i] != L.EV_SCORE:
                continue
            # the events of the rest of this turn
            rest = []
            for ev in events[i + 1:]:
                if ev in (L.EV_ACTION, L.EV_PASS, L.EV_END):
                    break
                rest.append(ev)
            on_panic = int(r[base + 1]) in panic
            assert (L.EV_PANIC_DIE in rest) == on_panic
            seen += on_panic
        assert seen >= 3


def test_three_player_neutral_colour_scores_for_nobody(rules):
    # "In a 3-player game, one colour of sheep remains neutral. It does not score points
    # for anyone."
    res = play_games(rules, players=3, policies="random", games=300, seed=2)
    assert list(res.tables["by_seat"]["colour"]) == ["blue", "green", "red"]
    assert res.tables["by_seat"]["wins"].sum() == 300


def test_same_seed_same_totals_for_any_threads_and_chunks(rules):
    a = play_games(rules, players=4, policies="random,greedy,random,random", games=60, seed=9,
                   threads=1, chunk_size=60)
    b = play_games(rules, players=4, policies="random,greedy,random,random", games=60, seed=9,
                   threads=2, chunk_size=7)
    assert np.array_equal(a.acc, b.acc)
    c = play_games(rules, players=4, policies="random,greedy,random,random", games=60,
                   seed=10, threads=2)
    assert not np.array_equal(a.acc, c.acc)


def test_common_random_numbers_across_policies(rules):
    # Dice come from the DICE stream, so the opening's first panic die is the same
    # whatever the policies (the first roll happens before any choice).
    a = trace_game(rules, players=4, policies="random", seed=4, game=7)
    b = trace_game(rules, players=4, policies="greedy", seed=4, game=7)
    first = [next(int(r[1]) for r in t.log if r[0] == L.EV_PANIC_DIE) for t in (a, b)]
    assert first[0] == first[1]


def test_each_game_has_exactly_one_winner(rules):
    res = play_games(rules, players=4, policies="random", games=500, seed=1)
    assert res.tables["by_seat"]["wins"].sum() == 500
    assert res.tables["tie_breaks"]["games"].sum() == 500


def test_greedy_beats_random(rules):
    # Statistical: 1 greedy seat among 3 random ones, 300 games, seed fixed. The fair
    # share is 1/4; require the greedy win rate to exceed it by 5 standard errors of a
    # fair-share binomial (sqrt(0.25 * 0.75 / 300) = 0.025), i.e. > 0.375.
    res = play_games(rules, players=4, policies="greedy,random,random,random", games=300,
                     seed=123)
    pol = res.tables["by_policy"].set_index("policy")
    se = np.sqrt(0.25 * 0.75 / 300)
    assert pol.loc["greedy", "win_rate"] > 0.25 + 5 * se
    assert pol.loc["greedy", "mean_points"] > pol.loc["random", "mean_points"]


def test_rollout_beats_random(rules):
    # Statistical, small: one rollout seat (1 playout per choice) against 2 random seats,
    # 24 games. Fair share 1/3; the Wilson 95% lower bound must exceed it.
    res = play_games(rules, players=3, policies="rollout,random,random", games=24, seed=8,
                     playouts=1)
    pol = res.tables["by_policy"].set_index("policy")
    assert pol.loc["rollout", "win_rate_lo"] > 1 / 3
