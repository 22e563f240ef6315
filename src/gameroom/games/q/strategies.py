"""Q's built-in strategies (9.1) and their iteration into a whole turn (9.2).

An atomic step maps a public state to PASS, REPLACE or one :class:`Placement`:

* ``dag`` ("dumb and greedy"): the first tile of the sorted hand that has a candidate,
  at its smallest candidate in row-major order;
* ``ldasg`` ("less dumb and still greedy"): the same tile, at the smallest of its
  candidates with the largest constraint count.

With no placeable tile the step passes when the hand is larger than the pile, else asks
for a replacement. :func:`iterate` repeats a step on the public state extended by the
placements so far, as long as the growing request stays legal in the original state.
For the built-in steps the extended map is an :class:`Extension` (the public map is not
touched); a custom step sees the public map extended in place, restored before returning.
"""

from __future__ import annotations

from typing import Callable

from gameroom.games.q.actions import PASS, REPLACE, Action, Pass, Placement, Replace, Step
from gameroom.games.q.qmap import Extension, QMap
from gameroom.games.q.state import PublicState
from gameroom.games.q.pieces import ALL_KINDS, KIND_INDEX, Coord

StrategyStep = Callable[[PublicState], Step]


def _choose(qmap: QMap | Extension, hand_kinds: list[int], most_constrained: bool) -> tuple[int, int] | None:
    """The candidate's key and the kind of the atomic step for a hand given as kind
    indices sorted ascending (kind order is tile order, 2.1), None when no tile has a
    candidate."""
    choose = qmap.best_key_of if most_constrained else qmap.first_key_of
    previous = -1
    for k in hand_kinds:
        if k != previous:
            previous = k
            key = choose(k)
            if key is not None:
                return key, k
    return None


def _step(pub: PublicState, most_constrained: bool) -> Step:
    qmap = pub.qmap
    found = _choose(qmap, sorted([KIND_INDEX[t] for t in pub.hand]), most_constrained)
    if found is not None:
        return Placement(qmap.coord_of(found[0]), ALL_KINDS[found[1]])
    return PASS if len(pub.hand) > pub.pile_size else REPLACE


def dag(pub: PublicState) -> Step:
    """The dumb-and-greedy step: smallest tile with a candidate, smallest candidate."""
    return _step(pub, False)


def ldasg(pub: PublicState) -> Step:
    """The less-dumb step: smallest tile with a candidate, its most constrained candidate
    (ties broken by row-major order)."""
    return _step(pub, True)


STRATEGIES: dict[str, StrategyStep] = {"dag": dag, "ldasg": ldasg}
"""The built-in strategies by their JStrategy name."""

_MOST_CONSTRAINED: dict[StrategyStep, bool] = {dag: False, ldasg: True}
"""The built-in steps, which :func:`iterate` runs without building public states."""


_OFF_LINE, _UNDECIDED, _ALONG_ROW, _ALONG_COLUMN = range(4)


def _extend_line(first: Coord, direction: int, coord: Coord) -> int:
    """The direction of a placement line that starts at `first` and goes in `direction`
    so far, once `coord` joins it; _OFF_LINE if `coord` leaves the line (3.4, 2)."""
    if direction != _ALONG_COLUMN and coord[0] == first[0]:
        return _ALONG_ROW
    if direction != _ALONG_ROW and coord[1] == first[1]:
        return _ALONG_COLUMN
    return _OFF_LINE


def iterate(step: StrategyStep, pub: PublicState) -> Action:
    """The turn a built-in player takes (9.2): repeat `step`, extending the request while
    it remains legal in `pub`.

    Each extension is checked incrementally: the tile must still be in the rest of the
    hand, its coordinate must be a free neighbour where it fits on the map as extended so
    far, and it must stay in the line of the earlier placements. Returns PASS or REPLACE
    if the first step says so, else the placement tuple (empty only if `step` proposes an
    illegal first placement, which the built-in steps never do).
    """
    most_constrained = _MOST_CONSTRAINED.get(step)
    if most_constrained is not None:
        return _iterate_built_in(pub, most_constrained)
    qmap = pub.qmap
    hand = list(pub.hand)
    placements: list[Placement] = []
    direction = _UNDECIDED
    current = pub
    try:
        while True:
            action = step(current)
            if isinstance(action, (Pass, Replace)):
                return action if not placements else tuple(placements)
            coord, t = action
            if not qmap.can_place(coord, t) or t not in hand:
                break
            if placements:
                direction = _extend_line(placements[0].coord, direction, coord)
                if direction == _OFF_LINE:
                    break
            qmap.place(coord, t)
            placements.append(action)
            hand.remove(t)
            current = PublicState(qmap, pub.name, pub.score, tuple(hand),
                                  pub.other_scores, pub.pile_size)
    finally:
        for p in reversed(placements):
            qmap.remove(p.coord)
    return tuple(placements)


def _iterate_built_in(pub: PublicState, most_constrained: bool) -> Action:
    """:func:`iterate` for dag or ldasg, on kind indices and keys.

    Every step of a built-in strategy proposes a candidate (a free neighbour where the
    tile fits on the map as extended so far) for a tile of the rest of the hand, so of the
    legality of an extension (3.4) only the line remains to be checked. The extended map
    is an :class:`Extension` of the public one, which is never changed.
    """
    qmap = pub.qmap
    hand = sorted([KIND_INDEX[t] for t in pub.hand])
    qmap.reserve(len(hand))   # (keys stay valid from here on)
    found = _choose(qmap, hand, most_constrained)
    if found is None:
        return PASS if len(hand) > pub.pile_size else REPLACE
    key, k = found
    width, middle = qmap.width, qmap.width >> 1
    r, c = divmod(key, width)
    placements = [Placement((r, c - middle), ALL_KINDS[k])]
    if len(hand) == 1:
        return tuple(placements)
    hand.remove(k)
    extended = Extension(qmap)   # (room reserved above)
    extended.add(key, k)
    found = _choose(extended, hand, most_constrained)
    if found is None:
        return tuple(placements)
    # The line: the row of the first placement when the second shares it, else its column.
    first_row, first_column = r, c
    key, k = found
    r, c = divmod(key, width)
    if r == first_row:
        along_row = True
    elif c == first_column:
        along_row = False
    else:
        return tuple(placements)
    while True:
        placements.append(Placement((r, c - middle), ALL_KINDS[k]))
        hand.remove(k)
        extended.add(key, k)
        found = _choose(extended, hand, most_constrained)
        if found is None:
            break
        key, k = found
        r, c = divmod(key, width)
        if (r != first_row) if along_row else (c != first_column):
            break
    return tuple(placements)


def take_turn(strategy: str, pub: PublicState) -> Action:
    """The whole turn of the built-in player with the named strategy."""
    return iterate(STRATEGIES[strategy], pub)
