"""A person at a seat of a web match: a player whose decisions wait for the browser.

:class:`HumanPlayer` sits in a guarded seat, so the referee's time limit, the ejections
and the result are the same as for any other player. Its legal answers come from the
descriptor's ``person_moves()``; a decision publishes a *prompt* (the legal actions and
the time limit) and waits for the browser's answer, which :meth:`HumanPlayer.answer`
takes when it is one of the offered answers or, composed on the board (a Q turn of
several tiles, an Evolution turn of several cards), when the game's own legality check
(``person_check``) finds nothing wrong with it. :meth:`HumanPlayer.check` judges
tentative answers the same way without taking them: the board asks it which targets are
legal before the person confirms. The web room asks :meth:`HumanPlayer.judged`, which
judges them off the event loop within the seat's bounds (``server.lobby_checks``: one
question at a time, an allowance of answers per second, of the seat's account across all its
seats), as the lobby judges ``CHECK``.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from gameroom.core.calls import Caller
from gameroom.core.composed import MAX_CHECKS, composed_problem
from gameroom.core.game import GameDescriptor
from gameroom.core.protocol import VOID, Method
from gameroom.server.lobby_checks import NOT_OFFERED, CheckFailed, Question, UserChecks, judges

__all__ = ["HumanPlayer", "Prompt", "announcing", "Frame", "MAX_CHECKS"]

Frame = dict[str, Any]


@dataclass
class Prompt:
    """One decision asked of a person: the call, the legal answers, when it runs out."""

    method: str
    choices: list[tuple[str, Any]]
    deadline: float | None
    spec: Method | None = None
    args: tuple[Any, ...] = ()
    answers: "queue.SimpleQueue[Any]" = field(default_factory=queue.SimpleQueue)
    question: Question | None = None   # what a check of it asks the judges (made at the first)


class HumanPlayer:
    """A player whose decisions are a person's clicks: every protocol method is a method
    of this object; a call that asks a decision (the descriptor's ``moves`` offers answers)
    publishes a prompt and waits for the browser's answer."""

    def __init__(self, name: str, game: GameDescriptor[Any, Any], limit: float | None,
                 tell: Callable[[Frame], None]) -> None:
        self._name = name
        self.game = game
        self.limit = limit
        self.tell = tell
        self.prompt: Prompt | None = None
        self.once: float | None = None   # the next decision's limit, when not the seat's (a resumed match's)
        self.lock = threading.Lock()
        self._methods: dict[str, Method] = {m.name: m for m in game.protocol.methods}
        self._moves = game.person_moves()   # this seat's own: it may remember earlier calls
        self._check = game.person_check(self._moves)
        # answers judged per second and one question at a time (server.lobby_checks): the
        # seat's own until its account sits down, then the account's, shared by its seats
        self.checks = UserChecks()
        if self._check is not None:
            judges().warm()   # the person's first check need not wait for the judging process

    def name(self) -> str:
        return self._name

    def __getattr__(self, method: str) -> Callable[..., Any]:
        spec = self.__dict__.get("_methods", {}).get(method)
        if spec is None:
            raise AttributeError(method)
        return lambda *args: self._decide(spec, args)

    def remember(self, method: str, args: tuple[Any, ...]) -> None:
        """A decision answered without asking (a resumed match's, from the journal): the
        list of moves hears of it all the same, as it may remember earlier calls."""
        if self._moves is not None:
            self._moves(method, args)

    def limit_once(self, seconds: float | None) -> None:
        """The next decision has ``seconds`` rather than the seat's limit (the decision in
        flight when the room stopped has what it had left)."""
        self.once = seconds

    def _decide(self, spec: Method, args: tuple[Any, ...]) -> Any:
        offered = self._moves(spec.name, args) if self._moves is not None else None
        if offered is None or spec.result is VOID:
            return None
        limit, self.once = (self.once if self.once is not None else self.limit), None
        deadline = None if limit is None else time.time() + limit
        prompt = Prompt(spec.wire, offered, deadline, spec, args)
        with self.lock:
            self.prompt = prompt
        self.tell({"type": "prompt", "method": spec.wire, "asks": self.game.decision(spec.name), "limit": limit,
                   "deadline": deadline,
                   "choices": [{"label": label, "action": action} for label, action in offered]})
        try:
            # the referee stops waiting at its limit; this thread gives up a little later
            action = prompt.answers.get(timeout=None if limit is None else limit + 5)
        except queue.Empty:
            raise TimeoutError("no move from the browser") from None
        finally:
            with self.lock:
                if self.prompt is prompt:
                    self.prompt = None
        return spec.result.decode(action)   # the answer as the protocol carries it

    def answer(self, move: Any) -> str | None:
        """A move from the browser: ``{"choice": index}`` or ``{"action": JSON}``. None
        when taken, else the message saying why it was refused."""
        with self.lock:
            prompt = self.prompt
            if prompt is None:
                return "it is not your turn"
            if not isinstance(move, dict):
                return "a move is an object with a choice (a number) or an action"
            if "choice" in move:
                index = move["choice"]
                if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(prompt.choices):
                    return f"choice {_short(index)} is not one of the {len(prompt.choices)} actions offered"
                action = prompt.choices[index][1]
            elif "action" in move:
                action = move["action"]
                if all(action != legal for _, legal in prompt.choices):
                    problem = self._judge(prompt, action)
                    if problem is not None:
                        return problem
            else:
                return "a move is an object with a choice (a number) or an action"
            self.prompt = None
        prompt.answers.put(action)
        return None


    def _judge(self, prompt: Prompt, action: Any) -> str | None:
        """Why ``action`` (not among the offered ones) is not a legal answer to ``prompt``:
        the game's own check of it decoded, or that it is not offered when the game has
        no check."""
        if self._check is None or prompt.spec is None:
            return (f"illegal action {_short(action)}: it is not one of the "
                    f"{len(prompt.choices)} legal actions offered")
        problem = composed_problem(prompt.spec, prompt.args, action, self._check)
        return None if problem is None else f"illegal action {_short(action)}: {problem}"

    def check(self, actions: Any) -> list[str | None] | str:
        """What is wrong with each tentative answer of ``actions`` (a list) to the current
        prompt (None: legal), without taking any; a string when the question itself is bad.
        Judged here, in the caller's thread (:meth:`judged` judges off the loop)."""
        prompt, refusal = self._checkable(actions)
        if prompt is None:
            return refusal
        return [None if any(action == legal for _, legal in prompt.choices) else self._judge(prompt, action)
                for action in actions]

    def _checkable(self, actions: Any) -> tuple[Prompt | None, str]:
        """The prompt ``actions`` may be checked against, else why not."""
        with self.lock:
            prompt = self.prompt
        if prompt is None:
            return None, "it is not your turn"
        if not isinstance(actions, list) or len(actions) > MAX_CHECKS:
            return None, f"a check is a list of at most {MAX_CHECKS} actions"
        return prompt, ""

    async def judged(self, actions: Any) -> list[str | None] | str:
        """:meth:`check`'s answer, judged off the event loop: one question of this seat's
        account at a time, once its allowance of answers per second lets it."""
        prompt, refusal = self._checkable(actions)
        if prompt is None:
            return refusal
        if not actions:
            return []
        loop = asyncio.get_running_loop()
        checks = self.checks
        async with checks.lock:
            wait = checks.allowance.wait(len(actions), loop.time())
            if wait > 0:
                await asyncio.sleep(wait)
            checks.allowance.take(len(actions), loop.time())
            if prompt.question is None:
                assert prompt.spec is not None
                prompt.question = Question(self.game.name, prompt.spec.name, prompt.args,
                                           [legal for _, legal in prompt.choices], self._check)
            try:
                problems = await judges().problems(prompt.question, actions)
            except CheckFailed as exc:
                return str(exc)
        return [None if problem is None else self._worded(prompt, action, problem)
                for action, problem in zip(actions, problems)]

    def _worded(self, prompt: Prompt, action: Any, problem: str) -> str:
        """A judged problem in the words :meth:`_judge` gives it."""
        if problem == NOT_OFFERED:
            return (f"illegal action {_short(action)}: it is not one of the "
                    f"{len(prompt.choices)} legal actions offered")
        return f"illegal action {_short(action)}: {problem}"


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[:limit] + "…"


def announcing(caller: Caller, seat: str, decisions: set[str], announce: Callable[[str, str], None]) -> Caller:
    """``caller`` that first tells who is asked for a decision (not every notification)."""

    def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        if method in decisions:
            announce(seat, method)
        return caller(method, args, limit)

    return call
