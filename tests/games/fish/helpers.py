"""Test helpers for Fish: hypothesis strategies for boards and states, and literal oracles
written straight from the spec's text (slow, obviously right) to check the fast code."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from gameroom.games.fish.board import DIRECTIONS, Board, Position, step
from gameroom.games.fish.state import COLORS, SKIP, Color, GameState, Move, Player
from gameroom.games.fish.tree import GameTree

EXAMPLE_BOARD = [[2, 3, 1, 4], [1, 0, 5, 2], [3, 1, 2, 1], [4, 2, 0, 3]]


def example_state() -> GameState:
    """The State of spec 6.2."""
    return GameState(Board.from_rows(EXAMPLE_BOARD),
                     [Player(Color.WHITE, 3, [(2, 1), (0, 0)]),
                      Player(Color.RED, 5, [(1, 2), (3, 1)])])


@st.composite
def boards(draw: Any, max_rows: int = 6, max_columns: int = 6, holes: bool = True) -> Board:
    """Rectangular boards with 0..5 fish per spot (holes optional)."""
    rows = draw(st.integers(1, max_rows))
    columns = draw(st.integers(1, max_columns))
    low = 0 if holes else 1
    fish = draw(st.lists(st.integers(low, 5), min_size=rows * columns, max_size=rows * columns))
    return Board(rows, columns, fish)


@st.composite
def states(draw: Any, max_rows: int = 5, max_columns: int = 5, max_players: int = 4,
           min_players: int = 1, max_penguins: int = 4) -> GameState:
    """States with 1..4 players (distinct colors, any order) and penguins on distinct tiles."""
    board = draw(boards(max_rows, max_columns))
    n = draw(st.integers(min_players, max_players))
    colors = draw(st.permutations(COLORS))[:n]
    tiles = board.tiles()
    spots = draw(st.permutations(tiles)) if tiles else []
    players = []
    for color in colors:
        k = draw(st.integers(0, min(max_penguins, len(spots))))
        places, spots = list(spots[:k]), spots[k:]
        players.append(Player(color, draw(st.integers(0, 30)), places))
    return GameState(board, players)


def literal_reachable(board: Board, start: Position, blocked: set[Position]) -> list[Position]:
    """Spec 2.3 word for word, on positions."""
    out: list[Position] = []
    for d in DIRECTIONS:
        p = step(start, d)
        while board.on_board(p) and board.fish_at(p) > 0 and p not in blocked:
            out.append(p)
            p = step(p, d)
    return out


def literal_actions(state: GameState) -> list[Move]:
    """Spec 2.6 word for word: prepend each penguin's group, in places order."""
    result: list[Move] = []
    blocked = set(state.penguins())
    for q in state.players[0].places:
        group = [(q, r) for r in literal_reachable(state.board, q, blocked)]
        result = group + result
    return result


def literal_value(node: GameTree, k: int, me: Color) -> int:
    """Spec 9.4's ``value`` on the game tree."""
    state = node.state
    score = state.score(me)
    assert score is not None
    if node.is_final() or k == 0:
        return score
    mine = state.player(me)
    assert mine is not None
    if not state.can_move(mine):
        return score
    if node.is_skip():
        return literal_value(node.child(SKIP), k, me)
    if state.players[0].color == me:
        return max(literal_value(child, k - 1, me) for _, child in node.children())
    return min(literal_value(child, k, me) for _, child in node.children())


def literal_maximin(state: GameState, depth: int) -> Move | None:
    """Spec 9.4's root choice with the 9.1 tie-breaker written out step by step."""
    tree = GameTree(state.copy())
    moves = tree.moves()
    if not moves:
        return None
    me = state.players[0].color
    values = {m: literal_value(tree.child(m), depth - 1, me) for m in moves}
    top = max(values.values())
    best = [m for m in moves if values[m] == top]
    for key in (lambda m: m[0][0], lambda m: m[0][1], lambda m: m[1][0], lambda m: m[1][1]):
        low = min(key(m) for m in best)
        best = [m for m in best if key(m) == low]
        if len(best) == 1:
            break
    return best[0]
