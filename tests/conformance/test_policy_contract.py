"""The policy contract, for every registered game and player count (issue 29, item 3).

* **One signature.** Every game calls a plug-in as ``policy(kind, view, opts, n, rand)``
  and takes the index it returns (the plug-ins below are written once and run in every
  game).
* **A seat's own stream.** Seat ``s`` draws only from its own stream, keyed by
  ``(seed, game, seat, phase)`` (``sheepsim.rng.seed_policy_stream``), so replacing seat
  1's policy leaves every other seat's draws unchanged (seats are 1-based, as in every
  table).
* **Read-only inputs, checked choices.** A plug-in that writes to ``view`` or ``opts``,
  or returns an index that is not one of its ``n`` options, stops the run with one line
  naming it, its seat, the game number (the first, whatever the threads) and what it was
  asked (the decision's kind and options) (exit 2 in the CLI, no file written).

The trace's ``decisions`` table has one row per call of a policy (a lone option taken
without asking is not a row), with the ``phase`` of the stream it drew from.
"""

from __future__ import annotations

import re
import textwrap

import pytest

import sheepsim
from sheepsim import cli, game
from sheepsim.errors import SheepsimError

GAMES = game.games()
IDS = [g.name for g in GAMES]
COUNTS = [(g, p) for g in GAMES for p in range(g.min_players, g.max_players + 1)]
COUNT_IDS = [f"{g.name}-{p}" for g, p in COUNTS]

PLUGINS = '''
import numba

from sheepsim.rng import policy_uniform


@numba.njit
def uniform_pick(kind, view, opts, n, rand):
    """Exactly one draw per call: the option at the draw's position in [0, 1)."""
    return min(n - 1, int(policy_uniform(rand) * n))


@numba.njit
def first(kind, view, opts, n, rand):
    return 0


@numba.njit
def opts_vandal(kind, view, opts, n, rand):
    opts[0, 0] += 1
    return 0


@numba.njit
def view_vandal(kind, view, opts, n, rand):
    view[0] += 1
    return 0


@numba.njit
def off_the_end(kind, view, opts, n, rand):
    return n


@numba.njit
def late_vandal(kind, view, opts, n, rand):
    """Writes to its view now and then (a draw below 1/1000), so the first game it does
    it in is not the warm-up game but a game some chunk plays."""
    if policy_uniform(rand) < 0.001:
        view[0] += 1
    return 0
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    """The module name of the plug-ins above, importable for the module's tests."""
    folder = tmp_path_factory.mktemp("contract_plugins")
    (folder / "contract_plugins.py").write_text(textwrap.dedent(PLUGINS))
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(folder))
    yield "contract_plugins"
    mp.undo()


def _decisions(g, seed, players, policies):
    res = sheepsim.trace(g.name, seed=seed, players=players, policy=policies, quiet=True)
    table = res.tables["decisions"]
    assert {"decision", "seat", "phase", "kind", "n_options", "choice"} <= set(table.columns)
    return table


def _overlap(ca, na, cb, nb) -> bool:
    """Do ``[ca/na, (ca+1)/na)`` and ``[cb/nb, (cb+1)/nb)`` meet? (exact, in integers)"""
    return ca * nb < (cb + 1) * na and cb * na < (ca + 1) * nb


@pytest.mark.parametrize("g, players", COUNTS, ids=COUNT_IDS)
def test_replacing_one_seats_policy_leaves_the_other_seats_draws(g, players, mod):
    """Seats 2.. draw once per decision (``uniform_pick``); seat 1 plays ``random`` in run
    A and ``first`` (no draw at all) in run B. The games then differ, but seat ``s``'s
    k-th draw from each of its streams is the same number, so the intervals its choices
    pin that number to must meet, decision by decision. With one shared stream seat 1's
    draws would shift everyone's, and the intervals would part within a few decisions."""
    others = [f"{mod}:uniform_pick"] * (players - 1)
    compared = 0
    for seed in range(4):
        a = _decisions(g, seed, players, ["random", *others])
        b = _decisions(g, seed, players, [f"{mod}:first", *others])
        for (seat, phase), rows_a in a[a.seat > 1].groupby(["seat", "phase"]):
            rows_b = b[(b.seat == seat) & (b.phase == phase)]
            k = min(len(rows_a), len(rows_b))
            for ra, rb in zip(rows_a.head(k).itertuples(), rows_b.head(k).itertuples(),
                              strict=True):
                assert _overlap(ra.choice, ra.n_options, rb.choice, rb.n_options), (
                    f"seed {seed}, seat {seat}, phase {phase}, decision {ra.decision}/"
                    f"{rb.decision}: {ra.choice}/{ra.n_options} vs {rb.choice}/{rb.n_options}")
                compared += 1
    assert compared >= 20  # not vacuous: enough decisions were compared


@pytest.mark.parametrize("g, players", COUNTS, ids=COUNT_IDS)
def test_the_decisions_table_is_what_the_policies_were_asked(g, players, mod):
    # the seating of run B above: its kernels are compiled once for both tests
    table = _decisions(g, 3, players, [f"{mod}:first"] + [f"{mod}:uniform_pick"] * (players - 1))
    assert len(table) > 0
    assert list(table.decision) == list(range(len(table)))
    assert set(table.seat) == set(range(1, players + 1))  # every seat is asked something
    assert (table.n_options >= 2).all()  # a lone option is taken without asking
    assert ((table.choice >= 0) & (table.choice < table.n_options)).all()


PLAY_FAULTS = [("opts_vandal", "wrote to its read-only inputs"),
               ("view_vandal", "wrote to its read-only inputs"),
               ("off_the_end", "returned option")]


def _policy_option(g) -> str:
    """The option that seats a policy in play: ``policy``, or the first role's
    ``<role>_policy`` in a game with several roles (the race: pace)."""
    return "policy" if len(g.policies) == 1 else f"{next(iter(g.policies))}_policy"


@pytest.mark.parametrize("fault, says", PLAY_FAULTS, ids=[f for f, _ in PLAY_FAULTS])
@pytest.mark.parametrize("g", GAMES, ids=IDS)
def test_a_plugin_that_breaks_the_contract_stops_the_run(g, fault, says, mod):
    p = g.min_players
    seats = ["random"] * p
    seats[1] = f"{mod}:{fault}"
    pattern = (rf"policy '{mod}:{fault}' \(seat 2\) in game 5 {says}")
    with pytest.raises(SheepsimError, match=pattern) as trace_err:
        sheepsim.trace(g.name, seed=1, game=5, players=p, policy=seats, quiet=True)
    message = str(trace_err.value)
    assert "\n" not in message
    # it names what it was asked, as the trace's decisions table does: the decision of
    # its first call (each fault breaks the contract at once), which `first` answers
    # the same way (option 0) in the same game
    seats[1] = f"{mod}:first"
    asked = sheepsim.trace(g.name, seed=1, game=5, players=p, policy=seats,
                           quiet=True).tables["decisions"]
    row = asked[asked.seat == 2].iloc[0]
    if fault == "off_the_end":
        assert message.endswith(f"returned option {row.n_options}, not one of its "
                                f"{row.n_options} legal options 0..{row.n_options - 1} "
                                f"(a '{row.kind}' decision)"), message
    else:
        assert (f"wrote to its read-only inputs (view or opts) when asked a '{row.kind}' "
                f"decision with {row.n_options} options; ") in message, message


@pytest.mark.parametrize("g", GAMES, ids=IDS)
def test_whole_games_stop_at_a_broken_choice_too(g, mod, tmp_path, capsys):
    """The chunk kernels of whole games (not the trace's) check every choice with the
    same chain (``sheepsim.jit.user_policy_chain``, whose copies catch the writes above
    in every kernel): one line naming the first game in which seat 2 answered, the
    answer and the options; exit 2 and no file. One fault per game here: each plug-in
    costs a compile of the whole-game kernels."""
    p = g.min_players
    seats = ["random"] * p
    seats[1] = f"{mod}:off_the_end"
    pattern = (rf"policy '{mod}:off_the_end' \(seat 2\) in game (\d+) returned option "
               rf"(\d+), not one of its \2 legal options 0\.\.")
    out = tmp_path / "play.csv"
    code = cli.main([g.command, "play", "--players", str(p), f"--{_policy_option(g)}".replace(
        "_", "-"), ",".join(seats), "--games", "200", "--seed", "1", "--quiet", "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert re.search(pattern, err) and int(re.search(pattern, err).group(1)) < 200, err
    assert not list(tmp_path.iterdir())
    # the Python path raises the same line
    with pytest.raises(SheepsimError) as play_err:
        sheepsim.play(g.name, players=p, seed=1, games=200, quiet=True,
                      **{_policy_option(g): seats})
    assert str(play_err.value) in err


@pytest.mark.parametrize("g", GAMES, ids=IDS)
def test_a_broken_choice_names_the_same_game_whatever_the_threads(g, mod, capsys):
    """A result depends only on the inputs and the seed, and so does the error line: the
    first game, in game order, where the plug-in broke the contract, not the range of a
    chunk (chunks are sized by time and spread over the threads)."""
    p = g.min_players
    seats = ["random"] * p
    seats[1] = f"{mod}:late_vandal"
    lines = []
    for threads in (1, 2):
        code = cli.main([g.command, "play", "--players", str(p), f"--{_policy_option(g)}".replace(
            "_", "-"), ",".join(seats), "--games", "5000", "--seed", "1", "--quiet",
            "--threads", str(threads)])
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
        lines.append(err)
    assert lines[0] == lines[1], lines
    found = re.search(rf"'{mod}:late_vandal' \(seat 2\) in game (\d+) wrote to its read-only "
                      r"inputs .*\(seed 1\)$", lines[0])
    assert found and int(found.group(1)) > 0, lines[0]  # a chunk's game, not the warm-up's
    assert "games " not in lines[0]


@pytest.mark.parametrize("g", GAMES, ids=IDS)
def test_the_cli_says_one_line_exits_2_and_writes_nothing(g, mod, tmp_path, capsys):
    p = g.min_players
    seats = ",".join([f"{mod}:off_the_end"] + ["random"] * (p - 1))
    out = tmp_path / "trace.json"
    code = cli.main([g.command, "trace", "--players", str(p), "--policy", seats, "--quiet",
                     "--format", "json", "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "off_the_end' (seat 1) in game 0 returned option" in err
    assert not out.exists() and not list(tmp_path.iterdir())
