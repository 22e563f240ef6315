"""The five cheats of Q's misbehaving players (9.3).

Each cheat maps the received public state to the cheating action, or to None when the
cheat is impossible in that situation (the cheater then plays normally). The map of the
public state is only tried on with ``place``/``remove`` and left as it was.
"""

from __future__ import annotations

from typing import Callable

from gameroom.games.q.actions import REPLACE, Action, Placement
from gameroom.games.q.qmap import QMap
from gameroom.games.q.state import PublicState
from gameroom.games.q.pieces import ALL_KINDS, Color, Coord, Shape, Tile

Cheat = Callable[[PublicState], "Action | None"]

ORANGE_CIRCLE = Tile(Shape.circle, Color.orange)


def non_adjacent_coordinate(pub: PublicState) -> Action | None:
    """An orange circle at (n + 1, 0), n = number of players in the JPub (always possible;
    the referee decides, and it may even be legal)."""
    n = 1 + len(pub.other_scores)
    return (Placement((n + 1, 0), ORANGE_CIRCLE),)


def tile_not_owned(pub: PublicState) -> Action | None:
    """The first kind in canonical order that the hand lacks, at its smallest candidate.

    When that tile has no candidate the reference raises; this places it at the smallest
    free neighbour (or (0, 0) on an empty map) instead — equally illegal (not owned), so
    the cheater is eliminated either way (spec 11 #18).
    """
    held = set(pub.hand)
    for t in ALL_KINDS:
        if t not in held:
            coord = pub.qmap.first_candidate(t)
            if coord is None:
                free = pub.qmap.free_neighbours()
                coord = min(free) if free else (0, 0)
            return (Placement(coord, t),)
    return None


def _off_line(coord: Coord, r0: int, c0: int, direction: int) -> bool:
    r, c = coord
    if direction == 0:
        return r != r0 and c != c0
    return r != r0 if direction == 1 else c != c0


def not_a_line(pub: PublicState) -> Action | None:
    """At least two placements, each fitting on the map extended by the earlier ones,
    using distinct hand entries, not all in one row or one column; None if impossible.

    Exhaustive search: a shortest witness is a line of placements followed by one that
    leaves the line, so only in-line extensions are explored further.
    """
    hand = list(pub.hand)
    if len(hand) < 2:
        return None
    qmap = pub.qmap
    placed: list[Placement] = []

    def search(r0: int, c0: int, direction: int) -> Action | None:
        kinds = sorted(set(hand))
        # a placement that leaves the line completes a witness
        for t in kinds:
            for coord in qmap.candidates(t):
                if _off_line(coord, r0, c0, direction):
                    return tuple(placed) + (Placement(coord, t),)
        if not hand:
            return None
        # otherwise extend the line and look again
        for t in kinds:
            for coord in qmap.candidates(t):
                r, c = coord
                new_direction = direction or (1 if r == r0 else 2)
                found = search_after(coord, t, r0, c0, new_direction)
                if found is not None:
                    return found
        return None

    def search_after(coord: Coord, t: Tile, r0: int, c0: int, direction: int) -> Action | None:
        """Place ``t`` at ``coord``, search on, and take the placement back."""
        qmap.place(coord, t)
        hand.remove(t)
        placed.append(Placement(coord, t))
        try:
            return search(r0, c0, direction) if hand else None
        finally:
            placed.pop()
            hand.append(t)
            qmap.remove(coord)

    for t in sorted(set(hand)):
        for coord in qmap.candidates(t):
            found = search_after(coord, t, coord[0], coord[1], 0)
            if found is not None:
                return found
    return None


def bad_ask_for_tiles(pub: PublicState) -> Action | None:
    """REPLACE when the pile holds fewer tiles than the hand."""
    return REPLACE if pub.pile_size < len(pub.hand) else None


def _misfit(qmap: QMap, t: Tile) -> Coord | None:
    wrong = [c for c in qmap.free_neighbours() if not qmap.fits(c, t)]
    return min(wrong) if wrong else None


def no_fit(pub: PublicState) -> Action | None:
    """One hand tile at a free neighbour where it does not fit: the first hand tile (in
    hand order) that misfits somewhere, at its smallest such coordinate."""
    seen: set[Tile] = set()
    for t in pub.hand:
        if t in seen:
            continue
        seen.add(t)
        coord = _misfit(pub.qmap, t)
        if coord is not None:
            return (Placement(coord, t),)
    return None


CHEATS: dict[str, Cheat] = {
    "non-adjacent-coordinate": non_adjacent_coordinate,
    "tile-not-owned": tile_not_owned,
    "not-a-line": not_a_line,
    "bad-ask-for-tiles": bad_ask_for_tiles,
    "no-fit": no_fit,
}
"""The cheats by their JCheat name."""
