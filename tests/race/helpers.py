"""Helpers for the Sheep Race tests: rules variants written as TOML text."""

from pathlib import Path

from sheepsim.games.race.rules import load_rules

STANDARD = (Path(__file__).resolve().parents[2] / "sheepsim" / "games" / "race" / "standard.toml")


def standard_text() -> str:
    return STANDARD.read_text()


def write_rules(tmp_path, text: str, name: str = "variant.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def load_text(tmp_path, text: str):
    return load_rules(write_rules(tmp_path, text))


def make_state(positions=(0,) * 6, cubes=((1, 1, 1),) * 6, trot=2, gallop=5, track=20,
               end_zone=5, max_cubes=3, stage=0, supply_blue=10, status=None):
    """A hand-built race: ``board`` (6, N_BOARD) and ``race`` (N_RACE,) int64 arrays."""
    import numpy as np

    from sheepsim.games.race import layout as L

    board = np.zeros((6, L.N_BOARD), dtype=np.int64)
    race = np.zeros(L.N_RACE, dtype=np.int64)
    for lane in range(6):
        board[lane, L.POS] = positions[lane]
        board[lane, L.RED], board[lane, L.BLUE], board[lane, L.WHITE] = cubes[lane]
        board[lane, L.TROT] = trot
        board[lane, L.GALLOP] = gallop
        board[lane, L.STATUS] = L.RUNNING if status is None else status[lane]
    race[L.TRACK] = track
    race[L.EZ_FIRST] = track - end_zone + 1
    race[L.MAX_CUBES] = max_cubes
    race[L.STAGE] = stage
    race[L.SUPPLY_BLUE] = supply_blue
    race[L.N_RUNNING] = int((board[:, L.STATUS] == L.RUNNING).sum())
    return board, race


def legal_set(board, race, lane):
    import numpy as np

    from sheepsim.games.race import engine
    from sheepsim.games.race import layout as L

    legal = np.zeros(L.N_OPTIONS, dtype=np.bool_)
    engine.legal_options(board, race, lane, legal)
    return {L.OPTION_NAMES[o] for o in range(L.N_OPTIONS) if legal[o]}


def rows_digest(*arrays) -> str:
    """sha256 (first 16 hex digits) of arrays' bytes in order (C order), for pinned rows."""
    import hashlib

    import numpy as np

    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)).hexdigest()[:16]
