"""The balance metrics' jackknife builds only the tables its metrics read (issue 50): it
builds a job's tables once per block left out (21 times a run) through
:meth:`~sheepsim.game.Job.metric_tables`, and a metric reads one or two of Aw, Sheep!'s
fifteen."""

from sheepsim.games.awsheep.jobs import PlayJob
from sheepsim.games.awsheep.metrics import METRICS
from sheepsim.variant_runs import jackknife_values


def _job_and_counts(games=300):
    job = PlayJob(None, 4, "counter,random,greedy,random", seed=7)
    return job, job.chunk(0, games)


def test_the_jackknife_builds_only_the_tables_its_metrics_read(monkeypatch):
    import sheepsim.games.awsheep.analysis as A

    job, counts = _job_and_counts(200)
    built = []
    for name, fn in (("card_power", A.card_power), ("card_use", A.card_use),
                     ("knockouts", A.knockouts), ("first_player", A.first_player_test)):
        monkeypatch.setattr(A, fn.__name__, lambda *a, _f=fn, _n=name: built.append(_n) or _f(*a))
    metric = next(m for m in METRICS if m.name == "first_player_edge")
    by_block = {k: v[None].repeat(4, axis=0) // 4 for k, v in counts.items()}
    vals = jackknife_values(job, job.rules, [metric], by_block, 50, 4)
    assert vals.shape == (1, 5)
    assert built == ["first_player"] * 5  # once per jackknife set, nothing else
