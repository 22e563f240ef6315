"""Q's map: an unbounded grid of placed tiles, with the fit rule and the candidate search.

Besides the placed tiles, a :class:`QMap` maintains incrementally

* its *free neighbours* (unoccupied coordinates with at least one occupied neighbour,
  9.1), each with its constraint count and a code for the set of kinds that fit there;
* a candidate index: the free neighbours that accept every kind of a given shape, every
  kind of a given colour, or a single given kind. (The kinds fitting at a coordinate are
  always a union of at most one whole shape, one whole colour and two single kinds, so
  each free neighbour sits in at most four index sets, and a tile's candidates are the
  union of three sets.)

:meth:`QMap.place` and :meth:`QMap.remove` touch only the coordinate and its four
neighbours (the fit rule looks at immediate neighbours only, 3.4), so trying a move is
``place`` ... ``remove`` rather than a copy of the map, and the strategies find their
candidate by looking at three small sets. Lines longer than six tiles and duplicates in
a line are allowed (spec 11 #1).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Iterator, Mapping

from gameroom.games.q.tiles import ALL_KINDS, KIND_INDEX, NKINDS, Coord, Tile

_ABSENT = NKINDS  # "no tile here" in the tables below
_W = NKINDS + 1


# The kinds that fit between two neighbours on one axis always form "every kind of shape S"
# (or nothing) united with "every kind of colour C" (or nothing), or everything when both
# neighbours are absent. An *axis code* names that set: S * 7 + C with S, C in 0..6 (6 =
# none), or _AXIS_ALL. The kinds fitting at a coordinate are the intersection of its two
# axis sets: at most one whole shape, one whole colour and two single kinds. A *combo*
# (h * 50 + v for the two axis codes) names that intersection; _COMBO_SLOTS lists it as
# slots 0..5 (a shape), 6..11 (a colour), 12..47 (a kind), and _COMBO_MASK as a bit mask.
_NONE = 6
_AXIS_ALL = 49
_NAXIS = 50
_SLOTS = 48
# A free neighbour's entry is count << _COUNT_SHIFT | combo, so that the largest entry of
# a set of free neighbours has the largest constraint count (ldasg, 9.1).
_COUNT_SHIFT = 12
_COMBO_BITS = (1 << _COUNT_SHIFT) - 1


def _axis_table() -> list[int]:
    table = [0] * (_W * _W)
    for a in range(_W):
        for b in range(_W):
            present = [n for n in (a, b) if n != _ABSENT]
            if not present:
                code = _AXIS_ALL
            elif len(present) == 1:
                code = (present[0] // 6) * 7 + present[0] % 6
            else:
                (s1, c1), (s2, c2) = divmod(present[0], 6), divmod(present[1], 6)
                code = (s1 if s1 == s2 else _NONE) * 7 + (c1 if c1 == c2 else _NONE)
            table[a * _W + b] = code
    return table


def _axis_set(code: int) -> tuple[int, int] | None:
    """(shape or _NONE, colour or _NONE), or None for everything."""
    return None if code == _AXIS_ALL else divmod(code, 7)


def _combo_tables() -> tuple[list[tuple[int, ...]], list[int]]:
    slots_table: list[tuple[int, ...]] = []
    masks: list[int] = []
    for h in range(_NAXIS):
        for v in range(_NAXIS):
            hs, vs = _axis_set(h), _axis_set(v)
            slots: list[int] = []
            if hs is None and vs is None:
                slots = list(range(6))  # everything: every shape (never a free neighbour)
            elif hs is None or vs is None:
                shape, color = hs if vs is None else vs  # type: ignore[misc]
                if shape != _NONE:
                    slots.append(shape)
                if color != _NONE:
                    slots.append(6 + color)
            else:
                (s1, c1), (s2, c2) = hs, vs
                if s1 != _NONE and s1 == s2:
                    slots.append(s1)
                if c1 != _NONE and c1 == c2:
                    slots.append(6 + c1)
                for s, c in ((s1, c2), (s2, c1)):
                    if s != _NONE and c != _NONE and s not in slots and 6 + c not in slots:
                        if 12 + s * 6 + c not in slots:
                            slots.append(12 + s * 6 + c)
            mask = 0
            for slot in slots:
                if slot < 6:
                    mask |= 0b111111 << (slot * 6)
                elif slot < 12:
                    mask |= sum(1 << (s * 6 + slot - 6) for s in range(6))
                else:
                    mask |= 1 << (slot - 12)
            slots_table.append(tuple(slots))
            masks.append(mask)
    return slots_table, masks


_AXIS = _axis_table()
_COMBO_SLOTS, _COMBO_MASK = _combo_tables()
_TILE_SLOTS: tuple[tuple[int, int, int], ...] = tuple((k // 6, 6 + k % 6, 12 + k)
                                                      for k in range(NKINDS))
"""The three index slots that hold the candidates of kind k."""
_ONE_LEFT_RIGHT = tuple((1 << _COUNT_SHIFT) | (_AXIS[k * _W + _ABSENT] * _NAXIS + _AXIS_ALL)
                        for k in range(NKINDS))
_ONE_ABOVE_BELOW = tuple((1 << _COUNT_SHIFT) | (_AXIS_ALL * _NAXIS + _AXIS[k * _W + _ABSENT])
                         for k in range(NKINDS))
"""The entry of a free neighbour whose only occupied neighbour holds kind k, on its
row (left or right) or on its column (above or below)."""


_DIRECTIONS = ((0, -1, True), (0, 1, True), (-1, 0, False), (1, 0, False))
"""The four neighbours as (row step, column step, on the same row)."""

_MULTI_COUNTS = ((4, 2 * _SLOTS), (3, _SLOTS), (2, 0))
"""The constraint counts of :attr:`QMap._multi`'s layers, most first, and where they start."""
_MULTI_LAYERS = tuple(base for _, base in _MULTI_COUNTS)


def _smallest(sa: set[Coord], sb: set[Coord], sc: set[Coord]) -> Coord | None:
    """The smallest coordinate in the three sets, None if all are empty."""
    best: Coord | None = min(sa) if sa else None
    if sb:
        m = min(sb)
        if best is None or m < best:
            best = m
    if sc:
        m = min(sc)
        if best is None or m < best:
            best = m
    return best


class QMap:
    """A finite partial map from coordinates to tiles, with an incremental candidate index.

    >>> from gameroom.games.q.tiles import tile
    >>> m = QMap({(0, 0): tile("star", "red")})
    >>> m.candidates(tile("circle", "red"))
    [(-1, 0), (0, -1), (0, 1), (1, 0)]
    >>> m.place((0, 1), tile("circle", "red")); m.fits((0, 2), tile("circle", "blue"))
    True
    """

    __slots__ = ("_kinds", "_free", "_index", "_multi")

    def __init__(self, cells: Mapping[Coord, Tile] | None = None) -> None:
        # occupied coordinate -> kind index
        self._kinds: dict[Coord, int] = {}
        # free neighbour -> constraint count << _COUNT_SHIFT | combo
        self._free: dict[Coord, int] = {}
        # _index[slot] = the free neighbours whose fitting kinds include that slot. The
        # index tables make their sets on first use: a game starts (and its referee copies
        # the map) with one tile, when most of the 192 sets would be empty.
        self._index: defaultdict[int, set[Coord]] = defaultdict(set)
        # _multi[(count - 2) * 48 + slot] = the same, restricted to the free neighbours
        # with that constraint count >= 2 (for ldasg's most constrained candidate)
        self._multi: defaultdict[int, set[Coord]] = defaultdict(set)
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
        return f"QMap({dict(self.sorted_items())!r})"

    def items(self) -> list[tuple[Coord, Tile]]:
        """All (coordinate, tile) pairs, in no particular order (a snapshot)."""
        return [(c, ALL_KINDS[k]) for c, k in self._kinds.items()]

    def sorted_items(self) -> list[tuple[Coord, Tile]]:
        """All (coordinate, tile) pairs in row-major order."""
        kinds = self._kinds
        return [(c, ALL_KINDS[kinds[c]]) for c in sorted(kinds)]

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
        new._index = defaultdict(set, {slot: s.copy() for slot, s in self._index.items() if s})
        new._multi = defaultdict(set, {key: s.copy() for key, s in self._multi.items() if s})
        return new

    def run(self, coord: Coord, along_row: bool) -> tuple[Coord, list[int]]:
        """The maximal contiguous run of tiles through the occupied `coord`, along its row
        if `along_row`, else along its column: its first coordinate (smallest in row-major
        order) and the kind indices of its tiles in increasing order."""
        start, length = self.segment(coord, along_row)
        kinds = self._kinds
        r, c = coord
        if along_row:
            return (r, start), [kinds[(r, start + i)] for i in range(length)]
        return (start, c), [kinds[(start + i, c)] for i in range(length)]

    def segment(self, coord: Coord, along_row: bool) -> tuple[int, int]:
        """The maximal contiguous run of tiles through the occupied `coord`, along its row
        if `along_row`, else along its column, as (the column, or row, where it starts,
        its length)."""
        kinds = self._kinds
        r, c = coord
        dr, dc = (0, 1) if along_row else (1, 0)
        before = 1   # steps back to the first empty coordinate
        while (r - before * dr, c - before * dc) in kinds:
            before += 1
        after = 1
        while (r + after * dr, c + after * dc) in kinds:
            after += 1
        return (c if along_row else r) - before + 1, before + after - 1

    # -- the fit rule and the candidate search ------------------------------------------

    def _combo_at(self, coord: Coord) -> int:
        r, c = coord
        get = self._kinds.get
        return (_AXIS[get((r, c - 1), _ABSENT) * _W + get((r, c + 1), _ABSENT)] * _NAXIS
                + _AXIS[get((r - 1, c), _ABSENT) * _W + get((r + 1, c), _ABSENT)])

    def fitting_kinds(self, coord: Coord) -> int:
        """Bit mask of the kind indices that fit at `coord` (bit k: ``ALL_KINDS[k]``),
        judged on the neighbours only."""
        entry = self._free.get(coord)
        return _COMBO_MASK[(entry & _COMBO_BITS) if entry is not None else self._combo_at(coord)]

    def fits(self, coord: Coord, tile: Tile) -> bool:
        """The Q fit rule (3.4): `tile` matches the immediate neighbours of `coord`.

        Judges only the neighbours; whether `coord` is free and adjacent is
        :meth:`adjacent` / :meth:`can_place`.
        """
        return (self.fitting_kinds(coord) >> KIND_INDEX[tile]) & 1 == 1

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
        entry = self._free.get(coord)
        return entry is not None and (_COMBO_MASK[entry & _COMBO_BITS] >> KIND_INDEX[tile]) & 1 == 1

    def constraint_count(self, coord: Coord) -> int:
        """The number of occupied neighbours of `coord` (0 … 4)."""
        entry = self._free.get(coord)
        if entry is not None:
            return entry >> _COUNT_SHIFT
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

    def candidates(self, tile: Tile) -> list[Coord]:
        """The free neighbours where `tile` fits, sorted in row-major order (9.1)."""
        index = self._index
        a, b, c = _TILE_SLOTS[KIND_INDEX[tile]]
        return sorted(index[a] | index[b] | index[c])

    def has_candidate(self, tile: Tile) -> bool:
        """Whether `tile` has at least one candidate."""
        index = self._index
        a, b, c = _TILE_SLOTS[KIND_INDEX[tile]]
        return bool(index[a] or index[b] or index[c])

    def first_candidate_of(self, k: int) -> Coord | None:
        """The smallest candidate of the kind `k` in row-major order, None if it has none
        (dag)."""
        index = self._index
        a, b, c = _TILE_SLOTS[k]
        return _smallest(index[a], index[b], index[c])

    def best_candidate_of(self, k: int) -> Coord | None:
        """Among the candidates of the kind `k` with the largest constraint count, the
        smallest in row-major order; None if it has none (ldasg)."""
        multi = self._multi
        a, b, c = _TILE_SLOTS[k]
        for base in _MULTI_LAYERS:
            sa, sb, sc = multi[base + a], multi[base + b], multi[base + c]
            if sa or sb or sc:
                return _smallest(sa, sb, sc)
        index = self._index
        return _smallest(index[a], index[b], index[c])

    def first_candidate(self, tile: Tile) -> Coord | None:
        """The smallest candidate of `tile` in row-major order, None if it has none (dag)."""
        return self.first_candidate_of(KIND_INDEX[tile])

    def best_candidate(self, tile: Tile) -> Coord | None:
        """Among the candidates with the largest constraint count, the smallest in
        row-major order; None if `tile` has no candidate (ldasg)."""
        return self.best_candidate_of(KIND_INDEX[tile])

    def check_sequence(self, placements: Iterable[tuple[Coord, Tile]]) -> str | None:
        """3.4 condition 3 without changing the map: None when every (coordinate, tile),
        in order, lands on a free coordinate adjacent to the map as extended by the
        earlier ones and fits there; otherwise the reason."""
        kinds = self._kinds
        extra: dict[Coord, int] = {}
        for coord, t in placements:
            if coord in kinds or coord in extra:
                return f"coordinate {coord} is occupied"
            if extra:
                r, c = coord
                get = extra.get
                kget = kinds.get
                left = get((r, c - 1), kget((r, c - 1), _ABSENT))
                right = get((r, c + 1), kget((r, c + 1), _ABSENT))
                top = get((r - 1, c), kget((r - 1, c), _ABSENT))
                below = get((r + 1, c), kget((r + 1, c), _ABSENT))
                if left == right == top == below == _ABSENT:
                    return f"coordinate {coord} is not adjacent to a tile"
                mask = _COMBO_MASK[_AXIS[left * _W + right] * _NAXIS + _AXIS[top * _W + below]]
            else:
                entry = self._free.get(coord)
                if entry is None:
                    return f"coordinate {coord} is not adjacent to a tile"
                mask = _COMBO_MASK[entry & _COMBO_BITS]
            k = KIND_INDEX[t]
            if not (mask >> k) & 1:
                return f"tile {t} does not fit at {coord}"
            extra[coord] = k
        return None

    # -- changing ------------------------------------------------------------------------
    #
    # place and remove update the entries of the (at most four) free neighbours of the
    # changed coordinate from their previous entries: only the axis through the changed
    # coordinate is recomputed, from the neighbour's far side on that axis (the axis table
    # is symmetric, so the side does not matter). The loops are written out rather than
    # calling a helper per neighbour because this is the innermost step of every game.

    def place(self, coord: Coord, tile: Tile) -> None:
        """Put `tile` on the free coordinate `coord` (no rule is checked)."""
        kinds = self._kinds
        if coord in kinds:
            raise ValueError(f"coordinate {coord} is already occupied")
        k = KIND_INDEX[tile]
        kinds[coord] = k
        free = self._free
        index = self._index
        multi = self._multi
        old = free.pop(coord, None)
        if old is not None:
            for slot in _COMBO_SLOTS[old & _COMBO_BITS]:
                index[slot].discard(coord)
            if old >> _COUNT_SHIFT >= 2:
                base = ((old >> _COUNT_SHIFT) - 2) * _SLOTS
                for slot in _COMBO_SLOTS[old & _COMBO_BITS]:
                    multi[base + slot].discard(coord)
        r, c = coord
        get = kinds.get
        row = k * _W
        for dr, dc, on_row in _DIRECTIONS:
            n = (r + dr, c + dc)
            old = free.get(n)   # (an occupied coordinate has no entry)
            if old is None:
                if n in kinds:
                    continue
                new = _ONE_LEFT_RIGHT[k] if on_row else _ONE_ABOVE_BELOW[k]
            else:
                combo = old & _COMBO_BITS
                axis = _AXIS[row + get((r + dr + dr, c + dc + dc), _ABSENT)]
                if on_row:
                    new_combo = axis * _NAXIS + combo % _NAXIS
                else:
                    new_combo = combo - combo % _NAXIS + axis
                new = (old + (1 << _COUNT_SHIFT)) - combo + new_combo
                count = old >> _COUNT_SHIFT
                if count >= 2:
                    base = (count - 2) * _SLOTS
                    for slot in _COMBO_SLOTS[combo]:
                        multi[base + slot].discard(n)
                base = (count - 1) * _SLOTS
                for slot in _COMBO_SLOTS[new_combo]:
                    multi[base + slot].add(n)
                if new_combo == combo:
                    free[n] = new
                    continue
                for slot in _COMBO_SLOTS[combo]:
                    index[slot].discard(n)
            free[n] = new
            for slot in _COMBO_SLOTS[new & _COMBO_BITS]:
                index[slot].add(n)

    def remove(self, coord: Coord) -> Tile:
        """Take the tile off `coord` and return it (undo of :meth:`place`)."""
        kinds = self._kinds
        k = kinds.pop(coord, None)
        if k is None:
            raise ValueError(f"coordinate {coord} is not occupied")
        self._refresh(coord)
        free = self._free
        index = self._index
        multi = self._multi
        get = kinds.get
        r, c = coord
        for dr, dc, on_row in _DIRECTIONS:
            n = (r + dr, c + dc)
            old = free.get(n)   # None: occupied (every other neighbour is free)
            if old is None:
                continue
            combo = old & _COMBO_BITS
            if old >> _COUNT_SHIFT == 1:   # its last occupied neighbour is gone
                del free[n]
                for slot in _COMBO_SLOTS[combo]:
                    index[slot].discard(n)
                continue
            axis = _AXIS[get((r + dr + dr, c + dc + dc), _ABSENT) * _W + _ABSENT]
            if on_row:
                new_combo = axis * _NAXIS + combo % _NAXIS
            else:
                new_combo = combo - combo % _NAXIS + axis
            free[n] = (old - (1 << _COUNT_SHIFT)) - combo + new_combo
            count = old >> _COUNT_SHIFT
            base = (count - 2) * _SLOTS
            for slot in _COMBO_SLOTS[combo]:
                multi[base + slot].discard(n)
            if count >= 3:
                base -= _SLOTS
                for slot in _COMBO_SLOTS[new_combo]:
                    multi[base + slot].add(n)
            if new_combo != combo:
                for slot in _COMBO_SLOTS[combo]:
                    index[slot].discard(n)
                for slot in _COMBO_SLOTS[new_combo]:
                    index[slot].add(n)
        return ALL_KINDS[k]

    def _refresh(self, coord: Coord) -> None:
        """Recompute the free-neighbour entry of the unoccupied `coord` from scratch."""
        r, c = coord
        get = self._kinds.get
        left = get((r, c - 1), _ABSENT)
        right = get((r, c + 1), _ABSENT)
        top = get((r - 1, c), _ABSENT)
        below = get((r + 1, c), _ABSENT)
        count = (left != _ABSENT) + (right != _ABSENT) + (top != _ABSENT) + (below != _ABSENT)
        free = self._free
        old = free.get(coord)
        new = None
        if count:
            new = (count << _COUNT_SHIFT) | (_AXIS[left * _W + right] * _NAXIS
                                             + _AXIS[top * _W + below])
            free[coord] = new
        elif old is not None:
            del free[coord]
        if old != new:
            self._reindex(coord, old, new)

    def _reindex(self, coord: Coord, old: int | None, new: int | None) -> None:
        """Move `coord` in the index tables from the sets of its entry `old` to those of
        its entry `new` (None: no entry)."""
        index, multi = self._index, self._multi
        for entry, change in ((old, set.discard), (new, set.add)):
            if entry is None:
                continue
            layer = ((entry >> _COUNT_SHIFT) - 2) * _SLOTS   # negative: no multi layer
            for slot in _COMBO_SLOTS[entry & _COMBO_BITS]:
                change(index[slot], coord)
                if layer >= 0:
                    change(multi[layer + slot], coord)


def _smallest_outside(sa: set[Coord], sb: set[Coord], sc: set[Coord],
                      stale: set[Coord]) -> Coord | None:
    """The smallest coordinate in the three sets that is not in `stale`, None if none."""
    best: Coord | None = None
    for s in (sa, sb, sc):
        if s:
            m = min(s)
            if m in stale:   # rarely: the extension is a few tiles
                rest = s - stale
                if not rest:
                    continue
                m = min(rest)
            if best is None or m < best:
                best = m
    return best


class Extension:
    """A map as extended by a few more tiles, for the strategies' candidate search, without
    changing the map (9.2: a built-in player looks for its next tile on the public map
    extended by its placements so far).

    Extending puts a tile next to at most four free neighbours, so the map's index stays
    right everywhere else: the extension keeps the coordinates whose index entries no longer
    hold (*stale*: the added coordinates and their neighbours) and the entries, computed on
    the extended map, of the stale ones that are free there (*dirty*). A query takes the
    map's answer outside the stale coordinates and compares it with the dirty ones.
    """

    __slots__ = ("_map", "_extra", "_stale", "_dirty")

    def __init__(self, qmap: QMap) -> None:
        self._map = qmap
        self._extra: dict[Coord, int] = {}     # added coordinate -> kind index
        self._stale: set[Coord] = set()
        self._dirty: dict[Coord, int] = {}     # free neighbour -> entry, as in QMap._free

    def add(self, coord: Coord, k: int) -> None:
        """Extend by the kind `k` at the unoccupied `coord` (no rule is checked)."""
        kinds, extra = self._map._kinds, self._extra
        if coord in kinds or coord in extra:
            raise ValueError(f"coordinate {coord} is already occupied")
        extra[coord] = k
        stale, dirty = self._stale, self._dirty
        stale.add(coord)
        dirty.pop(coord, None)
        free = self._map._free
        get, kget = extra.get, kinds.get
        row = k * _W
        r, c = coord
        # As in QMap.place: a neighbour's entry (the extension's, else the map's, which
        # holds for a coordinate that is not stale) changes on the axis through `coord`.
        for dr, dc, on_row in _DIRECTIONS:
            n = (r + dr, c + dc)
            if n in extra:
                continue
            old = dirty.get(n)
            if old is None:
                old = free.get(n)
                if old is None:
                    if n in kinds:
                        continue
                    stale.add(n)
                    dirty[n] = _ONE_LEFT_RIGHT[k] if on_row else _ONE_ABOVE_BELOW[k]
                    continue
                stale.add(n)
            far = (r + dr + dr, c + dc + dc)
            combo = old & _COMBO_BITS
            axis = _AXIS[row + get(far, kget(far, _ABSENT))]
            if on_row:
                new_combo = axis * _NAXIS + combo % _NAXIS
            else:
                new_combo = combo - combo % _NAXIS + axis
            dirty[n] = (old + (1 << _COUNT_SHIFT)) - combo + new_combo

    def first_candidate_of(self, k: int) -> Coord | None:
        """:meth:`QMap.first_candidate_of` on the extended map."""
        index = self._map._index
        a, b, c = _TILE_SLOTS[k]
        best = _smallest_outside(index[a], index[b], index[c], self._stale)
        for coord, entry in self._dirty.items():
            if (_COMBO_MASK[entry & _COMBO_BITS] >> k) & 1 and (best is None or coord < best):
                best = coord
        return best

    def best_candidate_of(self, k: int) -> Coord | None:
        """:meth:`QMap.best_candidate_of` on the extended map."""
        # The dirty candidates with the most occupied neighbours (`top` of them).
        top = 0
        fitting: list[Coord] = []
        for coord, entry in self._dirty.items():
            if (_COMBO_MASK[entry & _COMBO_BITS] >> k) & 1:
                n = entry >> _COUNT_SHIFT
                if n > top:
                    top, fitting = n, [coord]
                elif n == top:
                    fitting.append(coord)
        qmap, stale = self._map, self._stale
        a, b, c = _TILE_SLOTS[k]
        multi = qmap._multi
        for count, base in _MULTI_COUNTS:
            sa, sb, sc = multi[base + a], multi[base + b], multi[base + c]
            best = _smallest_outside(sa, sb, sc, stale) if sa or sb or sc else None
            if count == top:
                m = min(fitting)
                if best is None or m < best:
                    best = m
            if best is not None:
                return best
        # No candidate with two or more occupied neighbours: the rest have one.
        index = qmap._index
        best = _smallest_outside(index[a], index[b], index[c], stale)
        if top == 1:
            m = min(fitting)
            if best is None or m < best:
                best = m
        return best
