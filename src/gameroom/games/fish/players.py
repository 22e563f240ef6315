"""In-process Fish players: the strategy-driven player and the misbehaving ones (spec 9.5, 9.6).

:class:`StrategyPlayer` implements :class:`~gameroom.games.fish.protocol.PlayerInterface`
by rebuilding its decision from the state argument of every call (the reference's
"functional" player); the four notification calls only record what they were told.
:class:`BaddiePlayer` is a greedy player with one method misbehaving as
:data:`~gameroom.games.fish.actors.BADDIES` describes. Both are pure: no I/O.
"""

from __future__ import annotations

from typing import Any, Callable

from gameroom.core.misbehaviour import PROCEED, misbehaves_through
from gameroom.games.fish.actors import BADDIES, Baddie, Misbehaviour, occupied_placement
from gameroom.games.fish.board import Position
from gameroom.games.fish.protocol import PROTOCOL
from gameroom.games.fish.state import Action, Color, GameState, Move
from gameroom.games.fish.strategies import GreedyStrategy, Strategy, tie_break


class CannotMove(Exception):
    """``take_turn`` was called although the player has no move."""


class StrategyPlayer:
    """A well-behaved player delegating its decisions to a strategy."""

    def __init__(self, strategy: Strategy | None = None, name: str = "") -> None:
        self.strategy: Strategy = strategy if strategy is not None else GreedyStrategy()
        self.name = name
        self.color: Color | None = None
        self.others: list[Color] = []
        self.won: bool | None = None

    def start_of_tournament(self, start: bool) -> None:
        """Nothing to do."""

    def playing_as(self, color: Color) -> None:
        """Remember the color of this game."""
        self.color = color

    def playing_with(self, others: list[Color]) -> None:
        """Remember the other players' colors."""
        self.others = list(others)

    def initial(self, state: GameState) -> Position:
        """The strategy's placement (raises if there is no free tile)."""
        return self.strategy.place(state)

    def take_turn(self, state: GameState, actions: list[Action]) -> Move:
        """The strategy's move for the state (the actions list is not needed)."""
        move = self.strategy.move(state)
        if move is None:
            raise CannotMove("take-turn called but the player cannot move")
        return move

    def end_of_tournament(self, won: bool) -> None:
        """Remember the tournament result."""
        self.won = won

    def __repr__(self) -> str:
        return f"StrategyPlayer({self.strategy!r}, {self.name!r})"


class QueryingPlayer(StrategyPlayer):
    """A greedy player that *asks* instead of computing (the query API of spec Appendix A).

    It takes the desk the referee offers (``use_queries``; over the wire, the client hands it
    a :class:`~gameroom.games.fish.queries.WireQueries`) and on each turn asks for the phase,
    the current player and the legal moves, then picks the move onto the most fish. Without
    a desk it plays as the greedy player. ``asked`` counts the queries it made.
    """

    def __init__(self, name: str = "") -> None:
        super().__init__(GreedyStrategy(), name)
        self.desk: Any = None
        self.asked = 0
        self.seen: list[Any] = []

    def use_queries(self, desk: Any) -> None:
        """Keep the desk the referee offers."""
        self.desk = desk

    def take_turn(self, state: GameState, actions: list[Action]) -> Move:
        if self.desk is None:
            return super().take_turn(state, actions)
        desk = self.desk
        self.seen.append((desk.phase(), desk.current_player(), desk.game_over(), desk.tournament_info()))
        moves = desk.legal_moves()
        self.asked += 4
        if not moves:
            raise CannotMove("the referee lists no legal move")
        fish = state.board.fish_at
        best = max(fish(m[1]) for m in moves)
        return tie_break([m for m in moves if fish(m[1]) == best])

    def __repr__(self) -> str:
        return f"QueryingPlayer({self.name!r})"


class Misbehaved(Exception):
    """Raised by a baddie's misbehaving method."""


def _forever() -> None:
    while True:  # the reference baddie's infinite loop; run it where it can be stopped
        pass


@misbehaves_through(PROTOCOL)
class BaddiePlayer(StrategyPlayer):
    """The greedy player with one method misbehaving (spec 9.6).

    Only the in-process baddies are supported (not the wire-level ones, which a client
    produces with :func:`gameroom.games.fish.actors.bad_answer`). `hang` is what a
    hanging method does (default: loop forever, as the reference does); pass something
    stoppable when the player runs in-process.
    """

    def __init__(self, baddie: Baddie | str, name: str = "",
                 hang: Callable[[], None] = _forever) -> None:
        super().__init__(GreedyStrategy(), name)
        self.baddie = BADDIES[baddie] if isinstance(baddie, str) else baddie
        if self.baddie.remote:
            raise ValueError(f"{self.baddie.name} misbehaves on the wire, not in-process")
        self.hang = hang

    def _misbehave(self, method: str, state: GameState | None = None) -> Any:
        kind = self.baddie.misbehaviour
        if kind is Misbehaviour.RAISE:
            raise Misbehaved(f"{self.baddie.name} fails in {method}")
        if kind is Misbehaviour.HANG:
            self.hang()
            raise Misbehaved(f"{self.baddie.name} stopped hanging in {method}")
        assert state is not None
        if kind is Misbehaviour.OCCUPIED_PLACEMENT:
            spot = occupied_placement(state)
            return False if spot is False else (spot[0], spot[1])  # type: ignore[index]
        if kind is Misbehaviour.SELF_MOVE:
            p = state.players[0].places[0]
            return (p, p)
        raise ValueError(f"unsupported misbehaviour {kind}")

    def _before(self, wire: str, args: tuple[Any, ...]) -> Any:
        """The misbehaving method answers (or raises, or hangs) in place of the normal work."""
        if self.baddie.method != wire:
            return PROCEED
        return self._misbehave(wire, args[0] if wire in ("setup", "take-turn") else None)

    def __repr__(self) -> str:
        return f"BaddiePlayer({self.baddie.name!r}, {self.name!r})"
