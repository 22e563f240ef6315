"""The Fish player interface and its six remote calls, as pure data and codecs (spec 5, 6.3).

* :class:`PlayerInterface` -- the logical interface a referee and a tournament manager call.
* :data:`REMOTE_METHODS` -- for each wire method name (``start``, ``playing-as``,
  ``playing-with``, ``setup``, ``take-turn``, ``end``) the codecs of its arguments and its
  reply, so the game-agnostic remote layer can turn a call into ``[name, [args...]]`` and a
  reply back into a value (and the reverse on the client side).
* :func:`actions_since_last_turn` -- the second argument of ``take-turn`` (spec 5.2).
* Timing and size constants of the referee, manager, server and clients (spec 7.3).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Callable, Protocol, Sequence

from gameroom.core.wire import WireError, describe, expect_list
from gameroom.games.fish.board import Position
from gameroom.games.fish.state import Action, Color, GameState, Move
from gameroom.games.fish.wire import (decode_actions, decode_color, decode_colors, decode_flag,
                                      decode_move, decode_position, decode_state, decode_void,
                                      encode_actions, encode_color, encode_colors, encode_move,
                                      encode_position, encode_state, encode_void)

# -- constants (spec 2.1, 5.3, 5.4, 7.1, 7.3) ----------------------------------------------

TIME_PER_CALL_REFEREE = 0.6
"""Default per-call limit (s) when the referee is used alone."""
TIME_PER_CALL_MANAGER = 3.0
"""Default per-call limit (s) of the tournament manager's games."""
TIME_PER_CALL_SERVER = 10.0
"""Per-call limit (s) in games of the server configuration."""
READY_TIME = 30.0
"""Limit (s) for ``take-turn`` during the first round of the playing phase."""
START_TIMEOUT = 3.0
"""Limit (s) for ``start-of-tournament``."""
REFEREE_BOARD = (2, 9)
"""Board (rows, columns) when the referee builds its own state."""
MANAGER_BOARD = (5, 5)
"""Board (rows, columns) of the tournament manager's games."""
SERVER_BOARD = (5, 5, 2)
"""Board (rows, columns, fish per tile) of server tournaments."""
SIGNUP_WAIT = 30.0
"""Seconds per sign-up waiting period."""
SIGNUP_PERIODS = 2
"""Number of sign-up waiting periods."""
SIGNUP_MIN_PLAYERS = 5
SIGNUP_MAX_PLAYERS = 10
NAME_TIMEOUT = 10.0
"""Seconds until the first byte of a name (and again to complete it)."""
REPLY_TIMEOUT = 10.0
"""Seconds until the first byte of a remote reply (and again to complete it)."""
CLIENT_RETRIES = 10
"""Connection retries after the first attempt, one second apart."""
CLIENT_READ_TIMEOUT = 1000.0
CLIENT_HICCUP = 15.0
"""Pause (s) of the multi-client launcher before the sixth client connects."""
DEFAULT_PORT = 45678


class Method(StrEnum):
    """The wire names of the six remote calls."""

    START = "start"
    PLAYING_AS = "playing-as"
    PLAYING_WITH = "playing-with"
    SETUP = "setup"
    TAKE_TURN = "take-turn"
    END = "end"


class PlayerInterface(Protocol):
    """What a referee (``playing_as`` .. ``take_turn``) and a tournament manager
    (``start_of_tournament``, ``end_of_tournament``) call on a Fish player."""

    def start_of_tournament(self, start: bool) -> None:
        """Once, at the start of a tournament (the argument is always true)."""
        ...

    def playing_as(self, color: Color) -> None:
        """First call of every game: the player's color."""
        ...

    def playing_with(self, others: list[Color]) -> None:
        """Right after ``playing_as``: the other players' colors in turn order."""
        ...

    def initial(self, state: GameState) -> Position:
        """Placement phase: where to place the next penguin (wire name ``setup``)."""
        ...

    def take_turn(self, state: GameState, actions: list[Action]) -> Move:
        """Playing phase: the move to make; `actions` per :func:`actions_since_last_turn`."""
        ...

    def end_of_tournament(self, won: bool) -> None:
        """Once, at the end, for players not removed: true iff a tournament winner."""
        ...


@dataclass(frozen=True)
class RemoteMethod:
    """One remote call: its wire name, the interface method it maps to, and its codecs.

    ``encode_args(*args) -> list`` / ``decode_args(list, where) -> tuple`` convert the
    argument list; ``encode_result(value)`` / ``decode_result(json, where)`` the reply.
    """

    name: Method
    attribute: str
    arity: int
    encode_args: Callable[..., list[Any]]
    decode_args: Callable[[Any, str], tuple[Any, ...]]
    encode_result: Callable[[Any], Any]
    decode_result: Callable[[Any, str], Any]


def _args(value: Any, where: str, arity: int) -> list[Any]:
    items = value if isinstance(value, list) and len(value) == arity else None
    if items is None:
        raise WireError(f"expected an array of {arity} argument(s), got {describe(value)}", where)
    return items


def _decoder(*parts: Callable[[Any, str], Any]) -> Callable[[Any, str], tuple[Any, ...]]:
    def decode(value: Any, where: str = "$") -> tuple[Any, ...]:
        items = _args(value, where, len(parts))
        return tuple(part(items[i], f"{where}[{i}]") for i, part in enumerate(parts))
    return decode


REMOTE_METHODS: dict[str, RemoteMethod] = {
    Method.START: RemoteMethod(
        Method.START, "start_of_tournament", 1,
        lambda start: [bool(start)], _decoder(decode_flag), encode_void, decode_void),
    Method.PLAYING_AS: RemoteMethod(
        Method.PLAYING_AS, "playing_as", 1,
        lambda color: [encode_color(color)], _decoder(decode_color), encode_void, decode_void),
    Method.PLAYING_WITH: RemoteMethod(
        Method.PLAYING_WITH, "playing_with", 1,
        lambda others: [encode_colors(others)], _decoder(decode_colors), encode_void, decode_void),
    Method.SETUP: RemoteMethod(
        Method.SETUP, "initial", 1,
        lambda state: [encode_state(state)], _decoder(decode_state),
        encode_position, decode_position),
    Method.TAKE_TURN: RemoteMethod(
        Method.TAKE_TURN, "take_turn", 2,
        lambda state, actions: [encode_state(state), encode_actions(actions)],
        _decoder(decode_state, decode_actions), encode_move, decode_move),
    Method.END: RemoteMethod(
        Method.END, "end_of_tournament", 1,
        lambda won: [bool(won)], _decoder(decode_flag), encode_void, decode_void),
}
"""The six remote calls by wire name."""


def encode_call(method: Method | str, *args: Any) -> list[Any]:
    """The request ``[name, [arguments...]]`` for a call of `method` with logical `args`."""
    spec = REMOTE_METHODS[Method(method)]
    return [str(spec.name), spec.encode_args(*args)]


def decode_call(value: Any, where: str = "$") -> tuple[RemoteMethod, tuple[Any, ...]]:
    """A request ``[name, [arguments...]]``: the method and its decoded logical arguments."""
    items = expect_list(value, where, 2, 2)
    name = items[0]
    spec = REMOTE_METHODS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise WireError(f"expected one of {', '.join(m.value for m in Method)}, "
                        f"got {describe(name)}", f"{where}[0]")
    return spec, spec.decode_args(items[1], f"{where}[1]")


def encode_reply(method: Method | str, result: Any) -> Any:
    """The JSON reply to a call of `method` that returned `result`."""
    return REMOTE_METHODS[Method(method)].encode_result(result)


def decode_reply(method: Method | str, value: Any, where: str = "$") -> Any:
    """The logical result of a reply to `method` (None for the void methods)."""
    return REMOTE_METHODS[Method(method)].decode_result(value, where)


def actions_since_last_turn(history: Sequence[Action], players: int) -> list[Action]:
    """The ``take-turn`` action list (spec 5.2): ``[]`` while ``len(history) <= players``,
    else the last ``players - 1`` entries of `history`, oldest first."""
    if len(history) <= players:
        return []
    return list(history[len(history) - (players - 1):]) if players > 1 else []


def ready_time_applies(recorded_actions: int, players: int, first_round_over: bool) -> bool:
    """Whether the 30 s first-round limit applies to the next ``take-turn`` (spec 5.3):
    until the record of actions since the last removal reaches the number of players."""
    return not first_round_over and recorded_actions < players
