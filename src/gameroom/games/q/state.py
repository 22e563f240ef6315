"""The referee's state of a Q game (3.1) and the public state a player sees.

:class:`RefereeState` holds the map, the players in turn order (the first one is active)
and the pile (a deque: tiles are handed out from the front, returned tiles go to the back).
:class:`PublicState` is what the active player sees: the map, its own record and the
other players' scores, and the pile size.

The map inside a :class:`PublicState` made by :meth:`RefereeState.public_for_active` is the
referee's own map unless a copy is asked for: players must treat it as read-only (the
built-in strategies try moves with ``place``/``remove`` and always undo them before
returning).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

from gameroom.games.q.qmap import QMap
from gameroom.games.q.pieces import Tile, full_set

HAND_SIZE = 6
"""The usual hand size (only used by :func:`new_game`; the referee never deals, 3.2)."""


@dataclass
class PlayerRecord:
    """One player as the referee knows it: name, score, hand (ordered, duplicates allowed).

    `name` is None only for records read from harness inputs that carry no name (6.3).
    """

    name: str | None
    score: int
    hand: list[Tile]

    def copy(self) -> PlayerRecord:
        return PlayerRecord(self.name, self.score, list(self.hand))


class PublicState(NamedTuple):
    """What the active player sees (3.1, JPub 6.3).

    A named tuple rather than a frozen dataclass: the referee makes one per call, and a
    tuple is built in one step where a frozen dataclass sets each field through
    ``object.__setattr__``.
    """

    qmap: QMap
    name: str | None
    score: int
    hand: tuple[Tile, ...]
    other_scores: tuple[int, ...]
    pile_size: int


@dataclass
class RefereeState:
    """The full state: map, players in turn order (first = active), pile (front first)."""

    qmap: QMap
    players: list[PlayerRecord]
    pile: deque[Tile] = field(default_factory=deque)

    @property
    def active(self) -> PlayerRecord:
        """The active player's record (the first one)."""
        return self.players[0]

    def public_for_active(self, copy_map: bool = False) -> PublicState:
        """The public state of the active player.

        The map is shared with this state unless `copy_map` (see the module docstring).
        """
        players = self.players
        me = players[0]
        return PublicState(self.qmap.copy() if copy_map else self.qmap, me.name, me.score,
                           tuple(me.hand), tuple([p.score for p in players[1:]]),
                           len(self.pile))

    def rotate(self) -> None:
        """Move the active player to the end of the turn order."""
        if self.players:
            self.players.append(self.players.pop(0))

    def eliminate_active(self) -> PlayerRecord:
        """Remove the active player; its hand goes to the back of the pile. Returns it."""
        record = self.players.pop(0)
        self.pile.extend(record.hand)
        return record

    def draw(self, n: int) -> list[Tile]:
        """Take min(n, pile size) tiles from the front of the pile."""
        pile = self.pile
        return [pile.popleft() for _ in range(min(n, len(pile)))]

    def copy(self) -> RefereeState:
        """An independent copy (map, records, hands and pile)."""
        return RefereeState(self.qmap.copy(), [p.copy() for p in self.players], deque(self.pile))


def shuffle(tiles: list[Tile], rng: random.Random) -> None:
    """Shuffle `tiles` in place exactly as ``rng.shuffle(tiles)`` does, only faster.

    ``random.Random.shuffle`` is a Fisher-Yates shuffle that draws each index with
    ``getrandbits(k)``, retrying while the draw is too large; doing the same draws inline
    saves a method call per tile (a fifth of a whole benchmark game). A generator that
    overrides how it draws (a subclass) is left to its own ``shuffle``.
    """
    if type(rng) is not random.Random:
        rng.shuffle(tiles)
        return
    getrandbits = rng.getrandbits
    i = len(tiles) - 1
    while i > 0:
        # The indices i whose draw bound i + 1 has k bits share one size of draw.
        k = (i + 1).bit_length()
        lowest = max(1, (1 << (k - 1)) - 1)
        for i in range(i, lowest - 1, -1):  # noqa: B020 -- i continues below from lowest
            j = getrandbits(k)
            while j > i:
                j = getrandbits(k)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        i = lowest - 1


def new_game(player_names: Sequence[str], rng: random.Random,
             hand_size: int = HAND_SIZE) -> RefereeState:
    """A fresh state as the rules prose describes it: the complete set shuffled with
    `rng` (:func:`shuffle`), its first tile on the map at (0, 0), then `hand_size` tiles to
    each player in order, the rest as the pile."""
    tiles = full_set()
    shuffle(tiles, rng)
    pile = deque(tiles)
    qmap = QMap({(0, 0): pile.popleft()})
    players = [PlayerRecord(name, 0, [pile.popleft() for _ in range(min(hand_size, len(pile)))])
               for name in player_names]
    return RefereeState(qmap, players, pile)
