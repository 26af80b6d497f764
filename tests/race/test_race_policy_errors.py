"""A plug-in race policy that breaks the contract, or does not compile, stops the run with
one line naming the policy, its seat and the game (exit 2, no file written): the race's
own cases beside the generic ones of tests/conformance/test_policy_contract.py."""

import sys
import textwrap

import pytest

from sheepsim.cli import main

PLUGIN = textwrap.dedent("""
    import numba

    @numba.njit
    def always_raises(kind, view, opts, n, rand):
        raise ValueError("boom")

    @numba.njit
    def hidden_vandal(kind, view, opts, n, rand):
        # a bet policy that rewrites the pair it is offered, in the hidden round only
        if kind == 1:
            opts[0, 1] = opts[0, 0]
        return 0
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


def test_a_bet_policy_that_rewrites_its_options_is_caught(tmp_path, capsys, plugin):
    out = tmp_path / "games.csv"
    err = _one_error_line(capsys, ["race", "play", "--players", "4", "--bet-policy",
                                   f"ev-approx,ev-approx,ev-approx,{plugin}:hidden_vandal",
                                   "--games", "20", "--quiet", "--out", str(out)])
    assert (f"policy '{plugin}:hidden_vandal' (seat 4) in game 0 wrote to its read-only "
            "inputs") in err, err
    assert not out.exists()


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
        "import numba\n\n\n@numba.njit\ndef reads_nothing(kind, view, opts, n, rand):\n"
        "    return opts.no_such_attribute\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        err = _one_error_line(capsys, ["race", "trace", "--policy", f"{name}:reads_nothing"])
    finally:
        sys.modules.pop(name, None)
    assert "(numba: Unknown attribute 'no_such_attribute' of type array(int64, 2d" in err, err
    assert "return an integer" not in err and "Failed in" not in err
