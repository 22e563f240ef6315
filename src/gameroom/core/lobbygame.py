"""What a game supplies to be played in the lobby (``server.lobby``): rooms of people and
bots who log in, create or join rooms and send events when they like.

A lobby-hosted game is event-driven: its rules are a pure function ``step(state, seat,
event) -> (state, broadcasts, reply)`` that never changes the state it was given, and
every other change a room can make to a game (a player ejected, a connection lost or
back, a game abandoned) is a pure function of the same shape. The lobby itself knows
nothing of any game: it seats players, starts the game when the room is full, feeds it
one event at a time, sends its broadcasts and replies, and applies the policies (time
limits, ejection, resilience) through these functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from gameroom.core.options import Option

__all__ = ["LobbyGame", "Message", "Transition", "Silence", "StopReading"]

Message = dict[str, Any]
Transition = tuple[Any, list[Message]]
"""(the new state, the broadcasts to every member of the room, in order)."""


@dataclass(frozen=True)
class LobbyGame:
    """The lobby's view of one game.

    ``start(usernames, options, seed, hooks, room_id)`` sets a game up for a full room with
    the room's typed options (``room_options``' keys: Eriantys's ``expert``) and returns
    the state and the setup broadcast (it raises ``ValueError`` when the test hooks cannot
    be honoured). ``step`` is the game's rules. ``snapshot(state)`` is the
    complete public state (sent as ``GAME_STATE``). ``current(state)`` is the seat the game
    waits for (None when none), ``finished(state)`` whether the game is over.
    ``eject(state, seat, reason)`` eliminates a seat under the referee policy;
    ``disconnect(state, seat, solo_timeout)``, ``reconnect(state, seat)`` and ``abandon(state)`` (the
    solo time-out: the connected side wins) are the resilience mode's changes;
    ``suspended(state)`` tells whether too few players are connected to go on.
    ``seat_fields(seat, players)`` are the game's extra fields of ``ADD_PLAYER``;
    ``decode_hooks(value, where)`` reads the configuration's ``testHooks`` (raising
    ``core.wire.WireError``). ``client_view()`` makes a client's picture of the game, fed
    with every message (``apply``) and its own accepted events (``acknowledge``), whose
    ``snapshot()`` has the shape of ``snapshot(state)``: bots and the terminal client
    play from it.
    """

    player_counts: Sequence[int]
    start: Callable[[list[str], Mapping[str, Any], int, Any, int], Transition]
    step: Callable[[Any, int, Any], tuple[Any, list[Message], Message]]
    snapshot: Callable[[Any], Message]
    current: Callable[[Any], int | None]
    finished: Callable[[Any], bool]
    eject: Callable[[Any, int, str], Transition]
    disconnect: Callable[[Any, int, float], Transition]
    reconnect: Callable[[Any, int], Transition]
    abandon: Callable[[Any], Transition]
    suspended: Callable[[Any], bool]
    seat_fields: Callable[[int, int], Message]
    decode_hooks: Callable[[Any, str], Any]
    client_view: Callable[[], Any]
    bot: Callable[[str, str, int], Any] | None = None
    """``bot(name, kind, seed)``: a player of the game's logical interface (``setup``,
    ``observe``, ``act(snapshot)``, ``end``) for a built-in strategy or a misbehaving
    kind (ValueError for an unknown kind). ``act`` returns an event object, or text to
    send as raw bytes, or raises :class:`Silence`, :class:`StopReading` or
    ``core.misbehaviour.PlayerMisbehaved`` (the bot closes its socket)."""
    bot_kinds: Sequence[str] = ()
    ranking: Callable[[Message], list[str]] | None = None
    """The winners the game's rules give for a final snapshot (bots check END_GAME by it)."""
    terminal: Any = None
    """The game's words for a person at a terminal: ``board(snapshot, seat)`` (styled
    text fragments), ``expected(snapshot, seat)``, ``parse_command(words, snapshot)`` ->
    event (ValueError), ``command_of(event)``, ``GAME_COMMANDS`` and ``HELP``."""
    turn: Callable[[Any], Any] | None = None
    """An identifier of the turn (or decision) the game waits for; the lobby's per-turn NACK
    count starts again when it changes. None: the seat of ``current`` is the turn."""
    event_type: str = "GAME_EVENT"
    server_types: frozenset[str] = frozenset()
    """Message types only the server sends (a client sending one is dropped, §4.5)."""
    moves: Callable[[Message, int], list[tuple[str, Message]]] | None = None
    """``moves(snapshot, seat)``: the events ``seat`` may send now, each with its label in
    the game's words (``(label, event)``; none when it is not the seat's move): what the
    lobby offers a person's seat that asked for ``views`` (docs/lobby.md). None: the game
    offers a person no moves."""
    room_options: Sequence[Option] = ()
    """The options of a room the game declares (Eriantys: ``expert``): typed like the
    command line's options, they are the fields of ``CREATE_ROOM`` and of each room of
    ``PUBLIC_ROOMS`` (after ``numberOfPlayers``, in this order), the filters of
    ``GET_PUBLIC_ROOMS``, the options of ``gameroom clients`` (the bots' rooms) and the
    words of ``gameroom connect``'s ``create``."""


class Silence(Exception):
    """Raised by a bot's ``act`` that never answers: the bot keeps its connection open
    and sends nothing more."""


class StopReading(Exception):
    """Raised by a bot's ``act`` that stops reading its socket (a slow or dead reader)."""
