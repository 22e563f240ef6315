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

from gameroom.core.match import FAILED, Match, Seat
from gameroom.core.protocol import Codec
from gameroom.core.record import MatchResult
from gameroom.games.q import codec
from gameroom.games.q.actions import PASS, REPLACE
from gameroom.games.q.protocol import PROTOCOL
from gameroom.games.q.rules import apply_placements, can_exchange, check_placements
from gameroom.games.q.scoring import score_placements
from gameroom.games.q.state import RefereeState

__all__ = ["QRules", "run_game", "DEFAULT_TIME_LIMIT"]

DEFAULT_TIME_LIMIT = 6.0
STATE_CODEC = Codec(codec.state_to_json, codec.state_from_json, "JState")


@dataclass(frozen=True)
class QRules:
    """The bonuses of q.md 8.3."""

    q_bonus: int = 6
    finish_bonus: int = 6


def _draw(pile: deque[Any], n: int) -> list[Any]:
    return [pile.popleft() for _ in range(min(n, len(pile)))]


def run_game(state0: RefereeState, seats: Sequence[Seat], rules: QRules = QRules(),
             time_limit: float | None = DEFAULT_TIME_LIMIT, observers: Iterable[Any] = (),
             log: Callable[[str], None] | None = None,
             on_turn: Callable[[str, Any, RefereeState], None] | None = None,
             cancel: threading.Event | None = None) -> MatchResult:
    """Play a game; ``seats`` are matched by position with the state's player records.

    The records take the seats' names. ``on_turn(name, action, state)`` (optional) hears
    every completed turn, for accounts of the game; it must not change the state. Setting
    ``cancel`` stops the game at its next call (``MatchCancelled``).
    """
    if len(seats) != len(state0.players):
        raise ValueError(f"{len(seats)} players for {len(state0.players)} player records")
    state = state0.copy()
    seat_of: dict[int, Seat] = {}
    for seat, record in zip(seats, state.players):
        record.name = seat.name
        seat_of[id(record)] = seat
    match = Match(PROTOCOL, seats, time_limit, observers, log, STATE_CODEC, cancel)
    _setup(match, state, seat_of)
    _play_rounds(match, state, seat_of, rules, on_turn)
    return _finish(match, state, seat_of)


def _observe(match: Match, state: RefereeState) -> None:
    if match.watched:
        match.state(state.copy() if state.players else None)


def _setup(match: Match, state: RefereeState, seat_of: dict[int, Seat]) -> None:
    """Set-up, in turn order; the state rotates after each successful set-up (3.2)."""
    for _ in range(len(state.players)):
        record = state.players[0]
        seat = seat_of[id(record)]
        if match.call(seat, "setup", state.public_for_active(not seat.trusted), list(record.hand)) is FAILED:
            state.eliminate_active()
        else:
            state.rotate()


def _play_rounds(match: Match, state: RefereeState, seat_of: dict[int, Seat], rules: QRules,
                 on_turn: Callable[[str, Any, RefereeState], None] | None) -> None:
    """Rounds of turns until nobody is left, a player empties its hand, or a whole round
    passes without a placement (3.3)."""
    watched = match.watched
    while state.players:
        nobody_placed = True
        for _turn in range(len(state.players)):
            if not state.players:
                break
            if watched:
                _observe(match, state)
            seat = seat_of[id(state.players[0])]
            action, placed, finished = _take_turn(match, state, seat, rules)
            nobody_placed = nobody_placed and not placed
            if on_turn is not None:
                on_turn(seat.name, action, state)
            if finished:
                return
        if nobody_placed:
            return


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


def _finish(match: Match, state: RefereeState, seat_of: dict[int, Seat]) -> MatchResult:
    """The final snapshot, the win calls (winners first) and the result (3.4)."""
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
