"""The optional slot ``decide_rules``: built-in policies that read the rules vector ``R``
(a game's read-only tables) in place of ``decide``."""

import importlib
import sys
import types

import numpy as np
import pytest

from sheepsim.errors import SheepsimError
from sheepsim.harness import jobs
from sheepsim.harness import layout as H
from sheepsim.harness import machine as M


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

