"""The legality of Q actions (3.3, 3.4), and applying a legal placement to a map.

:func:`check_placements` judges a placement request against a map and a hand without
changing either; :func:`apply_placements` then puts the tiles on the map.
:func:`can_exchange` is the exchange rule. The checks run in the referee's order:
ownership, line, sequential fit.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from gameroom.games.q.actions import Placement
from gameroom.games.q.qmap import QMap
from gameroom.games.q.pieces import Coord, Tile


def owns(hand: Sequence[Tile], tiles: Iterable[Tile]) -> bool:
    """The multiset of `tiles` is contained in `hand`."""
    remaining = list(hand)
    for t in tiles:
        try:
            remaining.remove(t)
        except ValueError:
            return False
    return True


def in_one_line(coords: Sequence[Coord]) -> bool:
    """All coordinates share one row, or all share one column (3.4, 2)."""
    if len(coords) < 2:
        return True
    r0, c0 = coords[0]
    return all([r == r0 for r, _ in coords]) or all([c == c0 for _, c in coords])


def check_placements(qmap: QMap, hand: Sequence[Tile],
                     placements: Sequence[Placement]) -> str | None:
    """None when the request is legal for a player holding `hand` (3.4), else the reason.

    The map is left unchanged (the sequential fit is judged on an overlay of the earlier
    placements, :meth:`QMap.check_sequence`). An empty request is illegal (spec 11 #3).
    """
    if not placements:
        return "no placements"
    if len(placements) == 1:   # most turns: no line to check, and one lookup on the map
        coord, t = placements[0]
        if t not in hand:
            return f"tile {t} is not in the hand"
        return None if qmap.can_place(coord, t) else qmap.check_sequence(placements)
    remaining = list(hand)
    for _, t in placements:
        try:
            remaining.remove(t)
        except ValueError:
            return f"tile {t} is not in the hand"
    if not in_one_line([p[0] for p in placements]):
        return "the placements are neither in one row nor in one column"
    return qmap.check_sequence(placements)


def is_legal(qmap: QMap, hand: Sequence[Tile], placements: Sequence[Placement]) -> bool:
    """Whether :func:`check_placements` finds nothing wrong."""
    return check_placements(qmap, hand, placements) is None


def apply_placements(qmap: QMap, placements: Iterable[Placement]) -> None:
    """Put the tiles on the map in order (legality is not checked)."""
    for coord, t in placements:
        qmap.place(coord, t)


def remove_placed(hand: list[Tile], placements: Iterable[Placement]) -> None:
    """Remove one occurrence of every placed tile from `hand` (in place)."""
    for _, t in placements:
        hand.remove(t)


def can_exchange(pile_size: int, hand_size: int) -> bool:
    """An exchange (REPLACE) is legal iff the pile holds at least as many tiles as the hand."""
    return pile_size >= hand_size
