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

:meth:`QMap.copy` is copy-on-write: the copy shares the original's tables until either of
them is changed, and the one that changes first makes the other independent (a copy
copies for itself; the original first gives each copy still alive its own tables). A
referee hands every untrusted seat a copy of its map each turn, so that nothing the seat
does to it reaches the game; a seat that only reads the copy, or drops it before the
referee's next move (a remote proxy encodes it at once), costs no copy at all.
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from itertools import islice
from typing import Iterable, Iterator, Mapping, Sequence

from gameroom.games.q.pieces import ALL_KINDS, KIND_INDEX, NKINDS, Coord, Tile

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


_MULTI_COUNTS = ((4, 2 * _SLOTS), (3, _SLOTS), (2, 0))
"""The constraint counts of :attr:`QMap._multi`'s layers, most first, and where they start."""
_MULTI_LAYERS = tuple(base for _, base in _MULTI_COUNTS)

# Coordinates are stored as *keys*: one int per coordinate, row * width + column + width / 2,
# so that hashing and comparing is an int's (much cheaper than a tuple's), neighbours are
# key +-1 and key +-width, and keys compare in row-major order. Occupied columns stay in
# the middle three quarters of [-width / 2, width / 2): then every neighbour of a free
# neighbour, and an extension of up to width / 8 - 2 tiles, stays inside, and a wider map
# is re-keyed when a column or an extension would leave it. 2**15 keeps the keys of every
# real game single-digit ints (below 2**30).
_BITS = 15


def _bits_for(widest: int, reach: int = 0) -> int:
    """The smallest key width (in bits, at least _BITS) whose inner columns hold
    -widest..widest with a margin of more than `reach` + 1."""
    bits = _BITS
    while ((1 << bits) >> 1) - ((1 << bits) >> 3) - 1 < widest or ((1 << bits) >> 3) < reach + 2:
        bits += 1
    return bits


def _smallest(sa: set[int], sb: set[int], sc: set[int]) -> int | None:
    """The smallest key in the three sets, None if all are empty."""
    best: int | None = min(sa) if sa else None
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

    The public methods take and return coordinates ``(row, column)``; inside, a coordinate
    is a key (see :func:`QMap.key_of`), which the strategies, the rules and the scoring use
    directly through the methods whose names say "key".

    >>> from gameroom.games.q.pieces import tile
    >>> m = QMap({(0, 0): tile("star", "red")})
    >>> m.candidates(tile("circle", "red"))
    [(-1, 0), (0, -1), (0, 1), (1, 0)]
    >>> m.place((0, 1), tile("circle", "red")); m.fits((0, 2), tile("circle", "blue"))
    True
    """

    __slots__ = ("_kinds", "_free", "_index", "_multi", "_w", "_b", "_lo", "_hi", "_dirs", "_shared", "_copies",
                 "__weakref__")

    def __init__(self, cells: Mapping[Coord, Tile] | None = None) -> None:
        triples = ([(int(coord[0]), int(coord[1]), KIND_INDEX[t]) for coord, t in cells.items()]
                   if cells else [])
        self._fill(_bits_for(max([abs(c) for _, c, _ in triples], default=0)), triples)

    @classmethod
    def from_kinds(cls, kinds: Mapping[Coord, int]) -> "QMap":
        """A map of the given cells as (row, column) -> kind index (a tile's
        ``KIND_INDEX``): what a decoder builds without making Tile objects first."""
        qmap = cls.__new__(cls)
        triples = [(r, c, k) for (r, c), k in kinds.items()]
        qmap._fill(_bits_for(max([abs(c) for _, c, _ in triples], default=0)), triples)
        return qmap

    def _fill(self, bits: int, triples: Iterable[tuple[int, int, int]]) -> None:
        """Set the key width and put the (row, column, kind) cells on an empty index."""
        # Copy-on-write: whether the tables below belong to another map (this one is its
        # copy and must copy them before it writes), and the weak references to this
        # map's copies that may still share its tables.
        self._shared = False
        self._copies: list[weakref.ref[QMap]] | None = None
        w = 1 << bits
        self._w, self._b = w, w >> 1
        self._lo, self._hi = -(w >> 1) + (w >> 3), (w >> 1) - (w >> 3) - 1
        # the four neighbours as (key step, on the same row)
        self._dirs = ((-1, True), (1, True), (-w, False), (w, False))
        # occupied key -> kind index
        self._kinds: dict[int, int] = {}
        # free neighbour's key -> constraint count << _COUNT_SHIFT | combo
        self._free: dict[int, int] = {}
        # _index[slot] = the free neighbours whose fitting kinds include that slot. The
        # index tables make their sets on first use: a game starts (and its referee copies
        # the map) with one tile, when most of the 192 sets would be empty.
        self._index: defaultdict[int, set[int]] = defaultdict(set)
        # _multi[(count - 2) * 48 + slot] = the same, restricted to the free neighbours
        # with that constraint count >= 2 (for ldasg's most constrained candidate). Only
        # ldasg reads these layers, so they are built on its first question (_layers) and
        # kept up to date from then on: games without ldasg never pay for them.
        self._multi: defaultdict[int, set[int]] | None = None
        kinds = self._kinds
        b = self._b
        for r, c, k in triples:
            kinds[r * w + c + b] = k
        around: set[int] = set()
        for key in kinds:
            around.update((key - 1, key + 1, key - w, key + w))
        # _refresh and _reindex for an empty index, inlined: every key here has a tile beside
        # it and no entry yet, and the ldasg layers are not built. A remote client decodes
        # the whole map every turn, and this is most of that work.
        get, free, index = kinds.get, self._free, self._index
        for key in around:
            if key in kinds:
                continue
            left = get(key - 1, _ABSENT)
            right = get(key + 1, _ABSENT)
            top = get(key - w, _ABSENT)
            below = get(key + w, _ABSENT)
            count = (left != _ABSENT) + (right != _ABSENT) + (top != _ABSENT) + (below != _ABSENT)
            combo = _AXIS[left * _W + right] * _NAXIS + _AXIS[top * _W + below]
            free[key] = (count << _COUNT_SHIFT) | combo
            for slot in _COMBO_SLOTS[combo]:
                index[slot].add(key)

    def _rekey(self, widest: int = 0, reach: int = 0) -> None:
        """Re-key the map for columns up to `widest` and extensions of `reach` tiles."""
        self._write()
        coord_of = self.coord_of
        triples = [(*coord_of(key), k) for key, k in self._kinds.items()]
        self._fill(_bits_for(max([widest, *[abs(c) for _, c, _ in triples]]), reach), triples)

    def _kinds_coords(self) -> list[Coord]:
        coord_of = self.coord_of
        return [coord_of(key) for key in self._kinds]

    def reserve(self, reach: int) -> None:
        """Make room for an :class:`Extension` by up to `reach` tiles."""
        if (self._w >> 3) < reach + 2:
            self._rekey(reach=reach)

    # -- keys ----------------------------------------------------------------------------

    def key_of(self, coord: Coord) -> int:
        """The key of `coord`; its column must be within the map's key range (see
        :meth:`probe` for any coordinate)."""
        return coord[0] * self._w + coord[1] + self._b

    def probe(self, coord: Coord) -> int | None:
        """The key of `coord`, None when its column is outside the key range (then it is
        neither occupied nor adjacent to an occupied coordinate)."""
        r, c = coord
        b = self._b
        return r * self._w + c + b if -b <= c < b else None

    def coord_of(self, key: int) -> Coord:
        """The coordinate of a key."""
        r, c = divmod(key, self._w)
        return r, c - self._b

    # -- reading -------------------------------------------------------------------------

    def get(self, coord: Coord) -> Tile | None:
        """The tile at `coord`, or None."""
        key = self.probe(coord)
        k = None if key is None else self._kinds.get(key)
        return None if k is None else ALL_KINDS[k]

    def __getitem__(self, coord: Coord) -> Tile:
        t = self.get(coord)
        if t is None:
            raise KeyError(coord)
        return t

    def __contains__(self, coord: object) -> bool:
        try:
            key = self.probe(coord)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
        return key is not None and key in self._kinds

    def __len__(self) -> int:
        return len(self._kinds)

    def __iter__(self) -> Iterator[Coord]:
        return iter(self._kinds_coords())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QMap):
            return NotImplemented
        if self._w == other._w:
            return self._kinds == other._kinds
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"QMap({dict(self.sorted_items())!r})"

    def items(self) -> list[tuple[Coord, Tile]]:
        """All (coordinate, tile) pairs, in no particular order (a snapshot)."""
        coord_of = self.coord_of
        return [(coord_of(key), ALL_KINDS[k]) for key, k in self._kinds.items()]

    def placed_since(self, count: int) -> list[tuple[Coord, Tile]]:
        """The (coordinate, tile) pairs of the tiles placed after the first ``count``, in
        the order they were placed (a removal takes a tile out of that order, so this holds
        for maps that only grow or take back their latest tiles, as games and searches do)."""
        coord_of = self.coord_of
        return [(coord_of(key), ALL_KINDS[k]) for key, k in islice(self._kinds.items(), count, None)]

    def free_fits(self, coords: Iterable[Coord]) -> list[tuple[Coord, int]]:
        """For each of ``coords`` that is a free neighbour (free, next to a tile): the
        coordinate and the bit mask of the kinds that fit there (bit k: ``ALL_KINDS[k]``)."""
        free, w, b = self._free, self._w, self._b
        out = []
        for r, c in coords:
            if -b <= c < b:
                entry = free.get(r * w + c + b)
                if entry is not None:
                    out.append(((r, c), _COMBO_MASK[entry & _COMBO_BITS]))
        return out

    def sorted_items(self) -> list[tuple[Coord, Tile]]:
        """All (coordinate, tile) pairs in row-major order."""
        kinds, coord_of = self._kinds, self.coord_of
        return [(coord_of(key), ALL_KINDS[kinds[key]]) for key in sorted(kinds)]

    def sorted_kinds(self) -> list[tuple[int, int, int]]:
        """All (row, column, kind index) cells in row-major order: :meth:`sorted_items`
        without making coordinates and tiles (what an encoder of the whole map reads)."""
        kinds, w, b = self._kinds, self._w, self._b
        cells: list[tuple[int, int, int]] = []
        append = cells.append
        for key in sorted(kinds):
            # key = row * w + column + b with 0 <= column + b < w
            r, cb = divmod(key, w)
            append((r, cb - b, kinds[key]))
        return cells

    def to_dict(self) -> dict[Coord, Tile]:
        """The cells as a plain dict."""
        return dict(self.items())

    def bounds(self) -> tuple[int, int, int, int] | None:
        """(min row, max row, min column, max column) of the occupied cells, None if empty."""
        if not self._kinds:
            return None
        coords = self._kinds_coords()
        rows = [r for r, _ in coords]
        cols = [c for _, c in coords]
        return min(rows), max(rows), min(cols), max(cols)

    def copy(self) -> QMap:
        """An independent copy (index included), copy-on-write: it shares this map's
        tables until one of the two changes (see the module's docstring). A copy of a copy
        that still shares is made at once (only an original keeps track of its copies)."""
        new = QMap.__new__(QMap)
        new._w, new._b, new._lo, new._hi, new._dirs = self._w, self._b, self._lo, self._hi, self._dirs
        new._copies = None
        if self._shared:
            new._shared = False
            new._take_tables(self)
            return new
        new._kinds, new._free, new._index, new._multi = self._kinds, self._free, self._index, self._multi
        new._shared = True
        if self._copies is None:
            self._copies = []
        self._copies.append(weakref.ref(new))
        return new

    def _take_tables(self, source: QMap) -> None:
        """Make this map's tables copies of ``source``'s."""
        self._kinds = source._kinds.copy()
        self._free = source._free.copy()
        self._index = defaultdict(set, {slot: s.copy() for slot, s in source._index.items() if s})
        self._multi = (None if source._multi is None else
                       defaultdict(set, {key: s.copy() for key, s in source._multi.items() if s}))

    def _write(self) -> None:
        """About to change the tables: a copy that shares them takes its own, and an
        original first gives its live copies theirs."""
        if self._shared:
            self._take_tables(self)
            self._shared = False
        copies = self._copies
        if copies is not None:
            self._copies = None
            for ref in copies:
                copy = ref()
                if copy is not None and copy._shared:
                    copy._take_tables(copy)
                    copy._shared = False

    def __getstate__(self) -> dict[str, object]:
        """What pickling keeps: the tables and the key width (never the weak references)."""
        return {name: getattr(self, name) for name in ("_kinds", "_free", "_index", "_multi", "_w", "_b", "_lo",
                                                       "_hi", "_dirs")}

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        self._shared = False
        self._copies = None

    def run(self, coord: Coord, along_row: bool) -> tuple[Coord, list[int]]:
        """The maximal contiguous run of tiles through the occupied `coord`, along its row
        if `along_row`, else along its column: its first coordinate (smallest in row-major
        order) and the kind indices of its tiles in increasing order."""
        step = 1 if along_row else self._w
        first, length = self.segment_key(self.key_of(coord), step)
        kinds = self._kinds
        return self.coord_of(first), [kinds[first + i * step] for i in range(length)]

    def run_kinds(self, first: int, step: int, length: int) -> list[int]:
        """The kind indices of the `length` tiles from the key `first` on, `step` apart."""
        kinds = self._kinds
        return [kinds[first + i * step] for i in range(length)]

    def segment(self, coord: Coord, along_row: bool) -> tuple[int, int]:
        """The maximal contiguous run of tiles through the occupied `coord`, along its row
        if `along_row`, else along its column, as (the column, or row, where it starts,
        its length)."""
        first, length = self.segment_key(self.key_of(coord), 1 if along_row else self._w)
        r, c = self.coord_of(first)
        return (c if along_row else r), length

    def segment_key(self, key: int, step: int) -> tuple[int, int]:
        """:meth:`segment` on keys: the first key of the run through the occupied `key`
        whose tiles are `step` apart (1: a row, the width: a column), and its length."""
        kinds = self._kinds
        first = key - step
        while first in kinds:
            first -= step
        last = key + step
        while last in kinds:
            last += step
        return first + step, (last - first) // step - 1

    @property
    def width(self) -> int:
        """The key step from a row to the next."""
        return self._w

    # -- the fit rule and the candidate search ------------------------------------------

    def _combo_at(self, key: int) -> int:
        get = self._kinds.get
        w = self._w
        return (_AXIS[get(key - 1, _ABSENT) * _W + get(key + 1, _ABSENT)] * _NAXIS
                + _AXIS[get(key - w, _ABSENT) * _W + get(key + w, _ABSENT)])

    def fitting_kinds(self, coord: Coord) -> int:
        """Bit mask of the kind indices that fit at `coord` (bit k: ``ALL_KINDS[k]``),
        judged on the neighbours only."""
        key = self.probe(coord)
        if key is None:
            return _COMBO_MASK[_AXIS_ALL * _NAXIS + _AXIS_ALL]
        entry = self._free.get(key)
        return _COMBO_MASK[(entry & _COMBO_BITS) if entry is not None else self._combo_at(key)]

    def fits(self, coord: Coord, tile: Tile) -> bool:
        """The Q fit rule (3.4): `tile` matches the immediate neighbours of `coord`.

        Judges only the neighbours; whether `coord` is free and adjacent is
        :meth:`adjacent` / :meth:`can_place`.
        """
        return (self.fitting_kinds(coord) >> KIND_INDEX[tile]) & 1 == 1

    def adjacent(self, coord: Coord) -> bool:
        """At least one of the four neighbours of `coord` is occupied."""
        return self.constraint_count(coord) > 0

    def can_place(self, coord: Coord, tile: Tile) -> bool:
        """`coord` is free, adjacent to the map, and `tile` fits there (3.4 a and b)."""
        key = self.probe(coord)
        entry = None if key is None else self._free.get(key)
        return entry is not None and (_COMBO_MASK[entry & _COMBO_BITS] >> KIND_INDEX[tile]) & 1 == 1

    def constraint_count(self, coord: Coord) -> int:
        """The number of occupied neighbours of `coord` (0 … 4)."""
        key = self.probe(coord)
        if key is None:
            return 0
        entry = self._free.get(key)
        if entry is not None:
            return entry >> _COUNT_SHIFT
        kinds, w = self._kinds, self._w
        return ((key - 1 in kinds) + (key + 1 in kinds) + (key - w in kinds) + (key + w in kinds))

    def free_neighbours(self) -> set[Coord]:
        """The unoccupied coordinates with an occupied neighbour (a fresh set)."""
        coord_of = self.coord_of
        return {coord_of(key) for key in self._free}

    def free_count(self) -> int:
        """The number of free neighbours."""
        return len(self._free)

    def candidates(self, tile: Tile, ordered: bool = True) -> list[Coord]:
        """The free neighbours where `tile` fits, sorted in row-major order (9.1) unless
        not ``ordered``."""
        index = self._index
        a, b, c = _TILE_SLOTS[KIND_INDEX[tile]]
        coord_of = self.coord_of
        keys = index[a] | index[b] | index[c]
        return [coord_of(key) for key in (sorted(keys) if ordered else keys)]

    def has_candidate(self, tile: Tile) -> bool:
        """Whether `tile` has at least one candidate."""
        index = self._index
        a, b, c = _TILE_SLOTS[KIND_INDEX[tile]]
        return bool(index[a] or index[b] or index[c])

    def first_key_of(self, k: int) -> int | None:
        """The key of the smallest candidate of the kind `k` in row-major order, None if
        it has none (dag)."""
        index = self._index
        a, b, c = _TILE_SLOTS[k]
        return _smallest(index[a], index[b], index[c])

    def best_key_of(self, k: int) -> int | None:
        """The key of the smallest, in row-major order, among the candidates of the kind
        `k` with the largest constraint count; None if it has none (ldasg)."""
        multi = self._multi
        if multi is None:
            multi = self._layers()
        a, b, c = _TILE_SLOTS[k]
        for base in _MULTI_LAYERS:
            sa, sb, sc = multi[base + a], multi[base + b], multi[base + c]
            if sa or sb or sc:
                return _smallest(sa, sb, sc)
        index = self._index
        return _smallest(index[a], index[b], index[c])

    def first_candidate_of(self, k: int) -> Coord | None:
        """The smallest candidate of the kind `k` in row-major order, None if it has none
        (dag)."""
        key = self.first_key_of(k)
        return None if key is None else self.coord_of(key)

    def best_candidate_of(self, k: int) -> Coord | None:
        """Among the candidates of the kind `k` with the largest constraint count, the
        smallest in row-major order; None if it has none (ldasg)."""
        key = self.best_key_of(k)
        return None if key is None else self.coord_of(key)

    def first_candidate(self, tile: Tile) -> Coord | None:
        """The smallest candidate of `tile` in row-major order, None if it has none (dag)."""
        return self.first_candidate_of(KIND_INDEX[tile])

    def best_candidate(self, tile: Tile) -> Coord | None:
        """Among the candidates with the largest constraint count, the smallest in
        row-major order; None if `tile` has no candidate (ldasg)."""
        return self.best_candidate_of(KIND_INDEX[tile])

    def check_sequence(self, placements: Sequence[tuple[Coord, Tile]]) -> str | None:
        """3.4 condition 3 without changing the map: None when every (coordinate, tile),
        in order, lands on a free coordinate adjacent to the map as extended by the
        earlier ones and fits there; otherwise the reason."""
        self.reserve(len(placements))
        kinds = self._kinds
        w = self._w
        extra: dict[int, int] = {}
        for coord, t in placements:
            key = self.probe(coord)
            # A column outside the key range is two or more columns away from every tile
            # (and an extension by fewer tiles than a quarter of the range cannot reach it).
            if key is None:
                return f"coordinate {coord} is not adjacent to a tile"
            if key in kinds or key in extra:
                return f"coordinate {coord} is occupied"
            if extra:
                get = extra.get
                kget = kinds.get
                left = get(key - 1, kget(key - 1, _ABSENT))
                right = get(key + 1, kget(key + 1, _ABSENT))
                top = get(key - w, kget(key - w, _ABSENT))
                below = get(key + w, kget(key + w, _ABSENT))
                if left == right == top == below == _ABSENT:
                    return f"coordinate {coord} is not adjacent to a tile"
                mask = _COMBO_MASK[_AXIS[left * _W + right] * _NAXIS + _AXIS[top * _W + below]]
            else:
                entry = self._free.get(key)
                if entry is None:
                    return f"coordinate {coord} is not adjacent to a tile"
                mask = _COMBO_MASK[entry & _COMBO_BITS]
            k = KIND_INDEX[t]
            if not (mask >> k) & 1:
                return f"tile {t} does not fit at {coord}"
            extra[key] = k
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
        c = coord[1]
        if not self._lo <= c <= self._hi:
            self._rekey(widest=abs(c))
        self.place_key(coord[0] * self._w + c + self._b, KIND_INDEX[tile])

    def place_key(self, key: int, k: int) -> None:
        """:meth:`place` of the kind `k` at a key whose column is within the range of
        occupied columns (every free neighbour's is)."""
        if self._shared or self._copies is not None:
            self._write()
        kinds = self._kinds
        if key in kinds:
            raise ValueError(f"coordinate {self.coord_of(key)} is already occupied")
        kinds[key] = k
        free = self._free
        index = self._index
        multi = self._multi
        old = free.pop(key, None)
        if old is not None:
            for slot in _COMBO_SLOTS[old & _COMBO_BITS]:
                index[slot].discard(key)
            if multi is not None and old >> _COUNT_SHIFT >= 2:
                base = ((old >> _COUNT_SHIFT) - 2) * _SLOTS
                for slot in _COMBO_SLOTS[old & _COMBO_BITS]:
                    multi[base + slot].discard(key)
        get = kinds.get
        row = k * _W
        for d, on_row in self._dirs:
            n = key + d
            old = free.get(n)   # (an occupied coordinate has no entry)
            if old is None:
                if n in kinds:
                    continue
                new = _ONE_LEFT_RIGHT[k] if on_row else _ONE_ABOVE_BELOW[k]
            else:
                combo = old & _COMBO_BITS
                axis = _AXIS[row + get(n + d, _ABSENT)]
                if on_row:
                    new_combo = axis * _NAXIS + combo % _NAXIS
                else:
                    new_combo = combo - combo % _NAXIS + axis
                new = (old + (1 << _COUNT_SHIFT)) - combo + new_combo
                if multi is not None:
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
        if self._shared or self._copies is not None:
            self._write()
        kinds = self._kinds
        key = self.probe(coord)
        k = None if key is None else kinds.pop(key, None)
        if k is None or key is None:
            raise ValueError(f"coordinate {coord} is not occupied")
        self._refresh(key)
        free = self._free
        index = self._index
        multi = self._multi
        get = kinds.get
        for d, on_row in self._dirs:
            n = key + d
            old = free.get(n)   # None: occupied (every other neighbour is free)
            if old is None:
                continue
            combo = old & _COMBO_BITS
            if old >> _COUNT_SHIFT == 1:   # its last occupied neighbour is gone
                del free[n]
                for slot in _COMBO_SLOTS[combo]:
                    index[slot].discard(n)
                continue
            axis = _AXIS[get(n + d, _ABSENT) * _W + _ABSENT]
            if on_row:
                new_combo = axis * _NAXIS + combo % _NAXIS
            else:
                new_combo = combo - combo % _NAXIS + axis
            free[n] = (old - (1 << _COUNT_SHIFT)) - combo + new_combo
            if multi is not None:
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

    def _refresh(self, key: int) -> None:
        """Recompute the free-neighbour entry of the unoccupied `key` from scratch."""
        get = self._kinds.get
        w = self._w
        left = get(key - 1, _ABSENT)
        right = get(key + 1, _ABSENT)
        top = get(key - w, _ABSENT)
        below = get(key + w, _ABSENT)
        count = (left != _ABSENT) + (right != _ABSENT) + (top != _ABSENT) + (below != _ABSENT)
        free = self._free
        old = free.get(key)
        new = None
        if count:
            new = (count << _COUNT_SHIFT) | (_AXIS[left * _W + right] * _NAXIS
                                             + _AXIS[top * _W + below])
            free[key] = new
        elif old is not None:
            del free[key]
        if old != new:
            self._reindex(key, old, new)

    def _reindex(self, key: int, old: int | None, new: int | None) -> None:
        """Move `key` in the index tables from the sets of its entry `old` to those of
        its entry `new` (None: no entry)."""
        index, multi = self._index, self._multi
        for entry, change in ((old, set.discard), (new, set.add)):
            if entry is None:
                continue
            layer = ((entry >> _COUNT_SHIFT) - 2) * _SLOTS   # negative: no multi layer
            for slot in _COMBO_SLOTS[entry & _COMBO_BITS]:
                change(index[slot], key)
                if layer >= 0 and multi is not None:
                    change(multi[layer + slot], key)

    def _layers(self) -> defaultdict[int, set[int]]:
        """The ldasg layers of the index (:attr:`_multi`), built now if they are not yet."""
        multi = self._multi
        if multi is None:
            multi = self._multi = defaultdict(set)
            for key, entry in self._free.items():
                layer = ((entry >> _COUNT_SHIFT) - 2) * _SLOTS
                if layer >= 0:
                    for slot in _COMBO_SLOTS[entry & _COMBO_BITS]:
                        multi[layer + slot].add(key)
        return multi


def _smallest_outside(sa: set[int], sb: set[int], sc: set[int], stale: set[int]) -> int | None:
    """The smallest key in the three sets that is not in `stale`, None if none."""
    best: int | None = None
    for s in (sa, sb, sc):
        if s:
            m = min(s)
            if m in stale:   # (a set's smallest is stale for about one set in five)
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
    extended by its placements so far). It works on keys (:meth:`QMap.key_of`).

    Extending puts a tile next to at most four free neighbours, so the map's index stays
    right everywhere else: the extension keeps the coordinates whose index entries no longer
    hold (*stale*: the added coordinates and their neighbours) and the entries, computed on
    the extended map, of the stale ones that are free there (*dirty*). A query takes the
    map's answer outside the stale coordinates and compares it with the dirty ones.
    """

    __slots__ = ("_map", "_extra", "_stale", "_dirty", "_dirs")

    def __init__(self, qmap: QMap, reach: int = 0) -> None:
        """An extension of `qmap` by at most `reach` tiles, each at a free neighbour of the
        map as extended so far (more when `reach` is 0, up to a quarter of the key range)."""
        qmap.reserve(reach)
        self._map = qmap
        self._dirs = qmap._dirs
        self._extra: dict[int, int] = {}     # added key -> kind index
        self._stale: set[int] = set()
        self._dirty: dict[int, int] = {}     # free neighbour -> entry, as in QMap._free

    def add(self, key: int, k: int) -> None:
        """Extend by the kind `k` at the unoccupied `key` (no rule is checked)."""
        kinds, extra = self._map._kinds, self._extra
        if key in kinds or key in extra:
            raise ValueError(f"coordinate {self._map.coord_of(key)} is already occupied")
        extra[key] = k
        stale, dirty = self._stale, self._dirty
        stale.add(key)
        dirty.pop(key, None)
        free = self._map._free
        get, kget = extra.get, kinds.get
        row = k * _W
        # As in QMap.place: a neighbour's entry (the extension's, else the map's, which
        # holds for a coordinate that is not stale) changes on the axis through `key`.
        for d, on_row in self._dirs:
            n = key + d
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
            far = n + d
            combo = old & _COMBO_BITS
            axis = _AXIS[row + get(far, kget(far, _ABSENT))]
            if on_row:
                new_combo = axis * _NAXIS + combo % _NAXIS
            else:
                new_combo = combo - combo % _NAXIS + axis
            dirty[n] = (old + (1 << _COUNT_SHIFT)) - combo + new_combo

    def first_key_of(self, k: int) -> int | None:
        """:meth:`QMap.first_key_of` on the extended map."""
        index = self._map._index
        a, b, c = _TILE_SLOTS[k]
        best = _smallest_outside(index[a], index[b], index[c], self._stale)
        for key, entry in self._dirty.items():
            if (_COMBO_MASK[entry & _COMBO_BITS] >> k) & 1 and (best is None or key < best):
                best = key
        return best

    def best_key_of(self, k: int) -> int | None:
        """:meth:`QMap.best_key_of` on the extended map."""
        # The dirty candidates with the most occupied neighbours (`top` of them).
        top = 0
        fitting: list[int] = []
        for key, entry in self._dirty.items():
            if (_COMBO_MASK[entry & _COMBO_BITS] >> k) & 1:
                n = entry >> _COUNT_SHIFT
                if n > top:
                    top, fitting = n, [key]
                elif n == top:
                    fitting.append(key)
        qmap, stale = self._map, self._stale
        a, b, c = _TILE_SLOTS[k]
        multi = qmap._multi
        if multi is None:
            multi = qmap._layers()
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

    def first_candidate_of(self, k: int) -> Coord | None:
        """:meth:`QMap.first_candidate_of` on the extended map."""
        key = self.first_key_of(k)
        return None if key is None else self._map.coord_of(key)

    def best_candidate_of(self, k: int) -> Coord | None:
        """:meth:`QMap.best_candidate_of` on the extended map."""
        key = self.best_key_of(k)
        return None if key is None else self._map.coord_of(key)
