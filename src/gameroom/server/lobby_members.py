"""Who is where in the lobby: a connection (:class:`Client`) and a room (:class:`Room`),
each of which names the other, and how a message to either is written.

A client has its own outbound queue and writer task: a client that reads slowly or not at
all delays nobody else, and a write blocked longer than ``writeTimeoutSeconds`` counts as a
lost connection. Memory per connection is bounded: while more than ``maxOutboxBytes`` wait
to be written to a client, its requests are not read (they wait in the kernel, not here).
What a client asks of its lobby is :class:`Host` (``server.lobby.Lobby`` is one).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Awaitable, Callable, Protocol

from gameroom.core.lobbygame import LobbyGame
from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, JSONStreamError
from gameroom.server.event_views import EventViews
from gameroom.server.lobby_checks import Allowance
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.lobby_games import Hosted, HouseBot
from gameroom.server.lobby_limits import JoinThrottle, address_key
from gameroom.server.referee_rooms import RefereeGame

__all__ = ["Client", "Room", "Host", "encode", "nack", "ACK", "CONNECTED", "LOBBY", "IN_ROOM", "CLOSED",
           "READ_CHUNK", "LINGER_SECONDS"]

logger = logging.getLogger(__name__)

ACK: dict[str, Any] = {"type": "ACK"}
READ_CHUNK = 65536
LINGER_SECONDS = 2.0
# Messages handled from one connection before the others get a turn: a chunk of 64 KiB can
# hold thousands of small requests, and handling them all at once held every room back.
_FAIR_SHARE = 32

# Connection states of 7.1 (PLAYING is IN_ROOM with a started game).
CONNECTED, LOBBY, IN_ROOM, CLOSED = "CONNECTED", "LOBBY", "IN_ROOM", "CLOSED"


def nack(text: str) -> dict[str, Any]:
    return {"type": "NACK", "errorMessage": text}


def encode(message: dict[str, Any]) -> bytes:
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:   # a lone surrogate from a client: escaped, still valid JSON
        return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


class Host(Protocol):
    """What a client asks of the lobby it is connected to."""

    config: LobbyConfig
    debug_log: Callable[[str], None] | None
    arrived: float   # when the bytes being handled arrived

    def handle(self, client: Client, message: Any) -> Awaitable[None] | None:
        """Handle one message of ``client`` (an awaitable: its answer comes later)."""

    def lost(self, client: Client, reason: str, why: str) -> None:
        """The connection is gone or must go."""

    def journaled(self) -> None:
        """Commit what the journal was told, before anything announcing it is written."""

    def forget(self, client: Client) -> None:
        """The connection is over: it no longer counts against its address."""

    async def join_turn(self, client: Client) -> None:
        """Wait while the client or its address has failed too many joins lately."""


class Client:
    """One connection: its state, its outbound queue and the tasks that read and write it."""

    def __init__(self, lobby: Host, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.lobby = lobby
        self.reader, self.writer = reader, writer
        self.state = CONNECTED
        self.username: str | None = None
        self.room: Room | None = None
        self.seat = -1                # -1: none, or watching ``room``
        self.person = False           # a person's seat: the person limit, the legal moves offered
        self.views = False            # sent the seat's view of every state
        self.pictures = False         # its views (and a spectator's states) carry the game's picture
        self.spectator = False        # logged in to watch only (LOGIN's spectator): never seated
        self.name_key: str | None = None
        self.account = False          # logged in with a web room account's credential (LOGIN's account)
        self.secret: str | None = None   # the reconnect secret handed out at its log-in (LOGIN's secret)
        self.outbox: list[bytes] = []
        self.outbox_bytes = 0
        self.taken = self.written = 0   # batches of the outbox taken by the writer, and written
        self.wake = asyncio.Event()
        self.writable = asyncio.Event()   # set while what waits to be written is within the bound
        self.writable.set()
        self.closing = False          # no more input is handled; the outbox is flushed, then closed
        self.pong = asyncio.Event()
        self.tasks: list[asyncio.Task[Any]] = []
        self.counted = False          # counted against its address's connection quota
        self.unlogged = True          # counted against its address's quota of connections not logged in
        # own_address: what proves a spec client's held seat (None: relayed)
        self.peer, self.address, self.own_address = self.addresses_of(writer.get_extra_info("peername"),
                                                                       lobby.config.relay_addresses)
        self.joins = JoinThrottle(lobby.config.failed_joins_per_minute)
        self.checks = Allowance()   # answers of CHECKs judged, per second (server.lobby_checks)

    @staticmethod
    def addresses_of(peer: Any, relays: frozenset[str]) -> tuple[str, str, str | None]:
        """A connection's peer as text, its quota key, and the address that proves a spec
        client's held seat (None: relayed): a relay's connection is its own user's."""
        text = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        address = address_key(peer)
        if address in relays:
            return text, f"{address} relaying {text}", None
        return text, address, address

    def label(self) -> str:
        return self.username or self.peer

    def send(self, message: dict[str, Any], data: bytes | None = None) -> None:
        """Queue ``message`` (already encoded as ``data`` when given)."""
        if self.state == CLOSED or self.closing and message.get("type") not in ("NACK", "ACK"):
            return
        if data is None:
            data = encode(message)
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
                    self.lobby.journaled()   # write-ahead: what this announces is committed first
                    data = b"".join(self.outbox)
                    self.outbox.clear()
                    self.outbox_bytes = 0
                    self.taken += 1
                    batch = self.taken
                    self.writer.write(data)
                    del data
                    await asyncio.wait_for(self.writer.drain(), timeout)
                    self.written = batch
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

    def close(self) -> None:
        """Stop reading; what is queued is still written, then the connection is closed."""
        if self.closing or self.state == CLOSED:
            return
        self.closing = True
        self.wake.set()
        task = self.tasks[1] if len(self.tasks) > 1 else None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

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
            deadline = asyncio.get_running_loop().time() + LINGER_SECONDS
            while (left := deadline - asyncio.get_running_loop().time()) > 0:
                if not await asyncio.wait_for(self.reader.read(READ_CHUNK), left):
                    break
        except (asyncio.TimeoutError, ConnectionError, OSError, RuntimeError):
            pass

    async def read_loop(self) -> None:
        decoder = JSONStreamDecoder(self.lobby.config.max_message_bytes)
        handled = 0
        try:
            while not self.closing:
                data = await self.reader.read(READ_CHUNK)
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
                        logger.info(f"{self.label()}: {exc}")
                        self.send(nack("Not a message"))
                        self.lobby.lost(self, "EJECTED" if self.lobby.config.referee else "CONNECTION_LOST",
                                        "unreadable message")
                        return
                    if value is NEED_MORE:
                        break
                    if isinstance(value, dict) and value.get("type") in ("ACCESS_ROOM", "WATCH_ROOM"):
                        await self.lobby.join_turn(self)   # failed joins are throttled
                        if self.closing:
                            break
                    try:
                        later = self.lobby.handle(self, value)
                        if later is not None:   # judged off the loop: its answer before the next request's
                            await later
                    except Exception as exc:   # a server bug must not leave the client hanging
                        # the one line below is the log's; its traceback is the module logger's
                        logger.debug("internal error on a lobby message", exc_info=True)
                        logger.info(f"{self.label()}: internal error on {str(value)[:200]}: "
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
    """A room: its game, its seats (clients and house bots; None for a disconnected seat
    in resilience mode or a seat that left a game played by calls), its spectators, its
    settings and, once full, its game's state (or running referee)."""

    def __init__(self, room_id: int, hosted: Hosted, players: int, options: dict[str, Any], private: bool,
                 address: str = "", show_game: bool = False) -> None:
        self.id = room_id
        self.hosted = hosted
        self.address = address        # its creator's, whose quota it counts in
        self.players = players
        self.options = options        # typed, by option key
        self.private = private
        self.show_game = show_game    # the lobby serves several games: its listing names the game
        self.members: list[Client | HouseBot | None] = []
        self.usernames: list[str] = []
        self.watchers: list[Client] = []
        self.referee: RefereeGame | None = None   # a game played by calls, once full
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
        self.views: EventViews | None = None   # a game played by events that a client asked views of
        self.start: dict[str, Any] | None = None   # START_GAME as the room got it (a late spectator is told)
        self.seed: int | None = None   # its game's, once started
        self.ended: list[dict[str, Any]] | None = None   # what ended its game (kept for held seats to collect)
        self.last: list[dict[str, Any]] = []   # the broadcasts of its game's latest change
        self.finals: dict[int, dict[str, Any]] = {}   # each seat's last view, once ended (played by calls)

    @property
    def started(self) -> bool:
        return self.game is not None or self.referee is not None

    def rules(self) -> LobbyGame:
        """The rules of a room played by events."""
        game = self.hosted.events
        assert game is not None
        return game

    def seat_fields(self, seat: int) -> dict[str, Any]:
        """The extra fields of ``seat``'s ``ADD_PLAYER`` the game adds (a game played by
        events may; one played by calls adds none)."""
        game = self.hosted.events
        return game.seat_fields(seat, self.players) if game is not None else {}

    def info(self) -> dict[str, Any]:
        info = {"id": self.id, "numberOfPlayers": self.players, **self.hosted.listed_options(self.options),
                "isPrivate": self.private, "currentPlayers": len(self.members)}
        if self.show_game:
            info["game"] = self.hosted.name
        return info

    def listed(self) -> bytes:
        """``info()`` encoded, kept until a member is seated."""
        if self.listing is None:
            self.listing = encode(self.info())[:-1]
        return self.listing

    def broadcast(self, messages: list[dict[str, Any]], skip: Client | None = None) -> None:
        """Each message to every member and spectator, encoded once for all of them."""
        watchers = self.watchers
        for message in messages:
            if self.views is not None:
                self.views.heard(message)
            data = encode(message)
            for member in self.members:
                if member is not None and member is not skip:
                    member.send(message, data)
            if watchers:
                for watcher in watchers:
                    if watcher is not skip:
                        watcher.send(message, data)

    def connected(self) -> bool:
        """Whether anybody with a connection is still in the room (a seat or a spectator)."""
        return bool(self.watchers) or any(isinstance(m, Client) and m.room is self for m in self.members)

    def cancel_timers(self) -> None:
        for timer in (self.turn_timer, self.solo_timer):
            if timer is not None:
                timer.cancel()
        self.turn_timer = self.solo_timer = None
