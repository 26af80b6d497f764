"""The page of ``sheepsim serve`` in a real browser: Chromium (the system's ``chromium``
package) driven by Playwright (issue 31).

Skipped when Chromium or Playwright is missing, except in CI (``CI`` or
``SHEEPSIM_REQUIRE_BROWSER`` set), where that is a failure: .ci/run installs both.
Screenshots of each view go to ``$SHEEPSIM_SCREENSHOTS`` (docs/guides/player.md's come from
``SHEEPSIM_SCREENSHOTS=docs/screenshots``: a game in progress, from ``test_serve_game``),
else to the test's temporary folder.
"""

import json
import os
import shutil
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.serve.conftest import get

CHROMIUM = os.environ.get("SHEEPSIM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
REQUIRED = bool(os.environ.get("CI") or os.environ.get("SHEEPSIM_REQUIRE_BROWSER"))
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
MID_RACE = "semifinal supply=15 6.011 10.010 8.000 10.001 12.020 F1"
#: the standard lanes on the starting line, each sheep with its card's red/blue/white cubes
START = "semifinal 0.111 0.210 0.030 0.201 0.120 0.111"


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Python playwright is not installed (pip install -e '.[test]')"
    if not Path(CHROMIUM).is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


@pytest.fixture(scope="module")
def browser():
    problem = _missing()
    if problem:
        if REQUIRED:
            pytest.fail(f"browser tests must run here (CI/SHEEPSIM_REQUIRE_BROWSER): {problem}")
        pytest.skip(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("SHEEPSIM_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_page(browser, url, width=1200, height=900):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.errors = []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    settle(page)
    return page


#: resolves once ``body[data-ready='1']``: at once if so now, else the moment the page sets
#: it (a MutationObserver in the page). Playwright's ``wait_for_selector`` looks again
#: after 20, 50, 100, 100 then every 500 ms: an answer ready at 180 ms was seen at 270
#: ms, one at 300 ms at 770 ms (a whole game taps ~230 times).
READY = """(ms) => document.body.dataset.ready === "1" || new Promise((ok, fail) => {
  const seen = new MutationObserver(() => {
    if (document.body.dataset.ready === "1") { seen.disconnect(); clearTimeout(late); ok(true); } });
  seen.observe(document.body, { attributes: true, attributeFilter: ["data-ready"] });
  const late = setTimeout(() => { seen.disconnect(); fail(new Error(`not ready after ${ms} ms`)); }, ms);
})"""


def settle(page):
    """Wait until the page shows the answer to its latest change (``body[data-ready='1']``,
    at most 180 s)."""
    page.evaluate(READY, 180_000)


def whole_page(page, path):
    """A screenshot of the whole page as a screen that tall shows it (the answer bar at
    the bottom, where a full-page capture would leave it mid-page)."""
    width = page.viewport_size["width"]
    page.set_viewport_size({"width": width,
                            "height": page.evaluate("document.documentElement.scrollHeight")})
    page.screenshot(path=str(path))


def shown_odds(page) -> dict:
    """``{(lane, place): probability}`` as the bars hold them."""
    cells = page.eval_on_selector_all(
        "#odds .seg", "els => els.map(e => [e.dataset.lane, e.dataset.place, e.dataset.p])")
    return {(int(lane), int(place)): float(p) for lane, place, p in cells}


def held_evs(page) -> dict:
    """``{lane: EV}`` of the bets the page says you hold."""
    cells = page.eval_on_selector_all(
        "#held tr[data-lane]",
        "els => els.map(e => [e.dataset.lane, e.querySelector('[data-ev]').dataset.ev])")
    return {int(lane): float(ev) for lane, ev in cells}


def held_total(page) -> float:
    return float(page.get_attribute("#held tr.total [data-ev]", "data-ev"))


def cli_ev(position, *options) -> dict:
    """What ``sheepsim race ev --format json`` prints: the command line's
    :func:`sheepsim.cli.main` run in this process (a process of its own per question
    cost 2-3 CPU s of imports each), its JSON written with ``--out`` (the bytes it
    prints) so that nothing of the server's threads can mix into it."""
    import tempfile

    from sheepsim.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ev.json"
        code = main(["race", "ev", "--position", position, *options, "--format", "json",
                     "--quiet", "--out", str(out)])
        assert code == 0, code
        return json.loads(out.read_text())


def api_odds(server, position) -> dict:
    status, body = get(f"{server.url}/api/race/odds?{urlencode({'position': position})}")
    assert status == 200, body
    keys = ("p_first", "p_second", "p_third")
    return {(row["lane"], k + 1): row[key] for row in json.loads(body)["lanes"]
            for k, key in enumerate(keys)}


def test_page_loads_without_console_errors(server, browser, shots):
    page = open_page(browser, server.url + "/")
    assert page.errors == []
    assert page.input_value("#position") == START
    assert len(shown_odds(page)) == 18
    whole_page(page, shots / "start.png")
    page.close()


def test_clicking_a_position_gives_the_odds_the_api_gives(server, browser, shots):
    page = open_page(browser, server.url + "/")
    page.click('rect.cell[data-lane="3"][data-square="7"]')  # Feta to square 7
    page.click('rect.cell[data-lane="1"][data-square="21"]')  # Requeijao crosses first
    page.click('rect.cell[data-lane="5"][data-square="12"]')
    # 2 blue -> 3 would make 4 cubes, more than max_cubes 3: back to 0
    page.click('button.cube-btn[data-lane="5"][data-colour="blue"]')
    page.click('button.cube-btn[data-lane="4"][data-colour="red"]')  # 2 red -> 0
    settle(page)
    position = "semifinal F1 0.210 7.030 0.001 12.100 0.111"
    assert page.input_value("#position") == position
    assert not page.is_visible("#error")
    assert shown_odds(page) == api_odds(server, position)  # the same floats, exactly
    # a new race: every sheep back on the starting line with its card's cubes
    page.click("#new-race")
    settle(page)
    assert page.input_value("#position") == START
    assert page.errors == []
    page.close()


def test_bets_and_pace_advice(server, browser):
    page = open_page(browser, f"{server.url}/?{urlencode({'position': MID_RACE})}")
    page.click('button.toggle.open[data-lane="2"]')
    page.click('button.toggle.hidden[data-lane="3"]')
    page.click('button.toggle.hidden[data-lane="5"]')
    page.click('button.toggle.rival[data-lane="1"]')
    page.click('button.toggle.mover[data-lane="2"]')
    settle(page)
    status, body = get(f"{server.url}/api/race/advise?" + urlencode(
        {"position": MID_RACE, "lane": 2, "open": 2, "hidden": "3,5", "rival-open": 1}))
    doc = json.loads(body)
    shown = page.eval_on_selector_all("#pace tr[data-option]", "els => els.map(e => e.dataset.option)")
    assert shown == [row["option"] for row in doc["options"]]
    best = page.eval_on_selector_all("#pace tr.best", "els => els.map(e => e.dataset.option)")
    assert best == [row["option"] for row in doc["options"] if row["best"]]
    # mid-race: no bet to take, the bets held are worth their EV now (the ev table's)
    status, body = get(f"{server.url}/api/race/ev?" + urlencode({"position": MID_RACE, "taken": 1}))
    ev = json.loads(body)
    assert "Best open bet" not in page.inner_text("body")
    assert held_evs(page) == {row["lane"]: row["ev"] for row in ev["lanes"] if row["lane"] in (2, 3, 5)}
    assert "Ranked by" in page.inner_text("#pace-assumes")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1200
    assert page.errors == []
    page.close()


def test_the_url_restores_the_whole_state(server, browser):
    page = open_page(browser, f"{server.url}/?{urlencode({'position': MID_RACE})}")
    page.click('rect.cell[data-lane="4"][data-square="14"]')
    page.click('button.toggle.hidden[data-lane="4"]')
    page.click('button.toggle.rival[data-lane="6"]')
    page.click('button.toggle.mover[data-lane="3"]')
    page.select_option("#policy", "saver")
    settle(page)
    url = page.url
    query = parse_qs(urlsplit(url).query)
    assert query["position"] == ["semifinal supply=15 6.011 10.010 8.000 14.001 12.020 F1"]
    assert (query["hidden"], query["rival-open"], query["lane"], query["policy"]) == (
        ["4"], ["6"], ["3"], ["saver"])
    odds = shown_odds(page)
    pace = page.inner_text("#pace")
    page.close()
    again = open_page(browser, url)  # a reload or a shared link
    assert again.input_value("#position") == query["position"][0]
    assert again.input_value("#policy") == "saver"
    assert again.get_attribute('button.toggle.hidden[data-lane="4"]', "aria-pressed") == "true"
    assert again.get_attribute('button.toggle.rival[data-lane="6"]', "aria-pressed") == "true"
    assert shown_odds(again) == odds and again.inner_text("#pace") == pace
    assert again.url == url
    again.close()


def test_a_bad_position_shows_the_api_message(server, browser):
    page = open_page(browser, server.url + "/")
    bad = "semifinal 7.1 0.210 0.030 0.201 0.120 0.030"
    page.fill("#position", bad)
    page.press("#position", "Enter")
    settle(page)
    status, body = get(f"{server.url}/api/race/ev?{urlencode({'position': bad})}")
    assert status == 400
    assert page.inner_text("#error") == json.loads(body)["error"]
    assert page.is_visible("#error")
    # editing it right clears the message and the board follows the text
    page.fill("#position", "semifinal 7.101 0.210 0.030 0.201 0.120 0.030")
    page.press("#position", "Enter")
    settle(page)
    assert not page.is_visible("#error")
    assert page.get_attribute('button.cube-btn[data-lane="1"][data-colour="white"]', "aria-label") \
        == "lane 1 white cubes: 1 (tap to change)"
    page.close()


#: what a finger or a mouse hits: every one at least 24x24 CSS px (WCAG 2.5.8)
TARGETS = ("rect.cell, select, button, input")


def smallest_targets(page) -> list:
    """``[width, height, what]`` of the visible targets smaller than 24 px either way."""
    return page.eval_on_selector_all(TARGETS, """els => els.map(e => {
        const r = e.getBoundingClientRect();
        return [r.width, r.height, e.outerHTML.slice(0, 80)];
    }).filter(([w, h]) => w > 0 && h > 0 && (w < 24 || h < 24))""")


def in_view(page, selector, height) -> bool:
    """Whether the element is wholly on screen and on top (not covered)."""
    return page.eval_on_selector(selector, f"""e => {{
        const r = e.getBoundingClientRect();
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return r.height > 0 && r.top >= 0 && r.bottom <= {height} && e.contains(top);
    }}""")


@pytest.mark.parametrize("width", [390, 320])
def test_a_phone_sees_the_answer_and_hits_its_targets(server, browser, width):
    page = open_page(browser, f"{server.url}/?" + urlencode(
        {"position": MID_RACE, "open": 2, "hidden": "3,5", "rival-open": 1}),
        width=width, height=844)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert smallest_targets(page) == []
    # the board stands up: a tap 8 px off a square's centre is still on that square
    box = page.eval_on_selector('rect.cell[data-lane="4"][data-square="14"]', """e => {
        const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }""")
    page.evaluate(f"window.scrollTo(0, {box[1]} - 400)")
    box = page.eval_on_selector('rect.cell[data-lane="4"][data-square="14"]', """e => {
        const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }""")
    page.mouse.click(box[0] + 8, box[1] + 8)
    settle(page)
    position = "semifinal supply=15 6.011 10.010 8.000 14.001 12.020 F1"
    assert page.input_value("#position") == position
    # the decision: the dice chose lane 2. The answer is on screen where the control is
    page.click('button.toggle.mover[data-lane="2"]')
    settle(page)
    status, body = get(f"{server.url}/api/race/advise?" + urlencode(
        {"position": position, "lane": 2, "open": 2, "hidden": "3,5", "rival-open": 1}))
    best = [r["option"].replace("_", " ").lower() for r in json.loads(body)["options"] if r["best"]]
    assert in_view(page, "#answer", 844)
    assert in_view(page, 'button.toggle.mover[data-lane="2"]', 844)
    assert page.inner_text("#answer-best") == " or ".join(best)
    assert page.inner_text("#answer").startswith(f"Lane 2: {' or '.join(best)} (")
    assert page.errors == []
    page.close()


def test_busy_and_a_stopped_server_are_said_in_words(browser):
    from sheepsim.serve.server import make_server

    srv = make_server("127.0.0.1", 0, max_busy=1, max_queue=0, head_timeout=1.0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        page = open_page(browser, f"http://127.0.0.1:{srv.server_address[1]}/?" + urlencode(
            {"position": MID_RACE}), width=390, height=844)
        assert srv.api.queue.enter(0)  # another player's question holds the solver
        page.click('rect.cell[data-lane="4"][data-square="14"]')
        page.wait_for_selector("#busy:not([hidden])", timeout=30_000)
        assert page.inner_text("#busy").startswith("Server busy: the server is busy: it answers 1 "
                                                   "question at a time and 0 questions are waiting")
        assert in_view(page, "#busy", 844)
        srv.api.queue.leave()
        settle(page)
        assert not page.is_visible("#busy") and not page.is_visible("#error")
    finally:
        srv.shutdown()
        srv.server_close()
    time.sleep(1.5)  # its kept-alive connections close at the 1 s timeout
    page.click('rect.cell[data-lane="4"][data-square="15"]')
    settle(page)
    assert page.inner_text("#error").startswith("The server does not answer: is sheepsim serve "
                                                "still running?")
    assert in_view(page, "#error", 844)
    assert "Failed to fetch" not in page.inner_text("body")
    page.close()


def test_the_page_works_from_the_keyboard(server, browser):
    page = open_page(browser, server.url + "/", width=1280, height=800)
    assert smallest_targets(page) == []
    page.focus("#board")
    for key in ["ArrowDown", "ArrowDown", *["ArrowRight"] * 5, "Enter"]:
        page.keyboard.press(key)  # lane 3 (its sheep on square 0), five squares on
    settle(page)
    assert page.input_value("#position") == "semifinal 0.111 0.210 5.030 0.201 0.120 0.111"
    page.keyboard.press("Tab")  # on to the lane controls: the first card select
    assert page.evaluate("document.activeElement.dataset.lane") == "1"
    page.focus('button.toggle.hidden[data-lane="3"]')
    page.keyboard.press("Enter")
    page.focus('button.toggle.mover[data-lane="3"]')
    page.keyboard.press("Space")
    settle(page)
    assert page.get_attribute('button.toggle.hidden[data-lane="3"]', "aria-pressed") == "true"
    assert page.eval_on_selector_all("#pace tr[data-option]", "els => els.length") >= 2
    # standing up on a phone: down the track is ArrowDown
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_selector("#board.vertical", state="attached")
    page.focus("#board")  # the cursor is still on lane 3, on its sheep's square
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    settle(page)
    assert page.input_value("#position") == "semifinal 0.111 0.210 6.030 0.201 0.120 0.111"
    assert page.errors == []
    page.close()


def test_equal_pace_options_are_shown_equal(server, browser):
    # your only bet is on lane 6, already 1st: every option of lane 2 is worth exactly its
    # payoff (6 points), so none is better than another
    page = open_page(browser, f"{server.url}/?" + urlencode(
        {"position": MID_RACE, "hidden": "6", "lane": "2"}))
    rows = page.eval_on_selector_all(
        "#pace tr[data-option]", "els => els.map(e => [e.className, e.lastChild.textContent])")
    assert len(rows) >= 2
    assert rows == [["best", "equal"]] * len(rows)
    assert page.errors == []
    page.close()


def test_a_simulated_policy_shows_intervals(server, browser):
    page = open_page(browser, f"{server.url}/?" + urlencode({"position": MID_RACE, "policy": "random"}))
    assert page.inner_text("#odds-method") == "simulated, 95% intervals"
    assert page.inner_text("#status").startswith("simulated: 40,000 races, seed 0")
    # every lane with a chance of a place has its interval drawn on the bar
    assert page.eval_on_selector_all("#odds .whisker", "els => els.length") >= 5
    assert page.eval_on_selector_all("#bet-ev .ci", "els => els.length") >= 5
    # the page's odds are the API's for the same question and races
    status, body = get(f"{server.url}/api/race/ev?" + urlencode(
        {"position": MID_RACE, "policy": "random", "games": 40_000}))
    lanes = json.loads(body)["lanes"]
    assert shown_odds(page) == {(r["lane"], k + 1): r[key] for r in lanes
                                for k, key in enumerate(("p_first", "p_second", "p_third"))}
    assert page.errors == []
    page.close()


def test_the_advice_follows_the_phase_of_the_race(server, browser):
    # before the race: the open bet to take given the rival's open bet, then the hidden pair
    page = open_page(browser, server.url + "/")
    assert page.get_attribute("body", "data-phase") == "before"
    page.click('button.toggle.rival[data-lane="1"]')
    settle(page)
    ev = cli_ev(START, "--taken", "1")
    rec = next(r for r in ev["open_bet"] if r["recommended"])
    advice = page.inner_text("#advice")
    assert advice.startswith(f"Best open bet: lane {rec['lane']} ({rec['card']}), then hidden on "
                             f"lanes {rec['hidden_lanes']}")
    assert float(page.get_attribute("#advice [data-ev]", "data-ev")) == rec["ev_set"]
    assert page.is_visible("#sets-box")
    mine = next(r for r in ev["open_bet"] if not r["taken"] and not r["recommended"])
    page.click(f'button.toggle.open[data-lane="{mine["lane"]}"]')  # opened on another lane
    settle(page)
    assert f"take the hidden bets on lanes {mine['hidden_lanes']}" in page.inner_text("#advice")
    assert float(page.get_attribute("#advice [data-ev]", "data-ev")) == mine["ev_set"]
    for lane in mine["hidden_lanes"].split(","):
        page.click(f'button.toggle.hidden[data-lane="{lane}"]')
    settle(page)
    assert held_total(page) == mine["ev_set"]  # the set's EV, bonus included
    # a turn is played (lane 2's sheep trots to square 3 paying its blue cube): during the
    # race, no bet advice, what the bets held are worth now
    page.click('rect.cell[data-lane="2"][data-square="3"]')
    page.click('button.cube-btn[data-lane="2"][data-colour="blue"]')
    settle(page)
    assert page.get_attribute("body", "data-phase") == "during"
    position = page.input_value("#position")
    assert position == "semifinal 0.111 3.200 0.030 0.201 0.120 0.111"
    ev = cli_ev(position, "--taken", "1")
    assert "Best open bet" not in page.inner_text("body") and not page.is_visible("#advice")
    assert not page.is_visible("#sets-box")
    held = sorted([mine["lane"], *map(int, mine["hidden_lanes"].split(","))])
    assert held_evs(page) == {r["lane"]: r["ev"] for r in ev["lanes"] if r["lane"] in held}
    assert held_total(page) == next(r["ev"] for r in ev["sets"]
                                    if r["lanes"] == ",".join(map(str, held)))
    assert page.inner_text("#bets-title") == "Your bets now"
    assert page.errors == []
    page.close()
    # the race over: the points, and no pace to choose
    over = "semifinal F2 19.010 F3 X18 F1 20.010"
    page = open_page(browser, f"{server.url}/?" + urlencode(
        {"position": over, "open": 1, "hidden": "3,5"}))
    assert page.get_attribute("body", "data-phase") == "over"
    ev = cli_ev(over)
    assert page.inner_text("#bets-title") == "Race over: your points"
    assert held_evs(page) == {1: 9.0, 3: 4.0, 5: 7.0}
    assert held_total(page) == next(r["ev"] for r in ev["sets"] if r["lanes"] == "1,3,5") == 23
    assert page.eval_on_selector_all("button.toggle.mover", "els => els.every(e => e.disabled)")
    assert "The race is over" in page.inner_text("#pace-assumes")
    assert page.errors == []
    page.close()
    # the final, before its race: the best pair of hidden bets
    final = "final 0.111 0.210 0.030 0.201 0.120 0.111"
    page = open_page(browser, f"{server.url}/?" + urlencode({"position": final}))
    top = next(r for r in cli_ev(final)["sets"] if r["rank"] == 1)
    assert page.inner_text("#advice").startswith(f"Best pair of hidden bets: lanes {top['lanes']}")
    assert float(page.get_attribute("#advice [data-ev]", "data-ev")) == top["ev"]
    assert page.errors == []
    page.close()
