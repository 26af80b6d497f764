"""A plug-in reaches nothing but its own arrays, in every registered game (issue 45).

The engine hands a plug-in its seat's stream as ``rand``, a ``(1, 2)`` array, with its
``view`` and ``opts``. ``rand`` used to be a window into the engine's array of all
streams, and numba does not check bounds: a plug-in that read ``rand[-k]`` saw the deal
and the other seats' streams (and could play by them), one that wrote ``rand[1]`` took
over the next seat's draws. A plug-in is now handed a copy of its own stream row (its
draws written back after the call), and the plug-in's functions are compiled with
numba's bounds checks: an index outside its ``rand``, ``view`` or ``opts`` stops the run
with one line naming the plug-ins in play and the game (exit 2 in the CLI, no
traceback, no file written). A plug-in that stays inside its arrays is unaffected (the
seat-stream tests of ``test_policy_contract.py``).
"""

from __future__ import annotations

import textwrap

import pytest

import sheepsim
from sheepsim import cli, game
from sheepsim.errors import SheepsimError

GAMES = game.games()
IDS = [g.name for g in GAMES]

PLUGINS = '''
import numba
import numpy as np


@numba.njit
def peek_below(kind, view, opts, n, rand):
    """Reads the rows below its own stream (the deal, other seats' streams) and
    encodes what it saw in its choice."""
    h = 0
    for k in range(3, 7):
        h ^= int(rand[-k, 0] >> np.uint64(33))
    return h % n


@numba.njit
def poke_next(kind, view, opts, n, rand):
    """Overwrites the next row's stream (another seat's) with a copy of its own."""
    rand[1, 0] = rand[0, 0]
    rand[1, 1] = rand[0, 1]
    return 0


@numba.njit
def poke_before(kind, view, opts, n, rand):
    """Zeroes a row before its own stream."""
    rand[-2, 1] = np.uint64(0)
    return 0


@numba.njit
def view_far(kind, view, opts, n, rand):
    return int(view[10**6]) % n


@numba.njit
def opts_far(kind, view, opts, n, rand):
    return int(opts[n + 50, 0]) % n


@numba.njit
def own_row_only(kind, view, opts, n, rand):
    """Inside its arrays: ``rand[-1]`` is row 0 (numba wraps negative indices)."""
    return int(rand[-1, 0] >> np.uint64(33)) % n
'''

ATTACKS = ["peek_below", "poke_next", "poke_before", "view_far", "opts_far"]


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    """The module name of the plug-ins above, importable for the module's tests."""
    folder = tmp_path_factory.mktemp("bounds_plugins")
    (folder / "bounds_plugins.py").write_text(textwrap.dedent(PLUGINS))
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(folder))
    yield "bounds_plugins"
    mp.undo()


def _policy_option(g) -> str:
    """``policy``, or the first role's ``<role>_policy`` in a game with several roles."""
    return "policy" if len(g.policies) == 1 else f"{next(iter(g.policies))}_policy"


@pytest.mark.parametrize("attack", ATTACKS)
@pytest.mark.parametrize("g", GAMES, ids=IDS)
def test_a_plugin_indexing_outside_its_arrays_stops_the_trace(g, attack, mod):
    """Seat 2 attacks; every other seat plays ``random``. The run stops with one line
    naming the plug-in and the game, whatever the attack: reading below its stream,
    writing the next or an earlier row, reading far past its view or options."""
    p = g.min_players
    seats = ["random"] * p
    seats[1] = f"{mod}:{attack}"
    with pytest.raises(SheepsimError) as err:
        sheepsim.trace(g.name, seed=1, game=5, players=p, policy=seats, quiet=True)
    line = str(err.value)
    assert "\n" not in line
    assert "IndexError" in line and f"{mod}:{attack}" in line and "game 5" in line, line


@pytest.mark.parametrize("g", GAMES, ids=IDS)
def test_a_plugin_inside_its_arrays_plays_on(g, mod):
    """``rand[-1]`` on the one-row ``rand`` is its own row, which is legal."""
    p = g.min_players
    seats = ["random"] * p
    seats[1] = f"{mod}:own_row_only"
    res = sheepsim.trace(g.name, seed=1, game=5, players=p, policy=seats, quiet=True)
    assert len(res.tables["decisions"]) > 0


@pytest.mark.parametrize("g", GAMES, ids=IDS)
def test_whole_games_stop_at_a_plugin_reading_the_deal(g, mod, tmp_path, capsys):
    """The chunk kernels of whole games (the CLI's ``play``): exit 2, one line naming the
    plug-in, no traceback, no file."""
    p = g.min_players
    seats = ["random"] * p
    seats[1] = f"{mod}:peek_below"
    out = tmp_path / "play.csv"
    option = f"--{_policy_option(g)}".replace("_", "-")
    code = cli.main([g.command, "play", "--players", str(p), option, ",".join(seats),
                     "--games", "200", "--seed", "1", "--quiet", "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert "IndexError" in err and f"{mod}:peek_below" in err, err
    assert not list(tmp_path.iterdir())
