"""``race odds/ev --exact|--mc --position`` and ``race advise`` on the command line."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sheepsim.cli import main
from sheepsim.games.race.cli_exact import _method
from sheepsim.games.race.exact import exact_odds

MID = "semifinal supply=14 7.101 9.110 6.020 8.201 12.110 10.111"
REPORT = Path(__file__).resolve().parents[2] / "reports" / "sheep-race-example" / "semifinal-deal"


def run_json(capsys, *argv):
    code = main(list(argv) + ["--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_odds_are_exact_by_default(capsys):
    doc = run_json(capsys, "race", "odds")
    assert doc["meta"]["method"] == "exact" and "games" not in doc["meta"]
    lanes = pd.DataFrame(doc["lanes"])
    assert np.allclose(lanes["p_first"], exact_odds().p_place[:, 0], atol=1e-12)
    assert (lanes["p_first_lo"] == lanes["p_first"]).all()
    assert (lanes["p_third_hi"] == lanes["p_third"]).all()


def test_exact_reproduces_the_example_report_within_its_intervals(capsys):
    # The report's semifinal study: 200,000 races, seed 1, Wilson 95% intervals. With 18
    # probabilities a few 95% intervals miss by chance (3 here, |z| <= 2.2), so each is
    # checked within 4.5 standard errors (se = 95% width / 3.92); the 20 set EVs must
    # lie inside their 95% intervals and the recommended open bet must be the same.
    lanes = "Requeijao,Crowdie,Feta,Karoo,Roquefort,Limburger"
    doc = run_json(capsys, "race", "ev", "--exact", "--lanes", lanes, "--taken", "6")
    exact, mc = pd.DataFrame(doc["lanes"]), pd.read_csv(REPORT / "lanes.csv")
    for col in ("p_first", "p_second", "p_third", "ev"):
        se = (mc[f"{col}_hi"] - mc[f"{col}_lo"]) / 3.92
        assert ((exact[col] - mc[col]).abs() <= 4.5 * se).all(), col
    sets = pd.DataFrame(doc["sets"]).set_index("lanes")
    mc_sets = pd.read_csv(REPORT / "bet_sets.csv").set_index("lanes")
    inside = sets.loc[mc_sets.index, "ev"].between(mc_sets["ev_lo"], mc_sets["ev_hi"])
    assert inside.all()
    opened = pd.DataFrame(doc["open_bet"])
    mc_open = pd.read_csv(REPORT / "open_bet.csv")
    assert opened["recommended"].tolist() == mc_open["recommended"].tolist()


def _args(**kw):
    """``race odds``'s typed options (what the command hands the method rule)."""
    from sheepsim import cli
    from sheepsim.options import options_from_keywords

    sub = cli.subcommand_parser(cli.build_parser(["race", "odds"]), "race", "odds")
    return options_from_keywords(sub, "race odds", {"policy": "greedy", **kw})


def test_method_rule():
    assert _method(_args()) == (True, "")
    assert _method(_args(games=1000)) == (False, "")
    assert _method(_args(mc=True)) == (False, "")
    exact, note = _method(_args(policy="partisan"))
    assert not exact and "looks at bets" in note
    assert "random numbers" in _method(_args(policy="random"))[1]


def test_exact_reproduces_the_default_report_race_odds_studies(capsys):
    # Every race-odds study of the shipped default report (sheepsim report, which solves
    # them exactly) against a simulation of the same deal (its lanes and stage, 500,000
    # races, the mc study's RacesJob): each exact
    # P(place), lane EV and set EV within 4.5 of the simulation's standard errors (se =
    # 95% width / 3.92; 4.5 se so that the ~40 checks do not fail by chance), and the
    # exact and simulated open-bet recommendations agree wherever the simulation ranks
    # them apart (the recommended lane's EV interval above every other's).
    import tomllib

    from sheepsim.games.race.jobs import estimate_races
    from sheepsim.report import __file__ as report_init

    config = tomllib.loads((Path(report_init).parent / "default.toml").read_text())
    studies = [s for s in config["study"] if s["type"] == "race-odds"]
    assert len(studies) == 2
    for seed, st in enumerate(studies, start=1):
        assert st["method"] == "exact"
        _, res = estimate_races(None, st["lanes"], st["stage"], st.get("policy", "greedy"),
                                seed, report="ev", taken=tuple(st.get("taken", ())),
                                games=500_000, progress=False)
        doc = run_json(capsys, "race", "ev", "--exact", "--lanes", ",".join(st["lanes"]),
                       "--stage", st["stage"])
        exact, mc = pd.DataFrame(doc["lanes"]), res.tables["lanes"]
        cols = ("p_first", "p_second", "p_third", "ev") if st["stage"] == "semifinal" else ("p_first", "ev")
        for col in cols:
            se = (mc[f"{col}_hi"] - mc[f"{col}_lo"]) / 3.92
            assert ((exact[col] - mc[col]).abs() <= 4.5 * se + 1e-12).all(), (st["name"], col)
        sets = pd.DataFrame(doc["sets"]).set_index("lanes")
        mc_sets = res.tables["sets"].set_index("lanes")
        se = (mc_sets["ev_hi"] - mc_sets["ev_lo"]) / 3.92
        assert ((sets.loc[mc_sets.index, "ev"] - mc_sets["ev"]).abs() <= 4.5 * se).all()
        if st["stage"] == "semifinal":
            mc_open = res.tables["open_bet"]
            top = mc_open[mc_open["recommended"]].iloc[0]
            others = mc_open[~mc_open["recommended"] & ~mc_open["taken"]]
            if (top["ev_set_lo"] > others["ev_set_hi"]).all():
                opened = pd.DataFrame(doc["open_bet"])
                assert opened[opened["recommended"]]["lane"].tolist() == [top["lane"]]


@pytest.mark.parametrize(("argv", "message"), [
    (["race", "odds", "--exact", "--policy", "partisan"], "no exact solution"),
    (["race", "odds", "--policy", "lookahead"], "plays whole games only"),
    (["race", "trace", "--policy", "lookahead"], "plays whole games only"),
    (["race", "advise", "--position", MID, "--lane", "4", "--hidden", "1", "--policy",
      "lookahead"],
     "plays whole games only"),
    (["race", "odds", "--exact", "--games", "100"], "--exact takes no --games"),
    (["race", "odds", "--position", "1.101 2.110"], "needs 6 sheep"),
    (["race", "advise", "--position", MID, "--lane", "4", "--open", "2", "--rival-open", "2"],
     "rival bet openly"),
])
def test_bad_input_exits_2(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_ev_from_position_exact_and_simulated(capsys):
    exact = run_json(capsys, "race", "ev", "--position", MID, "--taken", "5")
    assert exact["meta"]["method"] == "exact" and exact["meta"]["position"] == MID
    mc = run_json(capsys, "race", "ev", "--position", MID, "--taken", "5", "--mc", "--games",
                  "20000", "--quiet", "--seed", "2")
    assert mc["meta"]["method"] == "monte carlo" and mc["meta"]["games"] == 20000
    e, m = pd.DataFrame(exact["lanes"]), pd.DataFrame(mc["lanes"])
    se = (m["p_first_hi"] - m["p_first_lo"]) / 3.92 + 1e-9
    assert ((e["p_first"] - m["p_first"]).abs() <= 4.5 * se).all()
    assert exact["open_bet"][3]["recommended"]  # lane 4, as the exact sets rank it


def test_advise_command(capsys):
    doc = run_json(capsys, "race", "advise", "--position", MID, "--lane", "4", "--open", "4",
                   "--hidden", "1,6", "--rival-open", "2,5")
    meta, rows = doc["meta"], doc["options"]
    assert meta["method"] == "exact" and meta["lane"] == 4 and meta["bets"] == [4, 1, 6]
    assert rows[0]["option"] == meta["best"] and rows[0]["best"]
    assert [r["expected_points"] for r in rows] == sorted((r["expected_points"] for r in rows), reverse=True)


def test_advise_command_says_what_it_maximises(capsys):
    main(["race", "advise", "--position", MID, "--lane", "4", "--open", "4", "--hidden", "1,6",
          "--rival-open", "2,5"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("The Sheep Race: pace advice for lane 4: tie, GALLOP_RED, GALLOP_WHITE "
                        "give equal expected points")
    assert lines[1] == f"position: {MID}"
    assert lines[2].startswith("ranked by your expected points from this race (payoffs and "
                               "bonus for your bets on lanes 4, 1, 6), every later turn of "
                               "every sheep played by greedy")
    assert "expected_points" in lines[4] and " ev " not in lines[4]
