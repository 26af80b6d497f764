"""The report studies written once for every game, from its declaration.

``head-to-head``: two policies for one seat on common random numbers (the same dice,
deals and draws), for every registered game through its ``head-to-head`` job
(:meth:`sheepsim.game.Game.job`, as ``sheepsim <game> compare`` runs it). Keys:

* ``game`` (required): ``race``, ``panic``, ``awsheep`` or the registry names;
* ``a``, ``b`` (the policies of the seat that switches) and ``field`` (the other
  seats): the defaults of the game's ``compare`` command, or of the game's own study
  class (The Sheep Race's ``BET,PACE`` pairs: ``ev-approx,greedy`` against
  ``random,greedy``);
* ``seat`` (1-based, default 1) and ``players`` (the game's default and range);
* the game's own ``compare`` options, as the command takes them (Shear Panic
  ``playouts``, Aw, Sheep! ``draft``).

Table ``comparison`` (:func:`sheepsim.headtohead.compare_table`). A game's ``studies``
module may subclass :class:`HeadToHeadStudy` to add what is its own (The Sheep Race:
which odds the bet policies read) and to keep an older type name working
(``race-head-to-head``, ``panic-head-to-head``: the game bound, no ``game`` key); the
generic type bound to that game uses the subclass too.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from sheepsim.commands import compare_field, parts
from sheepsim.errors import SheepsimError
from sheepsim.game import games
from sheepsim.options import ArgumentsError, _Parser, options_from_keywords
from sheepsim.report.reader import StudyReader
from sheepsim.report.registry import Study, StudyResult, bind, register_study, study_game

#: a game's own head-to-head study class (a subclass of :class:`HeadToHeadStudy`), by
#: the game's registry name: what ``type = "head-to-head"`` binds to for that game
_GAME_CLASSES: dict[str, type] = {}


@register_study
class HeadToHeadStudy(Study):
    """Two policies for one seat on the same games, in any game (keys: see the module
    docstring). Subclasses of a game set ``game`` and may change the hooks below."""

    type_name = "head-to-head"
    summary = ("two policies for one seat on the same games, any game (keys: game, a, b, "
               "field, seat, players)")
    default_block = 1_000
    default_chunk = 1 << 10
    #: the :class:`~sheepsim.game.Game` this class is bound to (:meth:`for_config`)
    game_entry: ClassVar[object] = None
    #: whether the config names the game (``game`` key): the generic type
    names_game: ClassVar[bool] = True
    #: defaults that differ from the ``compare`` command's (an older study type's)
    defaults: ClassVar[dict] = {}
    #: the score row's words in the notes and caption (None: its metric name)
    score_words: ClassVar[tuple[str, str] | None] = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.game and "game_entry" not in cls.__dict__:  # a game's own class
            _GAME_CLASSES.setdefault(cls.game, cls)

    # -- config --------------------------------------------------------------------
    @classmethod
    def for_config(cls, r: StudyReader) -> type[Study]:
        if cls.game_entry is not None:
            return cls
        if cls.game:  # an older type name of one game: no game key
            return bind(cls, next(g for g in games() if g.name == cls.game), names_game=False)
        g = study_game(r, games())
        return bind(_game_class(g), g, names_game=True, type_name=cls.type_name)

    @classmethod
    def load_rules(cls, path: Path | None):
        return cls.game_entry.load_rules(path)

    @classmethod
    def _spec(cls):
        return parts(cls.game_entry).COMMANDS["compare"]

    @classmethod
    def _extras(cls, r: StudyReader) -> dict:
        """The game's own ``compare`` options (its parts' ``add_options``), read from the
        keys of the same names and parsed as the command parses them, as the job's
        keywords (``job_options``)."""
        g = cls.game_entry
        p = _Parser(prog=f"sheepsim {g.command} compare")
        parts(g).add_options("compare", p)
        dests = [a.dest for a in p._actions if a.option_strings and a.dest != "help"]
        where = f"{g.command} compare"
        for dest in dests:  # each key checked alone: a problem is charged to its key
            if dest in r.table:
                try:
                    options_from_keywords(p, where, {dest: r.table[dest]})
                except ArgumentsError as exc:
                    r.fail(dest, exc.message.partition(": ")[2] or exc.message)
                except SheepsimError as exc:
                    r.fail(dest, str(exc))
        args = options_from_keywords(p, where, {d: r.table[d] for d in dests if d in r.table})
        return parts(g).job_options("compare", args)

    @classmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        g, spec = cls.game_entry, cls._spec()
        players = r.int_("players", required=False, default=g.default_players)
        with r.checking("players"):
            players = g.check_players(players)
        extras = cls._extras(r)
        names = {}
        for key in ("a", "b", "field"):
            default = cls.defaults.get(key, compare_field(g, spec) if key == "field"
                                       else getattr(spec, key))
            names[key] = r.str_(key, required=default is None, default=default).strip()
            with r.checking(key):  # the job resolves the names: a bad one stops here
                job = g.job("head-to-head", rules=rules, players=players, a=names[key],
                            b=names[key], field=names[key], seat=1, seed=0, **extras)
            names[key] = job.labels[0]  # as the job spells it ("ev,greedy")
        seat = r.int_("seat", min_value=1, required=False, default=1)
        if seat > players:
            r.fail("seat", f"must be between 1 and {players}, got {seat}")
        game = {"game": g.command} if cls.names_game else {}
        return {**game, "players": players, **names, "seat": seat, **extras}

    # -- running -------------------------------------------------------------------
    def job(self):
        p = self.params()
        extras = {k: v for k, v in p.items() if k not in ("game", "players", "a", "b", "field", "seat")}
        return self._cached_job(lambda: self.game_entry.job(
            "head-to-head", rules=self.rules, players=p["players"], a=p["a"], b=p["b"],
            field=p["field"], seat=p["seat"], seed=self.seed, **extras))

    def tables(self, counts, games) -> dict:
        return self.job().tables(counts, games)

    def tie_note(self, comparison) -> str:
        from sheepsim.headtohead import tie_sentence

        return tie_sentence(comparison, self.params()["seat"])

    def methods(self) -> list[str]:
        return []

    def key_findings(self, notes: list[str]) -> list[str] | None:
        return None  # the first two notes

    def results(self, totals, games) -> StudyResult:
        from sheepsim.headtohead import COMPARISON_CAPTION
        from sheepsim.tableview import paired_change

        t = self.tables(totals, games)
        p = self.params()
        w, score = t["comparison"].iloc[0], t["comparison"].iloc[1]
        change, caption = self.score_words or (str(score["metric"]).replace("_", " "),) * 2
        notes = [f"Seat {p['seat']} playing {p['a']} instead of {p['b']} (others {p['field']}) "
                 f"changes {paired_change(w, 'win rate', rate=True, test='McNemar')} and "
                 f"{paired_change(score, change)}.", self.tie_note(t["comparison"])]
        captions = {"comparison": COMPARISON_CAPTION.format(score=caption)}
        return StudyResult(t, {}, notes, captions, key_findings=self.key_findings(notes),
                           methods=self.methods())


def _game_class(g) -> type:
    """The game's own head-to-head class (its ``studies`` module registers it), else the
    generic one."""
    g.register_studies()
    return _GAME_CLASSES.get(g.name, HeadToHeadStudy)


@register_study
class LadderStudy(Study):
    """The skill ladder of any game (:mod:`sheepsim.skill_ladder`): each rung against the
    one below for one seat on the same games, and the top rung against the bottom one.
    Keys: ``game`` (required), ``players`` (the game's default and range), ``seat``
    (1-based, default 1), ``rungs`` (a list of policies, lowest first; default the
    game's ladder)."""

    type_name = "ladder"
    summary = ("the skill ladder: each rung of play against the one below, any game (keys: game, "
               "players, seat, rungs)")
    default_block = 1_000
    default_chunk = 1 << 10
    game_entry: ClassVar[object] = None

    @classmethod
    def for_config(cls, r: StudyReader) -> type[Study]:
        if cls.game_entry is not None:
            return cls
        g = study_game(r, [g for g in games() if len(g.ladder) >= 2])
        return bind(cls, g)

    @classmethod
    def load_rules(cls, path: Path | None):
        return cls.game_entry.load_rules(path)

    @classmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        from sheepsim.skill_ladder import ladder_job, rungs_of

        g = cls.game_entry
        players = r.int_("players", required=False, default=g.default_players)
        with r.checking("players"):
            players = g.check_players(players)
        seat = r.int_("seat", min_value=1, required=False, default=1)
        if seat > players:
            r.fail("seat", f"must be between 1 and {players}, got {seat}")
        rungs = r.raw("rungs", required=False, default=list(g.ladder))
        with r.checking("rungs"):
            rungs = list(rungs_of(g, rungs if isinstance(rungs, list) else str(rungs)))
            ladder_job(g, rungs, rules=rules, players=players, seat=seat)  # names checked now
        return {"game": g.command, "players": players, "seat": seat, "rungs": rungs}

    def job(self):
        from sheepsim.skill_ladder import ladder_job

        p = self.params()
        return self._cached_job(lambda: ladder_job(self.game_entry, p["rungs"], rules=self.rules,
                                                   players=p["players"], seat=p["seat"],
                                                   seed=self.seed))

    def results(self, totals, games) -> StudyResult:
        from sheepsim.plots import ladder_chart

        t = self.job().tables(totals, games)
        ladder = t["ladder"]
        p = self.params()
        top = ladder.iloc[-1]
        notes = [f"Seat {p['seat']} playing {top['rung']} instead of {top['below']} (the others "
                 f"{top['below']}) wins {top['gain']:+.1%} more games "
                 f"(95% CI {top['gain_lo']:+.1%} to {top['gain_hi']:+.1%}): the skill gradient."]
        for _, row in ladder.iloc[:-1].iterrows():
            notes.append(f"{row['rung']} over {row['below']}: {row['gain']:+.1%} "
                         f"[{row['gain_lo']:+.1%}, {row['gain_hi']:+.1%}] (Holm p {row['pvalue_holm']:.2g}).")
        caption = ("Each rung for one seat against the rung below on the same games (the other "
                   "seats play the rung below): both win rates, the paired gain with its 95% "
                   "interval, McNemar p-values Holm-adjusted over the steps; skill_gradient: the "
                   "top rung against the bottom one.")
        return StudyResult(t, {"ladder": lambda: ladder_chart(ladder)}, notes,
                           {"ladder": caption})
