"""The Q referee: runs one game from a configured state to its result (q.md 3 and 4).

Only Q's rules are here: the turn sequence, what makes a turn legal, the end conditions
and the order of the result. Every call to a player goes through the core's referee
skeleton (:class:`gameroom.core.match.Match`), which enforces the time limit, catches
exceptions, validates replies, checks each turn with :func:`turn_problem` and records
ejections in order; its ``on_eject`` hook eliminates the ejected (active) player.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Sequence

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Legal, Match, Seat, ranking_by_score
from gameroom.core.protocol import Codec
from gameroom.core.record import MatchResult
from gameroom.games.q import codec
from gameroom.games.q.actions import PASS, REPLACE
from gameroom.games.q.protocol import PROTOCOL
from gameroom.games.q.rules import apply_placements, can_exchange, check_placements
from gameroom.games.q.scoring import score_placements
from gameroom.games.q.state import RefereeState

__all__ = ["QRules", "run_game", "turn_problem", "DEFAULT_TIME_LIMIT", "LIMITS"]

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


def run_game(seats: Sequence[Seat], state: RefereeState, context: MatchContext = NO_CONTEXT, *,
             rules: QRules = QRules(), own_state: bool = False) -> MatchResult:
    """Play a game from ``state``; ``seats`` are matched by position with its player records.

    The records take the seats' names; ``state`` itself is not changed, unless
    ``own_state`` says it is the game's own (a fresh deal nobody else keeps): then it is
    played as it is rather than copied (a server holding thousands of games at once kept a
    dealt pile it never read beside each game's own, 10 KB a game). Observers hear a
    snapshot before the first turn and after every turn: the event of a turn notes the
    ``seat`` that took it and carries ``(name, action)`` as its detail (the refused action
    of an ejected player; FAILED when its call failed).
    """
    if len(seats) != len(state.players):
        raise ValueError(f"{len(seats)} players for {len(state.players)} player records")
    if not own_state:
        state = state.copy()
    seat_at: dict[int, int] = {}   # id(record) -> its seat's index
    for index, (seat, record) in enumerate(zip(seats, state.players)):
        record.name = seat.name
        seat_at[id(record)] = index
    # Every call but ``win`` is the active player's: an ejection eliminates it (3.3).
    match = Match(PROTOCOL, seats, context, limits=LIMITS, state_codec=STATE_CODEC,
                  on_eject=lambda _ejection: state.eliminate_active())
    for _ in range(len(state.players)):   # set-up in turn order, rotating after each success (3.2)
        record = state.players[0]
        seat = seats[seat_at[id(record)]]
        if match.call(seat, "setup", state.public_for_active(not seat.trusted), list(record.hand)) is not FAILED:
            state.rotate()
    turns = _play_rounds(match, state, {key: seats[index] for key, index in seat_at.items()}, rules)
    if not turns:
        _show(match, state)
    if not state.players:
        return match.result([])
    match.on_eject = None   # a failed ``win`` loses the win, not the place in the ranking (3.4)
    best = max(record.score for record in state.players)
    winners = [seats[seat_at[id(r)]] for r in state.players if r.score == best]
    acknowledged = match.announce("win", winners, [seats[seat_at[id(r)]] for r in state.players if r.score != best])
    scores = {seat_at[id(r)]: r.score for r in state.players}
    return match.result(match.by_name(map(match.index, acknowledged)), ranking=ranking_by_score(scores), scores=scores)


def turn_problem(state: RefereeState) -> Legal:
    """The check of a turn in ``state`` (3.3): why the active player may not take an
    action, or None when it may."""

    def problem(action: Any) -> str | None:
        if action is PASS:
            return None
        record = state.players[0]
        if action is REPLACE:
            if can_exchange(len(state.pile), len(record.hand)):
                return None
            return f"asked to exchange {len(record.hand)} tiles with only {len(state.pile)} in the pile"
        reason = check_placements(state.qmap, record.hand, action)
        return None if reason is None else f"illegal placement: {reason}"

    return problem


def _show(match: Match, state: RefereeState, turn: tuple[str, Any] | None = None) -> None:
    if match.watched:
        snapshot = state.copy() if state.players else None
        match.state(snapshot, detail=turn, **({} if turn is None else {"seat": turn[0]}))


def _play_rounds(match: Match, state: RefereeState, seat_of: dict[int, Seat], rules: QRules) -> int:
    """Rounds of turns until nobody is left, a player empties its hand, or a whole round
    passes without a placement (3.3); the number of turns taken."""
    legal = turn_problem(state)
    watched = match.watched   # an unwatched game builds no snapshot, no turn detail
    turns = 0
    if state.players:
        _show(match, state)
    while state.players:
        nobody_placed = True
        for _turn in range(len(state.players)):
            if not state.players:
                break
            seat = seat_of[id(state.players[0])]
            action, placed, finished = _take_turn(match, state, seat, rules, legal)
            turns += 1
            nobody_placed = nobody_placed and not placed
            if watched:
                _show(match, state, (seat.name, action))
            if finished:
                return turns
        if nobody_placed:
            return turns
    return turns


def _take_turn(match: Match, state: RefereeState, seat: Seat, rules: QRules,
               legal: Legal) -> tuple[Any, bool, bool]:
    """One turn of the active player: (its action, whether it placed, whether it emptied its
    hand and so ended the game)."""
    # An untrusted player gets its own copy of the map: a call abandoned at its time
    # limit may still be running and must not touch the referee's map.
    action = match.decide(seat, "take_turn", state.public_for_active(not seat.trusted), legal=legal)
    if action is FAILED or action is PASS:
        if action is PASS:
            state.rotate()
        return match.refused(seat) if action is FAILED else action, False, False
    record = state.players[0]
    if action is REPLACE:
        size = len(record.hand)
        state.pile.extend(record.hand)
        record.hand = []
        kept: list[Any] = []
    else:
        apply_placements(state.qmap, action)
        for placement in action:
            record.hand.remove(placement.tile)
        size, kept = len(action), record.hand
        record.score += score_placements(state.qmap, action, rules.q_bonus, rules.finish_bonus, not kept)
        if not kept:
            return action, True, True
    fresh = _draw(state.pile, size)
    if match.call(seat, "new_tiles", fresh) is not FAILED:
        record.hand = fresh + kept
        state.rotate()
    return action, action is not REPLACE, False
