"""A lobby's departures and returns (eriantys.md 7.5-7.7; docs/lobby.md, "Coming back").

:class:`Departures`: a connection lost or a seat left, a room closed or dissolved (its
members back in the lobby), a house bot released, an ended room leaving the journal once
its end is written. :class:`Returns`: a seat held for the reconnect grace (resilience, a
person's seat, a seat of a room played by calls, every seat after a restart), suspension
and the solo time-out, the log-in that takes a held seat back, and the seats a lobby
resumed from its journal holds (``server.journal_resume``).

Both are layers of the one ``server.lobby.Lobby`` over ``server.lobby_state`` (a mixin
chain, not parts of their own: a departure changes the rooms, names and held seats that
seating and play change too). A departure ends a game's turn or seat, which is play's
(``server.lobby_play``): what it needs of play is declared here, abstract.
"""

from __future__ import annotations

import asyncio
import logging
import time
from abc import abstractmethod
from typing import Any

from gameroom.server.event_views import EventViews
from gameroom.server.lobby_games import HouseBot
from gameroom.server.lobby_identity import Held, Proof
from gameroom.server.lobby_members import CLOSED, IN_ROOM, LOBBY, Client, Room
from gameroom.server.lobby_state import LobbyState

__all__ = ["Departures", "Returns"]

logger = logging.getLogger(__name__)


class Departures(LobbyState):
    """Connections lost, seats left, rooms closed: who is back in the lobby."""

    # -- what a departure asks of play (server.lobby_play.Play) and of returns -----------

    @abstractmethod
    def _after_change(self, room: Room, accepted: bool = False, elapsed: float = 0.0) -> None:
        """After the game of ``room`` changed: its end, or its next turn."""

    @abstractmethod
    def _game_state(self, room: Room) -> tuple[dict[str, Any], bytes]:
        """GAME_STATE for the room's game, encoded once per state of the game."""

    @abstractmethod
    def _eject(self, room: Room, seat: int, reason: str, why: str | None = None) -> None:
        """7.7: the seat's team is eliminated."""

    @abstractmethod
    def _disconnect(self, room: Room, client: Client, seat: int) -> None:
        """Resilience (7.6): the seat of a lost connection is held, the game told."""

    @abstractmethod
    def _hold_seat(self, room: Room, client: Client, seat: int) -> None:
        """A seat of a running room played by calls is held for its lost connection."""

    # -- departures --------------------------------------------------------------------

    def lost(self, client: Client, reason: str, why: str) -> None:
        """The connection is gone or must go: leave its room as 7.5-7.7 say, release its name."""
        if client.state == CLOSED:
            return
        client.close()
        if client.username is not None:
            logger.info(f"{client.username}: {why}")
        room, seat = client.room, client.seat
        client.state = CLOSED
        self.clients.discard(client)
        if room is not None:
            self._departure(room, client, seat, reason)
        if client.name_key is not None and self.names.get(client.name_key) is client:
            del self.names[client.name_key]

    def _departure(self, room: Room, client: Client, seat: int, reason: str) -> None:
        """A member's connection is gone (7.5-7.7)."""
        if self.rooms.get(room.id) is not room:
            return
        if seat < 0:
            self._stop_watching(room, client)
        elif room.hosted.by_calls:
            if room.referee is not None and reason == "CONNECTION_LOST" and self.config.reconnect_grace > 0 and (
                    client.person or self.config.resilience):
                self._hold_seat(room, client, seat)
            else:
                self._leave_seat(room, client, reason)
        elif room.started and self.config.referee:
            self._eject(room, seat, reason)
        elif room.started and self.config.resilience and reason == "CONNECTION_LOST":
            self._disconnect(room, client, seat)
        else:
            self._close_room(room, client, reason)

    def _leave_seat(self, room: Room, client: Client, reason: str) -> None:
        """A seat of a room played by calls is left: before the game, the seat is free
        again (the seats after it move up one); during the game, the referee ejects the
        seat at its next call and the game goes on. A room nobody is left in is closed."""
        seat = client.seat
        client.room, client.seat, client.person, client.views = None, -1, False, False
        if client.state == IN_ROOM:
            client.state = LOBBY
        if room.referee is not None:
            room.members[seat] = None
            room.referee.departed(seat, reason, "left the room" if reason == "LEFT" else "the connection was lost")
        else:
            del room.members[seat]
            del room.usernames[seat]
            for later in room.members[seat:]:
                if later is not None:
                    later.seat -= 1
            room.listing = None
            self._listings.clear()
            room.broadcast([{"type": "PLAYER_DISCONNECT", "username": client.username, "roomClosed": False,
                             "reason": reason}])
        self.touch(room)
        self._close_if_abandoned(room, client.username or "", reason)
        self._back_in_lobby(client)

    def _close_if_abandoned(self, room: Room, username: str, reason: str) -> None:
        if self.rooms.get(room.id) is room and not any(isinstance(m, Client) and m.room is room
                                                       for m in room.members) and not any(
                held.room is room for held in self.reserved.values()):   # a held seat may come back
            if room.watchers:
                if room.referee is not None:
                    return   # the spectators watch the bots play on
                room.broadcast([{"type": "PLAYER_DISCONNECT", "username": username, "roomClosed": True,
                                 "reason": reason}])
            self._dissolve(room)

    def _stop_watching(self, room: Room, client: Client) -> None:
        if client in room.watchers:
            room.watchers.remove(client)
        client.room, client.seat = None, -1
        if client.state == IN_ROOM:
            client.state = LOBBY
        if room.referee is not None:
            self._close_if_abandoned(room, client.username or "", "LEFT")

    def _close_room(self, room: Room, leaver: Client, reason: str, tell_leaver: bool = True) -> None:
        """7.5: the room is closed; every other member is told and is back in the lobby."""
        room.broadcast([{"type": "PLAYER_DISCONNECT", "username": leaver.username, "roomClosed": True,
                         "reason": reason}], skip=leaver)
        self._dissolve(room)

    def _dissolve(self, room: Room) -> None:
        """The room ceases to exist; its members are back in the lobby (6.6.8)."""
        room.cancel_timers()
        if room.referee is not None and not room.referee.over:
            room.referee.stop()
        if self.rooms.pop(room.id, None) is room:
            self.addresses.room_closed(room.address, time.monotonic())
        self._listings.clear()
        back = []
        for member in [*room.members, *room.watchers]:
            if isinstance(member, HouseBot):
                self._release(member)
            elif member is not None and member.room is room:
                member.room, member.seat, member.person, member.views = None, -1, False, False
                if member.state == IN_ROOM:
                    member.state = LOBBY
                back.append(member)
        for key, held in list(self.reserved.items()):
            if held.room is room:
                del self.reserved[key]
                if room.ended is not None:   # its end waits for the seat's connection (its grace goes on)
                    final = room.finals.get(held.seat)
                    self.collect[key] = (held, [final, *room.ended] if final is not None else room.ended)
                else:
                    held.timer.cancel()
        self._collected(room)
        room.members = []
        room.watchers = []
        for member in back:
            self._back_in_lobby(member)

    def _collected(self, room: Room, also: tuple[Client, ...] = ()) -> None:
        """The journal keeps a room that is gone while a held seat may collect its end."""
        if self.journal is None:
            return
        if room.ended is not None and any(held.room is room for held, _end in self.collect.values()):
            self.journal.ended(room.id)   # its steps are of no more use: its end is kept
            self.touch(room)
        elif room.ended is not None:
            # Its end is being written to its players: the room leaves the journal once it
            # was (a lobby killed meanwhile resumes it, and gives its end again to whoever
            # comes back for it). Its id is not drawn again until then.
            readers = [(m, m.taken + 1) for m in [*room.members, *room.watchers, *also] if isinstance(m, Client)]
            self.leaving[room.id] = readers
            self.left()
        else:
            self.journal.drop(room.id)

    def release(self, bot: HouseBot) -> None:
        """A house bot leaves (``_release``)."""
        self._release(bot)

    def _release(self, bot: HouseBot) -> None:
        """A house bot leaves: its name is free again."""
        key = self.name_key(bot.username)
        if self.names.get(key) is bot:
            del self.names[key]
        bot.room, bot.seat = None, -1

    def _let_namesake_go(self, holder: Client) -> None:
        """A connection that took a web room account's name without its credential loses
        it: at once when it plays no game (its room, if any, is left as a lost connection
        leaves it), else when its game is over (``_back_in_lobby``)."""
        room = holder.room
        if room is not None and room.started and holder.seat >= 0:
            return
        logger.info(f"{holder.username}: the name is a web room account's; the connection without its "
                    "credential is closed")
        self.lost(holder, "CONNECTION_LOST", "its name is a web room account's")

    def _back_in_lobby(self, member: Any) -> None:
        """``member`` is back in the lobby (its game is over or it left it): a namesake of a
        web room account is let go now."""
        if isinstance(member, Client) and not member.account and member.name_key in self.accounts \
                and self.names.get(member.name_key or "") is member:
            self._let_namesake_go(member)


class Returns(Departures):
    """Seats held for their connections to come back, and taken back (7.6; docs/lobby.md,
    "Coming back"); suspension and the solo time-out of a room played by events."""

    def _hold(self, room: Room, client: Client, seat: int) -> None:
        """Hold ``seat`` of ``client``'s lost connection for the reconnect grace, with what
        must be proved to take it back (``server.lobby_identity.Proof``)."""
        key = client.name_key or ""
        timer = asyncio.get_running_loop().call_later(self.config.reconnect_grace, self._grace_over, key)
        self.reserved[key] = Held(room, seat, timer, client.username or "",
                                  (client.person, client.views, client.pictures),
                                  Proof.of(client.account, client.secret, client.own_address))
        self.touch(room)

    def _disconnect(self, room: Room, client: Client, seat: int) -> None:
        room.members[seat] = None
        self._hold(room, client, seat)
        self._disconnected(room, seat)

    def _disconnected(self, room: Room, seat: int) -> None:
        """Resilience (7.6): the game is told the seat's connection is lost."""
        self.note(room, "disconnect", {"s": seat, "solo": self.config.solo_timeout})
        room.game, broadcasts = room.rules().disconnect(room.game, seat, self.config.solo_timeout)
        room.last = broadcasts
        room.broadcast(broadcasts)
        self._suspension(room)
        self._after_change(room)

    def _suspension(self, room: Room) -> None:
        game = room.rules()
        if game.suspended(room.game) and not game.finished(room.game):
            if room.solo_timer is None:
                room.solo_timer = asyncio.get_running_loop().call_later(
                    self.config.solo_timeout, self._solo_over, room)
        elif room.solo_timer is not None:
            room.solo_timer.cancel()
            room.solo_timer = None

    def _grace_over(self, key: str) -> None:
        held = self.reserved.pop(key, None)
        if held is None:
            kept = self.collect.pop(key, None)
            if kept is not None:   # an end nobody came back for
                self._collected(kept[0].room)
            return
        if held.restored and held.room.referee is None:
            self._restored_seat_lost(held)
            return
        room: Room = held.room
        seat, name = held.seat, held.name
        if room.referee is not None and self.rooms.get(room.id) is room:   # a held seat of a room played by calls
            logger.info(f"room {room.id}: {name} did not come back within {self.config.reconnect_grace:g} s")
            room.referee.departed(seat, "CONNECTION_LOST",
                                  f"the connection was lost and not restored within {self.config.reconnect_grace:g} s")
            self._close_if_abandoned(room, name, "CONNECTION_LOST")

    def _restored_seat_lost(self, held: Held) -> None:
        """A seat held since a restart, not taken back within the grace, in a waiting room
        or one played by events: what a lost connection does there (the seat of a waiting
        room is free again; a game: ejected, disconnected or closed as the policy says)."""
        room: Room = held.room
        seat = held.seat
        if self.rooms.get(room.id) is not room:
            return
        logger.info(f"room {room.id}: {held.name} did not come back within {self.config.reconnect_grace:g} s")
        if not room.started and room.hosted.by_calls:
            del room.members[seat]
            del room.usernames[seat]
            for later in room.members[seat:]:
                if later is not None:
                    later.seat -= 1
            for other in self.reserved.values():
                if other.room is room and other.seat > seat:
                    other.seat -= 1
            room.listing = None
            self._listings.clear()
            room.broadcast([{"type": "PLAYER_DISCONNECT", "username": held.name, "roomClosed": False,
                             "reason": "CONNECTION_LOST"}])
            self.touch(room)
            self._close_if_abandoned(room, held.name, "CONNECTION_LOST")
        elif room.started and self.config.referee:
            self._eject(room, seat, "CONNECTION_LOST")
        elif room.started and self.config.resilience:
            self._disconnected(room, seat)
        else:
            room.broadcast([{"type": "PLAYER_DISCONNECT", "username": held.name, "roomClosed": True,
                             "reason": "CONNECTION_LOST"}])
            self._dissolve(room)

    def _solo_over(self, room: Room) -> None:
        room.solo_timer = None
        if self.rooms.get(room.id) is not room:
            return
        if all(member is None for member in room.members):
            logger.info(f"room {room.id}: nobody came back; closed")
            self._dissolve(room)
            return
        self.note(room, "abandon", {})
        room.game, broadcasts = room.rules().abandon(room.game)
        room.last = broadcasts
        room.broadcast(broadcasts)
        self._after_change(room)

    def _reconnect(self, client: Client, key: str) -> None:
        restored = self.reserved[key].restored
        room, seat = self._take_back(client, key)
        if not room.started:   # a waiting room, journaled before a restart: the seat as it was
            room.members[seat] = client
            self._ack_login(client)
            for other, name in enumerate(room.usernames):
                client.send({"type": "ADD_PLAYER", "username": name, "position": other, **room.seat_fields(other)})
            return
        broadcasts: list[dict[str, Any]] = []
        if not restored:   # a restart is no departure the game saw: nothing to undo
            self.note(room, "reconnect", {"s": seat})
            room.game, broadcasts = room.rules().reconnect(room.game, seat)
            room.last = broadcasts
        if client.views and room.views is None:
            room.views = EventViews(room.hosted, list(room.usernames), snapshot=self._game_state(room)[0]["state"])
        self._ack_login(client)
        if restored and room.start is not None:   # the lobby may have died before it was written
            client.send(room.start)
        client.send(*self._game_state(room))
        room.broadcast(broadcasts)
        room.members[seat] = client
        self._suspension(room)
        self._after_change(room)   # with the seat's settings back, its view too (a page rebuilds from it)

    def _take_back(self, client: Client, key: str) -> tuple[Room, int]:
        """The reserved seat of ``key`` is the reconnected ``client``'s again, with the
        seat's settings (``person``, ``views``, ``pictures``) it had."""
        held = self.reserved.pop(key)
        held.timer.cancel()
        room, seat, name, (person, views, pictures) = held.room, held.seat, held.name, held.settings
        client.username, client.name_key, client.state = name, key, IN_ROOM
        self.names[key] = client
        client.room, client.seat = room, seat
        client.person, client.views, client.pictures = person, views, pictures
        self.touch(room)
        return room, seat

    def _hold_seat(self, room: Room, client: Client, seat: int) -> None:
        """The connection of a seat of a running room played by calls is lost: the seat is
        held for the reconnect grace (a call waiting for it goes on waiting within its own
        limit); the others are told nothing unless it is ejected."""
        assert room.referee is not None
        name = client.username or ""
        self._hold(room, client, seat)
        client.room, client.seat, client.person, client.views = None, -1, False, False
        room.members[seat] = None
        room.referee.hold(seat)
        logger.info(f"room {room.id}: {name}'s seat is held for {self.config.reconnect_grace:g} s")

    def _return_to_seat(self, client: Client, key: str) -> None:
        """A LOGIN under the name of a held seat: the seat is the client's again; ACK, its
        view of the game (``GAME_STATE``) and the call waiting for it, sent again (after
        a restart, ``START_GAME`` first: the lobby may have died before it was written)."""
        restored = self.reserved[key].restored
        room, seat = self._take_back(client, key)
        assert room.referee is not None
        room.members[seat] = client
        self._ack_login(client)
        if restored and room.start is not None:
            client.send(room.start)
        room.referee.returned(seat, client)

    def _drop_hold(self, room: Room, seat: int) -> None:
        """The seat is out of the game: a hold on it ends (its name is free again)."""
        for key, held in list(self.reserved.items()):
            if held.room is room and held.seat == seat:
                held.timer.cancel()
                del self.reserved[key]

    # -- built again from the journal (server.journal_resume) --------------------------------

    def hold_restored(self, room: Room, seat: int, record: Any, ended: list[dict[str, Any]] | None = None) -> None:
        """The seat ``seat`` of ``room``, journaled as a connection's (``record``: its
        name, settings and proof), held for the reconnect grace since the restart (for its
        game's end to be collected, when ``ended``)."""
        key = self.name_key(record.name)
        timer = asyncio.get_running_loop().call_later(self.config.reconnect_grace, self._grace_over, key)
        held = Held(room, seat, timer, record.name, record.settings,
                    Proof(record.account, record.secret, record.address), restored=True)
        if record.account:
            self.accounts.add(key)
        if ended is not None:
            self.collect[key] = (held, ended)
        else:
            self.reserved[key] = held

    def discard(self, room_id: int) -> None:
        """A room that could not be resumed is gone (its held seats, its bots)."""
        room = self.rooms.get(room_id)
        if room is not None:
            room.ended = None
            self._dissolve(room)

    def reserved_of(self, room: Room, seat: int) -> Held:
        return next(held for held in self.reserved.values() if held.room is room and held.seat == seat)

    def after_resume(self, room: Room, elapsed: float) -> None:
        """A room played by events, run again from the journal, goes live: its timers
        (the turn's less ``elapsed``, the seconds of it gone before the restart)."""
        self._suspension(room)
        self._after_change(room, elapsed=elapsed)
