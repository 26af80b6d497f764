"""The whole-game harness: a game is its rules, the harness plays it.

A game built on the harness supplies a *state machine* (its ``machine`` module, see
:mod:`sheepsim.harness.slots` for the contract) and a declaration
(:func:`sheepsim.harness.declare.game`); the harness owns everything else, once for
every such game:

* the game loop and the entry kernel (one per game, built from
  :mod:`sheepsim.harness.loop` by :func:`sheepsim.jit.rebind` and cached on disk; plug-in
  policies are its argument, each compiled once, :mod:`sheepsim.policy_values`);
* asking a policy: each seat draws from its own stream keyed by ``(seed, game, seat)``,
  a lone option is taken without asking, every answer is range-checked, a plug-in gets
  copies of its inputs (:func:`sheepsim.policy_values.policy_values`), and the first failure
  stops the run with one line naming the policy, its seat, the game and the answer;
* the decisions log and the trace, the whole-game job (chunks, ``by_seat``,
  ``by_policy``, game length, decisions by kind, outcomes for head-to-heads on common
  random numbers, ``--precision``, metadata), the shared commands ``play``,
  ``compare``, ``balance`` and ``trace``, the designers' metrics and a report study.

Importing this package imports neither numba nor pandas.
"""
