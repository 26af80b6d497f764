"""``sheepsim <game> tune``: a balance search over the rules space, on common random numbers.

optuna proposes candidates (TPE for one target, NSGA-II for several; seeded, so the
study is reproducible from ``--seed``); sheepsim measures each candidate on the *same*
games as every other (the same seed and game indices), so two candidates are compared
without the noise of different dice. With one target the search is followed by a race
of the best ``--finalists``: the rest of the budget is given out in blocks of games by
OCBA (optimal computing budget allocation: Chen, Lin, Yücesan & Chick 2000), more to the
candidates whose ranking is least settled, until the budget is spent. The result: the
best variants with intervals (the Pareto front for several targets) and the winner as a
rules file (``--out-rules``).

A candidate whose edits the game declares cannot change a job's counts (The Sheep Race's
payoffs, for the lanes of single races under a pace policy that ignores bets) reuses the
base's counts: a payoff search plays the base's games once and nothing else.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from sheepsim import balance_metrics as M
from sheepsim.balance_metrics import BLOCKS, CONFIRM_FACTOR, corrected_note, game_options
from sheepsim.commands import role_policies
from sheepsim.errors import SheepsimError
from sheepsim.options import backend_from_args, progress_of

#: the least games a trial plays (the jackknife needs games in each of its blocks)
MIN_TRIAL_GAMES = 1_000
#: candidates proposed and measured together (one driver run)
BATCH = 4
#: the search's share of the budget with one target (the rest races the finalists)
SEARCH_SHARE = 0.6
#: racing gives out the remaining budget in this many rounds of OCBA
RACING_ROUNDS = 4
#: the significance level of the confirmation's paired test (two-sided p below it, and
#: the difference the right way)
ALPHA = 0.05


@dataclass(frozen=True)
class Vary:
    """``--vary KEY=LO..HI[:STEP]``."""

    key: str
    lo: float
    hi: float
    step: float | None
    integer: bool

    def values_text(self) -> str:
        return f"{self.lo}..{self.hi}" + (f":{self.step}" if self.step else "")


@dataclass(frozen=True)
class Target:
    """``--target METRIC=VALUE|min|max``: ``goal`` is "min", "max" or a number."""

    metric: str
    goal: object

    def objective(self, value: float) -> float:
        """What the search minimises: the value, minus it, or the distance to the goal."""
        if self.goal == "min":
            return value
        if self.goal == "max":
            return -value
        return abs(value - self.goal)

    @property
    def text(self) -> str:
        return f"{self.metric}={self.goal}"


@dataclass(frozen=True)
class Constraint:
    """``--subject-to METRIC<=X`` (or ``>=``): a bound a winner must meet."""

    metric: str
    op: str  # "<=" or ">="
    bound: float
    #: the bound as typed (what the verdict and the metadata show)
    bound_text: str = ""

    def ok(self, value: float) -> bool:
        return value <= self.bound if self.op == "<=" else value >= self.bound

    def violation(self, value: float) -> float:
        """How far ``value`` is past the bound (0 if met): optuna's constraint value."""
        return max(0.0, value - self.bound if self.op == "<=" else self.bound - value)

    @property
    def text(self) -> str:
        return f"{self.metric}{self.op}{self.bound_text or f'{self.bound:g}'}"


_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"


def parse_vary(text: str) -> Vary:
    from sheepsim.rulesedit import parse_assignment

    key, rest = parse_assignment(text, "--vary")
    m = re.fullmatch(rf"({_NUMBER})\s*\.\.\s*({_NUMBER})(?:\s*:\s*({_NUMBER}))?", rest)
    if not m:
        raise SheepsimError(f"--vary {key}: give a range LO..HI or LO..HI:STEP, got {rest!r}")
    lo_t, hi_t, step_t = m.groups()
    integer = not any("." in t or "e" in t.lower() for t in (lo_t, hi_t, step_t or "1"))
    conv = int if integer else float
    lo, hi = conv(lo_t), conv(hi_t)
    step = conv(step_t) if step_t else (1 if integer else None)
    if not lo < hi:
        raise SheepsimError(f"--vary {key}: LO must be below HI, got {rest}")
    if step is not None and step <= 0:
        raise SheepsimError(f"--vary {key}: STEP must be positive, got {step_t}")
    if step is not None and not integer and abs(round((hi - lo) / step) * step - (hi - lo)) > 1e-9:
        raise SheepsimError(f"--vary {key}: HI - LO must be a multiple of STEP, got {rest}")
    if integer and (hi - lo) % step:
        raise SheepsimError(f"--vary {key}: HI - LO must be a multiple of STEP, got {rest}")
    return Vary(key, lo, hi, step, integer)


def parse_target(text: str, known) -> Target:
    from sheepsim.rulesedit import parse_assignment

    metric, rest = parse_assignment(text, "--target", path=False)
    if metric not in known:
        raise SheepsimError(f"--target: no metric {metric!r}; this game has: {', '.join(known)}")
    if rest in ("min", "max"):
        return Target(metric, rest)
    try:
        goal = float(rest)
    except ValueError:
        raise SheepsimError(f"--target {metric}: give a number, min or max, got {rest!r}") from None
    if not math.isfinite(goal):
        raise SheepsimError(f"--target {metric}: give a finite number, got {rest!r}")
    return Target(metric, goal)


def parse_constraint(text: str, known) -> Constraint:
    """``METRIC<=X`` or ``METRIC>=X`` (one line if malformed or the metric unknown)."""
    m = re.fullmatch(rf"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=)\s*({_NUMBER})\s*", text or "")
    if not m:
        raise SheepsimError(f"--subject-to: give METRIC<=NUMBER or METRIC>=NUMBER, got {text!r}")
    metric, op, bound = m.groups()
    if metric not in known:
        raise SheepsimError(f"--subject-to: no metric {metric!r}; this game has: {', '.join(known)}")
    return Constraint(metric, op, float(bound), bound)


def parse_constraints(g, texts) -> list[Constraint]:
    """``--subject-to`` options checked against the game's metrics."""
    known = M.declared(g)
    return [parse_constraint(t, known) for t in texts or ()]


def ocba(means, variances, n, delta: int) -> np.ndarray:
    """OCBA: how many more runs each design gets out of ``delta`` more, the smallest
    mean being the best (Chen & Lee 2011, *Stochastic Simulation Optimization*, the
    allocation rule and its reference implementation: designs already past their share
    keep what they have, the rest is shared in the rule's ratios, rounded down, and what
    rounding leaves goes to the best).

    ``means``/``variances``/``n``: per design, the sample mean and variance of its runs
    so far and how many; returns the ``(k,)`` int additional runs (summing to ``delta``).
    A design with zero variance or a mean equal to the best's is handled by flooring
    the variance and the distance at a tiny positive number."""
    means = np.asarray(means, float)
    var = np.maximum(np.asarray(variances, float), 1e-12)
    n = np.asarray(n, int)
    k = len(means)
    if k == 1:
        return np.array([int(delta)])
    total = int(n.sum() + delta)
    b = int(np.argmin(means))
    others = [i for i in range(k) if i != b]
    gap = np.maximum(np.abs(means - means[b]), 1e-12)
    s = min(others, key=lambda i: gap[i])  # the second best
    ratio = np.zeros(k)
    ratio[s] = 1.0
    for i in others:
        if i != s:
            ratio[i] = (var[i] / gap[i] ** 2) / (var[s] / gap[s] ** 2)
    ratio[b] = math.sqrt(var[b] * sum(ratio[i] ** 2 / var[i] for i in others))
    alloc = np.zeros(k)
    open_ = np.ones(k, bool)
    budget = float(total)
    while True:
        more = False
        share = ratio[open_].sum()
        for i in range(k):
            if open_[i]:
                alloc[i] = budget / share * ratio[i]
                if alloc[i] < n[i]:
                    alloc[i] = n[i]
                    open_[i] = False
                    more = True
        if not more:
            break
        budget = total - alloc[~open_].sum()
    an = np.floor(alloc).astype(int)
    an[b] += total - an.sum()
    return an - n


@dataclass
class Candidate:
    """A measured candidate: ``params`` (one value per --vary key), its variant, its
    metric jobs and its counts by block (job key -> name -> ``(blocks, ...)``)."""

    params: tuple
    variant: object
    jobs: dict
    counts: dict = field(default_factory=dict)
    trial: int = 0
    reused: bool = False  # no simulation of its own: every job used the base's counts
    #: metric -> (value, lo, hi, se): the value with its 95% interval (a spread's
    #: bias-corrected, :func:`sheepsim.variant_runs.spread_value`)
    values: dict = field(default_factory=dict)
    #: spread metric -> its items by jackknife (``(blocks + 1, k)``)
    items: dict = field(default_factory=dict)
    #: racing: the objective with its bias taken out (what finalists are ranked by): a
    #: spread's bias-corrected value, else the jackknife's bias correction
    corrected: float | None = None
    #: job key -> ``(counts, job, values, items)``: the last jackknife of that job's
    #: metrics (:meth:`_Search._jackknife`), valid while ``counts[key]`` and ``jobs[key]``
    #: are those objects (counts only grow by replacing the dict, never in place)
    jack: dict = field(default_factory=dict, repr=False, compare=False)


@dataclass
class TuneOutput:
    tables: dict
    meta: dict
    title: str
    winner_text: str | None
    targets: list[str]
    #: whether the winner beat the base rules (the verdict's word; ``--out-rules`` is
    #: written only then)
    beat_base: bool = False
    verdict: str = ""


def _optuna():
    try:
        import optuna
    except ImportError:
        raise SheepsimError("tune needs optuna: pip install 'sheepsim[tune]'") from None
    return optuna


def run(g, args) -> TuneOutput:
    """The search behind ``sheepsim <game> tune`` (``args`` its parsed options), then the
    confirmation of its winner against the base on fresh games (:meth:`_Search.confirm`)."""
    import warnings

    from sheepsim.rulesedit import base_text
    from sheepsim.variant_runs import variant_of

    optuna = _optuna()
    varies = parse_varies(args.vary)
    targets = parse_targets(g, args.target)
    constraints = parse_constraints(g, getattr(args, "subject_to", None))
    metrics = M.pick(g, list(dict.fromkeys([t.metric for t in targets] + [c.metric for c in constraints])))
    policies = role_policies(g, args)
    base = base_text(g, args.rules)
    base_variant, _ = variant_of(g, base, [], "base", args.players)
    check_vary_ends(g, base, varies, args.players)
    single = len(targets) == 1
    trials = args.trials
    trial_games = trial_games_of(g, args.budget, trials, single,
                                 exact=exact_only(g, args, base_variant, policies, metrics))
    confirm_games = confirm_games_of(g, getattr(args, "confirm_games", None), trial_games)
    search = _Search(g, args, metrics, targets, policies, base, base_variant, trial_games, constraints)
    dists = {v.key: (optuna.distributions.IntDistribution(v.lo, v.hi, step=v.step) if v.integer else
                     optuna.distributions.FloatDistribution(v.lo, v.hi, step=v.step)) for v in varies}
    more = {}
    # infeasible trials steer the sampler away (optuna: a constraint value <= 0 is met):
    # Trial.set_constraint from optuna 5, the sampler's constraints_func before
    set_constraint = hasattr(optuna.trial.Trial, "set_constraint")
    if constraints and not set_constraint:
        more["constraints_func"] = lambda ft: ft.user_attrs["constraints"]
    with warnings.catch_warnings():  # constraints_func is "experimental" in optuna
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if single:
            sampler = optuna.samplers.TPESampler(seed=args.seed, n_startup_trials=max(4, trials // 3), **more)
        else:
            sampler = optuna.samplers.NSGAIISampler(seed=args.seed,
                                                    population_size=max(4, min(20, trials // 2)), **more)
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)  # restored below: no global change
    try:
        study = optuna.create_study(directions=["minimize"] * len(targets), sampler=sampler)
        search.base()
        done = 0
        while done < trials:
            asked = [study.ask(dists) for _ in range(min(BATCH, trials - done))]
            cands = search.measure([tuple(t.params[v.key] for v in varies) for t in asked], varies,
                                   first_trial=done + 1)
            for t, c in zip(asked, cands, strict=True):
                objs = [tg.objective(c.values[tg.metric][0]) for tg in targets]
                over = [k.violation(c.values[k.metric][0]) for k in constraints]
                if constraints and set_constraint:
                    for i, v in enumerate(over):
                        t.set_constraint(f"subject_to_{i}", v)
                elif constraints:
                    t.set_user_attr("constraints", over)
                study.tell(t, objs if len(objs) > 1 else objs[0])
            done += len(asked)
            search.say_progress(done, trials)
    finally:
        optuna.logging.set_verbosity(verbosity)
    trials_table = search.trials_table(varies)
    feasible = [c for c in search.order if search.feasible(c)]
    if not feasible:  # nothing to race or confirm: the nearest misses, for the reader
        best = sorted(search.order, key=lambda c: (search.violation(c), search.objective(c)))[:args.finalists]
    elif single and search.all_exact():
        best = sorted(feasible, key=search.objective)[:args.finalists]
    elif single:
        best = search.race(args.finalists, args.budget)
    else:
        best = search.pareto()
    best_table = search.best_table(best, varies)
    winner = best[0] if search.feasible(best[0]) else None
    search_games = search.used
    if winner is None:
        search_verdict, search_beat = ("no candidate met the constraints " + ", ".join(
            c.text for c in constraints) + " on the search's games"), False
    else:
        search_verdict, search_beat = search.verdict(best_table, single)
    confirm_table, confirm = None, None
    if winner is not None and search.measured_better(best_table, single):
        # a claim to back: the winner and the base again, on games the search never saw
        confirm_table, confirm = search.confirm(winner, confirm_games)
        verdict, beat = confirm["verdict"], confirm["confirmed"]
        verdict += f"; search-time (on the games the winner was selected on): {search_verdict}"
    else:
        verdict, beat = search_verdict, False
        if winner is not None and search_beat:  # several targets, equal on every one
            verdict = f"{search_verdict}; nothing to confirm"
    edge = edge_note(varies, best[0].params)
    if edge:
        verdict += f"; {edge}"
    winner_text = None if winner is None else _rules_file(g, winner, search, varies, verdict)
    title = (f"{g.title}: balance search for {', '.join(t.text for t in targets)} over "
             f"{', '.join(f'{v.key}={v.values_text()}' for v in varies)}"
             + (f" subject to {', '.join(c.text for c in constraints)}" if constraints else "")
             + f"; {verdict}")
    meta = _meta(g, args, search, varies, targets, trials, trial_games, sampler, best[0])
    from sheepsim.output import sha256_bytes

    # the SHA-256 of the rules file --out-rules writes (its bytes, header comments
    # included), the one every command reports for that file
    meta["winner_rules_sha256"] = None if winner_text is None else sha256_bytes(winner_text.encode("utf-8"))
    meta["winner_beats_base"] = beat
    meta["winner_at_range_edge"] = at_range_edge(varies, best[0].params)
    meta["verdict"] = verdict
    meta["search_verdict"] = search_verdict
    meta["search_games"] = search_games
    meta["constraints"] = [c.text for c in constraints]
    meta["best_table"] = ("search-time: values, intervals and p-values on the games of the search "
                          "and racing, the games the winner was selected on (biased in its favour); "
                          "the verdict comes from the confirm table")
    meta["confirm"] = confirm_meta(confirm, confirm_games)
    if confirm_table is None:
        confirm_table = search.confirm_table_empty()
    note = corrected_note([m for m in search.metrics if not search._exact(m.job)])
    for df in (best_table, confirm_table, trials_table):
        if note and len(df):  # under the tables (the table format and the report)
            df.attrs["notes"] = [note]
    return TuneOutput({"best": best_table, "confirm": confirm_table, "trials": trials_table}, meta, title,
                      winner_text, [t.metric for t in targets], beat_base=beat, verdict=verdict)


def confirm_games_of(g, asked: int | None, trial_games: int) -> int:
    """The confirmation's games for the winner and the base each: ``--confirm-games``
    rounded up to a multiple of :data:`BLOCKS`, or :data:`CONFIRM_FACTOR` x a trial's
    games (one line if fewer than :data:`MIN_TRIAL_GAMES`)."""
    from sheepsim.variant_runs import round_games

    if asked is None:
        return round_games(CONFIRM_FACTOR * trial_games)
    if asked < MIN_TRIAL_GAMES:
        raise SheepsimError(f"--confirm-games {asked:,}: give at least {MIN_TRIAL_GAMES:,} {g.unit} "
                            "(the paired test needs games in each of its blocks)")
    return round_games(asked)


def confirm_meta(confirm: dict | None, games: int) -> dict:
    if confirm is None:
        return {"played": False, "games": 0,
                "why": "no candidate measured better than the base rules in the search: no claim to confirm"}
    return {"played": True, **{k: v for k, v in confirm.items() if k not in ("verdict",)},
            "games_each": games}


def at_range_edge(varies: list[Vary], params) -> list[str]:
    """The ``--vary`` keys whose value in ``params`` is an end of its range, as
    ``KEY=VALUE``: a best value there may have a better one beyond the range. Whole
    numbers and stepped ranges: the end itself; a continuous range: within 1% of its
    width from an end (a sampler seldom proposes the end exactly)."""
    out = []
    for v, p in zip(varies, params or (), strict=False):
        if p is None:
            continue
        tol = 1e-9 * (v.hi - v.lo) if (v.integer or v.step) else 0.01 * (v.hi - v.lo)
        if abs(p - v.lo) <= tol or abs(p - v.hi) <= tol:
            out.append(f"{v.key}={p}")
    return out


def edge_note(varies: list[Vary], params) -> str:
    """The verdict's words for a winner at the end of a range (empty if none)."""
    edges = at_range_edge(varies, params)
    if not edges:
        return ""
    ranges = {v.key: v.values_text() for v in varies}
    what = ", ".join(f"{e} (range {ranges[e.split('=', 1)[0]]})" for e in edges)
    return f"the winner is at the end of its range, {what}: a better value may lie beyond; widen the range"


def parse_targets(g, texts) -> list[Target]:
    """``--target`` options checked against the game's metrics (one line if not)."""
    known = M.declared(g)
    targets = [parse_target(t, known) for t in texts]
    if len({t.metric for t in targets}) != len(targets):
        raise SheepsimError("--target: a metric is given twice")
    return targets


def parse_varies(texts) -> list[Vary]:
    """``--vary`` options (one line if a range is malformed or a key given twice)."""
    varies = [parse_vary(v) for v in texts]
    if len({v.key for v in varies}) != len(varies):
        raise SheepsimError("--vary: a key is given twice")
    return varies


def check_vary_ends(g, base, varies: list[Vary], players=None) -> None:
    """Every range's ends through the game's loader as edits of the base rules text
    ``base`` (and checked for ``players``, the run's count; None: every count), so a bad
    key or value fails before any game."""
    from sheepsim.rulesedit import Edit
    from sheepsim.variant_runs import variant_of

    for v in varies:
        for end in (v.lo, v.hi):
            variant_of(g, base, [Edit(v.key, end)], players=players)


def exact_only(g, args, base_variant, policies, metrics) -> bool:
    """Whether every metric of the search is computed exactly (the race's lanes on dealt
    lanes): then nothing is simulated and the budget does not matter."""
    jobs = M.module(g).metric_jobs(base_variant.rules, args.players, args.seed, policies,
                                   {m.job for m in metrics}, **game_options(g, args))
    return all(getattr(j, "exact", False) for j in jobs.values())


def trial_games_of(g, budget: int, trials: int, single: bool, exact: bool = False) -> int:
    """The games each trial plays out of ``budget`` (one line if too few; ``exact``: a
    search that simulates nothing, where any budget will do)."""
    share = SEARCH_SHARE if single else 1.0
    trial_games = int(budget * share / (trials + 1)) // M.BLOCKS * M.BLOCKS
    if exact:
        return max(trial_games, MIN_TRIAL_GAMES)
    if trial_games < MIN_TRIAL_GAMES:
        need = math.ceil(MIN_TRIAL_GAMES * (trials + 1) / share)
        raise SheepsimError(f"--budget {budget:,} is too small for {trials} trials: each needs at "
                            f"least {MIN_TRIAL_GAMES:,} {g.unit} ({need:,} in all with the base run"
                            f"{' and the racing' if single else ''}); raise --budget"
                            + (" or lower --trials" if trials > 1 else ""))
    return trial_games


def _rules_file(g, winner: Candidate, search, varies, verdict: str) -> str:
    from sheepsim.output import sha256_bytes

    text = winner.variant.text
    base_sha = sha256_bytes(search.base_text.text.encode())
    head = (f"# Written by sheepsim {g.command} tune: the best variant found, "
            f"{' '.join(f'{v.key}={p}' for v, p in zip(varies, winner.params, strict=True))}\n"
            f"# {verdict}\n"
            f"# (base: {search.base_text.name}, SHA-256 {base_sha})\n")
    return head + text


def _meta(g, args, search, varies, targets, trials, trial_games, sampler, winner) -> dict:
    from sheepsim.output import base_meta

    rules = search.base_variant.rules
    return base_meta(
        game=g.name, rules=rules.source, rules_sha256=rules.sha256,
        analysis="balance search on common random numbers", players=args.players,
        policies=search.policies, seed=args.seed, budget=args.budget,
        games=search.used, trial_games=trial_games, trials=trials,
        vary=[{"key": v.key, "lo": v.lo, "hi": v.hi, "step": v.step} for v in varies],
        targets=[t.text for t in targets],
        sampler=type(sampler).__name__ + f"(seed={args.seed})",
        racing=(f"OCBA over {len(search.finalists)} finalists in up to {RACING_ROUNDS} rounds"
                if search.finalists else "none (several targets: the Pareto front of the search)"),
        winner={v.key: p for v, p in zip(varies, winner.params, strict=True)},
        out_rules=args.out_rules,
        reused=("candidates whose edits cannot change a job's counts reused the base's "
                "counts for it (no simulation)"))


class _Search:
    """The state of one search: the base's counts, every candidate measured."""

    def __init__(self, g, args, metrics, targets, policies, base_text, base_variant, trial_games,
                 constraints=()):
        self.g, self.args, self.metrics, self.targets = g, args, metrics, targets
        self.constraints = list(constraints)
        self.policies, self.base_text, self.base_variant = policies, base_text, base_variant
        self.trial_games = trial_games
        self.block_games = trial_games // M.BLOCKS
        self.keys = list(dict.fromkeys(m.job for m in metrics))
        self.mod = M.module(g)
        self.cands: dict[tuple, Candidate] = {}
        self.order: list[Candidate] = []  # distinct candidates, first proposal first
        self.proposed: list[tuple[int, Candidate]] = []  # every trial (a repeat too)
        self.used = 0
        self.finalists: list[Candidate] = []
        self.base_blocks: dict[str, dict] = {}  # job key -> name -> (blocks, ...) of the base
        self.progress = progress_of(args)

        self.options = game_options(g, args)

    # -- running ---------------------------------------------------------------------
    def _run(self, variants, *, games: int, blocks: int, first_game: int, reuse_only: bool):
        from sheepsim.variant_runs import build_job

        job = build_job(self.g, variants, self.metrics, games=games, seed=self.args.seed,
                        players=self.args.players, policies=self.policies, options=self.options,
                        blocks=blocks, first_game=first_game, search=reuse_only)
        job.counts_only = True
        # a candidate reusing the base for a job reads the base counts kept here, so
        # the base is never played twice on the same games
        if reuse_only:
            for src in job.source[1:]:
                for key, s in src.items():
                    if s == 0:
                        src[key] = -1
        if not any(job.simulated(v, k) for v, jobs in enumerate(job.jobs) for k in jobs):
            return job, {}
        from sheepsim import driver

        res = driver.run(job, games=games, backend=self._backend(), progress=False, desc="tune")
        self.used += job.variant_games()
        return job, res.counts

    def _backend(self):
        return backend_from_args(self.args)

    def _counts(self, job, counts, v: int) -> dict:
        out = {}
        for key in job.jobs[v]:
            s = job.source[v][key]
            if s == -1:
                continue
            prefix = f"{s}/{key}/"
            out[key] = {k[len(prefix):]: a for k, a in counts.items() if k.startswith(prefix)}
        return out

    def base(self) -> None:
        job, counts = self._run([self.base_variant], games=self.trial_games, blocks=self._blocks(),
                                first_game=0, reuse_only=False)
        self.base_blocks = self._counts(job, counts, 0)
        c = Candidate((), self.base_variant, job.jobs[0], self.base_blocks, trial=0)
        self._evaluate(c)
        self.base_cand = c

    def _blocks(self) -> int:
        return BLOCKS

    def measure(self, params_list, varies, first_trial: int) -> list[Candidate]:
        from sheepsim.rulesedit import Edit
        from sheepsim.variant_runs import variant_of

        new = []
        for params in params_list:
            if params not in self.cands and all(params != c.params for c in new):
                edits = [Edit(v.key, p) for v, p in zip(varies, params, strict=True)]
                variant, text = variant_of(self.g, self.base_text, edits, players=self.args.players)
                new.append(Candidate(params, variant, {}))
        if new:
            job, counts = self._run([self.base_variant] + [c.variant for c in new],
                                    games=self.trial_games, blocks=self._blocks(), first_game=0,
                                    reuse_only=True)
            for i, c in enumerate(new, start=1):
                c.jobs = job.jobs[i]
                c.counts = self._counts(job, counts, i)
                c.reused = not c.counts
                for key in c.jobs:
                    if key not in c.counts:
                        c.counts[key] = self.base_blocks[key]
                    if job.source[i][key] == -1 and self._exact(key):
                        c.jobs[key] = self.base_cand.jobs[key]  # the base's solve serves
                self._evaluate(c)
                self.cands[c.params] = c
        out = []
        for k, params in enumerate(params_list):
            c = self.cands[params]
            if not c.trial:
                c.trial = first_trial + k
                self.order.append(c)
            self.proposed.append((first_trial + k, c))
            out.append(c)
        return out

    def _jackknife(self, c: Candidate, key: str) -> tuple[np.ndarray, dict]:
        """``(values, items)`` of :func:`~sheepsim.variant_runs.jackknife_values` for job
        ``key``'s metrics (in :attr:`metrics` order) on ``c``'s counts now: computed once
        per counts. Racing asks for the same candidate's jackknife up to three times on
        the same games (its pseudo-values, its bias-corrected spread, the final
        evaluation), and each builds the job's tables ``blocks + 1`` times; a metric's
        row is the same whichever metrics are computed beside it (each reads the same
        tables), so the numbers are those computed apart."""
        from sheepsim.variant_runs import jackknife_values

        counts, job = c.counts[key], c.jobs[key]
        memo = c.jack.get(key)
        if memo is None or memo[0] is not counts or memo[1] is not job:
            mine = [m for m in self.metrics if m.job == key]
            items: dict = {}
            vals = jackknife_values(job, c.variant.rules, mine, counts, self.block_games,
                                    self.args.players, items=items)
            memo = c.jack[key] = (counts, job, vals, items)
        return memo[2], memo[3]

    def _evaluate(self, c: Candidate) -> None:
        from sheepsim.variant_runs import _t, jackknife_se, spread_value

        for key in self.keys:
            mine = [m for m in self.metrics if m.job == key]
            vals, items = self._jackknife(c, key)
            c.items.update(items)
            for i, m in enumerate(mine):
                blocks = vals.shape[1] - 1
                se = jackknife_se(vals[i])
                v, tq = float(vals[i, 0]), _t(blocks - 1)
                c.values[m.name] = (v, v - tq * se, v + tq * se, se)
                if getattr(c.jobs.get(key), "exact", False):  # exact: no interval
                    c.values[m.name] = (v, float("nan"), float("nan"), float("nan"))
                if m.name in c.items and not getattr(c.jobs.get(key), "exact", False):
                    sv = spread_value(c.items[m.name], m)
                    c.values[m.name] = (sv["value"], sv["lo"], sv["hi"], sv["se"])

    def verdict(self, best, single: bool) -> tuple[str, bool]:
        """One sentence on the winner against the base (and, for several targets, that
        the winner is one of the front), for the title, the meta and the rules file; and
        whether the winner beat the base (one target: significantly, paired p < 0.05 on
        the games both played, or exactly; several: at least as good in every target and
        better in one, on the measured values)."""
        base = best[best["rank"] == "base"].iloc[0]
        win = best.iloc[0]
        if not single:
            n = int((best["rank"] != "base").sum())
            front = (f"the winner is the first of {n} variants none of which is better in every "
                     f"target (the Pareto front, ordered by {self.targets[0].metric}); no racing")
            w = [float(win[f"objective_{t.metric}"]) for t in self.targets]
            b = [float(base[f"objective_{t.metric}"]) for t in self.targets]
            if all(x <= y for x, y in zip(w, b, strict=True)) and w != b:
                return (front + "; it does at least as well as the base rules in every target and "
                        "better in one (measured values, not tested)"), True
            return front + "; it does not beat the base rules in every target", False
        t = self.targets[0]
        if win[f"objective_{t.metric}"] >= base[f"objective_{t.metric}"]:
            return "no candidate did better than the base rules", False
        if bool(base["exact"]):
            return "the winner beats the base rules (exact values)", True
        p = float(base["pvalue_vs_winner"])
        if p >= 0.05:
            return (f"the winner is not significantly better than the base rules (paired "
                    f"p = {p:.2g} on the games both played)"), False
        return f"the winner beats the base rules (paired p = {p:.2g} on the games both played)", True

    def feasible(self, c: Candidate) -> bool:
        """Whether ``c`` meets every ``--subject-to`` bound on its measured values."""
        return all(k.ok(c.values[k.metric][0]) for k in self.constraints)

    def violation(self, c: Candidate) -> float:
        return sum(k.violation(c.values[k.metric][0]) for k in self.constraints)

    def measured_better(self, best, single: bool) -> bool:
        """Whether the winner measured better than the base in the search (one target:
        its objective lower; several: lower in at least one): a claim to confirm."""
        base = best[best["rank"] == "base"].iloc[0]
        win = best.iloc[0]
        return any(float(win[f"objective_{t.metric}"]) < float(base[f"objective_{t.metric}"])
                   for t in self.targets)

    def games_seen(self) -> int:
        """One past the last game index the search and racing played for anyone (the
        base's stored blocks can outrun every candidate's)."""
        blocks = [self._blocks_of(c) for c in [*self.order, self.base_cand]]
        blocks += [len(next(iter(arrs.values()))) for key, arrs in self.base_blocks.items()
                   if arrs and not self._exact(key)]
        return max(blocks, default=0) * self.block_games

    # -- confirmation ---------------------------------------------------------------------
    def confirm(self, winner: Candidate, games: int):
        """The winner and the base on ``games`` fresh games each, the same ones for both
        (common random numbers): game indices ``[F, F + games)`` of the same seed, ``F``
        one past every game the search and racing played. Every game's dice come from
        streams keyed by (seed, game index) (:mod:`sheepsim.rng`), so these games are
        independent of the ones the winner was selected on, and the run is still
        reproducible from ``--seed`` alone. The verdict, p-values and intervals come
        from these games only: per target, the paired difference of the objective
        (winner - base) by the jackknife over :data:`BLOCKS` blocks (Student t with
        BLOCKS - 1 degrees of freedom). One target: confirmed if the winner's objective
        is lower with two-sided p < :data:`ALPHA`; several: lower in at least one target
        with Holm-adjusted p < ALPHA and higher in none with p < ALPHA. Either way every
        ``--subject-to`` bound must hold for the winner's value on these games.
        Returns ``(table, info)``."""
        import pandas as pd

        from sheepsim.stats import holm_adjusted
        from sheepsim.variant_runs import _t, jackknife_se, paired_jackknife, spread_diff, spread_value

        first = self.games_seen()
        before = self.used
        job, counts = self._run([self.base_variant, winner.variant], games=games, blocks=BLOCKS,
                                first_game=first, reuse_only=False)
        played = self.used - before
        vals = job.values(counts)
        tq = _t(BLOCKS - 1)
        exact = {m.name: self._exact(m.job) for m in self.metrics}
        rows = []
        for m in self.metrics:
            b, w = vals[(0, m.name)], vals[(1, m.name)]
            same = job.source[1][m.job] == job.source[0][m.job]
            se = {"w": jackknife_se(w), "b": jackknife_se(b)}
            d = paired_jackknife(b, w, same_counts=same)  # an unseen change bounds nothing
            row = {"metric": m.name, "winner": w[0], "winner_lo": w[0] - tq * se["w"],
                   "winner_hi": w[0] + tq * se["w"], "base": b[0], "base_lo": b[0] - tq * se["b"],
                   "base_hi": b[0] + tq * se["b"], "diff": d["diff"], "diff_lo": d["lo"],
                   "diff_hi": d["hi"], "exact": exact[m.name]}
            spread_p = None
            if m.items is not None and not exact[m.name]:  # a spread, max or min: bias-corrected
                iw, ib = vals[(1, m.name, "items")], vals[(0, m.name, "items")]
                sw, sb = spread_value(iw, m), spread_value(ib, m)
                sd = spread_diff(ib, iw, m, same_counts=same)
                row.update(winner=sw["value"], winner_lo=sw["lo"], winner_hi=sw["hi"],
                           base=sb["value"], base_lo=sb["lo"], base_hi=sb["hi"], diff=sd["diff"],
                           diff_lo=sd["lo"], diff_hi=sd["hi"])
                spread_p = sd["pvalue"]
            t = next((t for t in self.targets if t.metric == m.name), None)
            if t is not None:
                ob, ow = np.array([t.objective(x) for x in b]), np.array([t.objective(x) for x in w])
                od = ow - ob
                p = paired_jackknife(ob, ow, same_counts=same)["pvalue"]
                if spread_p is not None:
                    od[0] = t.objective(row["winner"]) - t.objective(row["base"])
                    if t.goal in ("min", "max"):  # else the jackknife of |value - goal|
                        p = spread_p
                if exact[m.name]:  # exact: no test
                    p = float("nan")
                row.update(role="target", goal=str(t.goal), objective_diff=od[0], pvalue=p)
            for k in self.constraints:
                if k.metric == m.name:
                    row.update(role="target and constraint" if t else "constraint",
                               constraint=k.text, constraint_met=k.ok(float(row["winner"])))
            row["games"] = None if exact[m.name] else games
            rows.append(row)
        df = pd.DataFrame(rows)
        for col in ("goal", "constraint"):
            if col in df:
                df[col] = df[col].fillna("")
        for col, fill in (("goal", ""), ("objective_diff", float("nan")), ("pvalue", float("nan")),
                          ("constraint", ""), ("constraint_met", None)):
            if col not in df:
                df[col] = fill
        df["games"] = df["games"].astype("Int64")
        tgt = df[df["role"].str.startswith("target") & ~df["exact"].astype(bool)]
        df["pvalue_holm"] = float("nan")
        if len(tgt):
            df.loc[tgt.index, "pvalue_holm"] = holm_adjusted(tgt["pvalue"].to_numpy())
        df = df[["metric", "role", "goal", "winner", "winner_lo", "winner_hi", "base", "base_lo", "base_hi",
                 "diff", "diff_lo", "diff_hi", "objective_diff", "pvalue", "pvalue_holm", "constraint",
                 "constraint_met", "exact", "games"]]
        df["constraint_met"] = df["constraint_met"].astype(object)
        df.attrs["decimals_of"] = {"objective_diff": "diff"}  # in the metric's units
        tgt = df[df["role"].str.startswith("target")]
        unit = self.g.unit
        where = (f"on {games:,} fresh {unit} each (games {first:,}-{first + games - 1:,} of seed "
                 f"{self.args.seed}, none seen by the search)")
        all_exact = bool(tgt["exact"].all())
        if all_exact:
            where = "exactly (exact values; no games played)"
        # an exact target's difference needs no test: its sign is the answer
        sig = tgt["exact"].astype(bool) | (tgt["pvalue"] < ALPHA)
        sig_holm = tgt["exact"].astype(bool) | (tgt["pvalue_holm"] < ALPHA)
        if len(self.targets) == 1:
            r = tgt.iloc[0]
            better = bool(r["objective_diff"] < 0 and sig.iloc[0])
            worse = bool(r["objective_diff"] > 0 and sig.iloc[0])
            shown = (f"{r['metric']} {r['winner']:.4g} against {r['base']:.4g}" if all_exact else
                     f"{r['metric']} {r['winner']:.4g} against {r['base']:.4g}, difference "
                     f"{r['diff']:+.4g} [{r['diff_lo']:+.4g}, {r['diff_hi']:+.4g}], "
                     f"paired p = {r['pvalue']:.2g}")
        else:
            better = bool(((tgt["objective_diff"] < 0) & sig_holm).any())
            worse = bool(((tgt["objective_diff"] > 0) & sig).any())
            shown = "; ".join(f"{r['metric']} {r['diff']:+.4g} (p = {r['pvalue']:.2g}, "
                              f"Holm {r['pvalue_holm']:.2g})" for _, r in tgt.iterrows())
        broken = [f"{r['constraint']} ({r['winner']:.4g})" for _, r in df.iterrows()
                  if r["constraint"] and not r["constraint_met"]]
        if worse:  # several targets: better in one is no claim if worse in another
            names = ", ".join(r["metric"] for (_, r), s in zip(tgt.iterrows(), sig, strict=True)
                              if r["objective_diff"] > 0 and s)
            verdict = f"not confirmed: the winner does worse than the base rules in {names} {where}: {shown}"
        elif better and not broken:
            verdict = f"confirmed: the winner beats the base rules {where}: {shown}"
        elif better:
            verdict = (f"not confirmed: the winner breaks {', '.join(broken)} on the confirmation "
                       f"{unit} ({where}): {shown}")
        else:
            verdict = (f"not confirmed: the winner is not significantly better than the base rules "
                       f"{where}: {shown}")
        if not self.constraints:
            df = df.drop(columns=["constraint", "constraint_met"])
        info = {"verdict": verdict, "confirmed": bool(better and not worse and not broken),
                "first_game": first, "seed": self.args.seed, "games_played": played,
                "fresh": ("the same seed, game indices past every game the search and racing played "
                          "(each game's dice are keyed by seed and game index): games the winner was "
                          "not selected on, the same ones for the winner and the base")}
        return df, info

    def confirm_table_empty(self):
        import pandas as pd

        return pd.DataFrame(columns=["metric", "role", "goal", "winner", "winner_lo", "winner_hi", "base",
                                     "base_lo", "base_hi", "diff", "diff_lo", "diff_hi", "objective_diff",
                                     "pvalue", "pvalue_holm", "constraint", "constraint_met", "exact",
                                     "games"])

    def _exact(self, key: str) -> bool:
        return getattr(self.base_cand.jobs.get(key), "exact", False)

    def targets_exact(self) -> bool:
        """Every target is computed exactly (the best and trials tables' ``exact``)."""
        return all(self._exact(m.job) for m in self.metrics if any(t.metric == m.name for t in self.targets))

    def all_exact(self) -> bool:
        """Every target is computed exactly (no sampling noise: nothing to race)."""
        return all(self._exact(m.job) for m in self.metrics)

    def objective(self, c: Candidate) -> tuple:
        return tuple(t.objective(c.values[t.metric][0]) for t in self.targets)

    def say_progress(self, done: int, trials: int) -> None:
        if not self.progress:
            return
        from sheepsim.driver import _say

        best = min(self.order, key=self.objective)
        shown = ", ".join(f"{t.metric}={best.values[t.metric][0]:.4g}" for t in self.targets)
        _say(f"tune: {done}/{trials} trials, best so far trial {best.trial} ({shown}), "
             f"{self.used:,} {self.g.unit} played")

    # -- racing (one target) ----------------------------------------------------------
    def race(self, k: int, budget: int) -> list[Candidate]:
        ranked = sorted([c for c in self.order if self.feasible(c)], key=self.objective)
        fin = ranked[:max(1, min(k, len(ranked)))]
        self.finalists = fin
        target = self.targets[0]
        rounds = 0
        start_left = budget - self.used
        while rounds < RACING_ROUNDS and len(fin) > 1:
            left = budget - self.used
            if left < self.block_games:
                break
            delta = max(len(fin), min(left, math.ceil(start_left / RACING_ROUNDS)) // self.block_games)
            delta = min(delta, left // self.block_games)
            means, variances, n = [], [], []
            for c in fin:
                per = self._pseudo_objectives(c, target)
                means.append(self._corrected(c, target, per))
                variances.append(per.var(ddof=1))
                n.append(len(per))
            add = ocba(means, variances, n, delta)
            for c, extra in zip(fin, add, strict=True):
                if extra > 0:
                    self._extend(c, int(extra))
            rounds += 1
        for c in [*fin, self.base_cand]:  # on all their games (the base's too: its
            self._evaluate(c)             # blocks grow when racing reuses them)
            c.corrected = self._corrected(c, target, self._pseudo_objectives(c, target))
        # ranked by what OCBA compared: the bias-corrected objective, comparable between
        # finalists measured on different numbers of games
        # (a finalist the racing's games put past a --subject-to bound goes last)
        fin.sort(key=lambda c: (not self.feasible(c), c.corrected))
        self.racing_rounds = rounds
        return fin

    def versus_winner(self, c: Candidate, winner: Candidate) -> tuple[float, int]:
        """The paired test of ``c``'s objective against the winner's on the games both
        were measured on (the same game indices: common random numbers), by the
        jackknife over those blocks: ``(p-value, games)``; exact objectives have no test
        and no games: ``(nan, None)``."""
        from sheepsim.variant_runs import jackknife_values, paired_jackknife

        t = self.targets[0]
        m = next(m for m in self.metrics if m.name == t.metric)
        if self._exact(m.job):
            return float("nan"), None
        shared = min(self._blocks_of(c), self._blocks_of(winner))
        objs, items = [], []
        for x in (c, winner):
            its = {}
            vals = jackknife_values(x.jobs[m.job], x.variant.rules, [m],
                                    {k: a[:shared] for k, a in x.counts[m.job].items()},
                                    self.block_games, self.args.players, items=its)[0]
            objs.append(np.array([t.objective(v) for v in vals]))
            items.append(its.get(m.name))
        if self._is_spread(m.name) and t.goal in ("min", "max"):
            from sheepsim.variant_runs import spread_diff

            return spread_diff(items[1], items[0], m)["pvalue"], shared * self.block_games
        return paired_jackknife(objs[1], objs[0])["pvalue"], shared * self.block_games

    def _blocks_of(self, c: Candidate) -> int:
        """How many blocks of games ``c`` has been measured on (0: exact only)."""
        sampled = [k for k in self.keys if not self._exact(k)]
        return len(next(iter(c.counts[sampled[0]].values()))) if sampled else 0

    def _is_spread(self, name: str) -> bool:
        m = next(m for m in self.metrics if m.name == name)
        return m.items is not None and not self._exact(m.job)

    def _corrected(self, c: Candidate, target, per: np.ndarray) -> float:
        """``c``'s objective with its bias taken out: a spread's from its bias-corrected
        value (:func:`sheepsim.stats.spread_interval`; the jackknife's correction is 0
        whenever the same items stay the extremes, and goes negative on noise), any other
        metric's the mean of its jackknife pseudo-values ``per``."""
        if self._is_spread(target.metric):
            self._evaluate(c)
            return float(target.objective(c.values[target.metric][0]))
        return float(per.mean())

    def _pseudo_objectives(self, c: Candidate, target) -> np.ndarray:
        """OCBA's runs: the jackknife pseudo-values of the target's objective over ``c``'s
        blocks, ``B o(all) - (B - 1) o(all but block k)``. Their mean is the objective
        with the jackknife's bias correction and their variance / B its squared standard
        error, so they are replications of the quantity ranked even for a metric that is
        not a mean (a spread measured on one block alone is biased, and by how much
        depends on the candidate)."""
        m = next(m for m in self.metrics if m.name == target.metric)
        vals = self._jackknife(c, m.job)[0][[x for x in self.metrics if x.job == m.job].index(m)]
        obj = np.array([target.objective(v) for v in vals])
        b = len(obj) - 1
        return b * obj[0] - (b - 1) * obj[1:]

    def _extend(self, c: Candidate, extra: int) -> None:
        """``extra`` more blocks of games for ``c`` (the next game indices after its own:
        block ``j`` is the same games for every candidate)."""
        have = self._blocks_of(c)
        job, counts = self._run([self.base_variant, c.variant], games=extra * self.block_games,
                                blocks=extra, first_game=have * self.block_games, reuse_only=True)
        mine = self._counts(job, counts, 1)
        for key in self.keys:
            if key not in mine and not self._exact(key):  # reused: the base's counts on these blocks
                mine[key] = self._base_more(key, have, extra)
            if not self._exact(key):
                c.counts[key] = {n: np.concatenate([c.counts[key][n], a]) for n, a in mine[key].items()}

    def _base_more(self, key: str, have: int, extra: int) -> dict:
        stored = len(next(iter(self.base_blocks[key].values())))
        if stored < have + extra:
            more = have + extra - stored
            job, counts = self._run([self.base_variant], games=more * self.block_games, blocks=more,
                                    first_game=stored * self.block_games, reuse_only=False)
            for k2, arrs in self._counts(job, counts, 0).items():
                self.base_blocks[k2] = {n: np.concatenate([self.base_blocks[k2][n], a])
                                        for n, a in arrs.items()}
        return {n: a[have:have + extra] for n, a in self.base_blocks[key].items()}

    # -- several targets ----------------------------------------------------------------
    def pareto(self) -> list[Candidate]:
        pool = [c for c in self.order if self.feasible(c)]
        objs = {id(c): self.objective(c) for c in pool}
        front = [c for c in pool
                 if not any(all(x <= y for x, y in zip(objs[id(o)], objs[id(c)], strict=True))
                            and objs[id(o)] != objs[id(c)] for o in pool)]
        return sorted(front, key=self.objective)

    # -- tables ---------------------------------------------------------------------------
    def trials_table(self, varies):
        import pandas as pd

        rows = []
        exact = self.targets_exact()
        for trial, c in self.proposed:
            row = {"trial": trial, "repeat_of": c.trial if c.trial != trial else None}
            for v, p in zip(varies, c.params, strict=True):
                row[v.key] = p
            for t in self.targets:
                val, lo, hi, _se = c.values[t.metric]
                row.update({t.metric: val, f"{t.metric}_lo": lo, f"{t.metric}_hi": hi,
                            f"objective_{t.metric}": t.objective(val)})
            self._constraint_columns(row, c)
            row["exact"] = exact
            row["games"] = None if exact else self.trial_games
            # a repeat played no games: its values are the first proposal's
            row["simulated"] = not c.reused and c.trial == trial
            rows.append(row)
        df = pd.DataFrame(rows)
        df["repeat_of"] = df["repeat_of"].astype("Int64")
        df["games"] = df["games"].astype("Int64")
        df.attrs["decimals_of"] = self._objective_decimals()
        return df

    def _constraint_columns(self, row: dict, c: Candidate) -> None:
        """A ``--subject-to`` metric's value and interval (if not a target) and ``feasible``."""
        if not self.constraints:
            return
        for k in self.constraints:
            if k.metric not in row:
                val, lo, hi, _se = c.values[k.metric]
                row.update({k.metric: val, f"{k.metric}_lo": lo, f"{k.metric}_hi": hi})
        row["feasible"] = self.feasible(c)

    def best_table(self, best: list[Candidate], varies):
        import pandas as pd

        rows = []
        exact = self.targets_exact()
        for rank, c in enumerate([*best, self.base_cand], start=1):
            is_base = c is self.base_cand
            row = {"rank": "base" if is_base else str(rank), "trial": c.trial}
            for v, p in zip(varies, c.params or (None,) * len(varies), strict=True):
                row[v.key] = _base_value(c.variant.data, v.key) if is_base else p
            for t in self.targets:
                val, lo, hi, _se = c.values[t.metric]
                row.update({t.metric: val, f"{t.metric}_lo": lo, f"{t.metric}_hi": hi,
                            f"objective_{t.metric}": t.objective(val)})
            self._constraint_columns(row, c)
            # a value at the end of its --vary range: the best may lie beyond it
            row["at_range_edge"] = "" if is_base else " ".join(at_range_edge(varies, c.params))
            row["exact"] = exact
            row["games"] = None if exact else self._blocks_of(c) * self.block_games
            if getattr(c, "corrected", None) is not None:
                row[f"objective_{self.targets[0].metric}_corrected"] = c.corrected
            if len(self.targets) == 1:
                # is the ranking settled? each finalist against the winner, paired on
                # the games both played
                p, shared = (1.0, row["games"]) if c is best[0] else self.versus_winner(c, best[0])
                if exact:  # no games, no test: the values are exact
                    p, shared = float("nan"), None
                row["pvalue_vs_winner"], row["games_shared_with_winner"] = p, shared
            rows.append(row)
        df = pd.DataFrame(rows)
        for col in ("games", "games_shared_with_winner"):
            if col in df:
                df[col] = df[col].astype("Int64")
        # what a reader needs first: the values, whether the winner is told apart, games
        first = [c for c in df.columns if not c.startswith("objective_") and c not in
                 ("games", "games_shared_with_winner", "at_range_edge", "exact")]
        last = [c for c in ("at_range_edge", "exact", "games", "games_shared_with_winner")
                if c in df.columns]
        df = df[first + last + [c for c in df.columns if c.startswith("objective_")]]
        if df["at_range_edge"].astype(bool).any():  # shown in the CLI table whatever its width
            df.attrs["must_show"] = ["at_range_edge"]
        df.attrs["decimals_of"] = self._objective_decimals()
        return df

    def _objective_decimals(self) -> dict:
        """The objective columns, in their target metric's units, shown with its decimals
        (:func:`sheepsim.tableview.table_view`: ``attrs["decimals_of"]``)."""
        out = {}
        for t in self.targets:
            out[f"objective_{t.metric}"] = out[f"objective_{t.metric}_corrected"] = t.metric
        return out


def _base_value(data: dict, key: str):
    from sheepsim.rulesedit import check_path

    node = data
    try:
        for tok in check_path(key):
            if isinstance(node, list) and not isinstance(tok, int):
                node = next(el for el in node if el.get("name") == tok)
            else:
                node = node[tok]
    except (KeyError, IndexError, StopIteration, TypeError):
        return None
    return node if isinstance(node, int | float) else str(node)
