"""The Sheep Race rules data: loading and validation.

``load_rules()`` returns the shipped standard set (``standard.toml``, reconstructed as
fixed in the rules README); ``load_rules(path)`` a user's variant with the same schema.
Every problem raises :class:`~sheepsim.errors.RulesError` naming the file and key.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sheepsim.errors import RulesError, SheepsimError
from sheepsim.games.race.layout import N_LANES, KernelRules  # N_LANES: re-exported too
from sheepsim.rulesfile import Reader, read_toml

COLOURS = ("red", "blue", "white")
STAGES = ("semifinal", "final")
#: Dice totals 7 and 8 select lanes 6 and 5; 9 selects the Lazy Sheep (the rulebook).
MAX_TOTAL = 9
# Typo guards (a rules file past these is refused before anything runs): far beyond any
# sensible variant (the standard board has 20 squares, 3 cubes, moves up to 6, supplies
# up to 19, payoffs up to 18), yet every race still ends well inside engine.MAX_TURNS.
MAX_TRACK_LENGTH = 200
MAX_CUBES_PER_CARD = 20
MAX_MOVE = 50  # trot and gallop squares
MAX_SUPPLY = 500
MAX_PAYOFF = 1_000


@dataclass(frozen=True)
class Card:
    name: str
    nation: str
    red: int
    blue: int
    white: int
    trot: int
    gallop: int

    @property
    def cubes(self) -> int:
        return self.red + self.blue + self.white


@dataclass(frozen=True)
class RaceRules:
    """Validated rules. Arrays are read-only numpy views for the kernels.

    Attributes: ``track_length`` (squares), ``end_zone`` (last N squares),
    ``max_cubes``; ``supply`` ``(3,)`` total red/blue/white cubes in the game;
    ``dice`` per stage ``(n_dice, max_faces)`` with ``dice_nfaces`` ``(n_dice,)``;
    ``payoff_semifinal`` ``(3, 6)`` points by place and lane; ``payoff_final`` ``(6,)``;
    ``bonus_two``/``bonus_three``; ``cards``; ``source``/``sha256`` of the file.
    """

    track_length: int
    end_zone: int
    max_cubes: int
    supply: np.ndarray
    dice_semifinal: list[list[int]]
    dice_final: list[list[int]]
    payoff_semifinal: np.ndarray
    payoff_final: np.ndarray
    bonus_two: int
    bonus_three: int
    cards: tuple[Card, ...]
    source: str = "<standard>"
    sha256: str = ""
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    # -- lookups -------------------------------------------------------------
    @property
    def card_names(self) -> list[str]:
        return [c.name for c in self.cards]

    def card_index(self, name: str) -> int:
        key = name.strip().lower()
        if key not in self._index:
            known = ", ".join(self.card_names)
            raise SheepsimError(f"unknown card {name!r} in {self.source}; known cards: {known}")
        return self._index[key]

    def lanes(self, names: str | list[str] | None = None) -> np.ndarray:
        """Card indices for lanes 1-6 from names (default: the file's first six cards)."""
        if names is None:
            return np.arange(N_LANES, dtype=np.int64)
        if isinstance(names, str):
            names = [n for n in names.split(",")]
        names = [n.strip() for n in names]
        if len(names) != N_LANES or any(not n for n in names):
            raise SheepsimError(f"lanes must name exactly {N_LANES} cards, got {len(names)}")
        idx = [self.card_index(n) for n in names]
        if len(set(idx)) != N_LANES:
            twice = next(names[i] for i in range(N_LANES) if idx[i] in idx[:i])
            raise SheepsimError(f"lanes must name 6 different cards, {twice} is named twice")
        return np.array(idx, dtype=np.int64)

    # -- kernel arrays -------------------------------------------------------
    def card_table(self) -> np.ndarray:
        """``(n_cards, 5)`` int64: red, blue, white, trot, gallop."""
        return np.array(
            [[c.red, c.blue, c.white, c.trot, c.gallop] for c in self.cards], dtype=np.int64
        )

    def dice_arrays(self, stage: str) -> tuple[np.ndarray, np.ndarray]:
        """``(faces (n_dice, max_faces) int64, nfaces (n_dice,) int64)`` for a stage."""
        dice = self.dice_semifinal if stage == "semifinal" else self.dice_final
        width = max(len(d) for d in dice)
        faces = np.zeros((len(dice), width), dtype=np.int64)
        for i, d in enumerate(dice):
            faces[i, : len(d)] = d
        return faces, np.array([len(d) for d in dice], dtype=np.int64)

    def kernel_rules(self):
        """The rules as one :class:`~sheepsim.games.race.layout.KernelRules` record, the
        only place rules-derived kernel values (such as the End Zone's first square) are
        computed. Wrappers build it once per job and pass it to every chunk."""
        faces_s, nfaces_s = self.dice_arrays("semifinal")
        faces_f, nfaces_f = self.dice_arrays("final")
        return KernelRules(
            track=int(self.track_length), ez_first=int(self.track_length - self.end_zone + 1),
            max_cubes=int(self.max_cubes), blue_total=int(self.supply[1]),
            cards=self.card_table(), faces_semi=faces_s, nfaces_semi=nfaces_s,
            faces_final=faces_f, nfaces_final=nfaces_f,
            payoffs=np.vstack([self.payoff_semifinal, self.payoff_final[None, :]]),
            bonus=np.array([self.bonus_two, self.bonus_three], dtype=np.int64))

    def total_distribution(self, stage: str) -> dict[int, float]:
        """Exact distribution of the dice total, from the faces."""
        dist = {0: 1.0}
        for die in self.dice_semifinal if stage == "semifinal" else self.dice_final:
            new: dict[int, float] = {}
            for t, p in dist.items():
                for f in die:
                    new[t + f] = new.get(t + f, 0.0) + p / len(die)
            dist = new
        return dict(sorted(dist.items()))


def check_stage(stage: str) -> str:
    if stage not in STAGES:
        raise SheepsimError(f"unknown stage {stage!r}; choose semifinal or final")
    return stage


def load_rules(path: str | Path | None = None) -> RaceRules:
    """Load and validate a Sheep Race rules file (default: the shipped standard rules)."""
    src = read_toml(path, "sheepsim.games.race", "standard.toml")
    top = Reader(src.name, src.data, "")
    race = top.table_("race")
    top.no_unknown_keys()

    track_length, end_zone, max_cubes = _read_board(race)
    supply = _read_supply(race)
    dice = _read_dice(race)
    semi, final, bonus_two, bonus_three = _read_payoffs(race)
    cards = [_read_card(cr, max_cubes) for cr in race.tables("cards")]
    race.no_unknown_keys()
    index = _card_index(race, cards)
    _check_supply_holds_six_cards(src.name, supply, cards)

    return RaceRules(
        track_length=track_length,
        end_zone=end_zone,
        max_cubes=max_cubes,
        supply=supply,
        dice_semifinal=dice["semifinal"],
        dice_final=dice["final"],
        payoff_semifinal=np.array(semi, dtype=np.int64),
        payoff_final=np.array(final, dtype=np.int64),
        bonus_two=bonus_two,
        bonus_three=bonus_three,
        cards=tuple(cards),
        source=src.name,
        sha256=src.sha256,
        _index=index,
    )


def _read_board(race: Reader) -> tuple[int, int, int]:
    """``(track_length, end_zone, max_cubes)``."""
    track_length = race.int_("track_length", min_value=1, max_value=MAX_TRACK_LENGTH)
    end_zone = race.int_("end_zone", min_value=0)
    max_cubes = race.int_("max_cubes", min_value=1, max_value=MAX_CUBES_PER_CARD)
    if max_cubes < 2:
        race.fail("max_cubes", f"must be at least 2, got {max_cubes}: a sheep with no cubes "
                               "outside the End Zone can only REST (recover 2 blue cubes)")
    if end_zone > track_length:
        race.fail("end_zone", f"{end_zone} is larger than track_length {track_length}")
    return track_length, end_zone, max_cubes


def _read_supply(race: Reader) -> np.ndarray:
    """Red, blue, white cubes in the game ``(3,)`` int64."""
    supply_r = race.table_("supply")
    supply = np.array([supply_r.int_(c, min_value=0, max_value=MAX_SUPPLY) for c in COLOURS],
                      dtype=np.int64)
    supply_r.no_unknown_keys()
    return supply


def _read_dice(race: Reader) -> dict[str, list[list[int]]]:
    """The dice of each stage: a list of dice, each a list of faces."""
    dice_r = race.table_("dice")
    dice = {}
    for stage in STAGES:
        d = dice_r.int_matrix(stage, min_value=0)
        if any(len(die) == 0 for die in d):
            dice_r.fail(stage, "a die has no faces")
        lo = sum(min(die) for die in d)
        hi = sum(max(die) for die in d)
        if lo < 1 or hi > MAX_TOTAL:
            dice_r.fail(stage, f"dice totals must lie between 1 and {MAX_TOTAL} (they span {lo}-{hi})")
        dice[stage] = d
    dice_r.no_unknown_keys()
    return dice


def _read_payoffs(race: Reader):
    """``(semifinal 3x6 rows, final 6, bonus_two, bonus_three)``."""
    pay_r = race.table_("payoffs")
    semi = pay_r.int_matrix("semifinal", row_length=N_LANES, min_value=0, rows=3,
                           max_value=MAX_PAYOFF)
    final = pay_r.int_list("final", length=N_LANES, min_value=0, max_value=MAX_PAYOFF)
    bonus_two = pay_r.int_("bonus_two", min_value=0, max_value=MAX_PAYOFF)
    bonus_three = pay_r.int_("bonus_three", min_value=0, max_value=MAX_PAYOFF)
    pay_r.no_unknown_keys()
    return semi, final, bonus_two, bonus_three


def _read_card(cr: Reader, max_cubes: int) -> Card:
    card = Card(
        name=cr.str_("name"),
        nation=cr.str_("nation"),
        red=cr.int_("red", min_value=0, max_value=MAX_CUBES_PER_CARD),
        blue=cr.int_("blue", min_value=0, max_value=MAX_CUBES_PER_CARD),
        white=cr.int_("white", min_value=0, max_value=MAX_CUBES_PER_CARD),
        trot=cr.int_("trot", min_value=0, max_value=MAX_MOVE),
        gallop=cr.int_("gallop", min_value=0, max_value=MAX_MOVE),
    )
    if card.cubes > max_cubes:
        cr.fail("red", f"card {card.name!r} holds {card.cubes} cubes, more than max_cubes {max_cubes}")
    cr.no_unknown_keys()
    return card


def _card_index(race: Reader, cards: list[Card]) -> dict[str, int]:
    """Card number by lower-case name; at least six cards, no name twice."""
    if len(cards) < N_LANES:
        race.fail("cards", f"needs at least {N_LANES} cards, got {len(cards)}")
    index: dict[str, int] = {}
    for i, c in enumerate(cards):
        key = c.name.strip().lower()
        if key in index:
            race.fail(f"cards[{i}].name", f"duplicate card name {c.name!r}")
        index[key] = i
    return index


def _check_supply_holds_six_cards(name: str, supply: np.ndarray, cards: list[Card]) -> None:
    """The supply must hold the cubes of any six cards at the start of a race."""
    for k, colour in enumerate(COLOURS):
        need = sum(heapq.nlargest(N_LANES, [getattr(c, colour) for c in cards]))
        if supply[k] < need:
            raise RulesError(
                name, f"race.supply.{colour}",
                f"{supply[k]} cubes, but six cards of this file can hold {need} at the start of a race",
            )
