"""Loading and validating Aw, Sheep! rules files (TOML).

What holds for every player count (the deck, scoring, options, the keys and types of
every ``setup.N``) is validated at load; whether ``setup.N`` fits the deck (its removals,
the cards left to deal) matters only to ``N`` players, so it is checked when ``N``
players play (:meth:`AwSheepRules.check_players`): a file whose 3-player setup no longer
fits (a card kind edited out) still plays 4 players.

The shipped ``standard.toml`` holds the deck, the golden sheep's worth, the deck
reduction per player count and the rules options; a user's variant file has the same
schema. Each problem raises one :class:`~sheepsim.errors.RulesError` naming the file
and the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sheepsim.errors import RulesError, SheepsimError
from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep.game import GAME
from sheepsim.rulesfile import Reader, read_toml

PACKAGE = "sheepsim.games.awsheep"
DEFAULT_NAME = "standard.toml"
SUPPORTED_PLAYERS = GAME.player_counts


@dataclass(frozen=True)
class Setup:
    """Deck reduction for one player count: named removals, then random set-aside."""

    remove: tuple[int, ...]  # by kind
    aside_random: int
    hand_size: int


@dataclass(frozen=True)
class AwSheepRules:
    """A validated rules set. ``kernel_array(n)`` packs it for the kernels."""

    source: str  # the file it was read from, or "<standard>/standard.toml"
    sha256: str
    deck: tuple[int, ...]  # by kind (layout.KIND_NAMES)
    golden_worth: int
    setups: dict[int, Setup]
    draft: bool
    taker_chooses: bool  # doghouse_cards = "drawn_at_random"
    tie_break: int
    run_passes: bool = True  # flock_off_run = "reaches" (default) or "equals"
    #: player count -> ``(key, problem)``: why this file cannot be played by that many (its
    #: ``setup.N`` does not fit the deck); the loader keeps these and :meth:`check_players` raises the one
    #: of the count in play, so an edit is judged only for the counts a run plays
    setup_problems: dict[int, tuple[str, str]] = field(default_factory=dict)

    @property
    def deck_size(self) -> int:
        return sum(self.deck)

    def check_players(self, n_players) -> int:
        """``n_players`` as an int, or one line: a count the game does not take, or one
        this file's ``setup.N`` cannot deal (naming the key and the count)."""
        if isinstance(n_players, bool) or n_players not in SUPPORTED_PLAYERS:
            raise SheepsimError(f"players must be {GAME.players_listed('or')}, "
                                f"got {n_players!r}")
        problem = self.setup_problems.get(int(n_players))
        if problem is not None:
            raise RulesError(self.source, *problem)
        return int(n_players)

    def problems_for(self, players=None) -> list[str]:
        """The one-line problems of playing ``players`` (a count, counts, or None: every
        count the game takes) with these rules; empty: every one is playable."""
        counts = SUPPORTED_PLAYERS if players is None else (
            [players] if isinstance(players, int) else list(players))
        return [str(RulesError(self.source, *self.setup_problems[n])) for n in counts
                if n in self.setup_problems]

    def kernel_array(self, n_players: int, draft: bool | None = None) -> np.ndarray:
        """The rules vector ``R`` (int64, ``layout.R_LEN``); ``draft`` overrides the
        file's switch (``None``: keep it)."""
        n = self.check_players(n_players)
        s = self.setups[n]
        R = np.zeros(L.R_LEN, dtype=np.int64)
        R[L.R_N_PLAYERS] = n
        R[L.R_DECK:L.R_DECK + L.N_KINDS] = self.deck
        R[L.R_REMOVE:L.R_REMOVE + L.N_KINDS] = s.remove
        R[L.R_ASIDE_RANDOM] = s.aside_random
        R[L.R_HAND_SIZE] = s.hand_size
        R[L.R_GOLDEN_WORTH] = self.golden_worth
        R[L.R_DRAFT] = int(self.draft if draft is None else draft)
        R[L.R_TAKER_CHOOSES] = int(self.taker_chooses)
        R[L.R_TIE_BREAK] = self.tie_break
        R[L.R_RUN_PASSES] = int(self.run_passes)
        return R


def _read_setup(reader: Reader, n: int, deck: list[int]) -> tuple[Setup | None, tuple[str, str] | None]:
    """``setup.N``: its keys and types are checked now (a typo is wrong for every count);
    what depends on the deck (removals it holds, cards left to deal to ``n`` players)
    comes back as the problem of count ``n``, raised only when ``n`` players play."""
    rm = reader.table_("remove")
    remove = [0] * L.N_KINDS
    for name in list(rm.table):
        if name not in L.KIND_NAMES:
            rm.fail(name, f"unknown card kind; known: {', '.join(L.KIND_NAMES)}")
        remove[L.KIND_NAMES.index(name)] = rm.int_(name, min_value=0)
    aside = reader.int_("set_aside_random", min_value=0)
    reader.no_unknown_keys()
    for k, name in enumerate(L.KIND_NAMES):
        if remove[k] > deck[k]:
            return None, (rm.key(name), f"removes {remove[k]} but the deck has {deck[k]} "
                                        f"(the {n}-player setup)")
    left = sum(deck) - sum(remove) - aside
    if left < 0:
        return None, (reader.key("set_aside_random"),
                      f"sets aside {aside} but only {sum(deck) - sum(remove)} cards are left "
                      f"(the {n}-player setup)")
    if left < n or left % n:
        return None, (reader.key("set_aside_random"),
                      f"leaves {left} cards, which do not deal equally to {n} players "
                      f"(at least one each)")
    return Setup(tuple(remove), aside, left // n), None


def _doghouse_cards(op: Reader) -> bool:
    """``doghouse_cards``: "target_chooses" (default) or "drawn_at_random" -> True when
    drawn at random. The older boolean ``doghouse_taker_chooses`` (true: drawn at
    random) is still read; giving both is refused."""
    old = "doghouse_taker_chooses"
    if old in op.table:
        if "doghouse_cards" in op.table:
            op.fail(old, "give doghouse_cards or the older doghouse_taker_chooses, not both")
        return op.bool_(old)
    name = op.str_("doghouse_cards", required=False, default=L.DOGHOUSE_CARDS_NAMES[0],
                   choices=L.DOGHOUSE_CARDS_NAMES)
    return bool(L.DOGHOUSE_CARDS_NAMES.index(name))


def load_rules(path=None) -> AwSheepRules:
    """Read and validate a rules file (``None``: the shipped standard rules)."""
    src = read_toml(path, PACKAGE, DEFAULT_NAME)
    top = Reader(src.name, src.data, "")

    dk = top.table_("deck")
    deck = [dk.int_(name, min_value=0) for name in L.KIND_NAMES]
    dk.no_unknown_keys()
    if deck[L.SHEEP] + deck[L.GOLDEN] == 0:
        dk.fail("sheep", "the deck needs at least one sheep card")
    if sum(deck) > L.MAX_DECK:  # the whole deck's problem, not one kind's
        kinds = ", ".join(f"{name} {n}" for name, n in zip(L.KIND_NAMES, deck, strict=True))
        top.fail("deck", f"{sum(deck)} cards in all ({kinds}); sheepsim plays at most "
                         f"{L.MAX_DECK} (the rulebook's deck has 36)")

    sc = top.table_("scoring")
    golden_worth = sc.int_("golden_worth", min_value=0)
    sc.no_unknown_keys()

    st = top.table_("setup")
    read = {n: _read_setup(st.table_(str(n)), n, deck) for n in SUPPORTED_PLAYERS}
    st.no_unknown_keys()
    setups = {n: s for n, (s, _) in read.items() if s is not None}
    problems = {n: p for n, (_, p) in read.items() if p is not None}

    op = top.table_("options")
    draft = op.bool_("draft")
    taker = _doghouse_cards(op)
    tie = op.str_("tie_break", choices=L.TIE_BREAK_NAMES)
    run_rule = op.str_("flock_off_run", required=False, default="reaches",
                       choices=L.FLOCK_OFF_RUN_NAMES)
    op.no_unknown_keys()
    top.no_unknown_keys()

    return AwSheepRules(source=src.name, sha256=src.sha256, deck=tuple(deck),
                        golden_worth=golden_worth, setups=setups, draft=draft,
                        taker_chooses=taker, tie_break=L.TIE_BREAK_NAMES.index(tie),
                        run_passes=bool(L.FLOCK_OFF_RUN_NAMES.index(run_rule)),
                        setup_problems=problems)


__all__ = ["AwSheepRules", "RulesError", "Setup", "load_rules"]
