"""Scoring a legal placement (3.5): points per placed tile, per line segment, per
perpendicular run, Q bonuses and the finish bonus.

A run (maximal contiguous line of tiles) is a *Q* iff it has exactly six tiles whose
colours are pairwise distinct or whose shapes are pairwise distinct. Runs are measured on
the map (:meth:`QMap.segment`); only a run of exactly six tiles is read, as kind indices
(:meth:`QMap.run`), to see whether it is a Q.
"""

from __future__ import annotations

from typing import Sequence

from gameroom.games.q.actions import Placement
from gameroom.games.q.qmap import QMap
from gameroom.games.q.pieces import Coord, Tile

Q_LENGTH = 6


def is_q(run: Sequence[Tile]) -> bool:
    """Exactly six tiles with six distinct colours or six distinct shapes."""
    return len(run) == Q_LENGTH and (len({t.color for t in run}) == Q_LENGTH
                                     or len({t.shape for t in run}) == Q_LENGTH)


def _is_q_kinds(run: Sequence[int]) -> bool:
    """:func:`is_q` on kind indices (shape * 6 + colour)."""
    return len(run) == Q_LENGTH and (len({k % 6 for k in run}) == Q_LENGTH
                                     or len({k // 6 for k in run}) == Q_LENGTH)


def run_through(qmap: QMap, coord: Coord, along_row: bool) -> list[Coord]:
    """The maximal contiguous run of occupied coordinates through `coord` (itself
    occupied), along its row if `along_row`, else along its column; in increasing order."""
    (r, c), kinds = qmap.run(coord, along_row)
    if along_row:
        return [(r, c + i) for i in range(len(kinds))]
    return [(r + i, c) for i in range(len(kinds))]


def _run_points(qmap: QMap, first: int, step: int, length: int, q_bonus: int) -> int:
    """What the run of `length` tiles from the key `first` on, `step` apart, scores:
    nothing below two tiles, else its length, plus the Q bonus (3.5)."""
    if length < 2:
        return 0
    if length == Q_LENGTH and _is_q_kinds(qmap.run_kinds(first, step, length)):
        return length + q_bonus
    return length


def score_placements(qmap_after: QMap, placements: Sequence[Placement], q_bonus: int,
                     finish_bonus: int = 0, finished: bool = False) -> int:
    """The points of a legal placement request (3.5), judged on the map after it.

    `finished` says whether the request used up the player's whole hand; only then is
    `finish_bonus` added.
    """
    if not placements:
        return 0
    segment = qmap_after.segment_key
    key_of = qmap_after.key_of
    width = qmap_after.width
    r0 = placements[0][0][0]
    along_row = len(placements) == 1 or all([p[0][0] == r0 for p in placements])
    step, across = (1, width) if along_row else (width, 1)
    points = len(placements)
    counted: set[int] = set()   # first keys of the line's segments already scored
    for coord, _ in placements:
        key = key_of(coord)
        first, length = segment(key, step)
        if length >= 2 and first not in counted:
            counted.add(first)
            points += _run_points(qmap_after, first, step, length, q_bonus)
        first, length = segment(key, across)
        if length >= 2:
            points += _run_points(qmap_after, first, across, length, q_bonus)
    if finished:
        points += finish_bonus
    return points
