"""The JSON API of ``sheepsim serve``: a request is a CLI command run in this process.

``GET /api/race/odds?position=...&policy=saver`` (or ``ev``, ``advise``, and ``move``:
one turn played on the position) becomes ``sheepsim race odds
--position=... --policy=saver --format=json`` (plus the server's ``--rules``), parsed by
the CLI's own parser and run by :func:`sheepsim.cli.execute`; the answer is what that
command prints (captured by :func:`sheepsim.output.captured_output`), byte for byte. A
bad request is HTTP 400 with ``{"error": "<the CLI's one-line message>"}``, in the API's
words: the CLI's options are named as the query's parameters (:func:`api_wording`:
``games: not a whole number: 'abc'``, not ``argument --games: ...``).

What the server adds to the CLI's checks, because a web request is not a person at
their own terminal:

* a query of at most :data:`MAX_QUERY` characters, parameters named once, no control
  characters;
* no files: ``position`` is the position itself (the CLI also reads one from a file),
  and ``--rules`` is the server's;
* no code: pace policies are the built-in ones (a ``package.module:function`` policy
  would import that module), and not ``lookahead`` or ``lookahead-exact`` (whole games only);
* bounded work: simulations up to :data:`MAX_RACES` races per request (``games`` times
  the 9 pace options for ``advise``) and exact solves up to :data:`MAX_JOINT_STATES`
  joint states (the standard semifinal from the start has 966,708); a request past
  either is refused at once with a message saying so;
* answers kept: the last :data:`ANSWERS_KEPT` questions answered are answered again from
  memory (every answer is the same for the same question: exact, or simulated with a
  seed, 0 by default), without waiting in the queue: at a table every player's page asks
  the bet EVs of the same position after each turn, and an undo or a shared link asks
  again what was asked before;
* a fair queue: :data:`MAX_BUSY` requests are solved at once, up to :data:`MAX_QUEUE` more
  wait their turn in the order they came, each for at most :data:`MAX_WAIT` seconds; a
  request past the queue's length or its wait gets HTTP 503 saying how busy the server is
  (the page asks again).
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections import OrderedDict, deque
from urllib.parse import parse_qsl

from sheepsim.errors import SheepsimError

#: longest query string answered (characters); a position is under 100
MAX_QUERY = 2_000
#: races one request may simulate (odds/ev: games; advise: games x 9 options): well
#: under a second of CPU from a mid-race position with the random pace policy
MAX_RACES = 200_000
#: joint states an exact solve may visit (the solver's own limit is 50 million): the
#: standard semifinal from the start visits 966,708 (0.05 s of CPU), the scarce-blue
#: variant of docs/performance-archive.md 6.3 million (0.7 s); a position of 6.9 million took
#: a 0.75 GB process
MAX_JOINT_STATES = 8_000_000
#: requests solved at once; more wait in the queue
MAX_BUSY = 4
#: requests that may wait for a solver at once; one more gets 503 at once
MAX_QUEUE = 48
#: seconds a request waits in the queue before it gets 503
MAX_WAIT = 20.0
#: answers kept in memory (the latest asked; errors are not kept): a whole 3-player
#: game through the page asks about 310 questions; an answer is 1.5-26 kB of JSON (the
#: bet EVs the largest), so at most about 26 MB are kept
ANSWERS_KEPT = 1_000
#: the solver's parameters per endpoint, named as the CLI's options
#: the standings (``race advise|ev --scores ...``): play to win the game in the final
_STANDINGS = ("scores", "seat", "objective", "tie-order", "rival-bets")
PARAMETERS = {
    "odds": ("position", "lanes", "stage", "policy", "games", "seed"),
    "ev": ("position", "lanes", "stage", "taken", "policy", "games", "seed", *_STANDINGS),
    "advise": ("position", "lane", "open", "hidden", "rival-open", "lanes", "stage", "policy",
               "games", "seed", "mc", *_STANDINGS),
    # one turn played on the position (``race move``): the page follows a game with it
    "move": ("position", "total", "option", "lanes", "stage"),
}
#: pace options ``advise`` may simulate ``games`` races for (the legal ones of these)
_ADVISE_OPTIONS = 9
_NO_SERVE = {name: f"the {name} pace policy values each option by the player's bets in whole "
                   "games: run it from the CLI (race play)"
             for name in ("lookahead", "lookahead-exact")}


def api_wording(message: str, command: str) -> str:
    """The CLI's one-line error ``message`` for a request to ``command``, its options
    named as the query's parameters: ``argument --games: ...`` -> ``games: ...``, ``the
    following arguments are required: --position, --lane`` -> ``missing parameters:
    position, lane``, and any other ``--name`` (or ``--name=value``) of a parameter the
    endpoint takes -> ``name`` (``name=value``); a hint for the Python API (``(open_bet=
    in Python)``) is left out."""
    required = re.fullmatch(r"the following arguments are required: (.*)", message)
    if required:
        names = [n.strip().removeprefix("--") for n in required.group(1).split(",")]
        return f"missing parameter{'s' * (len(names) > 1)}: {', '.join(names)}"
    message = re.sub(r" \([^()]* in Python\)", "", message)  # the Python API's spelling
    names = "|".join(re.escape(n) for n in sorted(PARAMETERS.get(command, ()), key=len, reverse=True))
    if not names:
        return message
    message = re.sub(rf"^argument --({names})(?![\w-]): ", r"\1: ", message)
    message = re.sub(rf"\bargument --({names})(?![\w-])", r"parameter \1", message)
    return re.sub(rf"(?<![\w-])--({names})(?![\w-])", r"\1", message)


class BadRequest(SheepsimError):
    """A request the API refuses: ``status`` 400 (bad input) or 503 (busy)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class Queue:
    """``slots`` requests at a time, up to ``depth`` more waiting in the order they came
    (a slot freed is handed to the longest waiting, never taken by a newcomer)."""

    def __init__(self, slots: int, depth: int):
        self.slots, self.depth = slots, depth
        self._lock = threading.Lock()
        self._free = slots
        self._waiting: deque[threading.Event] = deque()
        self.peak = 0  # the most that have waited at once

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def enter(self, timeout: float) -> bool | None:
        """Take a slot, waiting at most ``timeout`` seconds: True when taken (call
        :meth:`leave` after), False when the wait ran out, None when the queue is full."""
        with self._lock:
            if self._free and not self._waiting:
                self._free -= 1
                return True
            if len(self._waiting) >= self.depth:
                return None
            turn = threading.Event()
            self._waiting.append(turn)
            self.peak = max(self.peak, len(self._waiting))
        if turn.wait(timeout):
            return True
        with self._lock:
            if turn.is_set():  # handed a slot as the wait ran out
                return True
            self._waiting.remove(turn)
            return False

    def leave(self) -> None:
        with self._lock:
            if self._waiting:
                self._waiting.popleft().set()  # the slot goes to the longest waiting
            else:
                self._free += 1


class RaceAPI:
    """Answers ``/api/race/...`` requests: :meth:`answer` ``(path, query) -> (status,
    JSON text)``. Thread-safe; ``rules`` is the path of the server's rules file (None:
    the standard rules)."""

    def __init__(self, rules: str | None = None, *, max_races: int = MAX_RACES,
                 max_states: int = MAX_JOINT_STATES, max_busy: int = MAX_BUSY,
                 max_queue: int = MAX_QUEUE, max_wait: float = MAX_WAIT,
                 answers_kept: int = ANSWERS_KEPT):
        from sheepsim.cli import build_parser
        from sheepsim.games.race.rules import load_rules

        self.rules_path = rules
        self.rules = load_rules(rules)  # a bad rules file stops the server before it starts
        self.max_races, self.max_states, self.max_busy = max_races, max_states, max_busy
        self.max_wait = max_wait
        self._parser = build_parser()
        self.queue = Queue(max_busy, max_queue)
        self._rules_json = None
        #: the latest answers, ``{(argv, rules file's stat): JSON text}``, oldest first
        self.answers_kept = answers_kept
        self._answers: OrderedDict[tuple, str] = OrderedDict()
        self._answers_lock = threading.Lock()
        #: cleared while the server's warm-up compiles the exact solver's kernels in
        #: another process (:func:`sheepsim.serve.server.start_warm_up`): an exact
        #: question or a move waits for it rather than compile them a second time here
        self.exact_ready = threading.Event()
        self.exact_ready.set()

    # ------------------------------------------------------------------ requests
    def answer(self, path: str, query: str) -> tuple[int, str]:
        """``(HTTP status, JSON text)`` for ``GET path?query`` under ``/api/race/``."""
        from sheepsim.output import to_json

        name = path.removeprefix("/api/race/")
        if name == "rules":
            return 200, self.rules_json()
        if name not in PARAMETERS:
            return 404, to_json({"error": f"no such API: {path} (the API is /api/race/"
                                          f"{', /api/race/'.join([*PARAMETERS, 'rules'])})"})
        try:
            return 200, self.run(name, self.params(name, query))
        except BadRequest as exc:
            return exc.status, to_json({"error": api_wording(str(exc), name)})
        except SheepsimError as exc:
            return 400, to_json({"error": api_wording(str(exc), name)})

    def params(self, command: str, query: str) -> dict[str, str]:
        """The query's parameters, checked (see the module docstring)."""
        if len(query) > MAX_QUERY:
            raise BadRequest(f"the request is too long ({len(query):,} characters; at most "
                             f"{MAX_QUERY:,})")
        try:
            pairs = parse_qsl(query, keep_blank_values=True,
                              max_num_fields=2 * len(PARAMETERS[command]))
        except ValueError:
            raise BadRequest(f"too many parameters ({command} takes "
                             f"{', '.join(PARAMETERS[command])})") from None
        params: dict[str, str] = {}
        for key, value in pairs:
            if key not in PARAMETERS[command]:
                raise BadRequest(f"unknown parameter {key[:40]!r} ({command} takes "
                                 f"{', '.join(PARAMETERS[command])})")
            if key in params:
                raise BadRequest(f"parameter {key!r} is given twice")
            if any(ord(c) < 32 or c == "\x7f" for c in value):
                raise BadRequest(f"parameter {key!r} holds a control character")
            params[key] = value
        position = params.get("position")
        if position is not None and len(position.split()) < 2:
            raise BadRequest("position: write the race itself (stage, supply and six sheep, "
                             "e.g. 'semifinal supply=14 7.101 9.110 F1 X17 12.010 0.030'); "
                             "the server reads no files")
        policy = params.get("policy", "").strip()
        if ":" in policy:
            raise BadRequest(f"policy {policy[:80]!r}: the server runs the built-in pace policies "
                             "(greedy, saver, steady, random, partisan); user policies run from "
                             "the CLI")
        if policy in _NO_SERVE:
            raise BadRequest(_NO_SERVE[policy])
        if policy:
            from sheepsim.games.race.policies import PACE_POLICIES

            served = [p for p in PACE_POLICIES if p not in _NO_SERVE]
            if policy not in served:  # the CLI's message would list policies served nowhere here
                raise BadRequest(f"policy {policy[:80]!r}: unknown; the server's pace policies "
                                 f"are {', '.join(served)}")
        return params

    def argv(self, command: str, params: dict[str, str]) -> list[str]:
        """The CLI arguments (after ``sheepsim``) that ask the same question."""
        argv = ["race", command]
        for key, value in params.items():
            if key == "mc":  # a switch: --mc (simulate even where exact is possible)
                if value not in ("0", "1"):
                    raise BadRequest(f"mc: 1 (simulate) or 0, got {value[:20]!r}")
                argv += ["--mc"] if value == "1" else []
                continue
            if key == "position":
                # a newline makes it text even if a file of that name exists
                # (position.parse_position reads files only for one-line text)
                value += "\n"
            argv.append(f"--{key}={value}")
        if self.rules_path is not None:
            argv.append(f"--rules={self.rules_path}")
        argv.append("--format=json")
        if command in ("odds", "ev"):  # advise and move have no progress bar to silence
            argv.append("--quiet")
        return argv

    def run(self, command: str, params: dict[str, str]) -> str:
        """The JSON text the command prints for ``params``."""
        from sheepsim.cli import execute
        from sheepsim.options import ArgumentsError, parse_raising
        from sheepsim.output import captured_output

        try:
            args = parse_raising(self._parser, self.argv(command, params))
        except ArgumentsError as exc:  # the CLI's message, without the command's name
            raise BadRequest(exc.message) from None
        key = self._answer_key(command, params)
        with self._answers_lock:
            kept = self._answers.get(key)
            if kept is not None:
                self._answers.move_to_end(key)
                return kept
        if not self._check_work(command, args):
            self.exact_ready.wait()
        entered = self.queue.enter(self.max_wait)
        if not entered:
            n, waiting = self.max_busy, self.queue.waiting
            why = (f"{waiting} questions are waiting" if entered is None else
                   f"this question waited {self.max_wait:g} s")
            raise BadRequest(f"the server is busy: it answers {n} question{'s' * (n != 1)} at "
                             f"a time and {why}; ask again in a moment", status=503)
        try:
            with captured_output() as texts, _state_limit(self.max_states):
                execute(args)
        finally:
            self.queue.leave()
        text = "".join(texts)
        if self.answers_kept > 0:
            with self._answers_lock:
                self._answers[key] = text
                while len(self._answers) > self.answers_kept:
                    self._answers.popitem(last=False)
        return text

    def _answer_key(self, command: str, params: dict[str, str]) -> tuple:
        """What an answer is kept under: the command's argv, and for a rules file of the
        server its size and time of change (an edited file is asked again)."""
        key = tuple(self.argv(command, params))
        if self.rules_path is not None:
            try:
                st = os.stat(self.rules_path)
                key += (st.st_size, st.st_mtime_ns)
            except OSError:
                key += (None,)  # the command says what is wrong with it
        return key

    def _check_work(self, command: str, args) -> bool:
        """Refuse a simulation past :attr:`max_races` before it starts; whether the
        question is simulated (False: a move, an exact solve or an unknown policy)."""
        from sheepsim.games.race.exact.solver import exact_reason
        from sheepsim.games.race.policies import PACE_POLICIES

        if command == "move":  # one turn: no solve
            return False
        policy = args.policy.strip()
        simulated = getattr(args, "mc", False) or (command != "advise" and args.games is not None)
        if policy not in PACE_POLICIES or (exact_reason(policy) is None and not simulated):
            return False  # exact, or an unknown name the command itself refuses
        if command == "advise":
            races, what = args.games * _ADVISE_OPTIONS, (f"games={args.games:,} per option "
                                                         f"x {_ADVISE_OPTIONS} options")
        else:
            races = args.games if args.games is not None else args.default_games
            what = f"games={races:,}" + ("" if args.games is not None else " (the CLI's default)")
        if races > self.max_races:
            most = self.max_races // (_ADVISE_OPTIONS if command == "advise" else 1)
            why = f"the {policy} pace policy is simulated" if exact_reason(policy) else \
                "this question is simulated"
            raise BadRequest(f"{why}: {what} is more than this "
                             f"server simulates per request ({self.max_races:,} races); ask for "
                             f"games={most} or fewer, or run the CLI")
        return True

    # ------------------------------------------------------------------ rules
    def rules_json(self) -> str:
        """What the page draws: board, cards, payoffs, dice, pace options, policies."""
        if self._rules_json is None:
            self._rules_json = _rules_doc(self.rules, self.max_races)
        return self._rules_json


def _rules_doc(rules, max_races: int) -> str:
    from sheepsim.games.race import layout as L
    from sheepsim.games.race.exact.lanegraph import BUILTIN_OWN_STATE
    from sheepsim.games.race.policies import PACE_POLICIES
    from sheepsim.output import to_json

    doc = {
        "rules": rules.source, "rules_sha256": rules.sha256,
        "track_length": int(rules.track_length), "end_zone": int(rules.end_zone),
        "end_zone_first": int(rules.track_length - rules.end_zone + 1),
        "max_cubes": int(rules.max_cubes),
        "supply": dict(zip(("red", "blue", "white"), (int(x) for x in rules.supply), strict=True)),
        "cards": [{"name": c.name, "nation": c.nation, "red": c.red, "blue": c.blue,
                   "white": c.white, "trot": c.trot, "gallop": c.gallop} for c in rules.cards],
        "default_lanes": rules.card_names[:6],
        "payoffs": {"semifinal": rules.payoff_semifinal.tolist(),
                    "final": rules.payoff_final.tolist()},
        "bonus": {"two": int(rules.bonus_two), "three": int(rules.bonus_three)},
        "dice": {stage: {"faces": getattr(rules, f"dice_{stage}"),
                         "totals": {str(t): p for t, p in rules.total_distribution(stage).items()}}
                 for stage in ("semifinal", "final")},
        "pace_options": list(L.OPTION_NAMES),
        "policies": {"exact": list(BUILTIN_OWN_STATE),
                     "simulated": [p for p in PACE_POLICIES
                                   if p not in BUILTIN_OWN_STATE and p not in _NO_SERVE]},
        "limits": {"max_races": max_races, "advise_options": _ADVISE_OPTIONS},
    }
    return to_json(doc)


@contextlib.contextmanager
def _state_limit(limit: int):
    """The exact solver's joint-state limit lowered to ``limit`` while a request runs (a
    context variable: only this thread sees it)."""
    from sheepsim.games.race.exact.solver import JOINT_STATE_LIMIT

    token = JOINT_STATE_LIMIT.set(min(limit, JOINT_STATE_LIMIT.get()))
    try:
        yield
    finally:
        JOINT_STATE_LIMIT.reset(token)
