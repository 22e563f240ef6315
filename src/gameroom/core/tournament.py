"""The tournament manager, for any game: knock-out rounds of small games until a winner
stands (the allocation and termination rules of fish.md 5.4, written game-agnostically).

A game plugs in one function, ``play_game(seats) -> MatchResult``, that runs a complete
game with its own referee. Players are :class:`~gameroom.core.match.Seat`s, so one that
misbehaves in any game stays ejected for the rest of the tournament; a game's result names
them by their index in that game's seats (names may repeat). Games of one round are
independent and run concurrently on threads (remote players then overlap their waiting).
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence, TypeVar

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, Seat
from gameroom.core.protocol import WireProtocol
from gameroom.core.record import MatchResult

T = TypeVar("T")

__all__ = ["allocate", "TournamentResult", "run_tournament"]

logger = logging.getLogger(__name__)


def allocate(players: Sequence[T], min_size: int = 2, max_size: int = 4) -> list[list[T]]:
    """Split ``players`` (order kept) into games of ``min_size``..``max_size`` players: as
    many maximal games as possible, backtracking to smaller games for the rest (5.4)."""
    n_all = len(players)
    if n_all <= max_size:
        return [list(players)]
    games: list[list[T]] = [list(players[:max_size])]
    rest = list(players[max_size:])
    n, size = n_all - max_size, max_size
    while True:
        if n == 0:
            return games
        if n < min_size:
            if not games:
                raise ValueError(f"cannot allocate {n_all} players into games of {min_size}..{max_size}")
            last = games.pop()
            rest = last + rest
            n += size
            size -= 1
            if size < min_size:
                raise ValueError(f"cannot allocate {n_all} players into games of {min_size}..{max_size}")
        elif n < size:
            games.append(rest)
            return games
        else:
            games.append(rest[:size])
            rest = rest[size:]
            n -= size


@dataclass
class TournamentResult:
    winners: list[Seat]
    failures: list[Seat]
    rounds: list[list[list[str]]] = field(default_factory=list)   # per round, per game: names

    def names(self) -> list[list[str]]:
        return [[s.name for s in self.winners], [s.name for s in self.failures]]

    def counts(self) -> list[int]:
        return [len(self.winners), len(self.failures)]


def _safe_observe(observers: list[Any], event: str, *args: Any) -> None:
    for observer in list(observers):
        handler = getattr(observer, event, None)
        if handler is None:
            continue
        try:
            handler(*args)
        except Exception:   # a broken observer is dropped, never the tournament; its traceback is logged
            observers.remove(observer)
            logger.warning("tournament observer %s dropped on %s", type(observer).__name__, event, exc_info=True)


def _advancing(game: list[Seat], result: MatchResult) -> list[Seat]:
    """Who of one game goes on: its first ranking group (possibly empty)."""
    return [game[i] for i in result.ranking_seats[0]] if result.ranking_seats else []


def run_tournament(seats: Sequence[Seat], play_game: Callable[[list[Seat]], MatchResult], *,
                   protocol: WireProtocol, start_method: str | None = None, end_method: str | None = None,
                   start_limit: float | None = 3.0, end_limit: float | None = 3.0,
                   min_size: int = 2, max_size: int = 4, observers: Iterable[Any] = (),
                   concurrent: bool = True, log: Callable[[str], None] | None = None) -> TournamentResult:
    """Run a knock-out tournament. ``start_method``/``end_method`` name the protocol's
    start- and end-of-tournament calls (None for games without them)."""
    observers = list(observers)
    failures: list[Seat] = []
    match = Match(protocol, seats, MatchContext(log=log), limits=Limits(call=start_limit))

    def fail(seat: Seat) -> None:
        if seat not in failures:
            failures.append(seat)

    # Step 1: start.
    starters: list[Seat] = []
    for seat in seats:
        if seat.ejected is not None:
            fail(seat)
        elif start_method is None or match.call(seat, start_method, True, limit=start_limit) is not FAILED:
            starters.append(seat)
        else:
            fail(seat)
    _safe_observe(observers, "show", True)

    # Step 2: rounds.
    order = {id(seat): i for i, seat in enumerate(starters)}
    current = list(starters)
    rounds: list[list[list[str]]] = []
    winners: list[Seat]
    while True:
        current.sort(key=lambda s: order[id(s)])
        if len(current) < min_size:
            winners = current
            break
        games = [current] if len(current) <= max_size else allocate(current, min_size, max_size)
        rounds.append([[s.name for s in game] for game in games])
        _safe_observe(observers, "show_next_round", [[s.name for s in game] for game in games])
        if concurrent and len(games) > 1:
            with ThreadPoolExecutor(max_workers=len(games)) as pool:
                results = list(pool.map(play_game, games))
        else:
            results = [play_game(game) for game in games]
        round_winners: list[Seat] = []
        advancing = [_advancing(game, result) for game, result in zip(games, results)]
        for game, result, ahead in zip(games, results, advancing):
            for i in result.misbehaved_seats:
                fail(game[i])
            round_winners.extend(s for s in ahead if s not in failures)
        _safe_observe(observers, "show_winners", [[s.name for s in ahead] for ahead in advancing])
        if len(games) == 1 and len(current) <= max_size:
            winners = round_winners     # the final game
            break
        if not round_winners or {id(s) for s in round_winners} == {id(s) for s in current}:
            winners = round_winners     # nobody left, or nobody eliminated: stagnation
            break
        current = round_winners

    # Step 3: end.
    if end_method is not None:
        told = len(match.ejections)
        losers = [seat for seat in seats if seat not in winners and seat not in failures]
        winners = match.announce(end_method, winners, losers, limit=end_limit)
        for ejection in match.ejections[told:]:
            fail(match.seats[ejection.seat])
    _safe_observe(observers, "show_end", [s.name for s in winners], [s.name for s in failures])
    return TournamentResult(list(winners), failures, rounds)
