"""Pure rules of the Fish knock-out tournament (spec 5.4): game allocation and termination.

The tournament manager (a later, game-agnostic phase) runs the games; this module only
decides how a round's players are split into games and when the tournament stops.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

T = TypeVar("T")

GAME_MIN = 2
GAME_MAX = 4


def allocate(players: Sequence[T], smallest: int = GAME_MIN, largest: int = GAME_MAX) -> list[list[T]]:
    """Split `players` (order kept) into games of `smallest`..`largest` players: as many
    games of the largest size as possible, backtracking to smaller games at the end
    (5 -> 3+2, 6 -> 4+2, 9 -> 4+3+2, 13 -> 4+4+3+2)."""
    if smallest < 1 or largest < smallest:
        raise ValueError(f"bad game sizes {smallest}..{largest}")
    everyone = list(players)
    if len(everyone) <= largest:
        return [everyone]
    games = [everyone[:largest]]
    rest = everyone[largest:]
    n = len(rest)
    size = largest
    while True:
        if n == 0:
            return games
        if n < smallest:
            if not games:
                raise ValueError(f"cannot split {len(everyone)} players into games of "
                                 f"{smallest}..{largest}")
            last = games.pop()
            rest = last + rest
            n += size
            size -= 1
            if size < smallest:
                raise ValueError(f"cannot split {len(everyone)} players into games of "
                                 f"{smallest}..{largest}")
        elif n < size:
            return games + [rest]
        else:
            games.append(rest[:size])
            rest = rest[size:]
            n -= size


def in_signup_order(players: Sequence[T], order: Sequence[T]) -> list[T]:
    """The members of `players` re-sorted into the order of `order` (step 2.1 of 5.4)."""
    wanted = set(map(id, players))
    return [p for p in order if id(p) in wanted]


def round_ends_tournament(round_players: Sequence[T], winners: Sequence[T]) -> bool:
    """gameroom's stagnation rule: stop when a round produced no winners, or when nobody
    was eliminated (the winners are exactly the round's players)."""
    return not winners or set(map(id, winners)) == set(map(id, round_players))
