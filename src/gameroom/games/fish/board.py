"""The hexagonal Fish board: positions, the six directions, tiles and holes, reachability.

Geometry (spec 2.2): a position is ``(row, column)``; rows are half-offset, odd rows shifted
right by half a tile, so tile ``(r, c)`` touches tiles in rows ``r-2 .. r+2``. The six
directions in *canonical order* are N, NE, SE, S, SW, NW; the row/column delta of a step
depends on the parity of the row stepped from.

A :class:`Board` is a ``rows x columns`` rectangle of spots, each a tile with 1-5 fish or a
hole (0 fish). Internally the fish counts are one flat row-major list and the straight lines
("rays") from every spot are precomputed once per board shape, so reachability walks plain
integer indices. Boards are mutable only through :meth:`Board.remove_tile` /
:meth:`Board.put_tile` (used by the game state's apply/undo); :meth:`Board.copy` is cheap.
"""

from __future__ import annotations

import random
from enum import IntEnum
from functools import lru_cache
from typing import Collection, Iterable, Iterator, Sequence

Position = tuple[int, int]
"""A ``(row, column)`` pair of naturals; ``(0, 0)`` is the top-left tile."""

MAX_FISH = 5
"""The most fish a tile can show (a hole shows 0)."""


class Direction(IntEnum):
    """The six directions, numbered in canonical order (clockwise from north)."""

    N = 0
    NE = 1
    SE = 2
    S = 3
    SW = 4
    NW = 5


DIRECTIONS: tuple[Direction, ...] = tuple(Direction)
"""The canonical direction order: N, NE, SE, S, SW, NW."""

_EVEN_DELTAS = ((-2, 0), (-1, 0), (1, 0), (2, 0), (1, -1), (-1, -1))
_ODD_DELTAS = ((-2, 0), (-1, 1), (1, 1), (2, 0), (1, 0), (-1, 0))


def step(position: Position, direction: Direction) -> Position:
    """The spot one step from `position` in `direction` (possibly off any board)."""
    row, column = position
    dr, dc = (_ODD_DELTAS if row % 2 else _EVEN_DELTAS)[direction]
    return (row + dr, column + dc)


def line(position: Position, direction: Direction, rows: int, columns: int) -> list[Position]:
    """The straight line from `position` (exclusive) in `direction`, up to the board's edge."""
    out: list[Position] = []
    row, column = step(position, direction)
    while 0 <= row < rows and 0 <= column < columns:
        out.append((row, column))
        row, column = step((row, column), direction)
    return out


class Geometry:
    """Precomputed index tables for one board shape (shared by all boards of that shape).

    Index ``i`` stands for position ``positions[i] == divmod(i, columns)``.
    ``rays[i][d]`` lists the on-board indices along direction ``d`` from ``i``, nearest first;
    ``first_steps[i]`` lists the first index of every non-empty ray in canonical order.
    """

    __slots__ = ("rows", "columns", "size", "positions", "rays", "first_steps")

    def __init__(self, rows: int, columns: int) -> None:
        self.rows = rows
        self.columns = columns
        self.size = rows * columns
        self.positions: tuple[Position, ...] = tuple(
            (r, c) for r in range(rows) for c in range(columns))
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(tuple(r * columns + c for r, c in line(p, d, rows, columns)) for d in DIRECTIONS)
            for p in self.positions)
        self.first_steps: tuple[tuple[int, ...], ...] = tuple(
            tuple(ray[0] for ray in rays if ray) for rays in self.rays)

    def index(self, position: Position) -> int:
        """The flat index of an on-board position."""
        return position[0] * self.columns + position[1]


@lru_cache(maxsize=64)
def geometry(rows: int, columns: int) -> Geometry:
    """The (cached) index tables of a ``rows x columns`` board."""
    return Geometry(rows, columns)


class Board:
    """A rectangle of tiles (1..5 fish) and holes (0 fish).

    Looking up a position off the board yields a hole. Two boards are equal when they have
    the same shape and the same fish on every spot.
    """

    __slots__ = ("rows", "columns", "fish", "geometry")

    def __init__(self, rows: int, columns: int, fish: Iterable[int]) -> None:
        """A board from its shape and its fish counts in row-major order."""
        if rows < 1 or columns < 1:
            raise ValueError(f"a board needs at least one row and one column, got {rows}x{columns}")
        counts = list(fish)
        if len(counts) != rows * columns:
            raise ValueError(f"expected {rows * columns} fish counts, got {len(counts)}")
        for n in counts:
            if not 0 <= n <= MAX_FISH:
                raise ValueError(f"fish count {n} is not within 0..{MAX_FISH}")
        self.rows = rows
        self.columns = columns
        self.fish: list[int] = counts
        self.geometry: Geometry = geometry(rows, columns)

    # -- construction ------------------------------------------------------------------

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[int]]) -> "Board":
        """A board from rows of fish counts; short rows are padded with holes at the end."""
        width = max((len(r) for r in rows), default=0)
        if width == 0:
            raise ValueError("a board needs at least one non-empty row")
        flat: list[int] = []
        for r in rows:
            flat.extend(r)
            flat.extend([0] * (width - len(r)))
        return cls(len(rows), width, flat)

    @classmethod
    def uniform(cls, rows: int, columns: int, fish: int) -> "Board":
        """A board with `fish` fish on every spot and no holes."""
        return cls(rows, columns, [fish] * (rows * columns))

    def copy(self) -> "Board":
        """An independent copy (cheap: one flat list)."""
        board = Board.__new__(Board)
        board.rows = self.rows
        board.columns = self.columns
        board.fish = self.fish.copy()
        board.geometry = self.geometry
        return board

    # -- queries -----------------------------------------------------------------------

    def to_rows(self) -> list[list[int]]:
        """The fish counts as full-width rows (holes as 0)."""
        c = self.columns
        return [self.fish[r * c:(r + 1) * c] for r in range(self.rows)]

    def on_board(self, position: Position) -> bool:
        """Whether `position` lies within the rectangle."""
        row, column = position
        return 0 <= row < self.rows and 0 <= column < self.columns

    def fish_at(self, position: Position) -> int:
        """The fish on the tile at `position`; 0 for a hole or a spot off the board."""
        row, column = position
        if 0 <= row < self.rows and 0 <= column < self.columns:
            return self.fish[row * self.columns + column]
        return 0

    def is_tile(self, position: Position) -> bool:
        """Whether `position` is on the board and holds a tile (not a hole)."""
        return self.fish_at(position) > 0

    def is_hole(self, position: Position) -> bool:
        """Whether `position` holds no tile (a hole, or off the board)."""
        return self.fish_at(position) == 0

    def positions(self) -> Iterator[Position]:
        """Every spot, row by row, left to right."""
        return iter(self.geometry.positions)

    def tiles(self) -> list[Position]:
        """Every tile (not the holes), row by row, left to right."""
        fish = self.fish
        return [p for i, p in enumerate(self.geometry.positions) if fish[i]]

    def total_fish(self) -> int:
        """The sum of the fish on all tiles."""
        return sum(self.fish)

    def neighbours(self, position: Position) -> list[Position]:
        """The tiles one step away from `position`, in canonical direction order."""
        if not self.on_board(position):
            return []
        geo = self.geometry
        fish = self.fish
        return [geo.positions[j] for j in geo.first_steps[geo.index(position)] if fish[j]]

    def reachable(self, position: Position, blocked: Collection[Position] = ()) -> list[Position]:
        """The positions reachable from `position` along straight lines (spec 2.3).

        For each direction in canonical order, walk outwards while the next spot is a tile
        that is not in `blocked`; lines stop at holes, blocked spots and the edge, never
        jumping over them. Nearest first within a direction; the start is never included.
        """
        if not self.on_board(position):
            return []
        geo = self.geometry
        cols = self.columns
        stops = {r * cols + c for r, c in blocked if 0 <= r < self.rows and 0 <= c < cols}
        return [geo.positions[j] for j in self.reachable_indices(geo.index(position), stops)]

    def reachable_indices(self, index: int, blocked: Collection[int]) -> list[int]:
        """Like :meth:`reachable`, on flat indices (the hot path of move generation)."""
        fish = self.fish
        out: list[int] = []
        for ray in self.geometry.rays[index]:
            for j in ray:
                if not fish[j] or j in blocked:
                    break
                out.append(j)
        return out

    # -- changes -----------------------------------------------------------------------

    def remove_tile(self, position: Position) -> int:
        """Turn the tile at `position` into a hole; return the fish it had."""
        if not self.on_board(position):
            raise ValueError(f"position {list(position)} is off the {self.rows}x{self.columns} board")
        i = self.geometry.index(position)
        had = self.fish[i]
        self.fish[i] = 0
        return had

    def put_tile(self, position: Position, fish: int) -> None:
        """Put a tile with `fish` fish (0 = make a hole) at an on-board `position`."""
        if not self.on_board(position):
            raise ValueError(f"position {list(position)} is off the {self.rows}x{self.columns} board")
        if not 0 <= fish <= MAX_FISH:
            raise ValueError(f"fish count {fish} is not within 0..{MAX_FISH}")
        self.fish[self.geometry.index(position)] = fish

    # -- values ------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.rows == other.rows and self.columns == other.columns and self.fish == other.fish

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Board.from_rows({self.to_rows()!r})"


def max_one_fish_tiles(rows: int, columns: int) -> int:
    """The largest one-fish quota :func:`make_board` accepts: ``rows*columns // 10 + 1``."""
    return rows * columns // 10 + 1


def make_board(rows: int, columns: int, *, rng: random.Random | None = None,
               min_one_fish: int = 0, holes: Collection[Position] = (),
               fixed: int | None = None) -> Board:
    """Create a board the way the reference does (spec 2.4).

    * ``fixed`` given: every spot is a tile with that many fish; `holes` are ignored (the
      reference checks ``fixed`` first).
    * otherwise spots are visited row by row; a listed hole stays a hole; else, when the
      spots left to visit (this one included) are no more than the one-fish tiles still
      needed, the tile gets 1 fish; else a uniformly random 1..5 from `rng` (a random 1
      counts towards the quota). A board with too few one-fish tiles is generated again.
    """
    if not (1 <= rows and 1 <= columns):
        raise ValueError(f"a board needs at least one row and one column, got {rows}x{columns}")
    if fixed is not None:
        if not 1 <= fixed <= MAX_FISH:
            raise ValueError(f"fixed fish count {fixed} is not within 1..{MAX_FISH}")
        return Board.uniform(rows, columns, fixed)
    if rng is None:
        raise ValueError("a board with random fish needs a random.Random")
    if not 0 <= min_one_fish <= max_one_fish_tiles(rows, columns):
        raise ValueError(f"min_one_fish {min_one_fish} is not within "
                         f"0..{max_one_fish_tiles(rows, columns)} for a {rows}x{columns} board")
    hole_set = set(holes)
    for p in hole_set:
        if not (0 <= p[0] < rows and 0 <= p[1] < columns):
            raise ValueError(f"hole {list(p)} is off the {rows}x{columns} board")
    if rows * columns - len(hole_set) < min_one_fish:
        raise ValueError(f"{len(hole_set)} holes leave fewer than {min_one_fish} tiles")
    total = rows * columns
    while True:
        fish: list[int] = []
        needed = min_one_fish
        for i, p in enumerate(geometry(rows, columns).positions):
            if p in hole_set:
                fish.append(0)
                continue
            remaining = total - i
            n = 1 if needed > 0 and remaining <= needed else rng.randint(1, MAX_FISH)
            if n == 1 and needed > 0:
                needed -= 1
            fish.append(n)
        if needed == 0:
            return Board(rows, columns, fish)
