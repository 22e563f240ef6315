"""The games one lobby serves, as the lobby sees them (``server.lobby``).

A lobby serves one game (``gameroom serve eriantys``: eriantys.md's lobby, exactly) or
several (``gameroom lobby``). Each is a :class:`Hosted`: its name, the room options and
player counts its descriptor declares, and how its rooms play — by *events*, for a game
with a ``core.lobbygame.LobbyGame`` (players send events when they like), or by *calls*,
for every other game: the game's own referee runs with the room's seats and asks each
player through ``CALL`` and ``REPLY`` messages (``server.referee_rooms``). Requests that
name no game mean the lobby's default game, so a client written from one game's spec
needs to know nothing of the others.

Room options are ``core.options.Option`` records; their values travel as JSON under the
option's name, as Eriantys's ``expert`` does, and are typed by
``core.options.json_option_value``. Game-agnostic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from gameroom.core.game import GameDescriptor
from gameroom.core.lobbygame import LobbyGame
from gameroom.core.options import Option, OptionError, describe_option, json_option_value, table_options

__all__ = ["Hosted", "HouseBot", "CALL_SERVER_TYPES", "RESERVED_FIELDS", "ALL_GAMES", "hosted_games"]

ALL_GAMES = "*"
"""``GET_PUBLIC_ROOMS``' ``game`` that lists the rooms of every game."""

RESERVED_FIELDS = frozenset({"type", "game", "id", "numberOfPlayers", "isPrivate", "currentPlayers", "person",
                             "views", "players", "strategy"})
"""Fields of the room messages that no room option may be named."""

CALL_SERVER_TYPES = frozenset({"ACK", "NACK", "ROOM_ID", "PUBLIC_ROOMS", "ADD_PLAYER", "START_GAME", "CALL",
                               "GAME_STATE", "PLAYER_DISCONNECT", "END_GAME", "PING", "GAMES", "CHECKED"})
"""The messages only the server sends in a room played by calls: a client that sends one
is dropped, as eriantys.md 4.5 says of its own."""


@dataclass(frozen=True)
class Hosted:
    """One game of a lobby.

    ``events`` is the game's ``LobbyGame`` when its rooms play by events; None when they
    play by calls, through ``descriptor``'s referee (``descriptor.play_room``).
    ``options`` are the room options, ``player_counts`` the sizes a room may have.
    """

    name: str
    descriptor: GameDescriptor[Any, Any] | None
    events: LobbyGame | None
    options: tuple[Option, ...]
    player_counts: tuple[int, ...]
    valid_name: Callable[[str], bool] | None = None
    name_rule: str = ""

    @classmethod
    def of(cls, game: GameDescriptor[Any, Any] | LobbyGame, name: str = "") -> "Hosted":
        """The lobby's view of a descriptor (or of a bare ``LobbyGame``, as the scenario
        harness hands one)."""
        if isinstance(game, LobbyGame):
            hosted = cls(name or "game", None, game, tuple(game.room_options), tuple(game.player_counts))
        else:
            rooms = game.hosting.rooms
            hosted = cls(game.name, game, game.lobby, tuple(game.room_options), game.room_player_counts,
                         rooms.valid_name if rooms is not None and game.lobby is None else None,
                         rooms.name_rule if rooms is not None else "")
        clash = [o.name for o in hosted.options if o.name in RESERVED_FIELDS]
        if clash:
            raise ValueError(f"{hosted.name} declares the room option {clash[0]!r}, a field of the lobby's own "
                             f"messages ({', '.join(sorted(RESERVED_FIELDS))})")
        return hosted

    @property
    def by_calls(self) -> bool:
        """Whether rooms of this game run its referee (``CALL``/``REPLY``)."""
        return self.events is None

    @property
    def server_types(self) -> frozenset[str]:
        return CALL_SERVER_TYPES if self.events is None else frozenset(self.events.server_types)

    @property
    def strategies(self) -> tuple[str, ...]:
        """The built-in players that may fill a seat (``ADD_BOT``)."""
        if self.descriptor is None:
            return ()
        if self.events is not None and self.events.bot is None:
            return ()
        return tuple(self.descriptor.strategies)

    def room_options(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """The typed options of a ``CREATE_ROOM``: each option's field, its default when
        absent (or null, for an option whose default is none); OptionError naming the
        first bad one."""
        return table_options(self.options, message)

    def filters(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """The option filters of a ``GET_PUBLIC_ROOMS`` (absent or null: any); OptionError
        with the option's name as its message for a value the option cannot take."""
        out: dict[str, Any] = {}
        for option in self.options:
            value = message.get(option.name)
            if value is not None:
                try:
                    out[option.key] = json_option_value(option, value)
                except OptionError:
                    raise OptionError(option.name) from None
        return out

    def listed_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """A room's options as its fields in ``PUBLIC_ROOMS`` and ``START_GAME``."""
        return {option.name: options[option.key] for option in self.options}

    def entry(self, default: bool) -> dict[str, Any]:
        """The game in ``GAMES``: what a client needs to offer its rooms to a person."""
        game = self.descriptor
        entry: dict[str, Any] = {"name": self.name, "default": default, "plays": "calls" if self.by_calls else "events",
                                 "numberOfPlayers": list(self.player_counts),
                                 "options": [describe_option(o) for o in self.options], "bots": list(self.strategies)}
        if game is not None:
            entry["summary"] = game.summary
            entry["callLimit"] = game.limits.call
            entry["personLimit"] = game.person_limit
        if self.name_rule:
            entry["names"] = self.name_rule
        return entry

    def name_refusal(self, username: str) -> str | None:
        """Why ``username`` cannot sit in a room of this game (its wire carries names
        only of a certain form), or None."""
        if self.valid_name is None or self.valid_name(username):
            return None
        return f"{self.name} needs player names of {self.name_rule or 'another form'}"


def hosted_games(games: GameDescriptor[Any, Any] | LobbyGame | Sequence[GameDescriptor[Any, Any]]) -> list[Hosted]:
    """The lobby's games, the default first."""
    if isinstance(games, (GameDescriptor, LobbyGame)):
        return [Hosted.of(games)]
    hosted = [Hosted.of(game) for game in games]
    if not hosted:
        raise ValueError("a lobby needs at least one game")
    return hosted


class HouseBot:
    """A built-in player the lobby seats itself (``ADD_BOT``): it has no connection, the
    room calls it directly. It carries the attributes a room reads of its members."""

    def __init__(self, username: str, strategy: str, player: Any, observes: bool = False, seed: int = 0) -> None:
        self.username = username
        self.strategy = strategy
        self.seed = seed              # its player's (the journal makes it again with it)
        self.player = player
        self.observes = observes      # told every message of its room once the game started
        self.started = False
        self.room: Any = None
        self.seat = -1
        self.person = False
        self.views = False

    def send(self, message: dict[str, Any], data: bytes | None = None) -> None:
        if not self.observes:
            return
        if message.get("type") == "START_GAME":
            self.started = True
        if self.started:
            self.player.observe(message)
