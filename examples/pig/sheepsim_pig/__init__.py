"""Pig for sheepsim: an example of a game that lives outside sheepsim (see docs/guides/writing-a-game.md)."""
