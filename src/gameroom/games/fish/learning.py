"""Fish for learning agents: the encoding behind ``gameroom.rl`` (``core.learning``).

Options: ``players`` (2-4, default 2), ``rows`` and ``columns`` (2-9, default 5 x 5, the
tournament manager's board), ``fish`` (1-5 fish on every tile, or 0 for random 1-5 per
tile, the default). The game is the Fish referee's own (``referee.run_game``) on a board
of that size dealt from the seed.

**Actions**: one per spot of the board, ``r * columns + c`` = "spot (r, c)".

* placement (``setup``): the spot to place a penguin on — legal: the free tiles;
* a move (``take-turn``) is two sub-actions: the spot of the penguin to move (legal: one's
  own penguins that can move), then the spot it moves to (legal: the spots that penguin
  reaches in a straight line). A refused first choice goes to the referee as a move from
  that spot to itself, a refused second one as the move asked for: both are illegal moves
  and the referee removes the player.

**Observation**: a ``rows x columns x (3 + 2 * players)`` grid (channels last), all in
[0, 1]: channel 0 the fish on each tile / 5 (0 = hole); channel 1 one's own penguins; 2 ..
players the other players' penguins, in turn order after oneself (by colour, so a removed
player leaves its channel empty); players + 1 the penguin chosen to move (during a move's
second sub-action); players + 2 all ones during placement; the last ``players`` channels
the scores (oneself first, then in turn order) / the board's most fish (5 per spot),
constant over the grid. Fish has no secrets: this is the whole state as the seat sees it.

**Rewards** at the end: ``core.learning.rank_rewards`` of the referee's ranking by fish
(a removed player ranks last, -1).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from gameroom.core.context import MatchContext
from gameroom.core.learning import (
    Learning,
    LearningTable,
    Option,
    integer,
    rank_rewards,
)
from gameroom.core.record import MatchResult
from gameroom.games.fish.board import MAX_FISH, Position
from gameroom.games.fish.referee import run_game
from gameroom.games.fish.state import COLORS, Color, GameState, penguins_per_player
from gameroom.games.fish.strategies import STRATEGY_NAMES

__all__ = ["LEARNING"]


class _Turn:
    """A placement (one sub-action) or a move (two)."""

    __slots__ = ("base", "coder", "done", "moves", "source", "state")

    def __init__(self, coder: _Coder, state: GameState, moves: list[tuple[Position, Position]] | None) -> None:
        self.coder = coder
        self.state = state
        self.base = coder.encode(state, placing=moves is None)
        self.moves = moves
        self.source: int | None = None
        self.done: Any = None

    def observation(self) -> Sequence[float]:
        if self.source is None:
            return self.base
        values = list(self.base)
        values[self.source * self.coder.channels + self.coder.chosen] = 1.0
        return values

    def legal(self) -> list[int]:
        cols = self.coder.columns
        if self.moves is None:
            return [r * cols + c for r, c in self.state.free_tiles()]
        if self.source is None:
            return sorted({a[0] * cols + a[1] for a, _b in self.moves})
        source = self.coder.spot(self.source)
        return [b[0] * cols + b[1] for a, b in self.moves if a == source]

    def choose(self, action: int) -> bool:
        if self.moves is None:
            self.done = self.coder.spot(action)
            return True
        if self.source is None:
            self.source = action
            return False
        self.done = (self.coder.spot(self.source), self.coder.spot(action))
        return True

    def answer(self) -> Any:
        return self.done

    def refuse(self, action: int) -> Any:
        spot = self.coder.spot(action)
        if self.moves is None:
            return spot
        return (spot, spot) if self.source is None else (self.coder.spot(self.source), spot)


class _Coder:
    """One seat: its colour (``playing-as``), then a turn per ``setup`` and ``take-turn``."""

    def __init__(self, players: int, rows: int, columns: int) -> None:
        self.players, self.rows, self.columns = players, rows, columns
        self.channels = 3 + 2 * players
        self.chosen = players + 1
        self.placing = players + 2
        self.most = float(MAX_FISH * rows * columns)
        self.color: Color | None = None

    def spot(self, action: int) -> Position:
        return divmod(action, self.columns)

    def turn(self, method: str, args: tuple[Any, ...]) -> _Turn | None:
        if method == "playing_as":
            self.color = args[0]
        elif method == "playing_with":
            if len(args[0]) + 1 != self.players:
                raise ValueError(f"this encoding is for {self.players} players, the game has {len(args[0]) + 1}")
        elif method == "initial":
            return _Turn(self, self._check(args[0]), None)
        elif method == "take_turn":
            state = self._check(args[0])
            return _Turn(self, state, state.legal_moves())
        return None

    def _check(self, state: GameState) -> GameState:
        board = state.board
        if (board.rows, board.columns) != (self.rows, self.columns):
            raise ValueError(f"this encoding is for {self.rows} x {self.columns} boards, "
                             f"the game's board is {board.rows} x {board.columns}")
        if self.color is None:
            self.color = state.players[0].color
        return state

    def encode(self, state: GameState, placing: bool) -> list[float]:
        k = self.channels
        values = [0.0] * (self.rows * self.columns * k)
        for i, fish in enumerate(state.board.fish):
            if fish:
                values[i * k] = fish / MAX_FISH
        if placing:
            for i in range(self.rows * self.columns):
                values[i * k + self.placing] = 1.0
        me = COLORS.index(self.color) if self.color is not None else 0
        scores = [0.0] * self.players
        cols = self.columns
        for player in state.players:
            offset = (COLORS.index(player.color) - me) % self.players
            for r, c in player.places:
                values[(r * cols + c) * k + 1 + offset] = 1.0
            scores[offset] = player.score / self.most
        first = k - self.players
        for i in range(self.rows * self.columns):
            values[i * k + first:(i + 1) * k] = scores
        return values


def _text(state: GameState) -> str:
    """The board as text: the fish on each tile (``.`` a hole), a penguin as the first
    letter of its colour (upper case); odd rows shifted as on the board; the scores."""
    marks = {p: player.color.value[0].upper() for player in state.players for p in player.places}
    board = state.board
    lines = []
    for r in range(board.rows):
        cells = [marks.get((r, c)) or (str(board.fish_at((r, c))) if board.fish_at((r, c)) else ".")
                 for c in range(board.columns)]
        lines.append(("  " if r % 2 else "") + "   ".join(cells))
    lines.append("scores: " + ", ".join(f"{p.color.value} {p.score}" for p in state.players))
    return "\n".join(lines)


def _make(players: int, rows: int, columns: int, fish: int) -> LearningTable:
    if rows * columns < players * penguins_per_player(players):
        raise ValueError(f"a {rows} x {columns} board has too few tiles for {players} players' penguins")
    options = {"players": players, "rows": rows, "columns": columns, "fish": fish}

    def deal(seed: int, _names: Sequence[str]) -> GameState:
        return GameState.create(rows, columns, players, fish=fish or None, rng=random.Random(seed))

    def play(seed: int, seats: Sequence[Any], observers: Sequence[Any]) -> MatchResult:
        return run_game(seats, deal(seed, ()), MatchContext(observers=observers))

    def rewards(result: MatchResult, names: Sequence[str]) -> list[float]:
        return rank_rewards(len(names), result.ranking_seats, result.misbehaved_seats)

    channels = 3 + 2 * players
    size = rows * columns * channels
    return LearningTable(
        game="fish", options=options, players=players,
        actions=tuple(f"spot ({r}, {c})" for r in range(rows) for c in range(columns)),
        shape=(rows, columns, channels), low=[0.0] * size, high=[1.0] * size,
        play=play, coder=lambda: _Coder(players, rows, columns), rewards=rewards, text=_text, deal=deal,
        strategies=STRATEGY_NAMES)


LEARNING = Learning(
    options={
        "players": Option(2, integer(2, 4, "players"), "players at the table"),
        "rows": Option(5, integer(2, 9, "rows"), "rows of the board"),
        "columns": Option(5, integer(2, 9, "columns"), "columns of the board"),
        "fish": Option(0, integer(0, 5, "fish"), "fish on every tile; 0: random 1-5 per tile"),
    },
    make=_make,
    doc=__doc__ or "",
)
