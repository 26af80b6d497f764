"""``sheepsim serve``'s JSON API: the CLI's answers byte for byte, the CLI's error
messages, and the bounds a web server needs (issue 31)."""

import json
import subprocess
from urllib.parse import urlencode

import pytest

from tests.cli_helpers import run
from tests.serve.conftest import get, sheepsim

MID_RACE = "semifinal supply=15 6.011 10.010 8.000 10.001 12.020 F1"
FINAL_RACE = "final 20.010 20.010 20.010 20.010 19.010 20.010"


# the one question also asked of a real ``python -m sheepsim`` (the standard semifinal's
# odds, the cheapest to answer): what the server sends is the bytes a process writes
# to its stdout, encoding and all, as a user's shell gets them
IN_A_PROCESS = ("race", "odds", "--format", "json")


def cli(capsys, *argv) -> subprocess.CompletedProcess:
    """``sheepsim ARGV``: the live CLI, whatever it prints today. Run in this process
    (:func:`tests.cli_helpers.run`: ``sheepsim.cli.main``, the code ``python -m sheepsim``
    runs, without a new interpreter's imports and kernel loads per question: about 1 CPU
    s each on a warm kernel cache, 4-5 s in CI's run; the server's answers are that code
    too, run by :mod:`sheepsim.serve.api` in its thread), except :data:`IN_A_PROCESS`."""
    if argv == IN_A_PROCESS:  # a process: its stdout's bytes (see IN_A_PROCESS)
        proc = sheepsim(*argv)
        out, err = proc.communicate(timeout=600)
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)
    capsys.readouterr()  # only this command's lines
    code, out, err = run(capsys, *argv)
    return subprocess.CompletedProcess(argv, code, out, err)


@pytest.mark.parametrize("endpoint, params, argv", [
    ("odds", {}, ["race", "odds"]),
    ("ev", {"position": MID_RACE, "taken": "1"},
     ["race", "ev", "--position", MID_RACE, "--taken", "1"]),
    ("advise", {"position": MID_RACE, "lane": "2", "open": "2", "hidden": "3,5",
                "rival-open": "1"},
     ["race", "advise", "--position", MID_RACE, "--lane", "2", "--open", "2", "--hidden", "3,5",
      "--rival-open", "1"]),
    ("odds", {"position": "final 3.101 X18 5.030 0.210 7.020 2.010", "policy": "saver"},
     ["race", "odds", "--position", "final 3.101 X18 5.030 0.210 7.020 2.010", "--policy",
      "saver"]),
    # the standings (issue 47): the final's advice by the chance of winning the game
    ("advise", {"position": FINAL_RACE, "lane": "5", "hidden": "5,1", "scores": "10,26",
                "rival-bets": "3,5"},
     ["race", "advise", "--position", FINAL_RACE, "--lane", "5", "--hidden", "5,1",
      "--scores", "10,26", "--rival-bets", "3,5"]),
    ("ev", {"stage": "final", "scores": "20,26,18", "seat": "3", "objective": "win",
            "tie-order": "2,3,1"},
     ["race", "ev", "--stage", "final", "--scores", "20,26,18", "--seat", "3", "--objective",
      "win", "--tie-order", "2,3,1"]),
    # one turn played (issue 47): the page follows the game with the engine's moves
    ("move", {"position": MID_RACE, "total": "6"},
     ["race", "move", "--position", MID_RACE, "--total", "6"]),
    ("move", {"position": MID_RACE, "total": "9", "option": "GALLOP_WHITE"},
     ["race", "move", "--position", MID_RACE, "--total", "9", "--option", "GALLOP_WHITE"]),
    # the page's Monte Carlo switch: advise --mc
    ("advise", {"position": MID_RACE, "lane": "2", "open": "2", "games": "400", "mc": "1"},
     ["race", "advise", "--position", MID_RACE, "--lane", "2", "--open", "2", "--games", "400",
      "--mc"]),
    # simulated: the same races for the same seed, whatever runs them
    ("ev", {"position": MID_RACE, "policy": "random", "games": "3000", "seed": "7"},
     ["race", "ev", "--position", MID_RACE, "--policy", "random", "--games", "3000", "--seed", "7"]),
])
def test_api_answers_what_the_cli_prints(server, endpoint, params, argv, capsys):
    status, body = get(f"{server.url}/api/race/{endpoint}?{urlencode(params)}")
    assert status == 200, body
    done = cli(capsys, *argv, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert body == done.stdout  # byte for byte, metadata included
    assert json.loads(body)["meta"]["rules_sha256"]


@pytest.mark.parametrize("endpoint, params, argv", [
    ("advise", {"position": MID_RACE, "lane": "x"},
     ["race", "advise", "--position", MID_RACE, "--lane", "x"]),
    ("odds", {"position": "semifinal 7.1 0.000 0.000 0.000 0.000 0.000"},
     ["race", "odds", "--position", "semifinal 7.1 0.000 0.000 0.000 0.000 0.000"]),
    ("ev", {"lanes": "Feta,Feta,Brie,Gouda,Edam,Stilton"},
     ["race", "ev", "--lanes", "Feta,Feta,Brie,Gouda,Edam,Stilton"]),
    ("odds", {"stage": "quarterfinal"}, ["race", "odds", "--stage", "quarterfinal"]),
    ("advise", {"position": MID_RACE, "lane": "6", "open": "2"},
     ["race", "advise", "--position", MID_RACE, "--lane", "6", "--open", "2"]),
    ("ev", {"stage": "final", "scores": "4,x"}, ["race", "ev", "--stage", "final", "--scores", "4,x"]),
    ("move", {"position": MID_RACE, "total": "2", "option": "GALLOP_RED"},
     ["race", "move", "--position", MID_RACE, "--total", "2", "--option", "GALLOP_RED"]),
    ("advise", {"position": FINAL_RACE, "lane": "5", "hidden": "5", "scores": "3,4,5",
                "rival-bets": "1,2"},
     ["race", "advise", "--position", FINAL_RACE, "--lane", "5", "--hidden", "5", "--scores",
      "3,4,5", "--rival-bets", "1,2"]),
])
def test_bad_request_is_400_with_the_cli_message(server, endpoint, params, argv, capsys):
    """The CLI's message in the API's words: its options named as query parameters."""
    from sheepsim.serve.api import api_wording

    status, body = get(f"{server.url}/api/race/{endpoint}?{urlencode(params)}")
    done = cli(capsys, *argv, "--format", "json")
    assert done.returncode == 2 and done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line
    assert status == 400
    error = json.loads(body)["error"]
    assert error == api_wording(line.partition(": error: ")[2], endpoint) and "--" not in error


@pytest.mark.parametrize("endpoint, query, error", [
    ("odds", "games=abc", "games: not a whole number: 'abc'"),
    ("odds", "stage=quarter", "stage: invalid choice: 'quarter' (choose from 'semifinal', 'final')"),
    ("advise", "lane=1", "missing parameter: position"),
    ("move", "option=fly", "missing parameters: position, total"),
    ("ev", "taken=zz", "taken takes lane numbers 1-6 separated by commas, got 'zz'"),
    ("advise", urlencode({"position": MID_RACE, "lane": "6"}), "advise needs your bets: open/hidden"),
    ("ev", urlencode({"position": MID_RACE, "seat": "2"}), "seat applies with the scores (scores)"),
])
def test_api_errors_name_the_query_parameters(endpoint, query, error):
    """Before 0.7.0 they named the CLI's options (``argument --games: ...``, ``the following
    arguments are required: --position``, ``--taken takes ...``)."""
    from sheepsim.serve.api import RaceAPI

    status, body = RaceAPI().answer(f"/api/race/{endpoint}", query)
    assert (status, json.loads(body)["error"]) == (400, error)


def test_unknown_paths_and_parameters(server):
    status, body = get(f"{server.url}/api/race/trace")
    assert status == 404 and "no such API" in json.loads(body)["error"]
    assert get(f"{server.url}/etc/passwd")[0] == 404
    status, body = get(f"{server.url}/api/race/odds?lane=3")
    assert status == 400
    assert json.loads(body)["error"].startswith("unknown parameter 'lane' (odds takes position")
    status, body = get(f"{server.url}/api/race/odds?stage=final&stage=semifinal")
    assert (status, json.loads(body)["error"]) == (400, "parameter 'stage' is given twice")


def test_rules_are_the_rules_file(server):
    from sheepsim.games.race.rules import load_rules

    rules = load_rules()
    status, body = get(f"{server.url}/api/race/rules")
    doc = json.loads(body)
    assert status == 200
    assert [c["name"] for c in doc["cards"]] == rules.card_names
    assert doc["payoffs"]["semifinal"] == rules.payoff_semifinal.tolist()
    assert doc["end_zone_first"] == rules.track_length - rules.end_zone + 1
    assert doc["rules_sha256"] == rules.sha256
    assert sum(doc["dice"]["semifinal"]["totals"].values()) == pytest.approx(1, abs=1e-15)
    assert doc["policies"]["exact"] == ["greedy", "saver", "steady"]


def test_the_page_and_its_files_are_served(server):
    status, html = get(f"{server.url}/")
    assert status == 200 and '<script src="app.js" defer></script>' in html
    for name in ("app.js", "app.css", "favicon.svg"):
        assert get(f"{server.url}/{name}")[0] == 200
    # nothing is loaded from another site (works offline)
    assert "http" not in html.replace("http-equiv", "")


def test_no_files_and_no_code_from_a_request(server, tmp_path):
    # a file holding a valid position is never read: the text is the position
    pos_file = tmp_path / "my position.txt"
    pos_file.write_text(MID_RACE)
    status, body = get(f"{server.url}/api/race/odds?{urlencode({'position': str(pos_file)})}")
    assert status == 400 and "is not a sheep" in json.loads(body)["error"]
    status, body = get(f"{server.url}/api/race/odds?position=/etc/hostname")
    assert status == 400 and "reads no files" in json.loads(body)["error"]
    status, body = get(f"{server.url}/api/race/odds?policy=os:system")
    assert status == 400 and "user policies run from the CLI" in json.loads(body)["error"]
    status, body = get(f"{server.url}/api/race/odds?policy=lookahead")
    assert status == 400 and "run it from the CLI" in json.loads(body)["error"]
    # an unknown name lists only what the server plays (not lookahead or user policies)
    status, body = get(f"{server.url}/api/race/odds?policy=foo")
    error = json.loads(body)["error"]
    assert status == 400 and "'foo'" in error and "partisan" in error
    assert "lookahead" not in error and "module:function" not in error


def test_work_is_bounded_and_the_wait_too():
    from sheepsim.serve.api import RaceAPI

    api = RaceAPI(max_states=100_000, max_busy=1, max_wait=0.2)
    # the CLI's default of a simulated policy is 1,000,000 races: refused up front
    status, body = api.answer("/api/race/odds", "policy=random")
    assert status == 400 and "games=200000 or fewer" in json.loads(body)["error"]
    status, body = api.answer("/api/race/advise", urlencode(
        {"position": MID_RACE, "lane": 2, "open": 2, "policy": "partisan", "games": 30_000}))
    assert status == 400 and "games=22222 or fewer" in json.loads(body)["error"]
    # an exact policy simulated (games given, or advise's mc switch) is bounded the same way
    status, body = api.answer("/api/race/ev", urlencode({"position": MID_RACE, "games": 10**6}))
    assert status == 400 and json.loads(body)["error"].startswith(
        "this question is simulated: games=1,000,000 is more than")
    status, body = api.answer("/api/race/advise", urlencode(
        {"position": MID_RACE, "lane": 2, "open": 2, "games": 30_000, "mc": 1}))
    assert status == 400 and "games=22222 or fewer" in json.loads(body)["error"]
    status, body = api.answer("/api/race/advise", urlencode(
        {"position": MID_RACE, "lane": 2, "open": 2, "mc": "yes"}))
    assert status == 400 and json.loads(body)["error"] == "mc: 1 (simulate) or 0, got 'yes'"
    # the standard semifinal visits 966,708 joint states: past this server's 100,000
    status, body = api.answer("/api/race/odds", "")
    assert status == 400 and "joint states" in json.loads(body)["error"]
    # the limit held only for that request: the solver's own limit is unchanged
    from sheepsim.games.race import exact

    assert exact.JOINT_STATE_LIMIT.get() == exact.MAX_JOINT_STATES
    # every slot busy: the question waits its turn, at most max_wait seconds, then 503
    assert api.queue.enter(0) is True
    try:
        status, body = api.answer("/api/race/ev", urlencode({"position": MID_RACE}))
        assert status == 503
        assert json.loads(body)["error"] == ("the server is busy: it answers 1 question at a "
                                             "time and this question waited 0.2 s; ask again "
                                             "in a moment")
    finally:
        api.queue.leave()
    status, body = api.answer("/api/race/odds", "position=" + "1" * 3000)
    assert status == 400 and "too long" in json.loads(body)["error"]
