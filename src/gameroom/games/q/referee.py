"""The Q referee: runs one game from a configured state to its result (q.md 3 and 4).

The turn sequence, the end conditions and the order of the result are Q's; every call to
a player goes through :class:`gameroom.core.match.Match`, which enforces the time limit,
catches exceptions, validates replies and records ejections in order.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, Seat
from gameroom.core.protocol import Codec
from gameroom.core.record import MatchResult
from gameroom.games.q import codec
from gameroom.games.q.actions import PASS, REPLACE
from gameroom.games.q.protocol import PROTOCOL
from gameroom.games.q.rules import apply_placements, can_exchange, check_placements
from gameroom.games.q.scoring import score_placements
from gameroom.games.q.state import RefereeState

__all__ = ["QRules", "run_game", "DEFAULT_TIME_LIMIT", "LIMITS"]

DEFAULT_TIME_LIMIT = 6.0
LIMITS = Limits(call=DEFAULT_TIME_LIMIT, signup_first_byte=2.0, signup_complete=2.0)
"""Q's limits (q.md 8.1): 6 s per call, 2 s for a sign-up name."""
STATE_CODEC = Codec(codec.encode_state, codec.decode_state, "JState")


@dataclass(frozen=True)
class QRules:
    """The bonuses of q.md 8.3."""

    q_bonus: int = 6
    finish_bonus: int = 6


def _draw(pile: deque[Any], n: int) -> list[Any]:
    return [pile.popleft() for _ in range(min(n, len(pile)))]


def run_game(seats: Sequence[Seat], state: RefereeState, *, rules: QRules = QRules(),
             limits: Limits = LIMITS, observers: Iterable[Any] = (), log: Callable[[str], None] | None = None,
             cancel: threading.Event | None = None) -> MatchResult:
    """Play a game from ``state``; ``seats`` are matched by position with its player records.

    The records take the seats' names; ``state`` itself is not changed. Observers hear a
    snapshot before the first turn and after every turn: the event of a turn notes the
    ``seat`` that took it and carries ``(name, action)`` as its detail. Setting ``cancel``
    stops the game at its next call (``MatchCancelled``).
    """
    if len(seats) != len(state.players):
        raise ValueError(f"{len(seats)} players for {len(state.players)} player records")
    state = state.copy()
    seat_of: dict[int, Seat] = {}
    for seat, record in zip(seats, state.players):
        record.name = seat.name
        seat_of[id(record)] = seat
    match = Match(PROTOCOL, seats, limits.call, observers, log, STATE_CODEC, cancel)
    _setup(match, state, seat_of)
    turns = _play_rounds(match, state, seat_of, rules)
    return _finish(match, state, seat_of, turns)


def _observe(match: Match, state: RefereeState, turn: tuple[str, Any] | None = None) -> None:
    if match.watched:
        snapshot = state.copy() if state.players else None
        if turn is None:
            match.state(snapshot)
        else:
            match.state(snapshot, detail=turn, seat=turn[0])


def _setup(match: Match, state: RefereeState, seat_of: dict[int, Seat]) -> None:
    """Set-up, in turn order; the state rotates after each successful set-up (3.2)."""
    for _ in range(len(state.players)):
        record = state.players[0]
        seat = seat_of[id(record)]
        if match.call(seat, "setup", state.public_for_active(not seat.trusted), list(record.hand)) is FAILED:
            state.eliminate_active()
        else:
            state.rotate()


def _play_rounds(match: Match, state: RefereeState, seat_of: dict[int, Seat], rules: QRules) -> int:
    """Rounds of turns until nobody is left, a player empties its hand, or a whole round
    passes without a placement (3.3); the number of turns taken."""
    watched = match.watched
    turns = 0
    if watched and state.players:
        _observe(match, state)
    while state.players:
        nobody_placed = True
        for _turn in range(len(state.players)):
            if not state.players:
                break
            seat = seat_of[id(state.players[0])]
            action, placed, finished = _take_turn(match, state, seat, rules)
            turns += 1
            nobody_placed = nobody_placed and not placed
            if watched:
                _observe(match, state, (seat.name, action))
            if finished:
                return turns
        if nobody_placed:
            return turns
    return turns


def _take_turn(match: Match, state: RefereeState, seat: Seat, rules: QRules) -> tuple[Any, bool, bool]:
    """One turn of the active player: (its action, whether it placed, whether it emptied its
    hand and so ended the game)."""
    record = state.players[0]
    # An untrusted player gets its own copy of the map: a call abandoned at its time
    # limit may still be running and must not touch the referee's map.
    action = match.call(seat, "take_turn", state.public_for_active(not seat.trusted))
    if action is FAILED:
        state.eliminate_active()
    elif action is PASS:
        state.rotate()
    elif action is REPLACE:
        if not can_exchange(len(state.pile), len(record.hand)):
            match.eject(seat, f"asked to exchange {len(record.hand)} tiles with only "
                              f"{len(state.pile)} in the pile")
            state.eliminate_active()
        else:
            size = len(record.hand)
            state.pile.extend(record.hand)
            record.hand = []
            fresh = _draw(state.pile, size)
            if match.call(seat, "new_tiles", fresh) is FAILED:
                state.eliminate_active()
            else:
                record.hand = fresh
                state.rotate()
    else:
        reason = check_placements(state.qmap, record.hand, action)
        if reason is not None:
            match.eject(seat, f"illegal placement: {reason}")
            state.eliminate_active()
            return action, False, False
        apply_placements(state.qmap, action)
        for placement in action:
            record.hand.remove(placement.tile)
        finished = not record.hand
        record.score += score_placements(state.qmap, action, rules.q_bonus, rules.finish_bonus, finished)
        if finished:
            return action, True, True
        fresh = _draw(state.pile, len(action))
        if match.call(seat, "new_tiles", fresh) is FAILED:
            state.eliminate_active()
        else:
            record.hand = fresh + record.hand
            state.rotate()
        return action, True, False
    return action, False, False


def _finish(match: Match, state: RefereeState, seat_of: dict[int, Seat], turns: int) -> MatchResult:
    """The win calls (winners first) and the result (3.4); the final snapshot is the one
    after the last turn, or this one when no turn was taken."""
    if not turns:
        _observe(match, state)
    if not state.players:
        return match.result([])
    best = max(record.score for record in state.players)
    winners = [r for r in state.players if r.score == best]
    losers = [r for r in state.players if r.score != best]
    survivors = []
    for record in winners:
        if match.call(seat_of[id(record)], "win", True) is not FAILED:
            survivors.append(record.name)
    for record in losers:
        match.call(seat_of[id(record)], "win", False)
    scores = {r.name: r.score for r in state.players}
    ranking = [[r.name for r in state.players if r.score == s] for s in sorted(set(scores.values()), reverse=True)]
    return match.result(sorted(survivors), ranking=ranking, scores=scores)
