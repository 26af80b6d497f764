"""Helpers for the Dask tests: the same small runs on any backend, compared exactly."""

from __future__ import annotations

from sheepsim.output import format_csv

#: small but many-chunk runs of each game's main commands (chunks far smaller than the
#: defaults, so every worker gets several and the order of completion varies)
RUNS = {
    "race-odds": dict(games=30_000, chunk_size=3_000),
    "race-play": dict(games=400, chunk_size=50),
    "panic-play": dict(games=240, chunk_size=30),
}


def run_tables(kind: str, *, seed: int = 5, **backend) -> dict:
    """The result tables of run ``kind`` on ``backend`` (``backend=`` or ``threads=``)."""
    size = RUNS[kind]
    if kind == "race-odds":
        from sheepsim.games.race.jobs import estimate_races

        return estimate_races(seed=seed, progress=False, **size, **backend)[1].tables
    if kind == "race-play":
        from sheepsim.games.race.jobs import estimate_games

        return estimate_games(players=4, seed=seed, progress=False, **size, **backend)[1].tables
    from sheepsim.games.panic.simulate import play_games

    return play_games(players=4, policies="random", seed=seed, progress=False,
                      **{"games": size["games"], "chunk_size": size["chunk_size"]}, **backend).tables


def as_csv(tables: dict) -> dict[str, bytes]:
    """Every table as the CSV bytes the CLI writes: equal means byte-identical output."""
    return {name: format_csv(df).encode() for name, df in tables.items()}
