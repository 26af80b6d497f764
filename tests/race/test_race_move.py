"""``sheepsim race move`` / :func:`~sheepsim.games.race.turn.play_turn`: one turn as the
engine plays it. Whole traced races (``race trace``: the engine's own turn loop) replayed
turn by turn through ``play_turn`` give the same sheep, cubes, supply and places."""

import json
import re

import pytest

from sheepsim.cli import main
from sheepsim.errors import SheepsimError
from sheepsim.games.race.turn import play_turn

START = "semifinal 0.111 0.210 0.030 0.201 0.120 0.111"
_TURN = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d)\s+(.+?)\s+([A-Z_0-9]+)\s+(\d)/(\d)/(\d)\s+"
                   r"((?:\s*(?:\d+|F)){6})(?:\s+(finished|EXHAUSTED))?$")


def traced_race(capsys, seed: int, stage: str, policy: str):
    """``[(total, lane, reason, option, cubes, squares)]`` and the placed lanes of the
    race ``race trace`` plays."""
    assert main(["race", "trace", "--seed", str(seed), "--stage", stage, "--policy", policy,
                 "--players", "3", "--format", "json", "--quiet"]) == 0
    lines = json.loads(capsys.readouterr().out)["lines"]
    turns = []
    for line in lines:
        m = _TURN.match(line)
        if m:
            g = m.groups()
            turns.append((int(g[1]), int(g[2]), g[3], g[4], tuple(map(int, g[5:8])), g[8].split()))
    result = lines[-1]
    assert result.startswith("Result after")
    places = [int(x) for x in re.findall(r"lane (\d)", result)]
    return turns, places


@pytest.mark.parametrize(("seed", "stage", "policy"), [(3, "semifinal", "greedy"),
                                                       (11, "semifinal", "random"),
                                                       (5, "final", "random")])
def test_a_traced_race_replayed_turn_by_turn(capsys, seed, stage, policy):
    turns, places = traced_race(capsys, seed, stage, policy)
    assert len(turns) > 10
    position = START.replace("semifinal", stage)
    for k, (total, lane, reason, option, cubes, squares) in enumerate(turns):
        t = play_turn(position, total, option)
        m = t.meta_fields
        assert (m["lane"], m["reason"], m["option"]) == (lane, reason, option), k
        sheep = m["next"].split()[-6:]
        moved = sheep[lane - 1]
        shown = [s if s[0] != "F" else "F" for s in sheep]
        assert [s.split(".")[0].lstrip("X") for s in shown] == squares, (k, m["next"])
        if moved[0] not in "FX":
            assert tuple(int(c) for c in moved.split(".")[1]) == cubes
        else:  # finished (cubes as they were paid) or exhausted (none)
            assert moved[0] == "F" or cubes == (0, 0, 0)
        # the option's row of the table is the same position
        row = t.table.set_index("option").loc[option]
        assert row["next"] == m["next"] and row["over"] == m["over"]
        assert m["over"] == (k == len(turns) - 1)
        position = m["next"]
    assert m["lanes_by_place"] == places
    with pytest.raises(SheepsimError, match="already over"):
        play_turn(position, 3)


def test_the_lazy_sheep_and_what_the_table_lists():
    # total 9: the Lazy Sheep, the furthest back of the running sheep, ties to the highest lane
    t = play_turn(START, 9)
    assert (t.meta_fields["lane"], t.meta_fields["reason"]) == (6, "Lazy Sheep (total 9)")
    assert "option" not in t.meta_fields
    assert list(t.table["option"]) == t.meta_fields["legal"] == [
        "WALK_WHITE", "TROT_BLUE", "TROT_WHITE", "GALLOP_RED", "GALLOP_WHITE"]
    assert t.table.set_index("option").loc["GALLOP_RED", "next"] == \
        "semifinal 0.111 0.210 0.030 0.201 0.120 4.011"
    # a finished sheep's total moves the Lazy Sheep (lane 1, furthest back)
    t = play_turn("semifinal supply=15 6.011 10.010 8.000 10.001 12.020 F1", 6)
    assert (t.meta_fields["lane"], t.meta_fields["reason"]) == (
        1, "Lazy Sheep (selected sheep finished)")
    # and an exhausted one's
    t = play_turn("semifinal 6.011 10.010 8.000 X17 12.020 F1", 4)
    assert (t.meta_fields["lane"], t.meta_fields["reason"]) == (
        1, "Lazy Sheep (selected sheep exhausted)")


def test_finish_exhaustion_supply_and_the_end():
    # lane 5 gallops over the line holding a blue cube: finished 2nd, its cube stays off
    # the supply (so the position says supply=)
    t = play_turn("semifinal F1 10.010 8.000 19.100 18.110 0.030", 5, "GALLOP_RED")
    assert t.meta_fields["next"] == "semifinal supply=14 F1 10.010 8.000 19.100 F2 0.030"
    assert not t.meta_fields["over"]
    # lane 4 walks into the End Zone paying its last cube: exhausted on 16
    t = play_turn("semifinal 6.011 10.010 8.000 15.001 12.020 F1", 4, "WALK_WHITE")
    assert t.meta_fields["next"].split()[4] == "X16"
    # the last running sheep exhausts: over, the places go to the closest exhausted sheep
    # (ties to the lowest lane)
    t = play_turn("semifinal F1 X17 X18 17.001 X18 F2", 4, "WALK_WHITE")
    assert t.meta_fields["next"] == "semifinal F1 X17 X18 X18 X18 F2"
    assert (t.meta_fields["over"], t.meta_fields["lanes_by_place"]) == (True, [1, 6, 3])
    # the final ends at its first finish
    t = play_turn("final 19.100 0.210 0.030 0.201 0.120 0.111", 1, "GALLOP_RED")
    assert (t.meta_fields["over"], t.meta_fields["lanes_by_place"]) == (True, [1])


@pytest.mark.parametrize(("args", "message"), [
    (["--total", "10"], "total 10: the semifinal's dice roll 1-9"),
    (["--total", "2", "--option", "REST"], "option REST is not legal for lane 2 (0.210)"),
    (["--total", "2", "--option", "FLY"], "option 'FLY': one of REST"),
])
def test_bad_moves_are_one_line(capsys, args, message):
    assert main(["race", "move", "--position", START, *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_the_command_prints_the_turn(capsys):
    assert main(["race", "move", "--position", START, "--total", "3", "--option",
                 "GALLOP_BLUE2", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["meta"]["next"] == "semifinal 0.111 0.210 5.010 0.201 0.120 0.111"
    assert doc["meta"]["lane"] == 3 and doc["options"][0]["option"] == "TROT_BLUE"


def test_the_placed_lanes_read_the_same_in_every_format(capsys):
    """``places`` read like place numbers ("1,6,3": lane 1 first) and was a list in the
    meta but a string in the rows; the title nested brackets ("(Lazy Sheep (total 9))").
    Now ``lanes_by_place`` is the lanes 1st, 2nd, 3rd: a list (null while the race runs)
    in the rows and the meta alike, the same list in the CSV, and the title says it."""
    over = "semifinal F1 X17 X18 17.001 X18 F2"
    assert main(["race", "move", "--position", over, "--total", "4", "--option", "WALK_WHITE",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["option"]: r for r in doc["options"]}
    assert "places" not in doc["meta"] and "places" not in rows["WALK_WHITE"]
    assert doc["meta"]["lanes_by_place"] == rows["WALK_WHITE"]["lanes_by_place"] == [1, 6, 3]
    assert rows["WALK_FREE"]["lanes_by_place"] is None  # the race runs on
    assert main(["race", "move", "--position", over, "--total", "4", "--format", "csv"]) == 0
    csv = capsys.readouterr().out.splitlines()
    assert csv[0].endswith(",over,lanes_by_place")
    assert csv[2] == 'WALK_WHITE,X18,semifinal F1 X17 X18 X18 X18 F2,True,"[1, 6, 3]"'
    assert main(["race", "move", "--position", over, "--total", "4", "--option", "WALK_WHITE"]) == 0
    assert "the race is over: 1st lane 1, 2nd lane 6, 3rd lane 3" in capsys.readouterr().out
    assert main(["race", "move", "--position", START, "--total", "9"]) == 0
    out = capsys.readouterr().out
    assert "total 9 moves lane 6, the Lazy Sheep (total 9)\n" in out and "((" not in out
