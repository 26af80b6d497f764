"""The suite's own scheduling (``tests/conftest.py``): the files it names exist and use
the fixtures (or, for kernels compiled once per unit, the policies) it groups them by,
and a run hands out its units whole, longest first."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _suite(config):
    """``tests/conftest.py`` as pytest loaded it (one of several modules named conftest)."""
    path = ROOT / "tests" / "conftest.py"
    return next(p for p in config.pluginmanager.get_plugins()
                if getattr(p, "__file__", None) and Path(p.__file__).resolve() == path)


def test_every_file_the_schedule_names_exists_and_uses_its_units_fixtures(pytestconfig):
    suite = _suite(pytestconfig)
    groups = set(suite.SHARED_UNITS.values())
    named = set(suite.SHARED_UNITS) | {u for u in suite.LONGEST_FIRST if u not in groups}
    assert [f for f in sorted(named) if not (ROOT / f).is_file()] == []
    assert groups <= set(suite.LONGEST_FIRST)
    for path, unit in suite.SHARED_UNITS.items():
        fixtures = re.search(r"\((.*)\)", unit).group(1).split(", ")
        text = (ROOT / path).read_text()
        assert any(re.search(rf"\b{f}\b", text) for f in fixtures), (path, unit)


def test_a_runs_units_are_whole_and_the_longest_come_first(request):
    suite = _suite(request.config)
    units = [suite.unit_of(item.nodeid) for item in request.session.items]
    runs = [u for k, u in enumerate(units) if k == 0 or units[k - 1] != u]
    assert len(runs) == len(set(runs))  # each unit's tests side by side
    rank = {u: i for i, u in enumerate(suite.LONGEST_FIRST)}
    ranks = [rank.get(u, len(rank)) for u in runs]
    assert ranks == sorted(ranks)
