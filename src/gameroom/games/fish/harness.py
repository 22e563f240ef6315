"""The Fish test harnesses of spec 10 as pure functions from input JSON values to output values.

``HARNESSES[name](inputs)`` maps the list of JSON values read from standard input to the
list of JSON values to print; each input value yields one output value. Bad input raises
:class:`gameroom.core.wire.WireError`. ``xref`` plays a complete game through the referee
(:mod:`gameroom.games.fish.referee`) between trusted maximin players.
"""

from __future__ import annotations

from typing import Any, Callable

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import trusted_seat
from gameroom.core.wire import WireError, expect_int, expect_list, expect_object, expect_str
from gameroom.games.fish.players import StrategyPlayer
from gameroom.games.fish.referee import run_game
from gameroom.games.fish.state import GameState, Move
from gameroom.games.fish.strategies import MaximinStrategy, maximin_move, tie_break
from gameroom.games.fish.codec import decode_board, decode_position, decode_state, encode_move, encode_state


def xboard(value: Any) -> int:
    """``{"board", "position"}`` -> the number of positions reachable with no penguins."""
    obj = expect_object(value, ("board", "position"), "$")
    board = decode_board(obj["board"], "$.board")
    position = decode_position(obj["position"], "$.position")
    return len(board.reachable(position))


def xstate(value: Any) -> Any:
    """A State -> the State after the first player's first penguin moves to the first
    reachable position (then rotation), or ``false``."""
    state = decode_state(value)
    if not state.players or not state.players[0].places:
        return False
    first = state.players[0].places[0]
    targets = state.reachable(first)
    if not targets:
        return False
    player = state.players[0]
    player.score += state.board.remove_tile(first)
    player.places[0] = targets[0]
    state.rotate()
    return encode_state(state)


def respond_next_to(state: GameState, move: Move) -> Move | None:
    """The ``xtree`` answer: after `move` (and rotation), the next player's move onto the
    first neighbour of the target (canonical order) it can reach, tie-broken; or None."""
    state.apply(move)
    moves = state.legal_moves()
    for spot in state.board.neighbours(move[1]):
        onto = [m for m in moves if m[1] == spot]
        if onto:
            return tie_break(onto)
    return None


def xtree(value: Any) -> Any:
    """``{"state", "from", "to"}`` -> the next player's move next to ``to``, or ``false``."""
    obj = expect_object(value, ("state", "from", "to"), "$")
    state = decode_state(obj["state"], "$.state")
    source = decode_position(obj["from"], "$.from")
    target = decode_position(obj["to"], "$.to")
    if not state.players or source not in state.players[0].places:
        raise WireError(f"the first player has no penguin at {list(source)}", "$.from")
    if target not in state.reachable(source):
        raise WireError(f"{list(target)} is not reachable from {list(source)}", "$.to")
    found = respond_next_to(state, (source, target))
    return False if found is None else encode_move(found)


def xstrategy(value: Any) -> Any:
    """``[N, State]`` -> the N-turn maximin move of the first player, or ``false``."""
    items = expect_list(value, "$", 2, 2)
    depth = expect_int(items[0], "$[0]", 1)
    state = decode_state(items[1], "$[1]")
    if not state.players:
        return False
    move = maximin_move(state, depth)
    return False if move is None else encode_move(move)


MAX_SIDE = 25   # rows and columns of a board, at most


def decode_xref_input(value: Any) -> tuple[int, int, int, list[tuple[str, int]]]:
    """``{"row", "column", "players": [[Name, N], ...], "fish"}`` -> (rows, columns, fish,
    players); for the referee-phase ``xref`` harness."""
    obj = expect_object(value, ("row", "column", "players", "fish"), "$")
    # The library's board limits (fish.md 1: rows and columns 1..25); the size of the
    # board is memory, so it is bounded before anything is built.
    rows = expect_int(obj["row"], "$.row", 1, MAX_SIDE)
    columns = expect_int(obj["column"], "$.column", 1, MAX_SIDE)
    fish = expect_int(obj["fish"], "$.fish", 1, 5)
    players: list[tuple[str, int]] = []
    for i, p in enumerate(expect_list(obj["players"], "$.players", 1, 4)):
        pair = expect_list(p, f"$.players[{i}]", 2, 2)
        players.append((expect_str(pair[0], f"$.players[{i}][0]"),
                        expect_int(pair[1], f"$.players[{i}][1]", 1)))
    return rows, columns, fish, players


def xref(value: Any) -> list[str]:
    """``{"row", "column", "players", "fish"}`` -> the sorted names of the winners of a
    refereed game between maximin players of the given look-aheads (spec 10.6)."""
    rows, columns, fish, players = decode_xref_input(value)
    seats = [trusted_seat(name, StrategyPlayer(MaximinStrategy(depth), name)) for name, depth in players]
    state = GameState.create(rows, columns, len(players), fish=fish)
    result = run_game(seats, state, MatchContext(limits=Limits()))
    return sorted(result.winners)


def _each(harness: Callable[[Any], Any]) -> Callable[[list[Any]], list[Any]]:
    def run(inputs: list[Any]) -> list[Any]:
        return [harness(v) for v in inputs]
    run.__name__ = harness.__name__
    run.__doc__ = harness.__doc__
    return run


HARNESSES: dict[str, Callable[[list[Any]], list[Any]]] = {
    "xboard": _each(xboard),
    "xstate": _each(xstate),
    "xtree": _each(xtree),
    "xstrategy": _each(xstrategy),
    "xref": _each(xref),
}
