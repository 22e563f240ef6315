"""The matches of the web room: each runs on its own thread through the game's descriptor
(``play`` with seats of built-in players and people), and turns the match's events into
*frames* — small JSON objects — for each audience: spectators see the public view and the
picture of the concealed state, a person at a seat sees its own view and picture, its
prompts and its refusals, never another seat's secrets.

A person is a player whose decisions wait for the browser (:class:`HumanPlayer`); it sits
in a guarded seat, so the referee's time limit, the ejections and the result are the same
as for any other player. Its legal answers come from the descriptor's ``person_moves()``;
its time for one decision, unless the request says otherwise, is the game's
``person_limit`` (a person's, not the bots' per-call limit).

The match is told as ``gameroom play`` tells it (``core.narration.Story`` with the game's
narrator): each state frame carries its picture's caption (who did what) and the
``narration`` lines of its event, other events with lines become ``event`` frames with
their ``narration``, and after the game a last state frame shows the winners.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import random
import secrets
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.calls import Caller
from gameroom.core.game import GameDescriptor
from gameroom.core.match import MatchCancelled, Seat, guarded_seat
from gameroom.core.narration import Story
from gameroom.core.protocol import VOID, Method
from gameroom.core.record import CALL, EJECT, END, Event

__all__ = ["HUMAN", "MatchRequest", "WebMatch", "MatchBook", "HumanPlayer", "BadRequest", "state_frame"]

HUMAN = "human"
"""The seat name in a request that a person takes."""

MAX_PACE = 5.0
Frame = dict[str, Any]
Audience = str | None   # None: the spectators; a seat name: the person at that seat


class BadRequest(ValueError):
    """A request the room cannot start: the message says what is wrong."""


@dataclass(frozen=True)
class MatchRequest:
    """A checked request for a match: the game, its seats (strategy names or ``human``),
    the seed, the time limit of one call and the pause after every state (to watch bots)."""

    game: GameDescriptor
    seats: tuple[str, ...]
    seed: int
    time_limit: float | None
    pace: float = 0.0

    @classmethod
    def from_json(cls, body: Any, games: dict[str, GameDescriptor]) -> "MatchRequest":
        if not isinstance(body, dict):
            raise BadRequest("the body must be a JSON object with game, seats and seed")
        unknown = sorted(set(body) - {"game", "seats", "seed", "time_limit", "pace"})
        if unknown:
            raise BadRequest(f"unknown field {unknown[0]!r}; the fields are game, seats, seed, time_limit, pace")
        name = body.get("game")
        if name not in games:
            raise BadRequest(f"game: {name!r} is not a game; choose from {', '.join(games)}")
        game = games[name]
        seats = body.get("seats")
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise BadRequest("seats: expected a list of strategy names or \"human\"")
        if not game.min_players <= len(seats) <= game.max_players:
            raise BadRequest(f"seats: {game.name} takes {game.min_players} to {game.max_players} players, "
                             f"got {len(seats)}")
        for i, seat in enumerate(seats):
            if seat == HUMAN:
                if not game.playable_by_people:
                    raise BadRequest(f"seats[{i}]: {game.name} cannot be played by a person yet")
            elif seat not in game.strategies:
                raise BadRequest(f"seats[{i}]: {seat!r} is not a {game.name} player; choose from "
                                 f"{', '.join([*game.strategies, HUMAN] if game.playable_by_people else game.strategies)}")
        seed = body.get("seed", random.randrange(1 << 31))
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 1 << 63:
            raise BadRequest(f"seed: expected a natural number, got {seed!r}")
        # a person's seat gets the game's time for a person, never the bots' per-call limit
        limit = body.get("time_limit", game.person_limit if HUMAN in seats else game.limits.call)
        if limit is not None and (not isinstance(limit, (int, float)) or isinstance(limit, bool)
                                  or not 0 < limit <= 3600):
            raise BadRequest(f"time_limit: expected seconds in (0, 3600], got {limit!r}")
        pace = body.get("pace", 0)
        if not isinstance(pace, (int, float)) or isinstance(pace, bool) or not 0 <= pace <= MAX_PACE:
            raise BadRequest(f"pace: expected seconds in [0, {MAX_PACE:g}], got {pace!r}")
        return cls(game, tuple(seats), seed, None if limit is None else float(limit), float(pace))


def picture(game: GameDescriptor, state: Any, viewer: str | None, caption: str,
            draw: Callable[[Any, str], str] | None = None) -> str | None:
    """The game's picture of ``state`` as ``viewer`` (None: a spectator) may see it,
    drawn by ``draw`` (a story's: the narrator's own picture) or the game's ``render``."""
    shown = game.views.picture_state(state, viewer)
    return None if shown is None else (draw or game.render)(shown, caption)


def state_frame(game: GameDescriptor, state: Any, viewer: str | None, step: int, caption: str,
                story: Story | None = None, narration: Sequence[str] = ()) -> Frame:
    """What ``viewer`` (None: a spectator) receives for one state: the view the game
    allows it, its picture with its caption, and the lines told of the event."""
    view = game.views.spectator(state) if viewer is None else game.views.seat(state, viewer)
    return {"type": "state", "step": step, "caption": caption, "narration": list(narration), "view": view,
            "svg": picture(game, state, viewer, caption, story.draw if story is not None else None)}


@dataclass
class Prompt:
    """One decision asked of a person: the call, the legal answers, when it runs out."""

    method: str
    choices: list[tuple[str, Any]]
    deadline: float | None
    answers: "queue.SimpleQueue[Any]" = field(default_factory=queue.SimpleQueue)


class HumanPlayer:
    """A player whose decisions are a person's clicks: every protocol method is a method
    of this object; a call that asks a decision (the descriptor's ``moves`` offers answers)
    publishes a prompt and waits for the browser's answer."""

    def __init__(self, name: str, game: GameDescriptor, limit: float | None,
                 tell: Callable[[Frame], None]) -> None:
        self._name = name
        self.game = game
        self.limit = limit
        self.tell = tell
        self.prompt: Prompt | None = None
        self.lock = threading.Lock()
        self._methods: dict[str, Method] = {m.name: m for m in game.protocol.methods}
        self._moves = game.person_moves()   # this seat's own: it may remember earlier calls

    def name(self) -> str:
        return self._name

    def __getattr__(self, method: str) -> Callable[..., Any]:
        spec = self.__dict__.get("_methods", {}).get(method)
        if spec is None:
            raise AttributeError(method)
        return lambda *args: self._decide(spec, args)

    def _decide(self, spec: Method, args: tuple[Any, ...]) -> Any:
        offered = self._moves(spec.name, args) if self._moves is not None else None
        if offered is None or spec.result is VOID:
            return None
        deadline = None if self.limit is None else time.time() + self.limit
        prompt = Prompt(spec.wire, offered, deadline)
        with self.lock:
            self.prompt = prompt
        self.tell({"type": "prompt", "method": spec.wire, "limit": self.limit, "deadline": deadline,
                   "choices": [{"label": label, "action": action} for label, action in offered]})
        try:
            # the referee stops waiting at its limit; this thread gives up a little later
            action = prompt.answers.get(timeout=None if self.limit is None else self.limit + 5)
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
                    return f"choice {index!r} is not one of the {len(prompt.choices)} actions offered"
                action = prompt.choices[index][1]
            elif "action" in move:
                action = move["action"]
                if all(action != legal for _, legal in prompt.choices):
                    return (f"illegal action {_short(action)}: it is not one of the "
                            f"{len(prompt.choices)} legal actions offered")
            else:
                return "a move is an object with a choice (a number) or an action"
            self.prompt = None
        prompt.answers.put(action)
        return None


def _short(value: Any, limit: int = 120) -> str:
    import json

    text = json.dumps(value)
    return text if len(text) <= limit else text[:limit] + "…"


def announcing(caller: Caller, seat: str, decisions: set[str], announce: Callable[[str, str], None]) -> Caller:
    """``caller`` that first tells who is asked for a decision (not every notification)."""

    def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        if method in decisions:
            announce(seat, method)
        return caller(method, args, limit)

    return call


class WebMatch:
    """One match of the web room: its seats, status, frames for every audience, result."""

    def __init__(self, match_id: str, request: MatchRequest, observers: Iterable[Callable[[Event], Any]] = ()) -> None:
        self.id = match_id
        self.request = request
        self.game = request.game
        self.names = [f"P{i + 1}" for i in range(len(request.seats))]
        self.status = "waiting"
        self.result: dict[str, Any] | None = None
        self.tokens = {name: secrets.token_urlsafe(12) for name, kind in zip(self.names, request.seats)
                       if kind == HUMAN}
        self.joined: set[str] = set()
        self.lock = threading.RLock()
        self.history: dict[Audience, list[Frame]] = {None: [], **{name: [] for name in self.tokens}}
        self.listeners: dict[Audience, list[Callable[[Frame], None]]] = {a: [] for a in self.history}
        self.steps = 0
        self.turn: str | None = None
        self.cancel = threading.Event()
        self.extra_observers = list(observers)
        self.story = self.game.story(request.seed, self.names)
        decisions = {m.name for m in self.game.protocol.methods if m.result is not VOID}
        self.wires = {m.name: m.wire for m in self.game.protocol.methods}
        self.humans: dict[str, HumanPlayer] = {}
        self.seats: list[Seat] = []
        bots = self.game.seats([k if k != HUMAN else next(iter(self.game.strategies)) for k in request.seats],
                               request.seed, self.names)
        for name, kind, bot in zip(self.names, request.seats, bots):
            if kind == HUMAN:
                human = HumanPlayer(name, self.game, request.time_limit,
                                    lambda frame, who=name: self._publish(frame, only=who))
                self.humans[name] = human
                seat = guarded_seat(name, human)
            else:
                seat = bot
            seat.caller = announcing(seat.caller, name, decisions, self._announce)
            self.seats.append(seat)
        if not self.humans:
            self.start()

    # -- the summary the API shows --------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game.name, "status": self.status, "seed": self.request.seed,
                "seats": [{"name": n, "player": k} for n, k in zip(self.names, self.request.seats)],
                "time_limit": self.request.time_limit, "steps": self.steps, "turn": self.turn,
                "result": self.result}

    # -- audiences ------------------------------------------------------------------------

    def subscribe(self, audience: Audience, listener: Callable[[Frame], None]) -> list[Frame]:
        """Register ``listener`` for ``audience``'s frames from now on; the frames so far."""
        with self.lock:
            self.listeners[audience].append(listener)
            return list(self.history[audience])

    def unsubscribe(self, audience: Audience, listener: Callable[[Frame], None]) -> None:
        with self.lock:
            if listener in self.listeners[audience]:
                self.listeners[audience].remove(listener)

    def join(self, seat: str) -> None:
        """A person sat down; the match starts once every person's seat is taken."""
        with self.lock:
            self.joined.add(seat)
            ready = self.status == "waiting" and self.joined >= set(self.humans)
        if ready:
            self.start()

    def _publish(self, frame: Frame, only: Audience = None, per_seat: dict[str, Frame] | None = None) -> None:
        """Send ``frame`` to everyone (``only``: that seat alone; ``per_seat``: these seats
        get their own frame instead)."""
        with self.lock:
            audiences = [only] if only is not None else list(self.history)
            for audience in audiences:
                sent = per_seat[audience] if per_seat is not None and audience in per_seat else frame
                self.history[audience].append(sent)
                for listener in list(self.listeners[audience]):
                    listener(sent)

    def replay(self) -> list[Frame]:
        """The spectators' state frames: one per state change."""
        with self.lock:
            return [f for f in self.history[None] if f["type"] == "state"]

    # -- running --------------------------------------------------------------------------

    def start(self) -> None:
        with self.lock:
            if self.status != "waiting":
                return
            self.status = "running"
        self._publish({"type": "status", "status": "running"})
        threading.Thread(target=self._run, name=f"web-match-{self.id}", daemon=True).start()

    def _run(self) -> None:
        request = self.request
        # one limit for every decision, the first round's included (None: the call's)
        limits = replace(self.game.limits, call=request.time_limit, ready=None)
        try:
            result = self.game.play(request.seed, self.seats, limits=limits, cancel=self.cancel,
                                    observers=[self._observe, *self.extra_observers])
            outcome = {"winners": list(result.winners), "scores": dict(result.scores),
                       "ejected": [{"seat": e.name, "reason": e.reason} for e in result.ejections]}
            self._tell_ending(result)
        except MatchCancelled:
            outcome = {"winners": [], "scores": {}, "ejected": [], "error": "the match was cancelled"}
        except Exception as exc:   # a broken game must not take the room down
            outcome = {"winners": [], "scores": {}, "ejected": [], "error": f"{type(exc).__name__}: {exc}"}
        with self.lock:
            self.result, self.status, self.turn = outcome, "over", None
        self._publish({"type": "end", "result": outcome, "status": "over"})

    def _announce(self, seat: str, method: str) -> None:
        self.turn = seat
        self._publish({"type": "turn", "seat": seat, "method": self.wires.get(method, method)})

    def _observe(self, event: Event) -> None:
        """The match's events as frames (in the referee's thread, in order), told by the
        game's narrator."""
        told = self.story.tell(event)
        if told.drawn:
            self._publish_state(told.state, told.caption or "", told.lines)
            if self.request.pace:
                time.sleep(self.request.pace)
        elif event.kind == EJECT:
            data = event.data
            self._publish({"type": "event", "text": f"{data['seat']} was ejected on {data['method']}: {data['reason']}",
                           "ejected": data["seat"], "narration": told.lines})
            human = self.humans.get(data["seat"])
            if human is not None:
                self._publish({"type": "prompt", "choices": [], "method": None}, only=data["seat"])
        elif event.kind == END:
            winners = event.data["result"]["winners"]
            self._publish({"type": "event", "text": f"game over: {', '.join(winners) or 'no winner'}",
                           "narration": told.lines})
        elif told.lines:
            self._publish({"type": "event", "text": "\n".join(told.lines), "narration": told.lines})

    def _publish_state(self, state: Any, caption: str, lines: Sequence[str]) -> None:
        """One state to every audience: the spectators' frame and each person's own."""
        self.steps += 1
        frame = {**state_frame(self.game, state, None, self.steps, caption, self.story, lines), "turn": self.turn}
        mine = {name: {**state_frame(self.game, state, name, self.steps, caption, self.story, lines),
                       "turn": self.turn}
                for name in self.humans}
        self._publish(frame, per_seat=mine)

    def _tell_ending(self, result: Any) -> None:
        """The narrator's closing lines, and the last picture naming the winners."""
        ending = self.story.end(result)
        if ending.caption is not None:
            self._publish_state(ending.state, ending.caption, ending.lines)
        elif ending.lines:
            self._publish({"type": "event", "text": "\n".join(ending.lines), "narration": ending.lines})


class MatchBook:
    """Every match of this server, by id."""

    def __init__(self) -> None:
        self.matches: dict[str, WebMatch] = {}
        self._ids = itertools.count(1)
        self.lock = threading.Lock()

    def start(self, request: MatchRequest, observers: Sequence[Callable[[Event], Any]] = ()) -> WebMatch:
        with self.lock:
            match_id = f"{next(self._ids)}-{request.game.name}"
        match = WebMatch(match_id, request, observers)
        with self.lock:
            self.matches[match_id] = match
        return match

    def get(self, match_id: str) -> WebMatch | None:
        return self.matches.get(match_id)

    def all(self) -> list[WebMatch]:
        return list(self.matches.values())

    def close(self) -> None:
        for match in self.all():
            match.cancel.set()
