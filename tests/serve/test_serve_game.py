"""The page follows a whole game (issue 47, item 1): in Chromium at 390 and 1280 px, a
3-player game from the deal to the final's winner played through the page's taps only:
the bets as they are placed, then each turn the dice total and the pace played.

Every answer is checked: each position the page applies is what ``race move`` gives
(:func:`~sheepsim.games.race.turn.play_turn`, the command's code; the API answers the
command's JSON byte for byte, ``test_serve_api``), each pace advice on your turns is
``race advise``'s best (with the scores in the final: by the chance of winning the game),
the bets advised are ``race ev``'s, and the points paid after each race are what ``race
ev`` gives the bets held on the finished race. At most 3 taps per ordinary turn (the
page counts 2: the total, the pace). The dice and the rivals' choices come from a fixed
seed, so the game is the same every run, and the same at both widths: each ``race ev``
and ``race advise`` the game asks is run once and its answer checked at both (and the
server answers the second width's questions from the answers it keeps: the first width's
game has it run every command).
"""

import functools
import json
import random
from urllib.parse import urlencode

import pytest

from sheepsim.games.race.advise import advise
from sheepsim.games.race.rules import load_rules
from sheepsim.games.race.turn import play_turn
from tests.serve.test_serve_browser import (  # noqa: F401
    browser,
    in_view,
    open_page,
    settle,
    shots,
    smallest_targets,
)
from tests.serve.test_serve_browser import cli_ev as _cli_ev

RULES = load_rules(None)
COUNT_TAPS = """() => { window.taps = 0; document.addEventListener("click", (e) => {
    if (e.isTrusted && e.target.closest("button, select, input, rect.cell")) window.taps += 1; }, true); }"""
PLAYERS, ME = 3, 2
#: the turn bar after a dice total, in one round trip: the pace buttons, whether each is
#: visible (Playwright's test: a box, not ``visibility: hidden``), the starred ones, the
#: prompt and the best pace said (the innerText Playwright's ``inner_text`` reads)
TURN = """() => { const q = (s) => [...document.querySelectorAll(s)].map((e) => e.dataset.option);
    const buttons = [...document.querySelectorAll("#turn-buttons [data-option]")];
    return { options: q("#turn-buttons [data-option]"), starred: q("#turn-buttons .best"),
             visible: buttons.every((e) => e.checkVisibility({ visibilityProperty: true })
                                           && e.getBoundingClientRect().width > 0),
             prompt: document.getElementById("turn-prompt").innerText,
             best: document.getElementById("answer-best")?.innerText ?? null }; }"""
#: the taps since the last count (counting starts again) and the position field
TURN_DONE = """() => { const taps = window.taps; window.taps = 0;
    return [taps, document.getElementById("position").value]; }"""
#: semifinal 1's lanes: the page's default, the rules file's first six cards
SF1 = [c.name for c in RULES.cards[:6]]


@functools.cache
def _ev_text(position: str, *options: str) -> str:
    return json.dumps(_cli_ev(position, *options))


def cli_ev(position: str, *options: str) -> dict:
    """``race ev --format json``'s answer (once per question: the second width's game
    asks the first's questions)."""
    return json.loads(_ev_text(position, *options))


_advised: dict = {}


def best_paces(position: str, lane: int, bets: dict, standings: dict) -> list[str]:
    """``race advise``'s best pace options (tied), by the command's code (once per
    question, as :func:`cli_ev`)."""
    key = json.dumps([position, lane, bets, standings], sort_keys=True)
    if key not in _advised:
        _advised[key] = tuple(advise(position, lane, RULES, **bets, **standings).tied)
    return list(_advised[key])


def tap(page, selector):
    page.click(selector)
    settle(page)


def bet_lanes(page) -> list[int]:
    return [int(x) for x in page.eval_on_selector_all(
        "#turn-buttons [data-bet-lane]:not([disabled])", "els => els.map(e => e.dataset.betLane)")]


def game_state(page) -> dict:
    return json.loads(page.evaluate("new URLSearchParams(location.search).get('game')"))


def leader(scores, stack) -> int:
    """The engine's leader: the most points, ties to the token higher in the stack."""
    return min(stack, key=lambda seat: (-scores[seat - 1], stack.index(seat)))


def place_bets(page, race: int, stage: str, position: str, first: int, scores, stack):
    """Record the bets before a race: each seat's open bet in turn order (yours the one
    ``race ev`` advises given the rivals' open bets before it), then your hidden ones."""
    rng = random.Random(race)
    taken = []
    if stage == "semifinal":
        for k in range(PLAYERS):
            seat = (first - 1 + k) % PLAYERS + 1
            assert f"seat {seat}" in page.inner_text("#turn-prompt")
            if seat == ME:
                ev = cli_ev(position, "--taken", ",".join(map(str, taken)))
                rec = next(r for r in ev["open_bet"] if r["recommended"])
                assert page.inner_text("#advice").startswith(f"Best open bet: lane {rec['lane']}")
                lane = mine_open = rec["lane"]
            else:
                lane = rng.choice(bet_lanes(page))
                taken.append(lane)
            tap(page, f'#turn-buttons [data-bet-lane="{lane}"]')
        # the hidden pair that goes best with your open bet, given every rival's open bet
        ev = cli_ev(position, "--taken", ",".join(map(str, taken)))
        hidden = next(r for r in ev["open_bet"] if r["lane"] == mine_open)["hidden_lanes"]
        assert f"take the hidden bets on lanes {hidden}" in page.inner_text("#advice")
        mine = [int(x) for x in hidden.split(",")]
    else:  # the final: the pair that plays to win the game once the scores differ
        ev = cli_ev(position, "--scores", ",".join(map(str, scores)), "--seat", str(ME),
                    "--tie-order", ",".join(map(str, stack)))
        if ev["meta"]["goal"] == "win":
            top = ev["game"][0]
            assert page.inner_text("#advice").startswith(f"To win the game bet on lanes {top['lanes']}")
        else:
            top = next(r for r in ev["sets"] if r["rank"] == 1)
            assert page.inner_text("#advice").startswith(f"Best pair of hidden bets: lanes {top['lanes']}")
        mine = [int(x) for x in top["lanes"].split(",")]
    for lane in mine:
        tap(page, f'#turn-buttons [data-bet-lane="{lane}"]')


def play_race(page, rng, stage: str, bets: dict, standings: dict, shot=None) -> tuple[str, list[int]]:
    """Tap every turn of the race; returns the last position and the places. ``shot``
    (a file) takes a screenshot of the page at your first turn past the eighth."""
    totals = RULES.total_distribution(stage)
    faces, weights = list(totals), list(totals.values())
    game = game_state(page)
    turn = 0
    position = page.input_value("#position")
    page.evaluate("window.taps = 0")
    while True:
        seat = (game["first"] - 1 + turn) % PLAYERS + 1
        total = rng.choices(faces, weights)[0]
        page.click(f'#turn-buttons [data-total="{total}"]')
        settle(page)  # the move's answer shown: its pace buttons, the advice
        expected = play_turn(position, total)
        shown = page.evaluate(TURN)
        assert shown["options"] == list(expected.table["option"]) and shown["visible"]
        assert f"lane {expected.meta_fields['lane']} " in shown["prompt"]
        options = expected.table.set_index("option")
        if seat == ME and len(shown["options"]) > 1:  # your turn: the advice is race advise's
            best = best_paces(position, expected.meta_fields["lane"], bets, standings)
            assert shown["best"] == " or ".join(
                o.replace("_", " ").lower().replace("blue2", "2 blue") for o in best)
            assert shown["starred"] == [o for o in shown["options"] if o in best]
            option = best[0]
            if shot and turn >= 8:
                # the decision in view, every target a finger can hit
                height = page.viewport_size["height"]
                assert in_view(page, "#answer", height) and in_view(page, "#turn-buttons", height)
                assert smallest_targets(page) == []
                page.evaluate("document.getElementById('board-panel').scrollIntoView()")
                page.screenshot(path=str(shot))  # what the screen shows at the board
                shot = None
        else:  # the rivals: the farthest move (races end sooner)
            option = max(shown["options"],
                         key=lambda o: (int(options.loc[o, "after"].lstrip("FX").split(".")[0])
                                        if options.loc[o, "after"][0] != "F" else 99))
        tap(page, f'#turn-buttons [data-option="{option}"]')
        # the turn's taps (counting starts again for the next turn) and the position after
        taps, shown_next = page.evaluate(TURN_DONE)
        assert taps <= 3
        after = play_turn(position, total, option).meta_fields
        assert shown_next == after["next"]
        position = shown_next
        turn += 1
        if after["over"]:
            return after["next"], after["lanes_by_place"]


@pytest.mark.parametrize("width", [390, 1280])
def test_a_whole_game_through_the_page(server, browser, shots, width):  # noqa: F811
    page = open_page(browser, server.url + "/", width=width, height=844 if width < 900 else 800)
    page.evaluate(COUNT_TAPS)
    page.select_option("#players", str(PLAYERS))
    page.select_option("#seat", str(ME))
    tap(page, "#start-game")
    rng = random.Random(47)
    scores, stack, first, podium = [0] * PLAYERS, list(range(1, PLAYERS + 1)), 1, []
    for race, stage in enumerate(("semifinal", "semifinal", "final")):
        position = page.input_value("#position")
        game = game_state(page)
        assert (game["race"], game["first"], game["scores"]) == (race, first, scores)
        if race == 1:  # the six cards semifinal 1 did not use
            lanes = [c.name for c in RULES.cards if c.name not in SF1]
            assert position == f"semifinal lanes={','.join(lanes[:6])} " + " ".join(
                f"0.{c.red}{c.blue}{c.white}" for c in RULES.cards if c.name in lanes[:6])
        if race == 2:  # lanes 6, 4, 2: 1st-3rd of semifinal 1; 5, 3, 1: of semifinal 2
            a, b = podium
            assert position.startswith(f"final lanes={','.join([b[2], a[2], b[1], a[1], b[0], a[0]])} ")
        if race == 1 and width > 900:  # the bets of semifinal 2, your open bet to take
            page.wait_for_selector("#advice")
            page.screenshot(path=str(shots / "before.png"))
        place_bets(page, race, stage, position, first, scores, stack)
        game = game_state(page)
        assert game["step"] == "race"
        mine = game["hidden"][str(ME)]
        bets = {"hidden": mine, "open_bet": game["open"].get(str(ME)),
                "rival_open": [lane for seat, lane in game["open"].items() if int(seat) != ME]}
        standings = ({"scores": scores, "seat": ME, "tie_order": stack} if stage == "final" else {})
        if race == 1:  # a shared link resumes the game where it stands
            again = open_page(browser, page.url, width=width)
            assert again.input_value("#position") == position
            assert again.inner_text("#turn-prompt") == page.inner_text("#turn-prompt")
            again.close()
        shot = None if race != 1 else shots / ("phone.png" if width < 900 else "advice.png")
        end, places = play_race(page, rng, stage, bets, standings, shot)
        assert page.is_disabled("#undo") is False
        # the rivals' hidden bets revealed, then every seat paid as race ev pays the bets
        held = {ME: sorted(mine + ([bets["open_bet"]] if bets["open_bet"] else []))}
        for seat in range(1, PLAYERS + 1):
            if seat == ME:
                continue
            assert f"Reveal seat {seat}'s hidden bets" in page.inner_text("#turn-prompt")
            pair = bet_lanes(page)[:2]
            for lane in pair:
                tap(page, f'#turn-buttons [data-bet-lane="{lane}"]')
            opened = game["open"].get(str(seat))
            held[seat] = sorted(pair + ([opened] if opened else []))
        ev = cli_ev(end)
        sets = {r["lanes"]: r["ev"] for r in ev["sets"]}
        order = [(first - 1 + k) % PLAYERS + 1 for k in range(PLAYERS)]
        for seat in order:  # paid in turn order; a token that moves goes on top
            points = int(sets[",".join(map(str, held[seat]))])
            scores[seat - 1] += points
            if points:
                stack = [seat] + [s for s in stack if s != seat]
        game = game_state(page)
        assert game["scores"] == scores and game["stack"] == stack
        lanes = end.split("lanes=")[1].split()[0].split(",") if "lanes=" in end else SF1
        if stage == "semifinal":
            podium.append([lanes[lane - 1] for lane in places])
            first = leader(scores, stack)
            assert f"(seat {first}" in page.inner_text("#next-race")
            tap(page, "#next-race")
    winner = leader(scores, stack)
    assert page.inner_text("#game-winner").startswith(f"seat {winner}")
    assert game_state(page)["step"] == "done"
    assert page.errors == []
    page.close()


def test_undo_steps_back_and_a_finished_race_takes_no_turn(server, browser):  # noqa: F811
    start = "semifinal 0.111 0.210 0.030 0.201 0.120 0.111"
    page = open_page(browser, f"{server.url}/?{urlencode({'position': start, 'hidden': '3'})}")
    tap(page, '#turn-buttons [data-total="9"]')  # the Lazy Sheep: lane 6, furthest back
    assert "lane 6 Stilton, the Lazy Sheep (total 9), moves" in page.inner_text("#turn-prompt")
    tap(page, '#turn-buttons [data-option="GALLOP_RED"]')
    assert page.input_value("#position") == "semifinal 0.111 0.210 0.030 0.201 0.120 4.011"
    tap(page, "#undo")
    assert page.input_value("#position") == start and page.is_disabled("#undo")
    # the race over: no dice to tap, no sheep to mark moving
    over = "semifinal F1 X17 X18 17.001 X18 F2"
    page.fill("#position", over)
    page.press("#position", "Enter")
    settle(page)
    tap(page, '#turn-buttons [data-total="4"]')
    tap(page, '#turn-buttons [data-option="WALK_WHITE"]')
    assert page.input_value("#position") == "semifinal F1 X17 X18 X18 X18 F2"
    assert page.inner_text("#turn-prompt") == "The race is over: 1st lane 1, 2nd lane 6, 3rd lane 3."
    assert page.eval_on_selector_all("#turn-buttons [data-total]", "els => els.length") == 0
    assert page.errors == []
    page.close()


def test_where_the_answer_says_use_monte_carlo_the_page_offers_the_switch(browser):  # noqa: F811
    import threading

    from sheepsim.serve.server import make_server

    srv = make_server("127.0.0.1", 0, max_states=1_000)  # too few for this position
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}/?" + urlencode(
            {"position": "semifinal supply=15 6.011 10.010 8.000 10.001 12.020 F1"})
        page = open_page(browser, url, width=390, height=844)
        assert "use Monte Carlo" in page.inner_text("#error")
        tap(page, "#error .use-mc")
        assert not page.is_visible("#error") and page.is_checked("#mc")
        assert page.inner_text("#odds-method") == "simulated, 95% intervals"
        assert "mc=1" in page.url
        # the browser logs the refused answer (HTTP 400); no script error
        assert [e for e in page.errors if not e.startswith("Failed to load resource")] == []
        page.close()
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_bar_names_the_lane_already_tapped_of_a_pair(server, browser):  # noqa: F811
    page = open_page(browser, server.url + "/")
    page.select_option("#players", "2")
    page.select_option("#seat", "1")
    tap(page, "#start-game")
    tap(page, '#turn-buttons [data-bet-lane="2"]')  # your open bet
    tap(page, '#turn-buttons [data-bet-lane="5"]')  # seat 2's open bet
    tap(page, '#turn-buttons [data-bet-lane="6"]')  # the first of your hidden pair
    assert page.inner_text("#turn-prompt") == "Your two hidden bets: tap two lanes (lane 6 so far)"
    page.close()


def test_the_scores_after_a_race_say_so(server, browser):  # noqa: F811
    game = {"n": 3, "me": 2, "race": 0, "first": 1, "turn": 40, "step": "race", "scores": [0, 0, 0],
            "stack": [1, 2, 3], "open": {"1": 1, "2": 2, "3": 3}, "hidden": {"2": [1, 3]}, "sf1": SF1,
            "podium": [], "places": None, "points": None}
    query = {"position": "semifinal F1 F2 18.010 17.010 0.030 0.111", "game": json.dumps(game)}
    page = open_page(browser, f"{server.url}/?{urlencode(query)}")
    assert page.inner_text("#game-state").endswith("scores before this race 0, 0, 0")
    tap(page, '#turn-buttons [data-total="3"]')
    page.wait_for_selector('#turn-buttons [data-option="TROT_BLUE"]')
    tap(page, '#turn-buttons [data-option="TROT_BLUE"]')  # lane 3 crosses third: the race is over
    for lane in (5, 6, 5, 6):  # the rivals' hidden bets
        tap(page, f'#turn-buttons [data-bet-lane="{lane}"]')
    # seat 1: lane 1 first, 12; you: 12 + 8 + 4 and the bonus of 3; seat 3: lane 3 third, 4
    assert game_state(page)["scores"] == [12, 27, 4]
    assert page.inner_text("#game-state").endswith("scores after this race 12, 27, 4")
    page.close()


def test_entry_on_the_page_from_taps_and_keys(server, browser):  # noqa: F811
    position = "semifinal supply=15 6.011 10.010 8.000 17.001 12.020 F1"
    page = open_page(browser, f"{server.url}/?{urlencode({'position': position, 'hidden': '4'})}")
    # the keyboard: a digit taps the total, then the n-th pace; Ctrl+Z undoes
    page.keyboard.press("9")  # the Lazy Sheep: lane 1 on 6, furthest back
    page.wait_for_selector("#turn-buttons [data-option]")
    settle(page)
    first = page.get_attribute("#turn-buttons [data-option]", "data-option")
    page.keyboard.press("1")
    settle(page)
    assert page.input_value("#position") == play_turn(position, 9, first).meta_fields["next"]
    page.keyboard.press("Control+z")
    settle(page)
    assert page.input_value("#position") == position
    # a sheep in the End Zone marked exhausted, and back
    assert page.is_disabled('button.toggle.exhaust[data-lane="1"]')  # square 6
    tap(page, 'button.toggle.exhaust[data-lane="4"]')
    assert page.input_value("#position") == "semifinal supply=15 6.011 10.010 8.000 X17 12.020 F1"
    # a supply the rules cannot hold: refused, said in words, the position kept
    page.fill("#supply", "30")
    page.press("#supply", "Tab")
    assert page.inner_text("#error").startswith("Blue supply 30: a whole number 0-15")
    assert page.input_value("#supply") == "15"
    assert "supply=15" in page.input_value("#position")
    # the cube buttons say their limit: lane 5 holds 2 blue of at most 3 cubes
    assert page.inner_text('button.cube-btn[data-lane="5"][data-colour="blue"]') == "2/3"
    page.select_option("#policy", "saver")
    settle(page)
    assert page.inner_text("#policy-help").startswith("Every later turn played saver: greedy, but keeps")
    page.close()
