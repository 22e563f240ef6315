"""The in-process Eriantys referee (eriantys.md 5, 4.4 ``referee`` policy, 7.7, 8.3).

Every call to a player — ``setup``, ``observe`` of each broadcast, ``act``, ``end`` — goes
through the core's referee skeleton (:class:`gameroom.core.match.Match`: time limit,
exceptions, reply shape; each ``act`` checked by
:func:`gameroom.games.eriantys.rules.check_event`). A refused event, an exception, a
reply that is not an event object or a time-out ejects the player; the referee then
(``PLAYER_DISCONNECT`` with ``EJECTED`` or ``TIMEOUT`` to the others) eliminates its team
(:func:`gameroom.games.eriantys.rules.eject`), once the broadcast under way is delivered.

Observers receive the match's ``core.record`` events: every call and ejection, a
``message`` event (``{"message": msg}``) for every broadcast, a ``state`` event (a copy of
the game state, encoded as the §6.5 snapshot) after the setup and after every accepted
event, and the ``end``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Sequence

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, Seat
from gameroom.core.record import Event, MatchResult
from gameroom.core.protocol import Codec
from gameroom.core.wire import describe
from gameroom.games.eriantys.config import DECISION_TIMEOUT
from gameroom.games.eriantys.protocol import PROTOCOL
from gameroom.games.eriantys.rules import apply_checked, check_event, eject, winning_seats
from gameroom.games.eriantys.state import TestHooks, from_snapshot, new_game, snapshot

__all__ = ["LIMITS", "STATE_CODEC", "EriantysResult", "run_game"]

LIMITS = Limits(call=DECISION_TIMEOUT, signup_first_byte=10.0, signup_complete=10.0)
"""Eriantys's limits (7.8): a decision, and a sign-up."""

STATE_CODEC = Codec(snapshot, from_snapshot, "GameState")
"""States travel as the §6.5 snapshot."""


@dataclass
class EriantysResult(MatchResult):
    """The match's result plus ``extra``: the final ``snapshot`` (§6.5) and the number of
    accepted ``events``."""

    extra: dict[str, Any] = field(default_factory=dict)


def run_game(seats: Sequence[Seat], seed: int | random.Random, context: MatchContext = NO_CONTEXT, *,
             expert: bool = False, hooks: TestHooks | None = None) -> EriantysResult:
    """Play one game between ``seats`` (seat order) and return its result; the scores are
    the towers each player's team built, ``extra`` holds the final ``snapshot`` (§6.5) and
    the number of accepted ``events``."""
    names = [seat.name for seat in seats]
    state, setup = new_game(names, expert, seed, hooks)
    failed: list[int] = []   # ejected seats whose teams are still to be eliminated, in order
    checked: Any = None      # the parsed form of the event the rules last accepted

    def legal(event: Any) -> str | None:
        nonlocal checked
        error, checked = check_event(state, state.current, event)
        return None if error is None else f"refused event {describe(event)}: {error}"

    match = Match(PROTOCOL, seats, context, limits=LIMITS, state_codec=STATE_CODEC,
                  on_eject=lambda ejection: failed.append(ejection.seat))
    watched = bool(match.observers)

    for index, seat in enumerate(seats):
        match.call(seat, "setup", index, list(names), expert)

    def deliver(messages: list[dict[str, Any]]) -> None:
        for message in messages:
            for seat in seats:   # an ejected seat is not called
                match.call(seat, "observe", message)
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
        event = match.decide(seats[index], "act", snapshot(state), legal=legal)
        if event is FAILED:
            settle()
            continue
        events += 1
        deliver(apply_checked(state, index, checked))
        settle()
        if watched:   # a picture after every move: watchers (and a person at the web room) see each step
            move = str(event.get("eventType", "move")).lower().replace("_", " ")
            picture(f"round {state.round}, {names[index]}: {move}" if not state.finished else "game over",
                    player=names[index])
    match.on_eject = None   # the game is over: a failed ``end`` changes nothing
    for seat in seats:
        match.call(seat, "end", list(state.winners))
    built = {i: state.c.towers - state.supply[state.team(i)] for i in range(len(seats))}
    result = match.result(winning_seats(state), scores=built)
    return EriantysResult(**vars(result), extra={"snapshot": snapshot(state), "events": events})
