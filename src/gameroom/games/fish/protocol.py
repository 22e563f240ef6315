"""The Fish player interface and its six remote calls, as pure data and codecs (spec 5, 6.3).

* :class:`PlayerInterface` -- the logical interface a referee and a tournament manager call.
* :data:`PROTOCOL` -- the six calls (``start``, ``playing-as``, ``playing-with``, ``setup``,
  ``take-turn``, ``end``) declared as a :class:`gameroom.core.protocol.WireProtocol`: wire
  names, argument and reply codecs, and ``check``s that hold local players' results to the
  same shape as remote replies; calls travel in the core's tagged envelope
  (:func:`decode_call` reads one).
* :func:`actions_since_last_turn` -- the second argument of ``take-turn`` (spec 5.2).
* Timing and size constants of the referee, manager, server and clients (spec 7.3).
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from gameroom.core.protocol import Codec, Method, void_method
from gameroom.core.protocol import WireProtocol
from gameroom.core.wire import WireError, describe
from gameroom.games.fish.board import Position
from gameroom.games.fish.state import Action, Color, GameState, Move
from gameroom.games.fish.codec import (decode_actions, decode_color, decode_colors, decode_flag,
                                      decode_move, decode_position, decode_state, encode_actions,
                                      encode_color, encode_colors, encode_move, encode_position,
                                      encode_state)

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


WIRE_NAMES = ("start", "playing-as", "playing-with", "setup", "take-turn", "end")
"""The wire names of the six remote calls, in the order a player meets them."""


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


def check_position(value: Any) -> Position:
    """A local player's ``initial`` result must be a pair of naturals; returns it as a
    tuple (legality is the referee's business)."""
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in value):
        return (value[0], value[1])
    raise WireError(f"setup must return a position [row, column], got {describe(repr(value))}")


def check_move(value: Any) -> Move:
    """A local player's ``take_turn`` result must be a pair of positions; returns tuples."""
    if isinstance(value, (tuple, list)) and len(value) == 2:
        try:
            return (check_position(value[0]), check_position(value[1]))
        except WireError:
            pass
    raise WireError(f"take-turn must return a move [[row, column], [row, column]], "
                    f"got {describe(repr(value))}")


BOOLEAN: Codec[bool] = Codec(lambda b: bool(b), decode_flag, "Boolean")
COLOR: Codec[Color] = Codec(encode_color, decode_color, "Color")
COLOR_LIST: Codec[list[Color]] = Codec(encode_colors, decode_colors, "[Color, ...]")
STATE: Codec[GameState] = Codec(encode_state, decode_state, "State")
ACTIONS: Codec[list[Action]] = Codec(encode_actions, decode_actions, "[Action, ...]")
POSITION: Codec[Position] = Codec(encode_position, decode_position, "Position")
MOVE: Codec[Move] = Codec(encode_move, decode_move, "Move")

PROTOCOL = WireProtocol("fish", (
    void_method("start_of_tournament", "start", BOOLEAN),
    void_method("playing_as", "playing-as", COLOR),
    void_method("playing_with", "playing-with", COLOR_LIST),
    Method("initial", "setup", (STATE,), POSITION, check=check_position),
    Method("take_turn", "take-turn", (STATE, ACTIONS), MOVE, check=check_move),
    void_method("end_of_tournament", "end", BOOLEAN, final=True),
))
"""The six remote calls, declared for the game-agnostic proxies (spec 6.3)."""


def decode_call(value: Any) -> tuple[Method, tuple[Any, ...]]:
    """A call as a Fish client reads it (the core's tagged envelope): the method and its
    decoded arguments; WireError with the JSON path of what was wrong."""
    return PROTOCOL.envelope.decode_call(PROTOCOL, value)


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
