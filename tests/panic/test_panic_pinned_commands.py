"""Pinned results of Shear Panic's commands: every output below, for fixed seeds, must stay
byte-identical to what the code gave before the game moves onto the shared whole-game
harness (issue 45, item 2: "results byte-identical for every built-in policy and seed").

``tests/panic/test_panic_pinned.py`` pins the kernels' summed counts and two traces'
text; this file pins what users see, through the command line: ``play`` JSON for every
built-in policy (``random``, ``greedy``, ``greedy-v1``, ``rollout``, ``rollout-v1``) at 3
and 4 players, mixed line-ups, the regrouping options flipped (a rules file),
``--playouts``, ``--precision`` and a plug-in policy; ``play``'s table text;
``balance`` (with ``--neutral``), ``compare``, ``ladder``, ``variants`` and ``metrics``
JSON; ``trace``'s turn-by-turn text, its JSON and its decisions table. The digests were
computed on the tree before that move (commit d53e985; main at ec02a96, after the typed
options, gives every one of them too). The JSON's package versions
(``sheepsim_version``, ``python``, ``numpy``, ``numba``, ``pandas``) are left out of the
digest: they say where it ran, not what it computed. A change that is *meant* to change
results recomputes the digest and says so in CHANGELOG.md.
"""

import numba
import pytest

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.policies import randbelow
from tests.pinning import digest, output, variant_file

VERSIONS = ("sheepsim_version", "python", "numpy", "numba", "pandas")

#: the standard rules with every regrouping option flipped (as test_panic_pinned.VARIANT)
VARIANT = {
    "corner_contact_slides_without_roll = true": "corner_contact_slides_without_roll = false",
    'plus_without_route = "diagonal"': 'plus_without_route = "step"',
    'regroup = ["+", "+", "+", "X", "X", "X"]': 'regroup = ["+", "X", "X"]',
}


@numba.njit
def last_action_plugin(kind, view, opts, n, rand):
    """A plug-in: the last legal menu option, a random one of every sub-decision (it
    reads the view, so the view's layout is pinned too)."""
    if kind == L.K_ACTION:
        return n - 1 - (view[L.V_STATE + L.ST_COUNTER] % 2) * (n > 2)
    return randbelow(rand, n)


PLUGIN = f"{__name__}:last_action_plugin"
J = ("--format", "json", "--quiet")

#: (case id, argv after ``sheepsim panic``, digest: first 16 hex digits of sha256)
CASES = [
    ("play-random-4", ("play", "--players", "4", "--policy", "random", "--games", "3000",
                       "--seed", "11", *J), "e6789e4fb2f9efd3"),
    ("play-random-3", ("play", "--players", "3", "--policy", "random", "--games", "3000",
                       "--seed", "12", *J), "857130485602be9b"),
    ("play-greedy-4", ("play", "--players", "4", "--policy", "greedy", "--games", "400",
                       "--seed", "13", *J), "54042147c5f3b874"),
    ("play-greedy-v1-3", ("play", "--players", "3", "--policy", "greedy-v1", "--games", "300",
                          "--seed", "14", *J), "34ad52ac6903f0bc"),
    ("play-mixed-4", ("play", "--players", "4", "--policy", "greedy,random,greedy-v1,random",
                      "--games", "300", "--seed", "15", *J), "1da9b05e5dcc6d15"),
    ("play-rollout-3", ("play", "--players", "3", "--policy", "rollout,greedy,random",
                        "--playouts", "2", "--games", "12", "--seed", "16", *J), "83badb614d7c56e2"),
    ("play-rollout-v1-4", ("play", "--players", "4", "--policy",
                           "random,rollout-v1,random,greedy-v1", "--playouts", "1",
                           "--games", "3", "--seed", "17", *J), "810a9bf021854d65"),
    ("play-variant-3", ("play", "--rules", "{variant}", "--players", "3", "--policy",
                        "random,greedy,random", "--games", "300", "--seed", "18", *J), "1d3dc19fc03db64b"),
    ("play-variant-4-random", ("play", "--rules", "{variant}", "--players", "4", "--policy",
                               "random", "--games", "2000", "--seed", "19", *J), "ddebc8f860ee6674"),
    ("play-precision", ("play", "--players", "3", "--policy", "random", "--precision",
                        "0.04", "--max-games", "5000", "--seed", "20", *J), "31822ecff9c7de76"),
    ("play-plugin-4", ("play", "--players", "4", "--policy", f"{PLUGIN},random,greedy,random",
                       "--games", "200", "--seed", "21", *J), "c1619b897ed99422"),
    ("play-table-4", ("play", "--players", "4", "--policy", "greedy,random,random,random",
                      "--games", "300", "--seed", "22", "--quiet", "--all-columns"), "94b53ec4505b2ba3"),
    ("balance", ("balance", "--policy", "random", "--neutral", "--games", "400", "--seed",
                 "23", *J), "72c7e3e8d4ce1f1b"),
    ("balance-greedy", ("balance", "--policy", "greedy", "--games", "100", "--seed",
                        "24", *J), "96680d45288645f0"),
    ("compare-4", ("compare", "--players", "4", "--a", "greedy", "--b", "random", "--field",
                   "random", "--seat", "2", "--games", "300", "--seed", "25", *J), "e42f49b79b74d5b5"),
    ("compare-3-v1", ("compare", "--players", "3", "--a", "greedy", "--b", "greedy-v1",
                      "--field", "greedy", "--games", "100", "--seed", "26", *J), "82092d8824812d87"),
    ("ladder", ("ladder", "--players", "3", "--rungs", "random;greedy", "--games", "200",
                "--seed", "27", *J), "f9ab9bab621f9020"),
    # variants and metrics: re-pinned in 0.3.0, the spreads bias-corrected; variants in
    # 0.5.0: tile_pick_spread's difference, equal counts not shared, is no longer [0, 0]
    # (diff_lo/diff_hi alone changed; CHANGELOG); in 0.6.0: mean_turns' difference, unseen,
    # is no longer [0, 0], and an unseen change's diff_se is se_a + se_b, its se_ratio
    # empty (mean_turns' and tile_pick_spread's rows alone changed; CHANGELOG); later in
    # 0.6.0 both list the harness's metrics too (variants: the existing metrics' rows
    # unchanged, the pairing note's median se_ratio over more rows; CHANGELOG); then the
    # differences' no_game_moved column (true on the 7 rows no game moved; without it the
    # digest is 3d1431d687869ae7, every value unchanged; CHANGELOG)
    ("variants", ("variants", "--set", "scoring.ram_row_points=[5,3,2,1]", "--players", "4",
                  "--policy", "random", "--games", "400", "--seed", "28", *J), "4d183fe34cc6160d"),
    ("metrics", ("metrics", "--format", "json"), "986bcce3a8a2858d"),
    ("trace-4", ("trace", "--players", "4", "--policy", "greedy,random,greedy-v1,random",
                 "--seed", "29", "--game", "3"), "cdffdd36e085e5a8"),
    ("trace-3-json", ("trace", "--players", "3", "--policy", "random", "--seed", "30",
                      "--game", "7", "--format", "json"), "04a34164f4ed20d3"),
    ("trace-3-table", ("trace", "--players", "3", "--policy", "rollout,greedy,random",
                       "--playouts", "2", "--seed", "31", "--game", "0", "--table",
                       "decisions"), "34777f695c4a27ef"),
    ("trace-variant-4", ("trace", "--rules", "{variant}", "--players", "4", "--policy",
                         "random,rollout-v1,greedy,random", "--playouts", "1", "--seed", "32",
                         "--game", "2"), "398d2fb0e2d97754"),
]


@pytest.fixture(scope="module")
def variant_rules(tmp_path_factory):
    return variant_file(tmp_path_factory, "sheepsim.games.panic", VARIANT)


@pytest.mark.parametrize("case, argv, pinned", CASES, ids=[c[0] for c in CASES])
def test_output_is_pinned(capsys, variant_rules, case, argv, pinned):
    assert digest(output(capsys, "panic", argv, variant_rules)) == pinned, case
