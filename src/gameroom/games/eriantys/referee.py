"""The in-process Eriantys referee (eriantys.md 5, 4.4 ``referee`` policy, 7.7, 8.3).

Every call to a player — ``setup``, ``observe`` of each broadcast, ``act``, ``end`` — goes
through :class:`gameroom.core.match.Match` (time limit, exceptions, reply shape). The
rules are :func:`gameroom.games.eriantys.rules.apply_event`; a refused event, an
exception, a reply that is not an event object or a time-out ejects the player
(``PLAYER_DISCONNECT`` with ``EJECTED`` or ``TIMEOUT`` to the others) and eliminates its
team (:func:`gameroom.games.eriantys.rules.eject`).

Observers receive the match's ``core.record`` events: every call and ejection, a
``message`` event (``{"message": msg}``) for every broadcast, a ``state`` event (a copy of
the game state, encoded as the §6.5 snapshot) after the setup and after every accepted
event, and the ``end``.
"""

from __future__ import annotations

import random
import threading
from typing import Any, Callable, Iterable, Sequence

from dataclasses import dataclass, field

from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, Seat
from gameroom.core.record import Event, MatchResult
from gameroom.core.protocol import JSON, Codec, Method, Protocol
from gameroom.core.wire import WireError, describe
from gameroom.games.eriantys.config import DECISION_TIMEOUT
from gameroom.games.eriantys.rules import apply_event, eject
from gameroom.games.eriantys.state import TestHooks, from_snapshot, new_game, snapshot

__all__ = ["LIMITS", "PROTOCOL", "STATE_CODEC", "EriantysResult", "run_game"]

LIMITS = Limits(call=DECISION_TIMEOUT, signup_first_byte=10.0, signup_complete=10.0)
"""Eriantys's limits (7.8): a decision, and a sign-up."""

STATE_CODEC = Codec(snapshot, from_snapshot, "GameState")
"""States travel as the §6.5 snapshot."""


@dataclass
class EriantysResult(MatchResult):
    """The match's result plus ``extra``: the final ``snapshot`` (§6.5) and the number of
    accepted ``events``."""

    extra: dict[str, Any] = field(default_factory=dict)


def _event_object(value: Any) -> Any:
    if not isinstance(value, dict):
        raise WireError(f"expected an event object, got {describe(value)}")
    return value


PROTOCOL = Protocol("eriantys", (
    Method("setup", "setup", (JSON, JSON, JSON)),
    Method("observe", "observe", (JSON,)),
    Method("act", "act", (JSON,), JSON, check=_event_object),
    Method("end", "end", (JSON,), final=True),
))


def run_game(seats: Sequence[Seat], seed: int | random.Random, *, expert: bool = False,
             hooks: TestHooks | None = None, limits: Limits = LIMITS,
             observers: Iterable[Any] = (), log: Callable[[str], None] | None = None,
             cancel: threading.Event | None = None) -> EriantysResult:
    """Play one game between ``seats`` (seat order) and return its result; the scores are
    the towers each player's team built, ``extra`` holds the final ``snapshot`` (§6.5) and
    the number of accepted ``events``."""
    match = Match(PROTOCOL, seats, limits.call, observers, log, state_codec=STATE_CODEC, cancel=cancel)
    names = [seat.name for seat in seats]
    state, setup = new_game(names, expert, seed, hooks)
    watched = bool(match.observers)
    failed: list[int] = []

    for index, seat in enumerate(seats):
        if match.call(seat, "setup", index, list(names), expert) is FAILED:
            failed.append(index)

    def deliver(messages: list[dict[str, Any]]) -> None:
        for message in messages:
            for index, seat in enumerate(seats):
                if seat.ejected is None and match.call(seat, "observe", message) is FAILED:
                    failed.append(index)
            if watched:
                match.emit(Event("message", {"message": message}))

    def settle() -> None:
        """Apply the policy to every seat that failed a call (in order of failure)."""
        while failed:
            index = failed.pop(0)
            reason = "TIMEOUT" if "time limit" in (seats[index].ejected or "") else "EJECTED"
            deliver(eject(state, index, reason))

    def picture(caption: str, **notes: Any) -> None:
        if watched:
            match.state(state.copy(), caption, **notes)

    deliver(setup)
    settle()
    picture("setup")
    events = 0
    while not state.finished:
        index = state.current
        seat = seats[index]
        event = match.call(seat, "act", snapshot(state))
        if event is FAILED:
            failed.append(index)
            settle()
            continue
        messages, reply = apply_event(state, index, event)
        if reply["type"] == "NACK":
            match.eject(seat, f"refused event {describe(event)}: {reply['errorMessage']}", "act")
            failed.append(index)
            settle()
            continue
        events += 1
        deliver(messages)
        settle()
        if watched:   # a picture after every move: watchers (and a person at the web room) see each step
            move = str(event.get("eventType", "move")).lower().replace("_", " ")
            picture(f"round {state.round}, {names[index]}: {move}" if not state.finished else "game over",
                    player=names[index])
    for seat in seats:
        if seat.ejected is None:
            match.call(seat, "end", list(state.winners))
    built = {name: state.c.towers - state.supply[state.team(i)] for i, name in enumerate(names)}
    result = match.result(list(state.winners), scores=built)
    return EriantysResult(**vars(result), extra={"snapshot": snapshot(state), "events": events})
