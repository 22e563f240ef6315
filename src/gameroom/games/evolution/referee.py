"""The Evolution dealer on ``core.match`` (spec 3, 4, 8.3): every call to a player through
the one safe-call path with the per-call limit (1 s by default), removal of a misbehaving
player at once (also in the middle of the feeding cycle), observers told of every turn
without pausing the game, and the ranking of spec 3.9.

Observers receive, through ``match.observe``: ``state(configuration, caption)`` at the start
of every turn and once at the end (the Configuration JSON of spec 8.3, players with their
cards), ``removed(id, reason)`` and ``game_over(results)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.match import FAILED, Failure, Match, Seat
from gameroom.games.evolution.dealer import Dealer
from gameroom.games.evolution.pieces import CALL_TIME_LIMIT, EXTINCTION_CARDS, Card, sorted_deck
from gameroom.games.evolution.protocol import PROTOCOL
from gameroom.games.evolution.rules import PlayerState
from gameroom.games.evolution.wire import encode_configuration

__all__ = ["GameResult", "run_game", "player_ids"]


@dataclass
class GameResult:
    """A finished game: ``(rank, id, score)`` per remaining player, the removed players'
    failures in order, and the number of turns started."""

    results: list[tuple[int, str, int]]
    failures: list[Failure] = field(default_factory=list)
    turns: int = 0
    ids: dict[str, Seat] = field(default_factory=dict)

    def to_json(self) -> list[list[Any]]:
        return [list(r) for r in self.results]


def player_ids(seats: Sequence[Seat]) -> list[str]:
    """``"<name>#<i+1>"`` for the seat at position i (spec 3.1)."""
    return [f"{seat.name}#{i + 1}" for i, seat in enumerate(seats)]


def run_game(seats: Sequence[Seat], deck: list[Card] | None = None, time_limit: float | None = CALL_TIME_LIMIT,
             observers: Iterable[Any] = (), log: Callable[[str], None] | None = None,
             extinction_cards: int = EXTINCTION_CARDS) -> GameResult:
    """Play one game between the seats (turn order = their order) with the deck (default:
    the sorted deck)."""
    # Failures are logged here, by player id: remote players' names need not be distinct.
    match = Match(PROTOCOL, seats, time_limit, observers)
    ids = player_ids(seats)
    players = [PlayerState(pid, seat=seat) for pid, seat in zip(ids, seats)]
    failures: list[Failure] = []   # by player id: names need not be distinct

    def removed(player: PlayerState, method: str) -> None:
        failure = Failure(player.id, PROTOCOL.by_name[method].wire, player.seat.ejected)
        failures.append(failure)
        if log is not None:
            log(f"{failure} [time limit {time_limit:g} s]" if time_limit else str(failure))
        if match.observers:
            match.observe("removed", player.id, player.seat.ejected)

    def call(player: PlayerState, method: str, args: tuple) -> Any:
        result = match.call(player.seat, method, *args)
        if result is FAILED:
            removed(player, method)
        return result

    def reject(player: PlayerState, method: str, reason: str) -> None:
        match.eject(player.seat, reason, PROTOCOL.by_name[method].wire)
        removed(player, method)

    dealer = Dealer(players, sorted_deck() if deck is None else list(deck), call, reject,
                    extinction_cards=extinction_cards)
    if match.observers:
        dealer.on_turn = lambda d: match.observe("state", encode_configuration(d), f"turn {d.turn}")
    results = dealer.play()
    if match.observers:
        match.observe("state", encode_configuration(dealer), f"game over after {dealer.turn} turn(s)")
        match.observe("game_over", [list(r) for r in results])
    return GameResult(results, failures, dealer.turn, dict(zip(ids, seats)))
