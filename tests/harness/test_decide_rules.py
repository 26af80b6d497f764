"""The optional slot ``decide_rules``: built-in policies that read the rules vector ``R``
(a game's read-only tables) in place of ``decide``."""

import importlib
import sys
import types

import numpy as np
import pytest

from sheepsim import game as registry
from sheepsim.errors import SheepsimError
from sheepsim.harness import jobs
from sheepsim.harness import layout as H
from sheepsim.harness import machine as M
from sheepsim.harness.declare import game as declare
from sheepsim.testing.reference import play_games

RULED = declare(name="ruled", command="ruled", title="Ruled coin", min_players=2,
                max_players=4, policies=("random", "last"),
                machine="tests.harness.rules_machine")


@pytest.mark.parametrize("options", [3, 5])
def test_the_builtins_of_decide_rules_read_R(options):
    m = M.load("tests.harness.rules_machine")
    kernel = m.kernel((), 2)
    R = np.array([2, options, 0], dtype=np.int64)  # rounds, options, fault
    pids = np.array([1, 0, 1], dtype=np.int64)  # "last", random, "last"
    log = jobs.run_games(m, kernel, R, 3, pids, False, 1, 0, 1, log_rows=50)[4]
    assert log.shape[0] == 6  # 2 rounds of 3 seats, each asked
    last = log[log[:, H.L_PID] == 1]
    assert (last[:, H.L_ASKED] == 1).all() and (last[:, H.L_N] == options).all()
    assert (last[:, H.L_CHOICE] == options - 1).all()  # from R: n is not read
    rand = log[log[:, H.L_PID] == 0]
    assert ((rand[:, H.L_CHOICE] >= 0) & (rand[:, H.L_CHOICE] < options)).all()


def test_a_machine_needs_decide_or_decide_rules():
    name = "tests_harness_no_decide_machine"
    mod = types.ModuleType(name)
    coin = importlib.import_module("tests.harness.coin_machine")
    for attr in M.REQUIRED:
        setattr(mod, attr, getattr(coin, attr))
    sys.modules[name] = mod
    try:
        with pytest.raises(SheepsimError, match="does not define decide$"):
            M.load(name)
    finally:
        del sys.modules[name]



def test_the_reference_reads_decide_rules_as_the_kernel(monkeypatch, tmp_path):
    """sheepsim.testing.reference (the loop in plain Python) hands ``R`` to
    ``decide_rules`` as the kernel does: equal counts, byte for byte."""
    monkeypatch.setattr(registry, "_installed_games", lambda: (RULED,))
    rules = tmp_path / "coin.toml"  # (the machine's rules file: coin's table)
    rules.write_text("[coin]\nrounds = 3\noptions = 4\nfault = 0\n")
    job = registry.get("ruled").job("play", rules=str(rules), players=3,
                                    policies="last,random,last", seed=3)
    acc = job.chunk(10, 40)["acc"]
    assert np.array_equal(acc, play_games(job, 3, 10, 40))
    assert acc.sum() > 0


@pytest.mark.parametrize("rotate", [False, True])
def test_kind_roles_ask_each_kind_of_the_seats_policy_of_its_role(rotate):
    """The slot ``role``: a seat holds one policy per role (``pids`` role-major), and each
    decision is asked of the seat's policy of its kind's role, rotated with the seat."""
    m = M.load("tests.harness.roles_machine")
    assert m.roles == 2 and m.sizes(3)[H.Z_ROLES] == 2
    R = np.array([4, 3, 0], dtype=np.int64)  # rounds, options, fault
    pids = np.array([1, 0, 0, 0, 1, 1], dtype=np.int64)  # role 0: first, random, random
    for game in (0, 1, 2):
        log = jobs.run_games(m, m.kernel((), 2), R, 3, pids, rotate, 7, game, 1,
                             log_rows=50)[4]
        assert log.shape[0] == 12
        r = game % 3 if rotate else 0
        for i, row in enumerate(log):
            seat, kind = row[H.L_SEAT], row[H.L_KIND]
            assert kind == (i // 3) % 2  # odd rounds' picks are kind 1
            assert row[H.L_PID] == pids[kind * 3 + (seat - r) % 3]
            if row[H.L_PID] == 1:  # "first"
                assert row[H.L_CHOICE] == 0
