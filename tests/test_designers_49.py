"""Designers' commands that cannot mislead (issue 49): the pairing note reads right both
ways, ``--out`` writes every table, the long-run advice is one the command takes,
``tune`` writes only a winner that beat the base (and flags one at the edge of its range),
and ``card-value`` Holm-adjusts its p-values."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from sheepsim.cli import main


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ pairing note
def _two_variant_job(blocks=20):
    rules = SimpleNamespace(sha256="0" * 64)
    return SimpleNamespace(
        blocks=blocks, games=blocks * 100,
        variants=[SimpleNamespace(label="base", edits="", rules=rules),
                  SimpleNamespace(label="edit", edits="k=1", rules=rules)],
        metrics=[SimpleNamespace(name="m", unit="points", better="lower")])


@pytest.mark.parametrize(("sign", "word", "not_word"), [(1, "narrowed", "widened"),
                                                        (-1, "widened", "narrowed")])
def test_the_pairing_note_says_narrowed_or_widened_as_the_ratio_says(sign, word, not_word):
    """Leave-one-block-out values moving together (sign 1) make the paired standard
    error smaller than the unpaired one; moving against each other (sign -1), larger:
    the note must say which, not "narrowed to 1.41" (issue 49)."""
    from sheepsim.variant_runs import metric_tables

    rng = np.random.default_rng(1)
    noise = rng.normal(size=20)
    base = np.concatenate([[1.0], 1.0 + 0.01 * noise])
    other = np.concatenate([[1.2], 1.2 + sign * 0.01 * noise + 0.001 * rng.normal(size=20)])
    d = metric_tables(_two_variant_job(), {(0, "m"): base, (1, "m"): other})["differences"]
    ratio = float(d["se_ratio"].iloc[0])
    assert (ratio < 1) if sign == 1 else (ratio > 1)
    note = d["pairing_note"].iloc[0]
    assert word in note and not_word not in note
    assert f"{ratio:.2f}" in note
