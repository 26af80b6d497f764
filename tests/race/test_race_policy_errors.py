"""A plug-in race policy that breaks a rule, or does not compile, stops the run with one
line naming the rule, the policy and the game (README "Writing your own policy": "a
policy that breaks a rule while running (an illegal option, a taken lane) stops the run
with one line naming the rule and the games")."""

import sys
import textwrap

import pytest

from sheepsim.cli import main

PLUGIN = textwrap.dedent("""
    import numba

    @numba.njit
    def option_99(lane, board, race, seen, legal, rand):
        return 99

    @numba.njit
    def always_raises(lane, board, race, seen, legal, rand):
        raise ValueError("boom")
""")


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    name = f"race_bad_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def _one_error_line(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err.strip()


def test_an_illegal_option_names_the_rule_the_policy_and_the_games(tmp_path, capsys, plugin):
    out = tmp_path / "games.csv"
    err = _one_error_line(capsys, ["race", "play", "--players", "3", "--pace-policy",
                                   f"{plugin}:option_99", "--games", "20", "--quiet",
                                   "--out", str(out)])
    assert err.startswith("sheepsim: error: pace policy returned an illegal option"), err
    assert f"plug-in policies in play: {plugin}:option_99" in err
    assert "(in the warm-up game" in err or " of seed 0)" in err
    assert not out.exists()
    # the trace names the game it played
    err = _one_error_line(capsys, ["race", "trace", "--seed", "3", "--game", "5", "--policy",
                                   f"{plugin}:option_99"])
    assert err == (f"sheepsim: error: pace policy returned an illegal option; pace policy "
                   f"{plugin}:option_99 (in game 5 of seed 3)")


def test_a_policy_without_an_integer_result_is_one_line_not_a_numba_traceback(capsys, plugin):
    # always raising, numba types the policy's result as none: the kernel cannot compile
    err = _one_error_line(capsys, ["race", "trace", "--policy", f"{plugin}:always_raises"])
    assert "the kernels did not compile with the policies in play (numba: " in err
    assert "a policy must return an integer on every path" in err
    assert f"pace policy {plugin}:always_raises" in err


def test_a_policy_that_does_not_type_says_what_numba_could_not_type(tmp_path, monkeypatch, capsys):
    # numba's heading ("Failed in nopython mode pipeline") is not the message: its next line is
    name = f"race_untyped_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(
        "import numba\n\n\n@numba.njit\ndef reads_nothing(lane, board, race, seen, legal, rand):\n"
        "    return board.no_such_attribute\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        err = _one_error_line(capsys, ["race", "trace", "--policy", f"{name}:reads_nothing"])
    finally:
        sys.modules.pop(name, None)
    assert "(numba: Unknown attribute 'no_such_attribute' of type array(int64, 2d" in err, err
    assert "return an integer" not in err and "Failed in" not in err
