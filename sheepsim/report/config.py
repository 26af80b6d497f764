"""Report configs (TOML): parsing, strict validation and the studies digest.

A config is a title plus a list of studies::

    title = "My balance check"          # optional

    [[study]]
    type = "race-odds"                  # study types: `sheepsim report --help`
    name = "semi-standard"              # optional; file-name safe; default TYPE-N
    title = "Semifinal, standard deal"  # optional heading in the report
    rules = "variant.toml"              # optional, relative to this file; default: shipped
    seed = 1                            # optional, default 0
    games = 200_000                     # either a game count ...
    # precision = 0.002                 # ... or a 95% half-width target for every
    # max_games = 2_000_000             #     reported probability, checked every
    # block = 100_000                   #     `block` games (default per study type)
    lanes = ["Requeijao", "Pecorino", "Feta", "Manchego", "Roquefort", "Stilton"]

    [run]                               # optional: where the games run (never changes
    workers = 4                         # a number): a local Dask cluster of 4 processes,
    # scheduler = "tcp://10.0.0.5:8786" # or an existing Dask cluster, or
    # threads = 2                       # local threads (with workers: per worker)

The command line's ``--threads``/``--scheduler``/``--workers`` override ``[run]``.
A study type that can be solved exactly (``race-odds``) takes no game count when it is:
its ``method`` key (``"exact"`` or ``"mc"``) says which, by the rule its class gives.
Each study type's own keys (with their defaults) are listed on its class in
each game's ``sheepsim/games/<game>/studies.py``, and by ``sheepsim report --help``.

Everything is validated before anything is simulated; the first problem raises
:class:`~sheepsim.report.reader.ConfigError` naming the study and key. The studies
digest (``ReportConfig.hash``, not the config file's SHA-256) covers every study's
identity (type, name, seed, sampling, parameters and the SHA-256 of its rules file, not
the file's path, nor titles), so an out folder can tell whether it holds this report.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from sheepsim.driver import games_problem
from sheepsim.errors import RulesError
from sheepsim.report.reader import ConfigError, StudyReader
from sheepsim.report.registry import STUDY_TYPES, Sampling, Study

DEFAULT_CONFIG = "default.toml"
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


@dataclass
class ReportConfig:
    """A validated config: ``source`` (display name), ``title``, ``studies`` and ``hash``."""

    source: str
    title: str
    studies: list[Study]
    sha256: str  # of the config file's bytes
    text: str  # the config file itself, kept in the manifest
    #: the ``[run]`` table: ``threads``/``scheduler``/``workers`` for
    #: :func:`sheepsim.options.make_backend` (not part of the hash: it never changes a number)
    run: dict = field(default_factory=dict)

    @property
    def hash(self) -> str:
        """The studies digest: SHA-256 of the canonical JSON of every study's identity,
        what determines the numbers (titles and comments may change without making it
        another report). The config file's own SHA-256 is :attr:`sha256`."""
        doc = {"studies": [s.identity() for s in self.studies]}
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def load_config(path: str | Path | None = None) -> ReportConfig:
    """Read and validate a report config (``None``: the shipped default study)."""
    from sheepsim.report import studies  # noqa: F401 - fills the registry

    if path is None:
        raw = resources.files("sheepsim.report").joinpath(DEFAULT_CONFIG).read_bytes()
        source, base_dir = f"<default>/{DEFAULT_CONFIG}", None
    else:
        p = Path(path)
        source, base_dir = str(p), p.parent
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            raise ConfigError(source, "", "", "config file not found") from None
        except OSError as exc:
            raise ConfigError(source, "", "", f"cannot read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(source, "", "", "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, "", "", f"not valid TOML ({exc})") from None

    top = StudyReader(source, data, "")
    try:
        title = top.str_("title", required=False, default="sheepsim report")
        tables = top.tables("study")
        run = _run_table(top.table_("run", required=False))
        top.no_unknown_keys()
    except RulesError as exc:
        raise ConfigError(source, "", exc.key, exc.problem) from None
    if not tables:
        raise ConfigError(source, "", "study", "lists no studies")

    rules_cache: dict = {}
    studies_: list[Study] = []
    for i, r in enumerate(tables, start=1):
        study = _parse_study(source, i, StudyReader(source, r.table, ""), base_dir, rules_cache)
        if any(s.name == study.name for s in studies_):
            raise ConfigError(source, _where(i, study.name, study.type_name), "name",
                              f"another study is already called {study.name!r}")
        studies_.append(study)
    return ReportConfig(source, title, studies_, hashlib.sha256(raw).hexdigest(), raw.decode("utf-8"),
                        run)


def _run_table(r) -> dict:
    """``[run]``: ``scheduler`` (a Dask scheduler address) or ``workers`` (local Dask
    worker processes), and/or ``threads``; as for the CLI options."""
    run = {"scheduler": r.str_("scheduler") if "scheduler" in r.table else None,
           "workers": r.int_("workers", min_value=1) if "workers" in r.table else None,
           "threads": r.int_("threads", min_value=1) if "threads" in r.table else None}
    if run["scheduler"] is not None and run["workers"] is not None:
        r.fail("workers", "give scheduler or workers, not both")
    if run["scheduler"] is not None and run["threads"] is not None:
        r.fail("threads", "with a scheduler the workers' own thread counts apply")
    r.no_unknown_keys()
    return {k: v for k, v in run.items() if v is not None}


def _where(i: int, name: str | None, type_name: str | None) -> str:
    label = f"study {i}"
    if name:
        label += f" {name!r}"
    if type_name:
        label += f" ({type_name})"
    return label


def _parse_study(source: str, i: int, r: StudyReader, base_dir: Path | None,
                 rules_cache: dict) -> Study:
    """One ``[[study]]`` table -> a validated Study (errors name study ``i`` and the key)."""
    raw_name = r.table.get("name")
    raw_type = r.table.get("type")
    where = _where(i, raw_name if isinstance(raw_name, str) else None,
                   raw_type if isinstance(raw_type, str) else None)
    try:
        type_name = r.str_("type")
        if type_name not in STUDY_TYPES:
            r.fail("type", f"unknown study type {type_name!r}; known: {', '.join(sorted(STUDY_TYPES))}")
        r.base_dir = base_dir
        cls = STUDY_TYPES[type_name].for_config(r)
        name = r.str_("name", required=False, default=f"{type_name}-{i}")
        if not NAME_RE.match(name):
            r.fail("name", f"{name!r} must be 1-64 lowercase letters, digits, '-' or '_' "
                           "(it names the study's folder)")
        title = r.str_("title", required=False, default=name)
        seed = r.int_("seed", min_value=0, required=False, default=0)
        if seed >= 2**63:
            r.fail("seed", f"must be below 2**63, got {seed}")
        sampling = _sampling(r, cls)
        rules = _rules(r, cls, base_dir, rules_cache)
        params = cls.parse_params(r, rules)
        if not sampling.sized and not cls.direct and params.get("method") != "exact":
            r.missing("games", "missing (or give precision and max_games)")
        r.no_unknown_keys()
    except RulesError as exc:
        if exc.source == source:
            raise ConfigError(source, where, exc.key, exc.problem) from None
        raise ConfigError(source, where, "rules", str(exc)) from None
    return cls(name, title, seed, sampling, rules, params)


def _sampling(r: StudyReader, cls: type[Study]) -> Sampling:
    has_games, has_precision = "games" in r.table, "precision" in r.table
    if has_games and has_precision:
        r.fail("precision", "give either games or precision (with max_games), not both")
    if not has_games and not has_precision:
        if cls.solvable or cls.direct:  # its parse_params says whether it needs them
            return Sampling()
        r.missing("games", "missing (or give precision and max_games)")
    if has_games:
        for key in ("max_games", "block"):
            if key in r.table:
                r.fail(key, "only used with precision")
        games = r.int_("games", min_value=1)
        if games_problem(games, "games"):  # the one game-count rule (CLI, API, configs)
            r.fail("games", games_problem(games, "games"))
        return Sampling(games=games)
    precision = r.float_("precision")
    if precision >= 0.5:
        r.fail("precision", f"a 95% half-width for probabilities must be below 0.5, got {precision}")
    max_games = r.int_("max_games", min_value=1)
    if games_problem(max_games, "max_games"):
        r.fail("max_games", games_problem(max_games, "max_games"))
    block = r.int_("block", min_value=1, required=False, default=cls.default_block)
    return Sampling(precision=precision, max_games=max_games, block=block)


def _rules(r: StudyReader, cls: type[Study], base_dir: Path | None, cache: dict):
    rel = r.str_("rules") if "rules" in r.table else None
    if rel is None:
        path = None
    elif base_dir is None:
        r.fail("rules", "the shipped default config uses the shipped rules only")
    else:
        path = (base_dir / rel) if not Path(rel).is_absolute() else Path(rel)
    key = (cls.game, str(path))
    if key not in cache:
        cache[key] = cls.load_rules(path)  # RulesError names the rules file and its key
    return cache[key]
