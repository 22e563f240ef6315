"""A lobby's rooms (:class:`Seating`, eriantys.md 6.6 and 7.3; docs/lobby.md): the games
it serves, its public rooms listed (kept encoded per filter until a room changes), rooms
created, joined and watched, house bots seated, and a full room's game started.

A layer of the one ``server.lobby.Lobby`` over ``server.lobby_play`` (a mixin chain: a
seat taken changes the rooms and names that play and departures change too).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from typing import Any, TypeGuard

from gameroom.core.options import OptionError
from gameroom.server.event_views import EventViews
from gameroom.server.lobby_games import ALL_GAMES, Hosted, HouseBot
from gameroom.server.lobby_members import ACK, IN_ROOM, Client, Room, nack
from gameroom.server.lobby_play import Play
from gameroom.server.referee_rooms import RefereeGame

__all__ = ["Seating", "Refused"]

logger = logging.getLogger(__name__)

_LISTING_HEAD, _LISTING_TAIL = b'{"type":"PUBLIC_ROOMS","rooms":[', b"]}\n"


class Refused(Exception):
    """A request was refused (its NACK already queued): nothing more to do for it."""


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


class Seating(Play):
    """Rooms listed, created, joined, watched and left; seats taken by clients and house
    bots; a full room's game started."""

    def _get_games(self, client: Client, _m: dict[str, Any]) -> None:
        client.send({"type": "GAMES", "games": [h.entry(h is self.default) for h in self.games.values()]})

    def _hosted(self, client: Client, m: dict[str, Any], every: bool = False) -> Hosted | None:
        """The game a request names (absent: the default game; ``*`` with ``every``: None,
        every game); a NACK and None for a name the lobby does not serve."""
        name = m.get("game")
        if name is None:
            return self.default
        if every and name == ALL_GAMES:
            return None
        hosted = self.games.get(name) if isinstance(name, str) else None
        if hosted is None:
            client.send(nack(f"Unknown game {str(name)[:40]!r}; the games: {', '.join(self.games)}"))
            raise Refused
        return hosted

    def _get_public_rooms(self, client: Client, m: dict[str, Any]) -> None:
        hosted = self._hosted(client, m, every=True)
        counts = (hosted.player_counts if hosted is not None
                  else {n for h in self.games.values() for n in h.player_counts})
        players = m.get("numberOfPlayers")
        if players is not None and players != -1 and not (_is_int(players) and players in counts):
            client.send(nack("Invalid number of players"))
            return
        try:
            filters = hosted.filters(m) if hosted is not None else {}
        except OptionError as exc:
            client.send(nack(f"Invalid {exc} filter"))
            return
        key = (hosted.name if hosted is not None else ALL_GAMES, -1 if players is None else players,
               json.dumps(filters, sort_keys=True))
        data = self._listings.get(key)
        if data is None:
            # Kept until a room changes, and made of each room's own encoded entry: asking
            # again and again costs a lookup, and after a change a join (a listing of 1,000
            # rooms encoded whole took 3.7 ms, a cost a host churning rooms could repeat).
            rooms = [room for _id, room in sorted(self.rooms.items())
                     if not room.started and not room.private and len(room.members) < room.players
                     and (hosted is None or room.hosted is hosted)
                     and (players in (None, -1) or room.players == players)
                     and all(room.options.get(k) == v for k, v in filters.items())]
            data = self._listings[key] = b"".join((_LISTING_HEAD, b",".join(room.listed() for room in rooms),
                                                   _LISTING_TAIL))
        client.send({"type": "PUBLIC_ROOMS"} if self.debug_log is None else json.loads(data), data)

    def _seat_settings(self, client: Client, m: dict[str, Any]) -> tuple[bool, bool]:
        """The seat's ``person`` and ``views`` (default: as ``person``), and the client's
        ``pictures`` (default false); NACK otherwise."""
        person = m.get("person", False)
        views = m.get("views", person)
        pictures = m.get("pictures", False)
        if not all(isinstance(value, bool) for value in (person, views, pictures)):
            client.send(nack("Invalid room settings: person, views and pictures are true or false"))
            raise Refused
        client.pictures = pictures
        return person, views

    def _may_sit(self, client: Client, hosted: Hosted, person: bool) -> None:
        refusal = hosted.name_refusal(client.username or "")
        if client.spectator:
            refusal = "this connection only watches (it logged in as a spectator)"
        if person and hosted.by_calls and hosted.descriptor is not None and not hosted.descriptor.playable_by_people:
            refusal = f"{hosted.name} offers a person no moves: a program may play it"
        if refusal is not None:
            client.send(nack(f"Unable to access room: {refusal}"))
            raise Refused

    def _create_room(self, client: Client, m: dict[str, Any]) -> None:
        if client.room is not None:
            client.send(nack("Already in a room!"))
            return
        hosted = self._hosted(client, m)
        assert hosted is not None
        players = m.get("numberOfPlayers")
        if not (_is_int(players) and players in hosted.player_counts):
            client.send(nack("Invalid number of players"))
            return
        private = m.get("isPrivate", False)
        try:
            options = hosted.room_options(m)
            if not isinstance(private, bool):
                raise OptionError("isPrivate: expected true or false")
            if hosted.descriptor is not None:
                hosted.descriptor.check_room(options, players)
        except OptionError as exc:
            client.send(nack(f"Invalid room settings: {exc}"))
            return
        person, views = self._seat_settings(client, m)
        self._may_sit(client, hosted, person)
        if len(self.rooms) >= self.config.max_rooms:
            client.send(nack("Too many rooms"))
            return
        if not self.addresses.may_create_room(client.address):
            logger.info(f"{client.label()}: refused a room: {self.config.max_rooms_per_address} rooms "
                     f"from {client.address} already")
            client.send(nack("Too many rooms from your address"))
            return
        room = Room(self._new_room_id(), hosted, players, options, private, client.address, self.several)
        self.rooms[room.id] = room
        self.addresses.room_created(room.address)
        client.person, client.views = person, views
        self._seat(room, client)
        client.send({"type": "ROOM_ID", "id": room.id})

    def _new_room_id(self) -> int:
        room_id = self.room_ids.draw(lambda taken: taken in self.rooms or taken in self.leaving)
        self._note_ids()
        return room_id

    def _note_ids(self) -> None:
        """The journal counts the ids drawn: a lobby started again draws on from there
        (the same ids, in the same order, as if it had not stopped)."""
        if self.journal is not None:
            self.journal.note("ids_drawn", self.room_ids.drawn)

    def skip_ids(self, drawn: int) -> None:
        """Draw ``drawn`` ids (those a lobby drew before it stopped) and forget them."""
        self.room_ids.skip(drawn)

    def _seat(self, room: Room, member: Client | HouseBot) -> None:
        """Put ``member`` in the next seat and tell the room (6.6.1)."""
        seat = len(room.members)
        for other, name in enumerate(room.usernames):
            member.send({"type": "ADD_PLAYER", "username": name, "position": other, **room.seat_fields(other)})
        room.members.append(member)
        room.usernames.append(member.username or "")
        room.listing = None
        self._listings.clear()
        member.room, member.seat = room, seat
        if isinstance(member, Client):
            member.state = IN_ROOM
        room.broadcast([{"type": "ADD_PLAYER", "username": member.username, "position": seat,
                         **room.seat_fields(seat)}])
        self.touch(room)

    def _access_room(self, client: Client, m: dict[str, Any]) -> None:
        if client.room is not None:
            client.send(nack("Already in a room!"))
            return
        room_id = m.get("id")
        room = self.rooms.get(room_id) if _is_int(room_id) else None
        if room is None or room.started:
            self.connections.join_failed(client)
            client.send(nack("Not an initializing room"))
            return
        if len(room.members) >= room.players:
            self.connections.join_failed(client)   # a full room tells that the id exists: counted too
            client.send(nack("Unable to access room"))
            return
        person, views = self._seat_settings(client, m)
        self._may_sit(client, room.hosted, person)
        client.person, client.views = person, views
        self._seat(room, client)
        if len(room.members) == room.players and not self._start_game(room, client):
            client.send(nack("Unable to access room"))
            return
        client.send(ACK)

    def _watch_room(self, client: Client, m: dict[str, Any]) -> None:
        """A spectator: the room's players so far, its state if it plays, then ACK; from
        then on every public message of the room (docs/lobby.md)."""
        if client.room is not None:
            client.send(nack("Already in a room!"))
            return
        room_id = m.get("id")
        room = self.rooms.get(room_id) if _is_int(room_id) else None
        if room is None:
            self.connections.join_failed(client)
            client.send(nack("Not a room"))
            return
        if len(room.watchers) >= self.config.max_spectators_per_room:
            client.send(nack("Too many spectators in this room"))
            return
        pictures, views = m.get("pictures", False), m.get("views", False)
        if not isinstance(pictures, bool) or not isinstance(views, bool):
            client.send(nack("Invalid room settings: views and pictures are true or false"))
            return
        client.pictures, client.views = pictures, views
        for seat, name in enumerate(room.usernames):
            client.send({"type": "ADD_PLAYER", "username": name, "position": seat, **room.seat_fields(seat)})
        room.watchers.append(client)
        client.room, client.seat, client.state = room, -1, IN_ROOM
        if room.start is not None:   # a game under way: the spectator is told it started, as the room was
            client.send(room.start)
        if room.referee is not None and room.referee.state is not None:
            client.send(*room.referee.views.spectator_message(client.pictures))
        elif room.game is not None:
            client.send(*self._game_state(room))
            if views:
                if room.views is None:
                    room.views = EventViews(hosted=room.hosted, players=list(room.usernames),
                                            snapshot=self._game_state(room)[0]["state"])
                client.send(room.views.message(room.game, None, client.pictures))
        client.send(ACK)

    def _add_bot(self, client: Client, m: dict[str, Any]) -> None:
        """A built-in player of the game takes the next seat (``strategy``)."""
        room = client.room
        if room is None or client.seat < 0:
            client.send(nack("Not yet in a room!"))
            return
        if room.started or len(room.members) >= room.players:
            client.send(nack("The room is full"))
            return
        hosted, strategy = room.hosted, m.get("strategy")
        if strategy not in hosted.strategies:
            client.send(nack(f"Unknown bot {str(strategy)[:40]!r}; choose from {', '.join(hosted.strategies)}"
                             if hosted.strategies else f"{hosted.name} rooms take no bots"))
            return
        name = self._bot_name(hosted, strategy)
        seed = self.base_seed + 7919 * room.id + len(room.members)
        assert hosted.descriptor is not None
        bot = self.house_bot(hosted, name, strategy, seed)
        self._seat(room, bot)
        if len(room.members) == room.players and not self._start_game(room, client):
            client.send(nack("Unable to access room"))
            return
        client.send(ACK)

    def house_bot(self, hosted: Hosted, name: str, strategy: str, seed: int) -> HouseBot:
        """A house bot of ``strategy`` named ``name`` with its seed (its name is taken)."""
        assert hosted.descriptor is not None
        if hosted.events is not None:
            assert hosted.events.bot is not None
            bot = HouseBot(name, strategy, hosted.events.bot(name, strategy, seed), observes=True, seed=seed)
        else:
            bot = HouseBot(name, strategy, hosted.descriptor.strategies[strategy](name, seed), seed=seed)
        self.names[self.name_key(name)] = bot
        return bot

    def _bot_name(self, hosted: Hosted, strategy: str) -> str:
        """A name no user holds, that the game's wire can carry: the strategy and a number."""
        base = "".join(ch for ch in strategy if ch.isalnum())[:12] or "bot"
        for number in itertools.count(1):
            name = f"{base}{number}"
            key = self.name_key(name)
            if key not in self.names and key not in self.reserved and hosted.name_refusal(name) is None:
                return name
        raise AssertionError("unreachable")

    def _start_game(self, room: Room, newcomer: Client) -> bool:
        seed = self.base_seed + self.games_started
        self.games_started += 1
        room.seed = seed
        if self.journal is not None:
            self.journal.note("games_started", self.games_started)
            self.touch(room)
        hosted = room.hosted
        if hosted.events is None:
            logger.info(f"room {room.id}: {hosted.name} game {self.games_started - 1} (seed {seed}) starts: "
                     f"{', '.join(room.usernames)}")
            room.referee = RefereeGame(self, room, hosted, seed)
            room.referee.held |= {seat for seat, member in enumerate(room.members) if member is None}   # held since a restart
            room.start = {"type": "START_GAME", **hosted.listed_options(room.options),
                          "numberOfPlayers": room.players, "players": list(room.usernames), "game": hosted.name}
            room.broadcast([room.start])
            asyncio.get_running_loop().call_soon(room.referee.begin)   # after the newcomer's ACK
            return True
        hooks = self.config.test_hooks if hosted is self.default else None
        try:
            room.game, setup = hosted.events.start(list(room.usernames), room.options, seed, hooks, room.id)
        except ValueError as exc:
            logger.info(f"room {room.id}: the game cannot start: {exc}")
            self._close_room(room, newcomer, "CONNECTION_LOST", tell_leaver=False)
            return False
        logger.info(f"room {room.id}: game {self.games_started - 1} (seed {seed}) starts: {', '.join(room.usernames)}")
        if any(isinstance(m, Client) and m.views for m in [*room.members, *room.watchers]):
            room.views = EventViews(hosted, list(room.usernames))
        room.start = next((m for m in setup if m.get("type") == "START_GAME"), None)
        room.broadcast(setup)
        self._after_change(room)
        return True

    def _leave_room(self, client: Client, _m: dict[str, Any]) -> None:
        room = client.room
        if room is None:
            client.send(nack("Not yet in a room!"))
            return
        if client.seat < 0:
            self._stop_watching(room, client)
        elif room.hosted.by_calls:
            self._leave_seat(room, client, "LEFT")
        else:
            self._close_room(room, client, "LEFT")
        client.send(ACK)
