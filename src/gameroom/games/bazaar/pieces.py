"""Bazaar's pieces: pebbles, bags of pebbles, equations, cards and the points table.

A :class:`Bag` is a multiset of pebbles that also remembers the order in which its pebbles
were added, because the reference implementation keeps bags as lists: list order never
changes a rule decision, but it decides the order of pebbles in JSON output and one
tie-breaking step of the reference strategy (spec §3.12, §9.4 step c). Equality of bags is
multiset equality; :meth:`Bag.same_list` compares the orders too.

Besides its ordered pebbles a bag carries a packed count vector (:attr:`Bag.counts_key`):
five 12-bit fields, one per colour, so that "does this wallet cover that card" is one
integer subtraction (:func:`covers`). The strategy's search works on these integers alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Iterable, Iterator

# --- pebbles -------------------------------------------------------------------------------


class Pebble(IntEnum):
    """A pebble colour. The declaration order is the spec's *colour order* (§2): the
    pebble request yields the first colour of this order present in the bank."""

    RED = 0
    WHITE = 1
    BLUE = 2
    GREEN = 3
    YELLOW = 4

    @property
    def colour(self) -> str:
        """The colour's name as on the wire: ``"red"``, ``"white"``, ..."""
        return _COLOUR_NAMES[self]

    @property
    def letter(self) -> str:
        """The colour's first letter (used by the bag order ``bag<`` of §9.5)."""
        return _COLOUR_NAMES[self][0]

    @classmethod
    def from_colour(cls, name: str) -> "Pebble":
        """The pebble named ``name`` (``"red"``, ...); raises ``KeyError`` otherwise."""
        return _BY_COLOUR[name]

    def __repr__(self) -> str:
        return f"Pebble.{self.name}"


_COLOUR_NAMES = ("red", "white", "blue", "green", "yellow")
_BY_COLOUR = {name: Pebble(i) for i, name in enumerate(_COLOUR_NAMES)}
COLOURS: tuple[Pebble, ...] = tuple(Pebble)
"""All colours in colour order."""

# --- packed count vectors ------------------------------------------------------------------

FIELD_BITS = 12
MAX_COUNT = (1 << (FIELD_BITS - 1)) - 1
"""The largest number of pebbles of one colour a bag may hold (far above the game's 100)."""
_UNIT = tuple(1 << (FIELD_BITS * i) for i in range(5))
_MASK = (1 << FIELD_BITS) - 1
_GUARD = sum(1 << (FIELD_BITS * i + FIELD_BITS - 1) for i in range(5))
GUARD = _GUARD
"""The guard bits of :func:`covers`, for hot loops that inline the test:
``((big | GUARD) - small) & GUARD == GUARD``."""


def covers(big: int, small: int) -> bool:
    """Does the bag with counts key ``big`` contain the bag with counts key ``small``?

    One subtraction on packed counts: each field of ``big`` gets its guard bit set, and a
    field of ``small`` larger than the matching field of ``big`` borrows that guard bit.
    """
    return ((big | _GUARD) - small) & _GUARD == _GUARD


def unpack(key: int) -> tuple[int, int, int, int, int]:
    """The per-colour counts (in colour order) of a counts key."""
    return (key & _MASK, (key >> 12) & _MASK, (key >> 24) & _MASK,
            (key >> 36) & _MASK, (key >> 48) & _MASK)


def pack(counts: Iterable[int]) -> int:
    """The counts key of per-colour counts given in colour order."""
    key = 0
    for unit, n in zip(_UNIT, counts):
        if not 0 <= n <= MAX_COUNT:
            raise ValueError(f"a bag holds 0..{MAX_COUNT} pebbles of a colour, not {n}")
        key += unit * n
    return key


def letters_of_key(key: int) -> str:
    """``letters(bag)`` of §9.5 from a counts key: the bag's colour letters sorted
    alphabetically (b < g < r < w < y)."""
    r, w, b, g, y = unpack(key)
    return "b" * b + "g" * g + "r" * r + "w" * w + "y" * y


# --- bags ----------------------------------------------------------------------------------


class Bag:
    """An immutable multiset of pebbles that keeps the reference's list order.

    ``a + b`` concatenates; ``a - b`` removes, for each pebble of ``b`` in order, the first
    occurrence in ``a`` (absent pebbles are ignored); ``a.covers(b)`` is the sub-bag test.
    ``==`` and ``hash`` are those of multisets.
    """

    __slots__ = ("_items", "_key")

    def __init__(self, pebbles: Iterable[Pebble] = ()) -> None:
        items = tuple(Pebble(p) for p in pebbles)
        counts = [0, 0, 0, 0, 0]
        for p in items:
            counts[p] += 1
        self._items = items
        self._key = pack(counts)

    @classmethod
    def _trusted(cls, items: tuple[Pebble, ...], key: int) -> "Bag":
        bag = object.__new__(cls)
        bag._items = items
        bag._key = key
        return bag

    @classmethod
    def of(cls, text: str) -> "Bag":
        """A bag from colour letters or names separated by spaces, e.g. ``Bag.of("r r b")``
        or ``Bag.of("red red blue")``; also accepts run-together letters ``"rrb"``."""
        words = text.split()
        if len(words) == 1 and all(ch in "rwbgy" for ch in words[0]):
            words = list(words[0])
        letters = {p.letter: p for p in Pebble}
        return cls(letters[w] if len(w) == 1 else Pebble.from_colour(w) for w in words)

    # -- views

    @property
    def items(self) -> tuple[Pebble, ...]:
        """The pebbles in list order."""
        return self._items

    @property
    def counts_key(self) -> int:
        """The packed per-colour counts (see :func:`covers`); equal iff multiset-equal."""
        return self._key

    def counts(self) -> tuple[int, int, int, int, int]:
        """Pebbles per colour, in colour order."""
        return unpack(self._key)

    def count(self, pebble: Pebble) -> int:
        return (self._key >> (FIELD_BITS * pebble)) & _MASK

    def colours(self) -> frozenset[Pebble]:
        """The colours present."""
        return frozenset(self._items)

    def letters(self) -> str:
        """``letters(bag)`` of §9.5: first letters of the colours, sorted alphabetically."""
        return letters_of_key(self._key)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Pebble]:
        return iter(self._items)

    def __contains__(self, pebble: object) -> bool:
        return pebble in self._items

    def __bool__(self) -> bool:
        return bool(self._items)

    # -- multiset algebra

    def covers(self, other: "Bag") -> bool:
        """Is ``other`` a sub-bag of this bag?"""
        return covers(self._key, other._key)

    def __add__(self, other: "Bag") -> "Bag":
        if not isinstance(other, Bag):
            return NotImplemented
        key = self._key + other._key
        if key & _GUARD:  # a colour went past MAX_COUNT: rebuilding raises ValueError
            return Bag(self._items + other._items)
        return Bag._trusted(self._items + other._items, key)

    def __sub__(self, other: "Bag") -> "Bag":
        if not isinstance(other, Bag):
            return NotImplemented
        if not other._items:
            return self
        items = list(self._items)
        if covers(self._key, other._key):
            for p in other._items:
                items.remove(p)
            return Bag._trusted(tuple(items), self._key - other._key)
        for p in other._items:
            try:
                items.remove(p)
            except ValueError:
                pass
        return Bag(items)

    def add(self, pebble: Pebble) -> "Bag":
        """This bag with one pebble appended."""
        return Bag._trusted(self._items + (pebble,), self._key + _UNIT[pebble])

    def remove(self, pebble: Pebble) -> "Bag":
        """This bag without the first occurrence of ``pebble``; ``ValueError`` if absent."""
        items = list(self._items)
        items.remove(pebble)
        return Bag._trusted(tuple(items), self._key - _UNIT[pebble])

    def same_list(self, other: "Bag") -> bool:
        """Equal as lists (same pebbles in the same order), as the reference's ``equal?``."""
        return self._items == other._items

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Bag):
            return self._key == other._key
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"Bag.of({' '.join(p.letter for p in self._items)!r})"


EMPTY_BAG = Bag()

# --- orders of §9.5 ------------------------------------------------------------------------


def bag_key(bag: Bag) -> tuple[int, str]:
    """Sort key of ``bag<``: by size, then by sorted colour letters."""
    return (len(bag), letters_of_key(bag.counts_key))


def bag_less(a: Bag, b: Bag) -> bool:
    """``bag<`` (§9.5): a strict total order on multisets."""
    if len(a) != len(b):
        return len(a) < len(b)
    return letters_of_key(a.counts_key) < letters_of_key(b.counts_key)


# --- equations -----------------------------------------------------------------------------

MAX_EQUATIONS = 10
MAX_SIDE = 4


@dataclass(frozen=True, slots=True)
class Equation:
    """A pair of bags that may be exchanged for each other; used as a *directed* equation
    (an exchange: give ``left`` to the bank, receive ``right``) in a trade request.

    Equality is that of §3.1: both sides multiset-equal, direction matters.
    """

    left: Bag
    right: Bag

    @classmethod
    def of(cls, left: str, right: str) -> "Equation":
        """Shorthand: ``Equation.of("r g", "b b b b")``."""
        return cls(Bag.of(left), Bag.of(right))

    def flipped(self) -> "Equation":
        """The same equation used right to left."""
        return Equation(self.right, self.left)

    def problem(self) -> str | None:
        """Why this is not a valid table equation (sides of 1 to 4 pebbles sharing no
        colour), or ``None`` when it is."""
        for side, bag in (("left", self.left), ("right", self.right)):
            if not 1 <= len(bag) <= MAX_SIDE:
                return f"the {side} side has {len(bag)} pebbles; it must have 1 to {MAX_SIDE}"
        common = self.left.colours() & self.right.colours()
        if common:
            names = ", ".join(p.colour for p in sorted(common))
            return f"both sides contain {names}"
        return None

    def __repr__(self) -> str:
        left = " ".join(p.letter for p in self.left)
        right = " ".join(p.letter for p in self.right)
        return f"Equation.of({left!r}, {right!r})"


def equations_problem(equations: Iterable[Equation]) -> str | None:
    """Why a list of equations is not a valid equations table (at most 10 valid equations,
    no two equal and none equal to the flip of another, with multiset sides), or ``None``."""
    seen: set[Equation] = set()
    for i, eq in enumerate(equations):
        if i >= MAX_EQUATIONS:
            return f"more than {MAX_EQUATIONS} equations"
        problem = eq.problem()
        if problem:
            return f"equation {i}: {problem}"
        if eq in seen:
            return f"equation {i} repeats an earlier equation"
        if eq.flipped() in seen:
            return f"equation {i} is the flip of an earlier equation"
        seen.add(eq)
    return None


def eq_key(eq: Equation) -> tuple[tuple[int, str], tuple[int, str]]:
    """Sort key of ``eq<`` (§9.5): left side by ``bag<``, then right side."""
    return (bag_key(eq.left), bag_key(eq.right))


def eq_less(e: Equation, f: Equation) -> bool:
    """``eq<`` (§9.5) on directed equations."""
    return bag_less(e.left, f.left) or (e.left == f.left and bag_less(e.right, f.right))


# --- cards ---------------------------------------------------------------------------------

CARD_SIZE = 5
MAX_VISIBLE = 4
CARDS_IN_GAME = 20


@dataclass(frozen=True, slots=True)
class Card:
    """A card: exactly five pebbles, and maybe a happy face. Equality: multiset-equal
    pebbles and the same face (§3.1)."""

    pebbles: Bag
    face: bool = False

    def __post_init__(self) -> None:
        if len(self.pebbles) != CARD_SIZE:
            raise ValueError(f"a card shows exactly {CARD_SIZE} pebbles, not {len(self.pebbles)}")

    @classmethod
    def of(cls, pebbles: str, face: bool = False) -> "Card":
        """Shorthand: ``Card.of("g g g g r", face=True)``."""
        return cls(Bag.of(pebbles), face)

    def __repr__(self) -> str:
        return f"Card.of({' '.join(p.letter for p in self.pebbles)!r}{', face=True' if self.face else ''})"


def card_less(c: Card, d: Card) -> bool:
    """``card<`` (§9.5): the plain one of two cards that differ in face, or the one whose
    pebbles are ``bag<``-smaller. Not antisymmetric (see spec §11 item 5)."""
    return (c.face != d.face and not c.face) or bag_less(c.pebbles, d.pebbles)


def _all_cards() -> tuple[Card, ...]:
    rows = ["g g g g r", "y w y w y", "w g w g w", "b b b b r", "y y r w b",
            "r r b r r", "g g g g g", "b b b b b", "r g b r g", "w y r b b"]
    return tuple(Card.of(row, face) for row in rows for face in (False, True))


ALL_CARDS: tuple[Card, ...] = _all_cards()
"""The reference's fixed, ordered catalogue of 20 cards (§2.2)."""

# --- points --------------------------------------------------------------------------------

POINTS_TABLE: tuple[tuple[int, int, int], ...] = ((3, 1, 2), (2, 2, 3), (1, 3, 5), (0, 5, 8))
"""Rows ``(pebbles left at least, plain points, face points)``, tried top to bottom (§2.1)."""

_POINTS = ((5, 8), (3, 5), (2, 3))


def points(face: bool, pebbles_left: int) -> int:
    """Points for buying one card, given the buyer's wallet size right after paying."""
    if pebbles_left >= 3:
        return 2 if face else 1
    row = _POINTS[pebbles_left]
    return row[1] if face else row[0]


WINNING_SCORE = 20
PEBBLES_IN_GAME = 100
MIN_PLAYERS = 2
MAX_PLAYERS = 6
