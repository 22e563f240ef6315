"""Q's map: an unbounded grid of placed tiles, with the fit rule and the candidate search.

A :class:`QMap` keeps, besides the placed tiles, an incrementally maintained index of its
*free neighbours* (unoccupied coordinates with at least one occupied neighbour, 9.1): for
every free neighbour the set of tile kinds that fit there (a 36-bit mask) and its
constraint count, and for every (kind, constraint count) the set of free neighbours with
that count where the kind fits. :meth:`QMap.place` and :meth:`QMap.remove` update only the
placed coordinate and its four neighbours (the fit rule looks at immediate neighbours
only, 3.4), so trying a move is ``place`` ... ``remove`` rather than a copy of the map, and
the strategies find their candidate in (nearly) constant time.

Only the four immediate neighbours count for the fit rule (spec 11 #1): lines longer than
six tiles and duplicates in a line are allowed.
"""

from __future__ import annotations

from typing import Iterator, Mapping

from gameroom.games.q.tiles import ALL_KINDS, KIND_INDEX, NKINDS, Coord, Tile

_ABSENT = NKINDS  # "no tile here" in the line table
_ALL = (1 << NKINDS) - 1


def _line_table() -> list[int]:
    """LINE[a * 37 + b] = mask of the kinds t with line-ok(a, t, b); 36 means absent."""
    table = [0] * ((NKINDS + 1) * (NKINDS + 1))
    for a in range(NKINDS + 1):
        for b in range(NKINDS + 1):
            mask = 0
            for t in range(NKINDS):
                ts, tc = divmod(t, 6)
                present = [n for n in (a, b) if n != _ABSENT]
                if not present:
                    ok = True
                elif len(present) == 1:
                    ns, nc = divmod(present[0], 6)
                    ok = ns == ts or nc == tc
                else:
                    (s1, c1), (s2, c2) = divmod(present[0], 6), divmod(present[1], 6)
                    ok = (s1 == ts and s2 == ts) or (c1 == tc and c2 == tc)
                if ok:
                    mask |= 1 << t
            table[a * (NKINDS + 1) + b] = mask
    return table


_LINE = _line_table()
_W = NKINDS + 1


class QMap:
    """A finite partial map from coordinates to tiles, with an incremental candidate index.

    >>> from gameroom.games.q.tiles import tile
    >>> m = QMap({(0, 0): tile("star", "red")})
    >>> m.candidates(tile("circle", "red"))
    [(-1, 0), (0, -1), (0, 1), (1, 0)]
    >>> m.place((0, 1), tile("circle", "red")); m.fits((0, 2), tile("circle", "blue"))
    True
    """

    __slots__ = ("_kinds", "_free", "_index")

    def __init__(self, cells: Mapping[Coord, Tile] | None = None) -> None:
        # occupied coordinate -> kind index
        self._kinds: dict[Coord, int] = {}
        # free neighbour -> (mask of fitting kinds << 3) | constraint count
        self._free: dict[Coord, int] = {}
        # _index[kind * 4 + count - 1] = free neighbours with that count where kind fits
        self._index: list[set[Coord]] = [set() for _ in range(NKINDS * 4)]
        if cells:
            kinds = self._kinds
            for coord, t in cells.items():
                kinds[(int(coord[0]), int(coord[1]))] = KIND_INDEX[t]
            around: set[Coord] = set()
            for r, c in kinds:
                around.update(((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c)))
            for coord in around:
                if coord not in kinds:
                    self._refresh(coord)

    # -- reading -------------------------------------------------------------------------

    def get(self, coord: Coord) -> Tile | None:
        """The tile at `coord`, or None."""
        k = self._kinds.get(coord)
        return None if k is None else ALL_KINDS[k]

    def __getitem__(self, coord: Coord) -> Tile:
        return ALL_KINDS[self._kinds[coord]]

    def __contains__(self, coord: object) -> bool:
        return coord in self._kinds

    def __len__(self) -> int:
        return len(self._kinds)

    def __iter__(self) -> Iterator[Coord]:
        return iter(list(self._kinds))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QMap):
            return NotImplemented
        return self._kinds == other._kinds

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"QMap({dict(self.items())!r})"

    def items(self) -> list[tuple[Coord, Tile]]:
        """All (coordinate, tile) pairs, in no particular order (a snapshot)."""
        return [(c, ALL_KINDS[k]) for c, k in self._kinds.items()]

    def sorted_items(self) -> list[tuple[Coord, Tile]]:
        """All (coordinate, tile) pairs in row-major order."""
        return [(c, ALL_KINDS[self._kinds[c]]) for c in sorted(self._kinds)]

    def to_dict(self) -> dict[Coord, Tile]:
        """The cells as a plain dict."""
        return {c: ALL_KINDS[k] for c, k in self._kinds.items()}

    def bounds(self) -> tuple[int, int, int, int] | None:
        """(min row, max row, min column, max column) of the occupied cells, None if empty."""
        if not self._kinds:
            return None
        rows = [r for r, _ in self._kinds]
        cols = [c for _, c in self._kinds]
        return min(rows), max(rows), min(cols), max(cols)

    def copy(self) -> QMap:
        """An independent copy (index included)."""
        new = QMap.__new__(QMap)
        new._kinds = self._kinds.copy()
        new._free = self._free.copy()
        new._index = [s.copy() if s else set() for s in self._index]
        return new

    # -- the fit rule and the candidate search ------------------------------------------

    def _mask_at(self, coord: Coord) -> int:
        r, c = coord
        get = self._kinds.get
        return (_LINE[get((r, c - 1), _ABSENT) * _W + get((r, c + 1), _ABSENT)]
                & _LINE[get((r - 1, c), _ABSENT) * _W + get((r + 1, c), _ABSENT)])

    def fits(self, coord: Coord, tile: Tile) -> bool:
        """The Q fit rule (3.4): `tile` matches the immediate neighbours of `coord`.

        Judges only the neighbours; whether `coord` is free and adjacent is
        :meth:`adjacent` / :meth:`can_place`.
        """
        k = KIND_INDEX[tile]
        state = self._free.get(coord)
        mask = (state >> 3) if state is not None else self._mask_at(coord)
        return (mask >> k) & 1 == 1

    def adjacent(self, coord: Coord) -> bool:
        """At least one of the four neighbours of `coord` is occupied."""
        if coord in self._free:
            return True
        r, c = coord
        kinds = self._kinds
        return ((r, c - 1) in kinds or (r, c + 1) in kinds
                or (r - 1, c) in kinds or (r + 1, c) in kinds)

    def can_place(self, coord: Coord, tile: Tile) -> bool:
        """`coord` is free, adjacent to the map, and `tile` fits there (3.4 a and b)."""
        state = self._free.get(coord)
        return state is not None and (state >> (3 + KIND_INDEX[tile])) & 1 == 1

    def constraint_count(self, coord: Coord) -> int:
        """The number of occupied neighbours of `coord` (0 … 4)."""
        state = self._free.get(coord)
        if state is not None:
            return state & 7
        r, c = coord
        kinds = self._kinds
        return (((r, c - 1) in kinds) + ((r, c + 1) in kinds)
                + ((r - 1, c) in kinds) + ((r + 1, c) in kinds))

    def free_neighbours(self) -> set[Coord]:
        """The unoccupied coordinates with an occupied neighbour (a fresh set)."""
        return set(self._free)

    def free_count(self) -> int:
        """The number of free neighbours."""
        return len(self._free)

    def fitting_kinds(self, coord: Coord) -> int:
        """Bit mask of the kind indices that fit at `coord` (bit k = ``ALL_KINDS[k]``)."""
        state = self._free.get(coord)
        return (state >> 3) if state is not None else self._mask_at(coord)

    def candidates(self, tile: Tile) -> list[Coord]:
        """The free neighbours where `tile` fits, sorted in row-major order (9.1)."""
        base = KIND_INDEX[tile] * 4
        index = self._index
        return sorted(index[base] | index[base + 1] | index[base + 2] | index[base + 3])

    def has_candidate(self, tile: Tile) -> bool:
        """Whether `tile` has at least one candidate."""
        base = KIND_INDEX[tile] * 4
        index = self._index
        return bool(index[base] or index[base + 1] or index[base + 2] or index[base + 3])

    def first_candidate(self, tile: Tile) -> Coord | None:
        """The smallest candidate of `tile` in row-major order, None if it has none (dag)."""
        base = KIND_INDEX[tile] * 4
        index = self._index
        best: Coord | None = None
        for i in range(base, base + 4):
            s = index[i]
            if s:
                m = min(s)
                if best is None or m < best:
                    best = m
        return best

    def best_candidate(self, tile: Tile) -> Coord | None:
        """Among the candidates with the largest constraint count, the smallest in
        row-major order; None if `tile` has no candidate (ldasg)."""
        base = KIND_INDEX[tile] * 4
        index = self._index
        for i in range(base + 3, base - 1, -1):
            s = index[i]
            if s:
                return min(s)
        return None

    # -- changing ------------------------------------------------------------------------

    def place(self, coord: Coord, tile: Tile) -> None:
        """Put `tile` on the free coordinate `coord` (no rule is checked)."""
        kinds = self._kinds
        if coord in kinds:
            raise ValueError(f"coordinate {coord} is already occupied")
        kinds[coord] = KIND_INDEX[tile]
        old = self._free.pop(coord, None)
        if old is not None:
            self._unindex(coord, old)
        r, c = coord
        for n in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c)):
            if n not in kinds:
                self._refresh(n)

    def remove(self, coord: Coord) -> Tile:
        """Take the tile off `coord` and return it (undo of :meth:`place`)."""
        kinds = self._kinds
        k = kinds.pop(coord, None)
        if k is None:
            raise ValueError(f"coordinate {coord} is not occupied")
        self._refresh(coord)
        r, c = coord
        for n in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c)):
            if n not in kinds:
                self._refresh(n)
        return ALL_KINDS[k]

    def _unindex(self, coord: Coord, state: int) -> None:
        mask = state >> 3
        offset = (state & 7) - 1
        index = self._index
        while mask:
            low = mask & -mask
            index[(low.bit_length() - 1) * 4 + offset].discard(coord)
            mask ^= low

    def _refresh(self, coord: Coord) -> None:
        """Recompute the free-neighbour entry of the unoccupied `coord`."""
        r, c = coord
        get = self._kinds.get
        left = get((r, c - 1), _ABSENT)
        right = get((r, c + 1), _ABSENT)
        top = get((r - 1, c), _ABSENT)
        below = get((r + 1, c), _ABSENT)
        count = (left != _ABSENT) + (right != _ABSENT) + (top != _ABSENT) + (below != _ABSENT)
        free = self._free
        old = free.get(coord)
        if count == 0:
            if old is not None:
                del free[coord]
                self._unindex(coord, old)
            return
        mask = _LINE[left * _W + right] & _LINE[top * _W + below]
        new = (mask << 3) | count
        if old == new:
            return
        if old is not None:
            self._unindex(coord, old)
        free[coord] = new
        offset = count - 1
        index = self._index
        while mask:
            low = mask & -mask
            index[(low.bit_length() - 1) * 4 + offset].add(coord)
            mask ^= low
