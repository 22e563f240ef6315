"""The in-process Eriantys referee (eriantys.md 5, 4.4 ``referee`` policy, 7.7, 8.3).

Every call to a player — ``setup``, ``observe`` of each broadcast, ``act``, ``end`` — goes
through :class:`gameroom.core.match.Match` (time limit, exceptions, reply shape). The
rules are :func:`gameroom.games.eriantys.rules.apply_event`; a refused event, an
exception, a reply that is not an event object or a time-out ejects the player
(``PLAYER_DISCONNECT`` with ``EJECTED`` or ``TIMEOUT`` to the others) and eliminates its
team (:func:`gameroom.games.eriantys.rules.eject`).

Observers hear ``message(msg)`` for every broadcast and, when they have a ``state``
method, ``state(state, caption)`` (a copy of the game state) after the setup and after
every finished turn.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.match import FAILED, Match, Outcome, Seat
from gameroom.core.protocol import JSON, Method, Protocol
from gameroom.core.wire import WireError, describe
from gameroom.games.eriantys.rules import apply_event, eject
from gameroom.games.eriantys.state import TestHooks, new_game, snapshot

__all__ = ["PROTOCOL", "run_match"]


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


def run_match(seats: Sequence[Seat], expert: bool, seed: int | random.Random, *,
              hooks: TestHooks | None = None, time_limit: float | None = None,
              observers: Iterable[Any] = (), log: Callable[[str], None] | None = None) -> Outcome:
    """Play one game between ``seats`` (seat order) and return its outcome; the outcome's
    ``extra`` holds the final ``snapshot`` (§6.5), the number of accepted ``events`` and, as
    ``scores``, the towers each player's team built."""
    match = Match(PROTOCOL, seats, time_limit, observers, log)
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
                match.observe("message", message)

    def settle() -> None:
        """Apply the policy to every seat that failed a call (in order of failure)."""
        while failed:
            index = failed.pop(0)
            reason = "TIMEOUT" if "time limit" in (seats[index].ejected or "") else "EJECTED"
            deliver(eject(state, index, reason))

    def picture(caption: str) -> None:
        if watched:
            match.observe("state", state.copy(), caption)

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
        if watched and (state.finished or any(m["type"] == "CHANGE_TURN" for m in messages)):
            picture(f"round {state.round}, after {names[index]}'s move" if not state.finished else "game over")
    for seat in seats:
        if seat.ejected is None:
            match.call(seat, "end", list(state.winners))
    if watched:
        match.observe("game_over", list(state.winners))
    built = {name: state.c.towers - state.supply[state.team(i)] for i, name in enumerate(names)}
    return Outcome(list(state.winners), match.misbehaved, list(match.failures),
                   {"snapshot": snapshot(state), "events": events, "scores": built})
