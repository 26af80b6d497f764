"""Rules files of games on the harness: one ``[<command>]`` table of whole numbers, the
keys and their smallest values declared once by the machine's ``RULES``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sheepsim.rulesfile import Reader, read_toml


@dataclass(frozen=True)
class MachineRules:
    """A validated rules file: ``values`` in the order of the machine's ``RULES``."""

    game: str  # the game's command: the harness finds the game from its rules
    source: str
    sha256: str
    values: tuple[tuple[str, int], ...]

    def __getitem__(self, key: str) -> int:
        return dict(self.values)[key]

    def kernel_array(self) -> np.ndarray:
        """``R``: the values in ``RULES`` order (int64)."""
        return np.array([v for _, v in self.values], dtype=np.int64)


def loader(package: str, command: str, schema: dict):
    """``load_rules(path=None) -> MachineRules`` for the game whose command is
    ``command`` and whose rules file (shipped as ``standard.toml`` in ``package``) is a
    ``[command]`` table of the whole numbers ``schema`` names (key -> smallest allowed
    value); every problem is one line naming the file and the key
    (:class:`~sheepsim.errors.RulesError`)."""

    def load_rules(path=None) -> MachineRules:
        src = read_toml(path, package, "standard.toml")
        top = Reader(src.name, src.data, "")
        t = top.table_(command)
        values = tuple((key, t.int_(key, min_value=low)) for key, low in schema.items())
        t.no_unknown_keys()
        top.no_unknown_keys()
        return MachineRules(command, src.name, src.sha256, values)

    return load_rules
