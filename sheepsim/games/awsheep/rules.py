"""Loading and validating Aw, Sheep! rules files (TOML).

The shipped ``standard.toml`` holds the deck, the golden sheep's worth, the deck
reduction per player count and the rules options; a user's variant file has the same
schema. Each problem raises one :class:`~sheepsim.errors.RulesError` naming the file
and the key.
"""

from __future__ import annotations

from dataclasses import dataclass

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

    @property
    def deck_size(self) -> int:
        return sum(self.deck)

    def check_players(self, n_players) -> int:
        if isinstance(n_players, bool) or n_players not in SUPPORTED_PLAYERS:
            raise SheepsimError(f"players must be {GAME.players_listed('or')}, "
                                f"got {n_players!r}")
        return int(n_players)

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


def _read_setup(reader: Reader, n: int, deck: list[int]) -> Setup:
    rm = reader.table_("remove")
    remove = [0] * L.N_KINDS
    for name in list(rm.table):
        if name not in L.KIND_NAMES:
            rm.fail(name, f"unknown card kind; known: {', '.join(L.KIND_NAMES)}")
        k = L.KIND_NAMES.index(name)
        remove[k] = rm.int_(name, min_value=0)
        if remove[k] > deck[k]:
            rm.fail(name, f"removes {remove[k]} but the deck has {deck[k]}")
    aside = reader.int_("set_aside_random", min_value=0)
    left = sum(deck) - sum(remove) - aside
    if left < 0:
        reader.fail("set_aside_random", f"sets aside {aside} but only "
                                        f"{sum(deck) - sum(remove)} cards are left")
    if left < n or left % n:
        reader.fail("set_aside_random", f"leaves {left} cards, which do not deal equally "
                                        f"to {n} players (at least one each)")
    reader.no_unknown_keys()
    return Setup(tuple(remove), aside, left // n)


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
    if sum(deck) > L.MAX_DECK:
        dk.fail("sheep", f"at most {L.MAX_DECK} cards in the deck, got {sum(deck)}")

    sc = top.table_("scoring")
    golden_worth = sc.int_("golden_worth", min_value=0)
    sc.no_unknown_keys()

    st = top.table_("setup")
    setups = {n: _read_setup(st.table_(str(n)), n, deck) for n in SUPPORTED_PLAYERS}
    st.no_unknown_keys()

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
                        run_passes=bool(L.FLOCK_OFF_RUN_NAMES.index(run_rule)))


__all__ = ["AwSheepRules", "RulesError", "Setup", "load_rules"]
