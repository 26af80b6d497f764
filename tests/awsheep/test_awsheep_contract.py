"""Aw, Sheep!'s side of the policy contract (issue 29, item 3): the built-ins choose the
same through a plug-in's path as through their own, the decision kinds and their option
rows are as documented (layout ``K_*``) and the trace's ``decisions`` table says what
each policy was asked; a broken plug-in stops ``play`` with one line. The generic
properties (seat streams, vandal plug-ins) are in tests/conformance/test_policy_contract.py."""

import re

import numba
import numpy as np
import pytest

from sheepsim import cli
from sheepsim.errors import SheepsimError
from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep.policies import decide
from sheepsim.games.awsheep.trace import trace_round


@numba.njit
def as_random(kind, view, opts, n, rand):
    return decide(L.RANDOM, kind, view, opts, n, rand)


@numba.njit
def as_greedy(kind, view, opts, n, rand):
    return decide(L.GREEDY, kind, view, opts, n, rand)


@numba.njit
def as_counter(kind, view, opts, n, rand):
    return decide(L.COUNTER, kind, view, opts, n, rand)


@numba.njit
def off_the_end(kind, view, opts, n, rand):
    return n


def test_builtins_choose_the_same_through_the_plugin_path():
    """The built-ins called as plug-ins (copies of view and opts, through
    ``jit.user_policy_chain``; ``random`` then builds the view it never reads) make the
    same choices, drawing the same numbers, as the built-ins on their own fast paths."""
    me = __name__
    plugged = [f"{me}:as_random", f"{me}:as_greedy", f"{me}:as_counter", "random"]
    builtin = ["random", "greedy", "counter", "random"]
    asked = 0
    for game in range(12):
        draft = game % 2 == 1
        a = trace_round(players=4, policies=plugged, seed=11, game=game, draft=draft)
        b = trace_round(players=4, policies=builtin, seed=11, game=game, draft=draft)
        assert a.decisions.equals(b.decisions)
        assert np.array_equal(a.log, b.log)
        asked += len(a.decisions)
    assert asked > 300


def _hands(row, players):
    base = L.LOG_HEAD + L.MAX_PLAYERS
    return row[base:base + players * L.N_KINDS].reshape(players, L.N_KINDS).copy()


def _play_rows(hands, seat):
    """``engine.play_options`` in Python, from the rules in shared/rulebooks/README.md: each action card at
    each rival holding cards (none, or a Doghouse as the last card: untargeted), sheep
    untargeted; kinds in order, rivals in seat order."""
    rivals = [t for t in range(len(hands)) if t != seat and hands[t].sum() > 0]
    rows = []
    for k in range(L.N_KINDS):
        if hands[seat, k] == 0:
            continue
        targeted = k not in (L.SHEEP, L.GOLDEN) and not (k == L.DOGHOUSE
                                                           and hands[seat].sum() == 1)
        rows += [(k, t) for t in rivals] if targeted and rivals else [(k, L.NO_TARGET)]
    return rows


def _expected_decisions(log, players):
    """``(seat, kind name, option rows, chosen row)`` for the plays, Methane discards and
    Sheep Show guesses of a traced round, rebuilt from its event log (each row holds the
    hands after the event): the decisions with two or more options, in order."""
    out = []
    for row in log:
        ev, seat, kind, target, a, b = (int(x) for x in row[:6])
        hands = _hands(row, players)
        if ev == L.EV_PLAY:
            hands[seat, kind] += 1  # the hand it chose from
            rows = _play_rows(hands, seat)
            out.append((seat, "play", rows, (kind, target)))
        elif ev == L.EV_DISCARD:
            hands[seat, kind] += 1
            rows = [(k, target) for k in range(L.N_KINDS) if hands[seat, k]]
            out.append((seat, "discard", rows, (kind, target)))
        elif ev == L.EV_GUESS:
            out.append((seat, "guess", [(1, b), (0, b)], (a, b)))
    return [d for d in out if len(d[2]) > 1]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_decision_kinds_option_rows_and_the_decisions_table(players):
    """Every play, Methane discard and Sheep Show guess with two or more options is a
    row of the trace's ``decisions`` table, in order, with the option rows the layout
    documents (``K_PLAY`` ``[kind, target or -1]``, ``K_DISCARD`` ``[kind, actor]``,
    ``K_GUESS`` ``[1 sheep / 0 not, pile position]``): ``n_options`` is their number and
    ``choice`` the row of what the log shows happened. Draft picks (phase 1) and the
    other kinds are counted and named."""
    checked = {"play": 0, "discard": 0, "guess": 0}
    for game in range(30):
        draft = game % 3 == 0
        tr = trace_round(players=players, policies="random", seed=4, game=game, draft=draft)
        d = tr.decisions
        assert list(d.columns) == ["decision", "seat", "phase", "kind", "n_options", "choice"]
        assert list(d.decision) == list(range(len(d)))
        assert set(d.kind) <= set(L.KIND_DECISIONS)
        assert ((d.phase == L.PHASE_DRAFT) == (d.kind == "draft")).all()
        assert ((d.n_options >= 2) & (d.choice >= 0) & (d.choice < d.n_options)).all()
        assert (d[d.kind == "guess"].n_options == 2).all()
        drafts = int((tr.log[:, 0] == L.EV_DRAFT).sum())
        assert (d.kind == "draft").sum() <= drafts and (drafts > 0) == draft
        asked = d[d.kind.isin(["play", "discard", "guess"])]
        expected = _expected_decisions(tr.log, players)
        assert len(asked) == len(expected)
        for r, (seat, kind, rows, happened) in zip(asked.itertuples(), expected, strict=True):
            assert (r.seat - 1, r.kind, r.n_options) == (seat, kind, len(rows))
            assert rows[r.choice] == happened
            checked[kind] += 1
    assert checked["play"] > 100 and checked["discard"] > 5


def test_a_sheep_show_guess_is_a_decision():
    """Guesses are asked of the built-ins too (the default guess rule draws from the
    seat's stream on a tie): find a traced round with a Sheep Show and check them."""
    for game in range(400):
        tr = trace_round(players=3, policies="random", seed=2, game=game)
        if tr.end == "sheep_show":
            guesses = tr.decisions[tr.decisions.kind == "guess"]
            expected = [e for e in _expected_decisions(tr.log, 3) if e[1] == "guess"]
            assert len(guesses) == len(expected) > 0
            for r, (seat, _, rows, happened) in zip(guesses.itertuples(), expected,
                                                     strict=True):
                assert r.seat - 1 == seat and rows[r.choice] == happened
            return
    pytest.fail("no Sheep Show in 400 rounds")


def test_a_failure_names_the_policy_seat_and_round():
    """A plug-in that answers out of range stops the run at its first answer: the trace
    (draft on: its first answer is a draft pick; off: a play or sub-decision) names it,
    its seat, the round and the answer."""
    spec = f"{__name__}:off_the_end"
    pattern = (re.escape(f"policy '{spec}' (seat 2) in game ")
               + r"(\d+) returned option (\d+), not one of its \2 legal options 0\.\.")
    for draft in (True, False):
        with pytest.raises(SheepsimError, match=pattern) as err:
            trace_round(players=3, policies=["random", spec, "random"], seed=0, game=7,
                        draft=draft)
        assert re.search(pattern, str(err.value)).group(1) == "7"
    # whole games and the command line: tests/conformance/test_policy_contract.py


def test_trace_table_option_prints_the_decisions(capsys):
    code = cli.main(["awsheep", "trace", "--players", "3", "--seed", "5", "--table",
                     "decisions", "--format", "json", "--quiet", "--policy", "random"])
    assert code == 0
    text = capsys.readouterr().out
    tr = trace_round(players=3, seed=5)
    assert '"decisions"' in text and text.count('"n_options"') == len(tr.decisions) > 0
