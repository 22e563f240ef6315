"""Scoring a legal placement (3.5): points per placed tile, per line segment, per
perpendicular run, Q bonuses and the finish bonus.

A run (maximal contiguous line of tiles) is a *Q* iff it has exactly six tiles whose
colours are pairwise distinct or whose shapes are pairwise distinct.
"""

from __future__ import annotations

from typing import Sequence

from gameroom.games.q.actions import Placement
from gameroom.games.q.qmap import QMap
from gameroom.games.q.tiles import Coord, Tile

Q_LENGTH = 6


def is_q(run: Sequence[Tile]) -> bool:
    """Exactly six tiles with six distinct colours or six distinct shapes."""
    return len(run) == Q_LENGTH and (len({t.color for t in run}) == Q_LENGTH
                                     or len({t.shape for t in run}) == Q_LENGTH)


def run_through(qmap: QMap, coord: Coord, along_row: bool) -> list[Coord]:
    """The maximal contiguous run of occupied coordinates through `coord` (itself
    occupied), along its row if `along_row`, else along its column; in increasing order."""
    r, c = coord
    dr, dc = (0, 1) if along_row else (1, 0)
    start_r, start_c = r, c
    while (start_r - dr, start_c - dc) in qmap:
        start_r -= dr
        start_c -= dc
    run = []
    cr, cc = start_r, start_c
    while (cr, cc) in qmap:
        run.append((cr, cc))
        cr += dr
        cc += dc
    return run


def _run_points(qmap: QMap, run: list[Coord], q_bonus: int) -> int:
    if len(run) < 2:
        return 0
    points = len(run)
    if len(run) == Q_LENGTH and is_q([qmap[c] for c in run]):
        points += q_bonus
    return points


def score_placements(qmap_after: QMap, placements: Sequence[Placement], q_bonus: int,
                     finish_bonus: int = 0, finished: bool = False) -> int:
    """The points of a legal placement request (3.5), judged on the map after it.

    `finished` says whether the request used up the player's whole hand; only then is
    `finish_bonus` added.
    """
    if not placements:
        return 0
    coords = [p[0] for p in placements]
    r0 = coords[0][0]
    along_row = all(r == r0 for r, _ in coords)
    points = len(coords)
    counted: set[Coord] = set()
    for coord in coords:
        if coord in counted:
            continue
        run = run_through(qmap_after, coord, along_row)
        counted.update(run)
        points += _run_points(qmap_after, run, q_bonus)
    for coord in coords:
        points += _run_points(qmap_after, run_through(qmap_after, coord, not along_row), q_bonus)
    if finished:
        points += finish_bonus
    return points
