"""The Fish game state: the board plus the players in turn order, and the rules on it.

A :class:`GameState` holds a :class:`~gameroom.games.fish.board.Board` and the list of
:class:`Player` records (color, score, penguin places) in turn order; the first player is the
active one (spec 2.6). The operations follow the spec exactly:

* :meth:`GameState.place` puts a penguin at the *front* of the active player's places;
* :meth:`GameState.move` removes the tile left, scores its fish and puts the target at the
  front of the places; neither rotates;
* :meth:`GameState.rotate` makes the next player active;
* :meth:`GameState.legal_moves` lists the active player's moves in canonical action order
  (groups of the penguins in *reverse* ``places`` order, each in direction/distance order);
* :meth:`GameState.apply` / :meth:`GameState.undo` take an action (a move, or ``SKIP``)
  including the rotation, and take it back exactly, for search without copying.

The game is over when nobody can move; ranking groups the players by score (spec 3.4).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Iterable, Sequence

from gameroom.core.errors import IllegalAction
from gameroom.games.fish.board import Board, Position, make_board

MIN_PLAYERS = 2
MAX_PLAYERS = 4


class Color(StrEnum):
    """A player's color; assigned in the order red, white, brown, black."""

    RED = "red"
    WHITE = "white"
    BROWN = "brown"
    BLACK = "black"


COLORS: tuple[Color, ...] = (Color.RED, Color.WHITE, Color.BROWN, Color.BLACK)
"""The colors in assignment order."""


def penguins_per_player(players: int) -> int:
    """Penguins each player places in a game of `players` players: ``6 - players``."""
    return 6 - players


Move = tuple[Position, Position]
"""A move ``(from, to)`` of one penguin along a straight line."""


class Skip(Enum):
    """The action recorded for a turn in which the active player could not move."""

    SKIP = "skip"

    def __repr__(self) -> str:
        return "SKIP"


SKIP = Skip.SKIP
"""The one skip action."""

Action = Move | Skip
"""What happens in a turn of the playing phase: a move, or a skip."""


@dataclass
class Player:
    """One player of a game, as the referee (and the wire) sees it.

    ``places`` lists its penguins, most recently placed or moved first (spec 2.5).
    """

    color: Color
    score: int = 0
    places: list[Position] = field(default_factory=list)

    def copy(self) -> "Player":
        """An independent copy."""
        return Player(self.color, self.score, self.places.copy())


@dataclass(frozen=True)
class Undo:
    """What :meth:`GameState.undo` needs to take back one :meth:`GameState.apply`."""

    action: Action
    fish: int = 0
    slot: int = 0


class GameState:
    """The board and the players in turn order; ``players[0]`` is the active player."""

    __slots__ = ("board", "players")

    def __init__(self, board: Board, players: Iterable[Player]) -> None:
        self.board = board
        self.players: list[Player] = list(players)

    @classmethod
    def create(cls, rows: int, columns: int, players: int | Sequence[Color], *,
               fish: int | None = None, rng: random.Random | None = None) -> "GameState":
        """A fresh state: a board per :func:`make_board` (`fish` fixed, else random from
        `rng`), players colored red, white, brown, black in order, score 0, no penguins."""
        colors = list(COLORS[:players]) if isinstance(players, int) else list(players)
        if isinstance(players, int) and not 0 <= players <= len(COLORS):
            raise ValueError(f"a game has at most {len(COLORS)} players, got {players}")
        if len(set(colors)) != len(colors):
            raise ValueError("player colors must be distinct")
        board = make_board(rows, columns, rng=rng, fixed=fish)
        return cls(board, [Player(c) for c in colors])

    def copy(self) -> "GameState":
        """An independent copy (one flat list for the board, small player records)."""
        return GameState(self.board.copy(), [p.copy() for p in self.players])

    # -- queries -----------------------------------------------------------------------

    @property
    def active(self) -> Player:
        """The player whose turn it is."""
        if not self.players:
            raise IllegalAction("the state has no players")
        return self.players[0]

    def colors(self) -> list[Color]:
        """The players' colors in turn order."""
        return [p.color for p in self.players]

    def player(self, color: Color) -> Player | None:
        """The player of that color, if it is in the game."""
        for p in self.players:
            if p.color == color:
                return p
        return None

    def score(self, color: Color) -> int | None:
        """The score of the player of that color, or None if it is not in the game."""
        p = self.player(color)
        return None if p is None else p.score

    def penguins(self) -> list[Position]:
        """The positions of all penguins on the board."""
        return [q for p in self.players for q in p.places]

    def is_occupied(self, position: Position) -> bool:
        """Whether some penguin stands at `position`."""
        return any(position in p.places for p in self.players)

    def can_place(self, position: Position) -> bool:
        """Whether a penguin may be placed at `position`: a tile with no penguin on it."""
        return self.board.is_tile(position) and not self.is_occupied(position)

    def free_tiles(self) -> list[Position]:
        """The tiles without a penguin, row by row, left to right."""
        taken = set(self.penguins())
        return [p for p in self.board.tiles() if p not in taken]

    def _blocked(self) -> set[int]:
        cols = self.board.columns
        return {r * cols + c for p in self.players for r, c in p.places}

    def reachable(self, position: Position) -> list[Position]:
        """Positions reachable from `position`, every penguin blocking (spec 2.3)."""
        return self.board.reachable(position, self.penguins())

    def moves_of(self, player: Player) -> list[Move]:
        """All moves of `player`, in canonical action order (spec 2.6)."""
        board = self.board
        cols = board.columns
        positions = board.geometry.positions
        blocked = self._blocked()
        out: list[Move] = []
        for q in reversed(player.places):
            i = q[0] * cols + q[1]
            out.extend([(q, positions[j]) for j in board.reachable_indices(i, blocked)])
        return out

    def legal_moves(self) -> list[Move]:
        """The active player's moves in canonical action order; [] if it cannot move."""
        if not self.players:
            return []
        return self.moves_of(self.players[0])

    def can_move(self, player: Player | None = None) -> bool:
        """Whether `player` (default: the active player) has at least one move."""
        if player is None:
            if not self.players:
                return False
            player = self.players[0]
        board = self.board
        fish = board.fish
        cols = board.columns
        first_steps = board.geometry.first_steps
        blocked = self._blocked()
        for r, c in player.places:
            for j in first_steps[r * cols + c]:
                if fish[j] and j not in blocked:
                    return True
        return False

    def is_over(self) -> bool:
        """Whether nobody can move: the state is final."""
        return not any(self.can_move(p) for p in self.players)

    def must_skip(self) -> bool:
        """Whether the active player cannot move while some other player can."""
        return bool(self.players) and not self.can_move() and not self.is_over()

    def possible_actions(self) -> list[Move] | Skip:
        """Spec 2.6: the active player's moves if any; ``SKIP`` if it cannot move but
        someone else can; ``[]`` if the state is final."""
        moves = self.legal_moves()
        if moves:
            return moves
        return [] if self.is_over() else SKIP

    def actions(self) -> list[Action]:
        """The branch labels of this state's game-tree node: the moves, ``[SKIP]``, or []."""
        found = self.possible_actions()
        return [SKIP] if found is SKIP else list(found)

    def is_legal(self, action: Action) -> bool:
        """Whether `action` is one of the branches of this state (any skip for a skip node)."""
        if action is SKIP:
            return self.must_skip()
        return action in self.legal_moves()

    def ranking(self) -> list[list[Color]]:
        """Players grouped by equal score, best first; equal scores keep turn order."""
        ordered = sorted(self.players, key=lambda p: -p.score)
        groups: list[list[Color]] = []
        last: int | None = None
        for p in ordered:
            if p.score != last:
                groups.append([])
                last = p.score
            groups[-1].append(p.color)
        return groups

    def winners(self) -> list[Color]:
        """The colors of the players with the top score (all of them in a tie)."""
        ranking = self.ranking()
        return ranking[0] if ranking else []

    # -- changes -----------------------------------------------------------------------

    def place(self, position: Position) -> None:
        """Put a penguin of the active player at `position` (front of its places)."""
        if not self.can_place(position):
            raise IllegalAction(f"cannot place a penguin at {list(position)}: "
                                "not a free tile")
        self.active.places.insert(0, position)

    def rotate(self) -> None:
        """Make the next player active (the active player goes to the end)."""
        if self.players:
            self.players.append(self.players.pop(0))

    def move(self, move: Move) -> int:
        """Move an active player's penguin without checking reachability: remove the tile
        left, add its fish to the score, put the target at the front; no rotation.
        Returns the fish collected."""
        source, target = move
        player = self.active
        try:
            player.places.remove(source)
        except ValueError:
            raise IllegalAction(f"the active player has no penguin at {list(source)}") from None
        fish = self.board.remove_tile(source)
        player.score += fish
        player.places.insert(0, target)
        return fish

    def remove_player(self, color: Color) -> Player:
        """Take a player (and thereby its penguins) out of the game; tiles stay."""
        for i, p in enumerate(self.players):
            if p.color == color:
                return self.players.pop(i)
        raise IllegalAction(f"no {color} player in the game")

    def apply(self, action: Action) -> Undo:
        """Take a turn: a move (then rotate) or a skip (rotate). Not checked for legality;
        use :meth:`is_legal` first. Returns what :meth:`undo` needs."""
        if action is SKIP:
            self.rotate()
            return Undo(SKIP)
        source, target = action
        player = self.active
        places = player.places
        slot = places.index(source)
        del places[slot]
        fish = self.board.remove_tile(source)
        player.score += fish
        places.insert(0, target)
        self.players.append(self.players.pop(0))
        return Undo(action, fish, slot)

    def undo(self, undo: Undo) -> None:
        """Take back the :meth:`apply` that returned `undo` (the most recent one)."""
        self.players.insert(0, self.players.pop())
        if undo.action is SKIP:
            return
        source, target = undo.action
        player = self.players[0]
        del player.places[0]
        player.places.insert(undo.slot, source)
        player.score -= undo.fish
        self.board.put_tile(source, undo.fish)

    def after(self, action: Action) -> "GameState":
        """A new state: this one after `action` (this state is unchanged)."""
        other = self.copy()
        other.apply(action)
        return other

    # -- values ------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.board == other.board and self.players == other.players

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"GameState({self.board!r}, {self.players!r})"
