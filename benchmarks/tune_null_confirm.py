"""``tune``'s false-claim rate under a null (issue 49): how often a confirmed winner is
declared when no candidate differs from the base in distribution.

Pig has no rules key that leaves its games' distribution unchanged, and on common random
numbers a candidate equal to the base plays the very same games (every candidate ties,
nothing is selected by noise). So the null makes ``pig.target`` inert: a candidate with
target T plays the *standard* rules on the games ``(T - 100) * SHIFT`` further on, other
games of exactly the same distribution. Every candidate is then the base in distribution
and the search picks its winner by noise alone: the worst case for a claim. Run:

    python benchmarks/tune_null_confirm.py [RUNS] [FIRST_SEED]
"""

import sys
import time

SHIFT = 10_000_000


def inert_target():
    from sheepsim.game import get
    from sheepsim.harness import metrics as HM

    real = HM.metric_jobs
    standard = get("pig").load_rules(None)

    def jobs(rules, players, seed, policies, keys):
        shift = (int(rules.kernel_array()[0]) - 100) * SHIFT
        out = real(standard, players, seed, policies, keys)
        for job in out.values():
            inner = job.run
            job.run = (lambda seed, first_game, n_games, *a, _inner=inner, **k:
                       _inner(seed, first_game + shift, n_games, *a, **k))
        return out

    HM.metric_jobs = jobs


def main(runs: int = 20, first: int = 0) -> None:
    import sheepsim

    inert_target()
    search_claims = confirmed = 0
    t0 = time.time()
    for seed in range(first, first + runs):
        res = sheepsim.tune("pig", vary="pig.target=101..130", target="mean_turns=min", budget=20000,
                            trials=8, seed=seed, quiet=True)
        m = res.meta
        s_claim = m["search_verdict"].startswith("the winner beats")
        search_claims += s_claim
        conf = res.tables["confirm"]
        confirmed += bool(m["winner_beats_base"])
        print(f"seed {seed}: search-time claim {s_claim}, confirmed {m['winner_beats_base']}, "
              f"confirm p = {conf['pvalue'].iloc[0] if len(conf) else None}",
              flush=True)
    print(f"{runs} null tunes (seeds {first}-{first + runs - 1}): search-time claims {search_claims}, "
          f"confirmed winners {confirmed} ({confirmed / runs:.1%}); {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
