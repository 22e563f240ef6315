"""The lobby: one asyncio server holding every connection and every room (eriantys.md 4.5,
6, 7), for any game that supplies a ``core.lobbygame.LobbyGame``.

Clients log in with a unique name, list, create and join rooms, and play by sending
events when they like. Everything a request changes happens synchronously in the loop,
within the handling of that one message, so the events of a room are processed one at a
time in arrival order and every broadcast a request causes is queued to every member
before its reply (7.4). Each connection has its own outbound queue and writer task: a
client that reads slowly or not at all delays nobody else, and a write blocked longer
than ``writeTimeoutSeconds`` counts as a lost connection. Memory per connection is
bounded: while more than ``maxOutboxBytes`` wait to be written to a client, its requests
are not read (they wait in the kernel, not here). Time limits (log-in, turn, keep-alive,
reconnection grace, solo time-out) are timers of the loop. Quotas per address and the
throttle on failed joins are ``server.lobby_limits``'.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import socket
import time
from typing import Any, Callable

from gameroom.core.lobbygame import LobbyGame
from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, JSONStreamError
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.lobby_limits import AddressBook, JoinThrottle, address_key, username_key

__all__ = ["Lobby", "serve_lobby", "CLIENT_TYPES", "valid_username"]

CLIENT_TYPES = frozenset({"LOGIN", "LOGOUT", "GET_PUBLIC_ROOMS", "CREATE_ROOM", "ACCESS_ROOM", "LEAVE_ROOM",
                          "GAME_EVENT", "GET_GAME_STATE", "PONG"})
ACK: dict[str, Any] = {"type": "ACK"}
_READ_CHUNK = 65536
_LINGER_SECONDS = 2.0
# Connections the kernel holds before we accept them. The default (100) overflowed when the
# bots of 500 rooms connected in the same second: the kernel drops a SYN it cannot queue and
# the client's kernel retries after 1, 3, 7, 15 s, so a room waited that long for a player
# (the lobby benchmark saw 13 s stalls). The kernel caps it at net.core.somaxconn.
_BACKLOG = 1024
# Messages handled from one connection before the others get a turn: a chunk of 64 KiB can
# hold thousands of small requests, and handling them all at once held every room back.
_FAIR_SHARE = 32
# Connections refused over their address's quota that may linger at once (to let the peer
# read the refusal); beyond, a refused connection is closed at once.
_MAX_LINGERING_REFUSALS = 64
_LISTING_HEAD, _LISTING_TAIL = b'{"type":"PUBLIC_ROOMS","rooms":[', b"]}\n"
_KERNEL_SEND_BUFFER = 65536   # per connection (Linux doubles it for its bookkeeping)

# Connection states of 7.1 (PLAYING is IN_ROOM with a started game).
CONNECTED, LOBBY, IN_ROOM, CLOSED = "CONNECTED", "LOBBY", "IN_ROOM", "CLOSED"


def nack(text: str) -> dict[str, Any]:
    return {"type": "NACK", "errorMessage": text}


def valid_username(name: Any) -> bool:
    """4.5 and 11 #42: a string of 1 to 32 characters without control characters."""
    # Lone surrogates (JSON "\ud800") are not characters: such a name could not even be
    # written back to the clients in UTF-8.
    return (isinstance(name, str) and 1 <= len(name) <= 32
            and not any(ord(ch) < 32 or 127 <= ord(ch) < 160 or 0xD800 <= ord(ch) < 0xE000 for ch in name))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _encode(message: dict[str, Any]) -> bytes:
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:   # a lone surrogate from a client: escaped, still valid JSON
        return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


class Client:
    """One connection: its state, its outbound queue and the tasks that read and write it."""

    def __init__(self, lobby: "Lobby", reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.lobby = lobby
        self.reader, self.writer = reader, writer
        self.state = CONNECTED
        self.username: str | None = None
        self.room: Room | None = None
        self.seat = -1
        self.name_key: str | None = None
        self.outbox: list[bytes] = []
        self.outbox_bytes = 0
        self.wake = asyncio.Event()
        self.writable = asyncio.Event()   # set while what waits to be written is within the bound
        self.writable.set()
        self.closing = False          # no more input is handled; the outbox is flushed, then closed
        self.pong = asyncio.Event()
        self.tasks: list[asyncio.Task[Any]] = []
        self.counted = False          # counted against its address's connection quota
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.address = address_key(peer)
        self.joins = JoinThrottle(lobby.config.failed_joins_per_minute)

    def label(self) -> str:
        return self.username or self.peer

    def send(self, message: dict[str, Any], data: bytes | None = None) -> None:
        """Queue ``message`` (already encoded as ``data`` when given)."""
        if self.state == CLOSED or self.closing and message.get("type") not in ("NACK", "ACK"):
            return
        if data is None:
            data = _encode(message)
        self.outbox.append(data)
        self.outbox_bytes += len(data)
        self.wake.set()
        if self.lobby.debug_log is not None:
            self.lobby.debug_log(f"-> {self.label()} {json.dumps(message, ensure_ascii=False)}")

    def unwritten(self) -> int:
        """Bytes queued for this client and not yet taken by the kernel."""
        return self.outbox_bytes + self.writer.transport.get_write_buffer_size()

    def backlogged(self) -> bool:
        limit = self.lobby.config.max_outbox_bytes
        return bool(limit) and self.unwritten() > limit

    async def until_written(self) -> None:
        """Wait until what is queued for this client is back within the bound (the writer
        says so); a client that stays over it is lost by the writer's time-out."""
        while self.backlogged() and not self.closing:
            self.writable.clear()
            self.wake.set()
            await self.writable.wait()

    async def write_loop(self) -> None:
        """Write the outbox in order; a write that cannot finish in time loses the client."""
        timeout = self.lobby.config.write_timeout or None
        try:
            while True:
                await self.wake.wait()
                self.wake.clear()
                if self.outbox:
                    data = b"".join(self.outbox)
                    self.outbox.clear()
                    self.outbox_bytes = 0
                    self.writer.write(data)
                    del data
                    await asyncio.wait_for(self.writer.drain(), timeout)
                elif self.backlogged():
                    await asyncio.wait_for(self.writer.drain(), timeout)
                if not self.backlogged():
                    self.writable.set()
                if self.closing and not self.outbox:
                    break
        except (asyncio.TimeoutError, ConnectionError, OSError):
            self.lobby.lost(self, "CONNECTION_LOST", "write blocked or failed")
            self.drop()
            return
        finally:
            self.writable.set()
        await self._linger()
        self.writer.close()
        self.lobby.forget(self)

    def drop(self) -> None:
        """Close at once, throwing away what was not written."""
        self.outbox.clear()
        self.outbox_bytes = 0
        self.writer.transport.abort()
        self.lobby.forget(self)

    async def _linger(self) -> None:
        """Half-close, then drop what the peer still sends for a moment: closing a socket
        with unread input resets it, and the peer could lose our last reply (a NACK)."""
        try:
            if self.writer.can_write_eof():
                self.writer.write_eof()
            deadline = asyncio.get_running_loop().time() + _LINGER_SECONDS
            while (left := deadline - asyncio.get_running_loop().time()) > 0:
                if not await asyncio.wait_for(self.reader.read(_READ_CHUNK), left):
                    break
        except (asyncio.TimeoutError, ConnectionError, OSError, RuntimeError):
            pass

    async def read_loop(self) -> None:
        decoder = JSONStreamDecoder(self.lobby.config.max_message_bytes)
        handled = 0
        try:
            while not self.closing:
                data = await self.reader.read(_READ_CHUNK)
                if not data:
                    break
                decoder.feed(data)
                self.lobby.arrived = time.perf_counter()
                while not self.closing:
                    try:
                        value = decoder.next_value()
                        if value is NEED_MORE:
                            decoder.check_prefix()   # garbage is answered at once (4.5)
                    except JSONStreamError as exc:
                        self.lobby.log(f"{self.label()}: {exc}")
                        self.send(nack("Not a message"))
                        self.lobby.lost(self, "EJECTED" if self.lobby.config.referee else "CONNECTION_LOST",
                                        "unreadable message")
                        return
                    if value is NEED_MORE:
                        break
                    if isinstance(value, dict) and value.get("type") == "ACCESS_ROOM":
                        await self.lobby.join_turn(self)   # failed joins are throttled
                        if self.closing:
                            break
                    try:
                        self.lobby.handle(self, value)
                    except Exception as exc:   # a server bug must not leave the client hanging
                        self.lobby.log(f"{self.label()}: internal error on {str(value)[:200]}: "
                                       f"{type(exc).__name__}: {exc}")
                        self.lobby.lost(self, "CONNECTION_LOST", "internal error")
                        return
                    handled += 1
                    if self.backlogged():
                        # the client does not read its replies: read no more of its requests
                        # until they are written (the rest waits in the kernel's buffers)
                        await self.until_written()
                    elif handled % _FAIR_SHARE == 0:
                        await asyncio.sleep(0)
        except (ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            return
        self.lobby.lost(self, "CONNECTION_LOST", "connection closed")


class Room:
    """A room: its seats (clients, or None for a disconnected seat in resilience mode),
    its settings and, once full, its game."""

    def __init__(self, room_id: int, players: int, expert: bool, private: bool, address: str = "") -> None:
        self.id = room_id
        self.address = address        # its creator's, whose quota it counts in
        self.players = players
        self.expert = expert
        self.private = private
        self.members: list[Client | None] = []
        self.usernames: list[str] = []
        self.game: Any = None
        self.current: int | None = None
        self.nacks = 0
        self.turn: Any = None
        self.turn_timer: asyncio.TimerHandle | None = None
        self.solo_timer: asyncio.TimerHandle | None = None
        # the last GAME_STATE sent, with the game it shows: states are never changed in place
        # (every change is a new state), so while ``game`` is the same the snapshot holds
        self.snapshot: tuple[Any, dict[str, Any], bytes] | None = None
        self.listing: bytes | None = None

    @property
    def started(self) -> bool:
        return self.game is not None

    def info(self) -> dict[str, Any]:
        return {"id": self.id, "numberOfPlayers": self.players, "expert": self.expert, "isPrivate": self.private,
                "currentPlayers": len(self.members)}

    def listed(self) -> bytes:
        """``info()`` encoded, kept until a member is seated."""
        if self.listing is None:
            self.listing = _encode(self.info())[:-1]
        return self.listing

    def broadcast(self, messages: list[dict[str, Any]], skip: Client | None = None) -> None:
        for message in messages:
            for member in self.members:
                if member is not None and member is not skip:
                    member.send(message)

    def cancel_timers(self) -> None:
        for timer in (self.turn_timer, self.solo_timer):
            if timer is not None:
                timer.cancel()
        self.turn_timer = self.solo_timer = None


class Lobby:
    """Every connection and room of one server."""

    def __init__(self, game: LobbyGame, config: LobbyConfig, log: Callable[[str], None] = lambda _t: None,
                 debug_log: Callable[[str], None] | None = None) -> None:
        self.game = game
        self.config = config
        self.log = log
        self.debug_log = debug_log
        self.clients: set[Client] = set()
        self.names: dict[str, Client] = {}       # username_key -> its connection
        # resilience: username_key -> (room, seat, grace timer, the name as it logged in)
        self.reserved: dict[str, tuple[Room, int, asyncio.TimerHandle, str]] = {}
        self.rooms: dict[int, Room] = {}
        self.room_ids = list(config.room_ids)
        # Without a seed, room ids come from the system's generator: ids of private rooms must
        # not be predictable from the time (failed joins are throttled besides, 7.3 keeps
        # ids within 1000..9998).
        self.id_rng: random.Random = (random.Random(config.seed) if config.seed is not None
                                      else secrets.SystemRandom())
        self.addresses = AddressBook(config.max_connections_per_address, config.max_rooms_per_address,
                                     config.failed_joins_per_minute_per_address)
        self.lingering_refusals = 0
        self._listings: dict[tuple[Any, Any], bytes] = {}   # filters -> PUBLIC_ROOMS, encoded
        self.base_seed = config.seed if config.seed is not None else time.time_ns() % (1 << 32)
        self.games_started = 0
        self.events = 0                 # game events handled, for benchmarks
        self.arrived = 0.0              # when the bytes being handled arrived
        self.latencies: list[float] | None = None   # event arrival -> reply queued, when measured
        self.server: asyncio.base_events.Server | None = None
        self._ping_task: asyncio.Task[Any] | None = None

    # -- connections ------------------------------------------------------------------

    async def start(self, host: str, port: int) -> asyncio.base_events.Server:
        self.server = await asyncio.start_server(self._accept, host, port, limit=_READ_CHUNK,
                                                 backlog=_BACKLOG)
        if self.config.ping_interval > 0:
            self._ping_task = asyncio.get_running_loop().create_task(self._keep_alive())
        return self.server

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        client = Client(self, reader, writer)
        if not self.addresses.connect(client.address):
            await self._refuse(client)
            return
        client.counted = True
        if self.config.max_outbox_bytes:
            # the transport pauses (and drain waits) no later than the outbox bound; and the
            # kernel's send buffer stays small, else it takes megabytes of replies a client
            # does not read (each one work for the loop) before the bound is even reached
            writer.transport.set_write_buffer_limits(high=min(65536, self.config.max_outbox_bytes))
            sock = writer.get_extra_info("socket")
            if sock is not None:
                try:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _KERNEL_SEND_BUFFER)
                except OSError:
                    pass
        self.clients.add(client)
        loop = asyncio.get_running_loop()
        client.tasks = [loop.create_task(client.write_loop()), loop.create_task(client.read_loop())]
        if self.config.login_timeout > 0:
            loop.call_later(self.config.login_timeout, self._login_deadline, client)

    async def _refuse(self, client: Client) -> None:
        """A connection over its address's quota: one NACK, then closed."""
        self.log(f"{client.peer}: refused: {self.config.max_connections_per_address} connections "
                 f"from {client.address} already")
        client.writer.write(_encode(nack("Too many connections from your address")))
        if self.lingering_refusals >= _MAX_LINGERING_REFUSALS:
            client.writer.transport.abort()
            return
        self.lingering_refusals += 1
        try:
            await client._linger()   # the connection's own ending, as after any refusal
        finally:
            self.lingering_refusals -= 1
            client.writer.transport.abort()

    def forget(self, client: Client) -> None:
        """The connection is over: it no longer counts against its address."""
        self.clients.discard(client)
        if client.counted:
            client.counted = False
            self.addresses.disconnect(client.address, time.monotonic())

    async def join_turn(self, client: Client) -> None:
        """Before an ACCESS_ROOM is looked at: wait while the client or its address has
        failed too many joins lately (so trying ids costs time, and no answer comes sooner)."""
        while not client.closing:
            now = time.monotonic()
            use = self.addresses.uses.get(client.address)
            wait = max(client.joins.wait(now), use.joins.wait(now) if use is not None and use.joins else 0.0)
            if wait <= 0:
                return
            self.log(f"{client.label()} ({client.address}): too many failed joins; the next is looked at "
                     f"in {wait:.0f} s")
            await asyncio.sleep(wait)

    def _join_failed(self, client: Client) -> None:
        now = time.monotonic()
        client.joins.failed(now)
        use = self.addresses.uses.get(client.address)
        if use is not None and use.joins is not None:
            use.joins.failed(now)

    def _login_deadline(self, client: Client) -> None:
        if client.state == CONNECTED:
            self.log(f"{client.peer}: no LOGIN within {self.config.login_timeout:g} s")
            self.close(client)

    async def _keep_alive(self) -> None:
        """PING every logged-in connection each interval; no PONG in time -> lost (7.8)."""
        interval, timeout = self.config.ping_interval, self.config.ping_timeout
        while True:
            await asyncio.sleep(interval)
            for client in [c for c in self.clients if c.state in (LOBBY, IN_ROOM) and not c.closing]:
                client.pong.clear()
                client.send({"type": "PING"})
                asyncio.get_running_loop().create_task(self._await_pong(client, timeout))

    async def _await_pong(self, client: Client, timeout: float) -> None:
        try:
            await asyncio.wait_for(client.pong.wait(), timeout or None)
        except asyncio.TimeoutError:
            self.lost(client, "CONNECTION_LOST", f"no PONG within {timeout:g} s")

    def close(self, client: Client) -> None:
        """Stop reading ``client``; what is queued for it is still written, then it is closed."""
        if client.closing or client.state == CLOSED:
            return
        client.closing = True
        client.wake.set()
        task = client.tasks[1] if len(client.tasks) > 1 else None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def lost(self, client: Client, reason: str, why: str) -> None:
        """The connection is gone or must go: leave its room as 7.5-7.7 say, release its name."""
        if client.state == CLOSED:
            return
        self.close(client)
        if client.username is not None:
            self.log(f"{client.username}: {why}")
        room, seat = client.room, client.seat
        client.state = CLOSED
        self.clients.discard(client)
        if room is not None:
            self._departure(room, client, seat, reason)
        if client.name_key is not None and self.names.get(client.name_key) is client:
            del self.names[client.name_key]

    # -- messages ---------------------------------------------------------------------

    def handle(self, client: Client, message: Any) -> None:
        if self.debug_log is not None:
            self.debug_log(f"<- {client.label()} {json.dumps(message, ensure_ascii=False)}")
        kind = message.get("type") if isinstance(message, dict) else None
        if not isinstance(kind, str) or (kind not in CLIENT_TYPES and kind not in self.game.server_types):
            client.send(nack("Not a message"))
            return
        if kind not in CLIENT_TYPES:
            client.send(nack("Did not receive a client message"))
            self.lost(client, "EJECTED" if self.config.referee else "CONNECTION_LOST", f"sent {kind}")
            return
        if client.state == CONNECTED and kind != "LOGIN":
            client.send(nack("Login message missing"))
            return
        getattr(self, "_" + kind.lower())(client, message)

    def _login(self, client: Client, m: dict[str, Any]) -> None:
        if client.state != CONNECTED:
            client.send(nack("Already logged in!"))
            return
        name = m.get("username")
        if not isinstance(name, str) or not valid_username(name):
            client.send(nack("Invalid username"))
            return
        key = self.name_key(name)
        held = self.reserved.get(key)
        if held is not None and held[3] == name:
            self._reconnect(client, key)
            return
        if key in self.names or held is not None:
            client.send(nack("Username was already taken"))
            return
        client.username, client.name_key = name, key
        client.state = LOBBY
        self.names[key] = client
        client.send(ACK)

    def name_key(self, name: str) -> str:
        """Names with one key are one user (case-insensitive unless configured otherwise)."""
        return name if self.config.case_sensitive_usernames else username_key(name)

    def _logout(self, client: Client, _m: dict[str, Any]) -> None:
        if client.room is not None:
            client.send(nack("Player still in a room"))
            return
        client.send(ACK)
        self.lost(client, "LEFT", "logged out")

    def _pong(self, client: Client, _m: dict[str, Any]) -> None:
        client.pong.set()

    def _get_public_rooms(self, client: Client, m: dict[str, Any]) -> None:
        players = m.get("numberOfPlayers")
        if players is not None and players != -1 and not (_is_int(players) and players in self.game.player_counts):
            client.send(nack("Invalid number of players"))
            return
        expert = m.get("expert")
        if expert is not None and not isinstance(expert, bool):
            client.send(nack("Invalid expert filter"))
            return
        key = (-1 if players is None else players, expert)
        data = self._listings.get(key)
        if data is None:
            # Kept until a room changes, and made of each room's own encoded entry: asking
            # again and again costs a lookup, and after a change a join (a listing of 1,000
            # rooms encoded whole took 3.7 ms, a cost a host churning rooms could repeat).
            rooms = [room for _id, room in sorted(self.rooms.items())
                     if not room.started and not room.private and len(room.members) < room.players
                     and (players in (None, -1) or room.players == players)
                     and (expert is None or room.expert == expert)]
            data = self._listings[key] = b"".join((_LISTING_HEAD, b",".join(room.listed() for room in rooms),
                                                   _LISTING_TAIL))
        client.send({"type": "PUBLIC_ROOMS"} if self.debug_log is None else json.loads(data), data)

    def _create_room(self, client: Client, m: dict[str, Any]) -> None:
        if client.room is not None:
            client.send(nack("Already in a room!"))
            return
        players = m.get("numberOfPlayers")
        if not (_is_int(players) and players in self.game.player_counts):
            client.send(nack("Invalid number of players"))
            return
        expert, private = m.get("expert", False), m.get("isPrivate", False)
        if not isinstance(expert, bool) or not isinstance(private, bool):
            client.send(nack("Invalid room settings"))
            return
        if len(self.rooms) >= self.config.max_rooms:
            client.send(nack("Too many rooms"))
            return
        if not self.addresses.may_create_room(client.address):
            self.log(f"{client.label()}: refused a room: {self.config.max_rooms_per_address} rooms "
                     f"from {client.address} already")
            client.send(nack("Too many rooms from your address"))
            return
        room = Room(self._new_room_id(), players, expert, private, client.address)
        self.rooms[room.id] = room
        self.addresses.room_created(room.address)
        self._seat(room, client)
        client.send({"type": "ROOM_ID", "id": room.id})

    def _new_room_id(self) -> int:
        while self.room_ids:
            room_id = self.room_ids.pop(0)
            if room_id not in self.rooms:
                return room_id
        while True:   # 7.3: uniform in 1000..9998 until free
            room_id = self.id_rng.randint(1000, 9998)
            if room_id not in self.rooms:
                return room_id

    def _seat(self, room: Room, client: Client) -> None:
        """Put ``client`` in the next seat and tell the room (6.6.1)."""
        seat = len(room.members)
        for other, name in enumerate(room.usernames):
            client.send({"type": "ADD_PLAYER", "username": name, "position": other,
                         **self.game.seat_fields(other, room.players)})
        room.members.append(client)
        room.usernames.append(client.username or "")
        room.listing = None
        self._listings.clear()
        client.room, client.seat, client.state = room, seat, IN_ROOM
        room.broadcast([{"type": "ADD_PLAYER", "username": client.username, "position": seat,
                         **self.game.seat_fields(seat, room.players)}])

    def _access_room(self, client: Client, m: dict[str, Any]) -> None:
        if client.room is not None:
            client.send(nack("Already in a room!"))
            return
        room_id = m.get("id")
        room = self.rooms.get(room_id) if _is_int(room_id) else None
        if room is None or room.started:
            self._join_failed(client)
            client.send(nack("Not an initializing room"))
            return
        if len(room.members) >= room.players:
            self._join_failed(client)   # a full room tells that the id exists: counted too
            client.send(nack("Unable to access room"))
            return
        self._seat(room, client)
        if len(room.members) == room.players and not self._start_game(room, client):
            client.send(nack("Unable to access room"))
            return
        client.send(ACK)

    def _start_game(self, room: Room, newcomer: Client) -> bool:
        seed = self.base_seed + self.games_started
        self.games_started += 1
        try:
            room.game, setup = self.game.start(list(room.usernames), room.expert, seed, self.config.test_hooks,
                                               room.id)
        except ValueError as exc:
            self.log(f"room {room.id}: the game cannot start: {exc}")
            self._close_room(room, newcomer, "CONNECTION_LOST", tell_leaver=False)
            return False
        self.log(f"room {room.id}: game {self.games_started - 1} (seed {seed}) starts: {', '.join(room.usernames)}")
        room.broadcast(setup)
        self._after_change(room)
        return True

    def _leave_room(self, client: Client, _m: dict[str, Any]) -> None:
        room = client.room
        if room is None:
            client.send(nack("Not yet in a room!"))
            return
        self._close_room(room, client, "LEFT")
        client.send(ACK)

    def _get_game_state(self, client: Client, _m: dict[str, Any]) -> None:
        room = client.room
        if room is None:
            client.send(nack("Not yet in a room!"))
        elif not room.started:
            client.send(nack("The game has not started yet"))
        else:
            client.send(*self._game_state(room))

    def _game_state(self, room: Room) -> tuple[dict[str, Any], bytes]:
        """GAME_STATE for the room's game, encoded once per state of the game."""
        if room.snapshot is None or room.snapshot[0] is not room.game:
            message = {"type": "GAME_STATE", "state": self.game.snapshot(room.game)}
            room.snapshot = (room.game, message, _encode(message))
        return room.snapshot[1], room.snapshot[2]

    def _game_event(self, client: Client, m: dict[str, Any]) -> None:
        room = client.room
        if room is None:
            client.send(nack("Not yet in a room!"))
            return
        if not room.started:
            client.send(nack("The game has not started yet"))
            return
        self.events += 1
        in_turn = self.game.current(room.game) == client.seat
        room.game, broadcasts, reply = self.game.step(room.game, client.seat, m)
        if reply.get("type") == "ACK":
            room.broadcast(broadcasts)
            client.send(reply)
            if self.latencies is not None:
                self.latencies.append(time.perf_counter() - self.arrived)
            self._after_change(room, accepted=True)
            return
        client.send(reply)
        if not in_turn or self.game.suspended(room.game):
            return   # a race, not a rule break (4.4)
        if self.config.referee:
            self._eject(room, client.seat, "EJECTED")
        elif self.config.max_nacks_per_turn:
            room.nacks += 1
            # 7.8: maxNacksPerTurn is the number of invalid events *tolerated* per turn (the
            # referee policy, which tolerates none, could not be written as a count since 0
            # means unlimited), so the one beyond it is what ends the player's game.
            if room.nacks > self.config.max_nacks_per_turn:
                self.lost(client, "TIMEOUT", f"{room.nacks} invalid events this turn")

    # -- rooms ------------------------------------------------------------------------

    def _after_change(self, room: Room, accepted: bool = False) -> None:
        """After the game changed: end the room at END_GAME, else (re)start the turn timer
        and the NACK count for whoever the game now waits for."""
        if self.game.finished(room.game):
            self._dissolve(room)
            return
        current = self.game.current(room.game)
        turn = self.game.turn(room.game) if self.game.turn is not None else current
        if current != room.current or turn != room.turn:
            room.nacks = 0
        room.turn = turn
        restart = current != room.current or accepted or room.turn_timer is None
        room.current = current
        waiting = current is not None and not self.game.suspended(room.game)
        if room.turn_timer is not None and (restart or not waiting):
            room.turn_timer.cancel()   # a suspended game waits for nobody
            room.turn_timer = None
        if restart and waiting and self.config.turn_timeout > 0:
            room.turn_timer = asyncio.get_running_loop().call_later(
                self.config.turn_timeout, self._turn_timeout, room, current)

    def _turn_timeout(self, room: Room, seat: int) -> None:
        room.turn_timer = None
        if self.rooms.get(room.id) is not room or self.game.current(room.game) != seat:
            return
        member = room.members[seat]
        if self.config.referee:
            self._eject(room, seat, "TIMEOUT")
        elif member is not None:
            self.lost(member, "TIMEOUT", f"no valid event within {self.config.turn_timeout:g} s")

    def _eject(self, room: Room, seat: int, reason: str) -> None:
        """7.7: the seat's team is eliminated, the others are told, its connection closed."""
        member = room.members[seat]
        room.members[seat] = None
        if member is not None:
            member.room, member.seat, member.state = None, -1, LOBBY
            self.lost(member, reason, f"ejected ({reason})")
        room.game, broadcasts = self.game.eject(room.game, seat, reason)
        room.broadcast(broadcasts)
        self._after_change(room)

    def _departure(self, room: Room, client: Client, seat: int, reason: str) -> None:
        """A member's connection is gone (7.5-7.7)."""
        if self.rooms.get(room.id) is not room:
            return
        if room.started and self.config.referee:
            self._eject(room, seat, reason)
        elif room.started and self.config.resilience and reason == "CONNECTION_LOST":
            self._disconnect(room, client, seat)
        else:
            self._close_room(room, client, reason)

    def _close_room(self, room: Room, leaver: Client, reason: str, tell_leaver: bool = True) -> None:
        """7.5: the room is closed; every other member is told and is back in the lobby."""
        room.broadcast([{"type": "PLAYER_DISCONNECT", "username": leaver.username, "roomClosed": True,
                         "reason": reason}], skip=leaver)
        self._dissolve(room)

    def _dissolve(self, room: Room) -> None:
        """The room ceases to exist; its members are back in the lobby (6.6.8)."""
        room.cancel_timers()
        if self.rooms.pop(room.id, None) is room:
            self.addresses.room_closed(room.address, time.monotonic())
        self._listings.clear()
        for member in room.members:
            if member is not None and member.room is room:
                member.room, member.seat = None, -1
                if member.state == IN_ROOM:
                    member.state = LOBBY
        for key, (reserved_room, _seat, timer, _name) in list(self.reserved.items()):
            if reserved_room is room:
                timer.cancel()
                del self.reserved[key]
        room.members = []

    # -- resilience mode (7.6) --------------------------------------------------------

    def _disconnect(self, room: Room, client: Client, seat: int) -> None:
        room.members[seat] = None
        loop = asyncio.get_running_loop()
        name, key = client.username or "", client.name_key or ""
        self.reserved[key] = (room, seat, loop.call_later(self.config.reconnect_grace, self._grace_over, key), name)
        room.game, broadcasts = self.game.disconnect(room.game, seat, self.config.solo_timeout)
        room.broadcast(broadcasts)
        self._suspension(room)
        self._after_change(room)

    def _suspension(self, room: Room) -> None:
        if self.game.suspended(room.game) and not self.game.finished(room.game):
            if room.solo_timer is None:
                room.solo_timer = asyncio.get_running_loop().call_later(
                    self.config.solo_timeout, self._solo_over, room)
        elif room.solo_timer is not None:
            room.solo_timer.cancel()
            room.solo_timer = None

    def _grace_over(self, key: str) -> None:
        self.reserved.pop(key, None)

    def _solo_over(self, room: Room) -> None:
        room.solo_timer = None
        if self.rooms.get(room.id) is not room:
            return
        if all(member is None for member in room.members):
            self.log(f"room {room.id}: nobody came back; closed")
            self._dissolve(room)
            return
        room.game, broadcasts = self.game.abandon(room.game)
        room.broadcast(broadcasts)
        self._after_change(room)

    def _reconnect(self, client: Client, key: str) -> None:
        room, seat, timer, name = self.reserved.pop(key)
        timer.cancel()
        client.username, client.name_key, client.state = name, key, IN_ROOM
        self.names[key] = client
        client.room, client.seat = room, seat
        room.game, broadcasts = self.game.reconnect(room.game, seat)
        client.send(ACK)
        client.send(*self._game_state(room))
        room.broadcast(broadcasts)
        room.members[seat] = client
        self._suspension(room)
        self._after_change(room)

    # -- shutting down -----------------------------------------------------------------

    async def stop(self) -> None:
        if self._ping_task is not None:
            self._ping_task.cancel()
        if self.server is not None:
            self.server.close()
        tasks = [task for client in self.clients for task in client.tasks]
        for client in list(self.clients):
            client.closing = True
            client.outbox.clear()
            client.wake.set()
            client.writer.transport.abort()
        for room in self.rooms.values():
            room.cancel_timers()
        if tasks:
            await asyncio.wait(tasks, timeout=_LINGER_SECONDS + 1)
        for task in tasks:
            task.cancel()


async def serve_lobby(game: LobbyGame, config: LobbyConfig, log: Callable[[str], None],
                      debug_log: Callable[[str], None] | None = None,
                      ready: Callable[[int], None] | None = None) -> None:
    """Run a lobby on ``config.host:config.port`` until cancelled."""
    lobby = Lobby(game, config, log, debug_log)
    server = await lobby.start(config.host, config.port)
    port = server.sockets[0].getsockname()[1]
    log(f"lobby listening on {config.host}:{port}")
    if ready is not None:
        ready(port)
    try:
        await asyncio.Event().wait()
    finally:
        await lobby.stop()
