"""JSON codecs for the Fish data definitions (spec 6.2).

Every ``decode_*`` function takes a JSON value (as parsed by :mod:`json`) and the JSON path
of that value (default ``$``) and returns a game value, or raises
:class:`gameroom.core.wire.WireError` naming the path and what was wrong, e.g.
``$.players[1].places[0]: position [9, 9] is not a tile``. Every ``encode_*`` function
returns a plain JSON value; ``decode(encode(x)) == x`` for every valid value.

Shapes: Color (string), Position ``[row, column]``, Fish# (0..5), Board (rows of Fish#,
ragged rows padded with holes, written back full width), Player
``{"color", "score", "places"}``, State ``{"players", "board"}`` (exact key sets),
Move ``[Position, Position]``, Action (Move or ``"skip"``; ``false`` is read as a skip
too), Name (1-12 ASCII letters).
"""

from __future__ import annotations

from typing import Any

from gameroom.core.wire import (WireError, describe, expect_bool, expect_list,
                                expect_natural, expect_object, expect_str)
from gameroom.games.fish.board import MAX_FISH, Board, Position
from gameroom.games.fish.state import (COLORS, MAX_PLAYERS, MIN_PLAYERS, SKIP, Action, Color,
                                       GameState, Move, Player, penguins_per_player)

PLAYER_KEYS = ("color", "score", "places")
STATE_KEYS = ("players", "board")
NAME_MAX = 12


def encode_color(color: Color) -> str:
    """A Color as its JSON string."""
    return str(color.value)


def decode_color(value: Any, where: str = "$") -> Color:
    """One of ``"red"``, ``"white"``, ``"brown"``, ``"black"``."""
    if isinstance(value, str):
        for c in COLORS:
            if c.value == value:
                return c
    raise WireError(f"expected a color (red, white, brown or black), got {describe(value)}", where)


def encode_colors(colors: list[Color]) -> list[str]:
    """A list of colors as JSON."""
    return [encode_color(c) for c in colors]


def decode_colors(value: Any, where: str = "$") -> list[Color]:
    """An array of colors."""
    return [decode_color(v, f"{where}[{i}]") for i, v in enumerate(expect_list(value, where))]


def encode_position(position: Position) -> list[int]:
    """A Position ``[row, column]``."""
    return [position[0], position[1]]


def decode_position(value: Any, where: str = "$") -> Position:
    """A ``[row, column]`` pair of naturals."""
    items = value if isinstance(value, list) and len(value) == 2 else None
    if items is None:
        raise WireError(f"expected a position [row, column], got {describe(value)}", where)
    return (expect_natural(items[0], f"{where}[0]"), expect_natural(items[1], f"{where}[1]"))


def encode_board(board: Board) -> list[list[int]]:
    """A Board as full-width rows of fish counts (holes as 0)."""
    return board.to_rows()


def decode_board(value: Any, where: str = "$") -> Board:
    """Rows of fish counts 0..5; at least one non-empty row; short rows padded with holes."""
    rows = expect_list(value, where, min_len=1)
    decoded: list[list[int]] = []
    for r, row in enumerate(rows):
        items = expect_list(row, f"{where}[{r}]")
        decoded.append([expect_natural(n, f"{where}[{r}][{c}]", MAX_FISH)
                        for c, n in enumerate(items)])
    if not any(decoded):
        raise WireError("a board needs at least one non-empty row", where)
    return Board.from_rows(decoded)


def encode_player(player: Player) -> dict[str, Any]:
    """A Player ``{"color", "score", "places"}``."""
    return {"color": encode_color(player.color), "score": player.score,
            "places": [encode_position(p) for p in player.places]}


def decode_player(value: Any, where: str = "$") -> Player:
    """A Player object with exactly the keys color, score and places."""
    obj = expect_object(value, PLAYER_KEYS, where)
    color = decode_color(obj["color"], f"{where}.color")
    score = expect_natural(obj["score"], f"{where}.score")
    places = [decode_position(p, f"{where}.places[{i}]")
              for i, p in enumerate(expect_list(obj["places"], f"{where}.places"))]
    return Player(color, score, places)


def encode_state(state: GameState) -> dict[str, Any]:
    """A State ``{"players", "board"}`` (board written full width)."""
    return {"players": [encode_player(p) for p in state.players],
            "board": encode_board(state.board)}


def decode_state(value: Any, where: str = "$", strict: bool = False) -> GameState:
    """A State with exactly the keys players and board.

    Checks (the reference's "soft" validation): distinct colors, penguins on tiles and
    pairwise distinct. `strict` additionally requires 2-4 players with ``6 - n`` penguins
    each (a complete post-placement state).
    """
    obj = expect_object(value, STATE_KEYS, where)
    board = decode_board(obj["board"], f"{where}.board")
    items = expect_list(obj["players"], f"{where}.players")
    players = [decode_player(p, f"{where}.players[{i}]") for i, p in enumerate(items)]
    seen_colors: set[Color] = set()
    seen_places: set[Position] = set()
    for i, p in enumerate(players):
        if p.color in seen_colors:
            raise WireError(f"color {p.color.value} is used by more than one player",
                            f"{where}.players[{i}].color")
        seen_colors.add(p.color)
        for j, q in enumerate(p.places):
            at = f"{where}.players[{i}].places[{j}]"
            if not board.is_tile(q):
                raise WireError(f"penguin position {list(q)} is not a tile", at)
            if q in seen_places:
                raise WireError(f"two penguins at {list(q)}", at)
            seen_places.add(q)
    if strict:
        n = len(players)
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise WireError(f"expected {MIN_PLAYERS}..{MAX_PLAYERS} players, got {n}",
                            f"{where}.players")
        for i, p in enumerate(players):
            if len(p.places) != penguins_per_player(n):
                raise WireError(f"expected {penguins_per_player(n)} penguins, got {len(p.places)}",
                                f"{where}.players[{i}].places")
    return GameState(board, players)


def encode_move(move: Move) -> list[list[int]]:
    """A Move ``[from, to]``."""
    return [encode_position(move[0]), encode_position(move[1])]


def decode_move(value: Any, where: str = "$") -> Move:
    """A ``[Position, Position]`` pair."""
    if not (isinstance(value, list) and len(value) == 2):
        raise WireError(f"expected a move [[row, column], [row, column]], got {describe(value)}",
                        where)
    return (decode_position(value[0], f"{where}[0]"), decode_position(value[1], f"{where}[1]"))


def encode_action(action: Action) -> Any:
    """A Move, or ``"skip"``."""
    if action is SKIP:
        return "skip"
    return encode_move(action)


def decode_action(value: Any, where: str = "$") -> Action:
    """A Move, or a skip written ``"skip"`` (or ``false``, as older documents say)."""
    if value == "skip" or value is False:
        return SKIP
    if isinstance(value, list):
        return decode_move(value, where)
    raise WireError(f"expected a move or \"skip\", got {describe(value)}", where)


def encode_actions(actions: list[Action]) -> list[Any]:
    """A list of actions."""
    return [encode_action(a) for a in actions]


def decode_actions(value: Any, where: str = "$") -> list[Action]:
    """An array of actions."""
    return [decode_action(v, f"{where}[{i}]") for i, v in enumerate(expect_list(value, where))]


def decode_name(value: Any, where: str = "$") -> str:
    """A player name: 1 to 12 ASCII letters."""
    name = expect_str(value, where)
    if not (1 <= len(name) <= NAME_MAX and name.isascii() and name.isalpha()):
        raise WireError(f"expected a name of 1-{NAME_MAX} ASCII letters, got {describe(value)}",
                        where)
    return name


def encode_name(name: str) -> str:
    """A player name (checked)."""
    return decode_name(name)


def decode_flag(value: Any, where: str = "$") -> bool:
    """A Boolean argument."""
    return expect_bool(value, where)
