"""The same command gives byte-identical tables on threads and on 1 or 2 Dask workers:
the work plan (chunks) is fixed by seed and chunk size, and chunk counts are integers
merged in game order whatever worker ran them and whenever they finished."""

from __future__ import annotations

import pytest
from dask_helpers import RUNS, as_csv, run_tables

from sheepsim.cli import main


@pytest.fixture(scope="module")
def reference():
    """Each run on 2 local threads (computed once)."""
    return {kind: run_tables(kind, threads=2) for kind in RUNS}


def _assert_identical(tables: dict, ref: dict) -> None:
    assert tables.keys() == ref.keys()
    for name, df in ref.items():
        assert tables[name].equals(df), name  # exact values and dtypes
    assert as_csv(tables) == as_csv(ref)


@pytest.mark.parametrize("kind", list(RUNS))
def test_two_workers_match_threads(cluster, reference, kind):
    _assert_identical(run_tables(kind, backend=cluster), reference[kind])


@pytest.mark.parametrize("kind", list(RUNS))
def test_one_worker_matches_threads(one_worker, reference, kind):
    _assert_identical(run_tables(kind, backend=one_worker), reference[kind])


def test_precision_stops_at_the_same_block_on_dask(cluster):
    from sheepsim.games.race.jobs import estimate_races

    args = dict(seed=9, precision=0.02, max_games=200_000, chunk_size=7_000, progress=False)
    _, local = estimate_races(threads=1, **args)
    _, remote = estimate_races(backend=cluster, **args)
    assert remote.games == local.games and remote.games % 20_000 == 0  # RACE_BLOCK
    assert remote.stopped_by == local.stopped_by == "precision"
    _assert_identical(remote.tables, local.tables)


def test_cli_workers_output_is_byte_identical(tmp_path, capsys):
    """``--workers 2`` starts (and stops) its own LocalCluster; stdout is the same bytes."""
    argv = ["race", "odds", "--games", "20000", "--seed", "4", "--format", "csv", "--quiet"]
    assert main(argv + ["--threads", "2"]) == 0
    local = capsys.readouterr().out
    assert main(argv + ["--workers", "2"]) == 0
    remote = capsys.readouterr().out
    assert remote == local and remote.count("\n") > 6


def test_a_sweep_on_two_workers_matches_threads(cluster):
    """Issue 30, scale: the points of a sweep times the chunks run through the one
    driver, so a cluster gives the tables one machine gives."""
    import tomllib

    from sheepsim import driver
    from sheepsim.balance_metrics import pick
    from sheepsim.game import get
    from sheepsim.rulesedit import Edit, base_text
    from sheepsim.variant_runs import build_job, variant_of

    g = get("awsheep")
    base = base_text(g)
    variants = [variant_of(g, base, [], "base")[0]] + [
        variant_of(g, base, [Edit("scoring.golden_worth", w)])[0] for w in (1, 5)]
    assert tomllib.loads(variants[1].text)["scoring"]["golden_worth"] == 1

    def tables(**backend):
        job = build_job(g, variants, pick(g, "skill_edge,mean_turns"), games=800, seed=2, players=4,
                        policies=g.policy_defaults)
        return driver.run(job, games=job.games, chunk_games=90, progress=False, **backend).tables

    _assert_identical(tables(backend=cluster), tables(threads=2))
