"""The lobby: one asyncio server holding every connection and every room (eriantys.md 4.5,
6, 7; docs/lobby.md), for one game or for every game installed.

Clients log in with a unique name, list, create, join and watch rooms of the lobby's
games, and play: by sending events when they like in a game that supplies a
``core.lobbygame.LobbyGame`` (Eriantys), by answering the calls of the game's own referee
in any other (``server.referee_rooms``). Everything a request changes happens synchronously in the loop,
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
import itertools
import json
import logging
import random
import secrets
import signal
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Awaitable, Callable, Sequence, TypeGuard

from gameroom.core.game import GameDescriptor
from gameroom.core.lobbygame import LobbyGame
from gameroom.core.options import OptionError
from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, JSONStreamError
from gameroom.server.admission import Gate, Refusal, connection_cap, file_limit
from gameroom.server.event_views import EventViews
from gameroom.server.journal import TICK, Journal, JournalError, open_journal
from gameroom.server.journal_resume import resume, room_row
from gameroom.server.lobby_checks import Allowance
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.lobby_games import ALL_GAMES, Hosted, HouseBot, hosted_games
from gameroom.server.lobby_identity import MAX_SECRET, Held, Proof, new_secret, valid_credential
from gameroom.server.lobby_limits import AddressBook, JoinThrottle, address_key, username_key
from gameroom.server.referee_rooms import RefereeGame

__all__ = ["Lobby", "serve_lobby", "CLIENT_TYPES", "valid_username"]

logger = logging.getLogger(__name__)

CLIENT_TYPES = frozenset({"LOGIN", "LOGOUT", "GET_PUBLIC_ROOMS", "CREATE_ROOM", "ACCESS_ROOM", "LEAVE_ROOM",
                          "GAME_EVENT", "GET_GAME_STATE", "PONG",
                          # docs/lobby.md: every game's rooms, spectators, house bots, calls
                          "GET_GAMES", "WATCH_ROOM", "ADD_BOT", "REPLY", "CHECK"})
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
# read the refusal); beyond, a refused connection is closed at once (server.admission.Gate).
_MAX_LINGERING_REFUSALS = 64
_LISTING_HEAD, _LISTING_TAIL = b'{"type":"PUBLIC_ROOMS","rooms":[', b"]}\n"
_KERNEL_SEND_BUFFER = 65536   # per connection (Linux doubles it for its bookkeeping)
_THINKERS = 4   # worker threads of house bots (rooms played by calls)

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


class _Refused(Exception):
    """A request was refused (its NACK already queued): nothing more to do for it."""


def _no_fields(_seat: int, _players: int) -> dict[str, Any]:
    return {}


def _events(room: "Room") -> LobbyGame:
    """The rules of a room played by events."""
    game = room.hosted.events
    assert game is not None
    return game


def _is_int(value: Any) -> TypeGuard[int]:
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

    def info(self) -> dict[str, Any]:
        info = {"id": self.id, "numberOfPlayers": self.players, **self.hosted.listed_options(self.options),
                "isPrivate": self.private, "currentPlayers": len(self.members)}
        if self.show_game:
            info["game"] = self.hosted.name
        return info

    def listed(self) -> bytes:
        """``info()`` encoded, kept until a member is seated."""
        if self.listing is None:
            self.listing = _encode(self.info())[:-1]
        return self.listing

    def broadcast(self, messages: list[dict[str, Any]], skip: Client | None = None) -> None:
        """Each message to every member and spectator, encoded once for all of them."""
        watchers = self.watchers
        for message in messages:
            if self.views is not None:
                self.views.heard(message)
            data = _encode(message)
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


class Lobby:
    """Every connection and room of one server, for one game or several.

    ``games``: a descriptor, several (the first is the default game: the game of requests
    that name none), or a bare ``LobbyGame`` (the scenario harness's).
    """

    def __init__(self, games: GameDescriptor[Any, Any] | LobbyGame | Sequence[GameDescriptor[Any, Any]], config: LobbyConfig,
                 debug_log: Callable[[str], None] | None = None) -> None:
        hosted = hosted_games(games)
        self.games = {h.name: h for h in hosted}
        self.default = hosted[0]
        self.several = len(hosted) > 1
        self.server_types = frozenset().union(*(h.server_types for h in hosted))
        self.config = config
        self.debug_log = debug_log
        self.clients: set[Client] = set()
        self.names: dict[str, Client | HouseBot] = {}   # username_key -> its connection (or house bot)
        # resilience, and a held seat of a room played by calls: username_key -> the hold
        # (server.lobby_identity: its room, seat, grace timer, name, settings and proof)
        self.reserved: dict[str, Held] = {}
        self.accounts: set[str] = set()   # username keys of the web room's accounts (logged in with a credential)
        self.rooms: dict[int, Room] = {}
        self.room_ids = list(config.room_ids)
        # Without a seed, room ids come from the system's generator: ids of private rooms must
        # not be predictable from the time (failed joins are throttled besides, 7.3 keeps
        # ids within 1000..9998).
        self.id_rng: random.Random = (random.Random(config.seed) if config.seed is not None
                                      else secrets.SystemRandom())
        self.addresses = AddressBook(config.max_connections_per_address, config.max_rooms_per_address,
                                     config.failed_joins_per_minute_per_address,
                                     # no quota of connections per address: none of unlogged ones either
                                     config.max_unlogged_per_address if config.max_connections_per_address else 0)
        self.max_connections = connection_cap(config.max_connections) if config.max_connections else 0
        # new connections are admitted (or refused) at the door, before any Client is made
        self.gate = Gate(self._admit, self._accept, logger, limit=_READ_CHUNK, linger_seconds=_LINGER_SECONDS,
                         max_lingering=_MAX_LINGERING_REFUSALS)
        self._too_many = _encode(nack("Too many connections from your address"))
        self._unlogged_why = (f"{config.max_unlogged_per_address} connections from your address have not logged in "
                              "yet (maxUnloggedPerAddress)")
        self._too_unlogged = _encode(nack(self._unlogged_why))
        self._listings: dict[tuple[Any, ...], bytes] = {}   # filters -> PUBLIC_ROOMS, encoded
        self.base_seed = config.seed if config.seed is not None else time.time_ns() % (1 << 32)
        self.games_started = 0
        self.ids_drawn = 0              # room ids drawn (the journal's, to draw on from there)
        self.events = 0                 # game events handled, for benchmarks
        self.calls = 0                  # CALLs sent by the referees of rooms played by calls, likewise
        self.drawings = 0               # pictures the referees of rooms played by calls drew, likewise
        self.slices: list[float] | None = None   # processor seconds each referee held the loop, when measured
        self.arrived = 0.0              # when the bytes being handled arrived
        self.latencies: list[float] | None = None   # event arrival -> reply queued, when measured
        self.server: asyncio.base_events.Server | None = None
        self._ping_task: asyncio.Task[Any] | None = None
        self._thinkers: ThreadPoolExecutor | None = None
        self.journal: Journal | None = None   # server.journal, opened by start() when configured
        self._alive_task: asyncio.Task[Any] | None = None
        self.collect: dict[str, tuple[Held, list[dict[str, Any]]]] = {}   # held seats of ended games: their end
        # ended rooms kept in the journal until their end is written: id -> (reader, its batch)
        self.leaving: dict[int, list[tuple[Client, int]]] = {}

    def journaled(self) -> None:
        """Commit what the journal was told (before anything announcing it is written); a
        journal that cannot be written is said in one line and the lobby goes on in memory."""
        journal = self.journal
        if journal is None or not journal.pending or not journal.open:
            return
        try:
            journal.flush()
        except JournalError as exc:
            logger.error("%s; the lobby goes on without a journal (a restart loses its rooms)", exc)
            journal.open = False

    def note(self, room: Room, kind: str, body: dict[str, Any]) -> None:
        """A step of ``room``'s game, for the journal."""
        if self.journal is not None:
            self.journal.add(room.id, kind, body)

    def touch(self, room: Room) -> None:
        """``room``'s seats or settings changed: its row is journaled again."""
        if self.journal is not None:
            self.journal.touch(room.id, lambda: room_row(self, room))

    async def _alive(self) -> None:
        """Note in the journal every tick that the lobby is alive (a call in flight when it
        dies has its time counted to that moment)."""
        while self.journal is not None and self.journal.open:
            await asyncio.sleep(TICK)
            if self.journal.open:
                self.left()
                self.journal.note("alive", repr(time.time()))
                self.journaled()

    def thinkers(self) -> ThreadPoolExecutor:
        """The worker threads on which house bots of rooms played by calls think (made on
        first use; a few: their searches share the interpreter with the loop)."""
        if self._thinkers is None:
            self._thinkers = ThreadPoolExecutor(_THINKERS, thread_name_prefix="house-bot")
        return self._thinkers

    # -- connections ------------------------------------------------------------------

    async def start(self, host: str, port: int) -> asyncio.base_events.Server:
        if self.config.state is not None and self.journal is None:
            self.journal = open_journal(self.config.state)
            resume(self, self.journal, Room)   # the rooms of the journal, built again
            self._alive_task = asyncio.get_running_loop().create_task(self._alive())
        self.server = await self.gate.listen(host, port, backlog=_BACKLOG)
        if self.config.ping_interval > 0:
            self._ping_task = asyncio.get_running_loop().create_task(self._keep_alive())
        return self.server

    def _admit(self, transport: asyncio.Transport) -> Refusal | None:
        """A new connection at the door (``server.admission.Gate``): counted against its
        address's quotas, or refused with one NACK before anything is made for it."""
        _, address, _ = Client.addresses_of(transport.get_extra_info("peername"), self.config.relay_addresses)
        if self.max_connections and len(self.clients) >= self.max_connections:
            why = f"The server has {len(self.clients)} connections, its most (maxConnections)"
            return Refusal(address, why, _encode(nack(why)))
        over = self.addresses.over(address)
        if over == "unlogged":
            return Refusal(address, self._unlogged_why, self._too_unlogged)
        if over is not None:
            return Refusal(address, f"{self.config.max_connections_per_address} connections from {address} already",
                           self._too_many)
        self.addresses.connect(address)
        return None

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """An admitted connection (counted by :meth:`_admit` just before): its Client."""
        client = Client(self, reader, writer)
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
        within = min((t for t in (self.config.login_timeout, self.config.login_within) if t > 0), default=0.0)
        if within > 0:
            loop.call_later(within, self._login_deadline, client, within)

    def forget(self, client: Client) -> None:
        """The connection is over: it no longer counts against its address."""
        self.clients.discard(client)
        if client.counted:
            client.counted = False
            self.addresses.disconnect(client.address, time.monotonic(), client.unlogged)
            client.unlogged = False

    async def join_turn(self, client: Client) -> None:
        """Before an ACCESS_ROOM is looked at: wait while the client or its address has
        failed too many joins lately (so trying ids costs time, and no answer comes sooner)."""
        while not client.closing:
            now = time.monotonic()
            use = self.addresses.uses.get(client.address)
            wait = max(client.joins.wait(now), use.joins.wait(now) if use is not None and use.joins else 0.0)
            if wait <= 0:
                return
            logger.info(f"{client.label()} ({client.address}): too many failed joins; the next is looked at "
                     f"in {wait:.0f} s")
            await asyncio.sleep(wait)

    def _join_failed(self, client: Client) -> None:
        now = time.monotonic()
        client.joins.failed(now)
        use = self.addresses.uses.get(client.address)
        if use is not None and use.joins is not None:
            use.joins.failed(now)

    def _login_deadline(self, client: Client, within: float) -> None:
        if client.state == CONNECTED:
            logger.info(f"{client.peer}: no LOGIN within {within:g} s")
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
            logger.info(f"{client.username}: {why}")
        room, seat = client.room, client.seat
        client.state = CLOSED
        self.clients.discard(client)
        if room is not None:
            self._departure(room, client, seat, reason)
        if client.name_key is not None and self.names.get(client.name_key) is client:
            del self.names[client.name_key]

    # -- messages ---------------------------------------------------------------------

    def handle(self, client: Client, message: Any) -> Awaitable[None] | None:
        """Handle one message of ``client`` at once; an awaitable when its answer comes
        later (a CHECK, judged off the loop): the client's next request waits for it."""
        if self.debug_log is not None:
            self.debug_log(f"<- {client.label()} {json.dumps(message, ensure_ascii=False)}")
        kind = message.get("type") if isinstance(message, dict) else None
        if not isinstance(kind, str) or (kind not in CLIENT_TYPES and kind not in self.server_types):
            client.send(nack("Not a message"))
            return None
        if kind not in CLIENT_TYPES:
            client.send(nack("Did not receive a client message"))
            self.lost(client, "EJECTED" if self.config.referee else "CONNECTION_LOST", f"sent {kind}")
            return None
        if client.state == CONNECTED and kind != "LOGIN":
            client.send(nack("Login message missing"))
            return None
        later: Awaitable[None] | None = None
        try:
            later = getattr(self, "_" + kind.lower())(client, message)
        except _Refused:
            pass
        if client.unlogged and client.state not in (CONNECTED, CLOSED):   # logged in: no longer unfinished
            client.unlogged = False
            self.addresses.logged_in(client.address)
        return later

    def _login(self, client: Client, m: dict[str, Any]) -> None:
        """LOGIN (eriantys.md 7.2), and ours: ``spectator``; ``secret`` (true: hand out a
        reconnect secret in the ACK; a string: the one handed out, to take back a held
        seat from anywhere); ``account`` (a web room account's credential). A held seat
        goes back only to a log-in that proves it is the connection that left
        (``server.lobby_identity``); a name alone is taken."""
        if client.state != CONNECTED:
            client.send(nack("Already logged in!"))
            return
        name = m.get("username")
        if not isinstance(name, str) or not valid_username(name):
            client.send(nack("Invalid username"))
            return
        spectator = m.get("spectator", False)
        if not isinstance(spectator, bool):
            client.send(nack("Invalid spectator: true or false"))
            return
        secret = m.get("secret")
        if secret is not None and secret is not True and not (isinstance(secret, str) and 0 < len(secret) <= MAX_SECRET):
            client.send(nack("Invalid secret: true, or the secret handed out at an earlier log-in"))
            return
        credential = m.get("account")
        if credential is not None:
            if self.config.relay_secret is None:
                client.send(nack("Invalid account credential: this lobby shares no secret with a web room "
                                 "(relaySecret)"))
                return
            if not valid_credential(self.config.relay_secret, name, credential):
                logger.info(f"{client.peer}: an invalid account credential for {name!r}")
                client.send(nack("Invalid account credential"))
                return
        account = credential is not None
        key = self.name_key(name)
        kept = self.collect.get(key)
        if kept is not None and kept[0].name == name and kept[0].proof.admits(
                account, secret if isinstance(secret, str) else None, client.own_address):
            self._collect(client, key, account, secret)
            return
        held = self.reserved.get(key)
        if held is not None and held.name == name and held.proof.admits(
                account, secret if isinstance(secret, str) else None, client.own_address):
            client.account = account
            client.secret = secret if isinstance(secret, str) else (new_secret() if secret is True else None)
            if held.room.referee is not None:
                self._return_to_seat(client, key)
            else:
                self._reconnect(client, key)
            return
        holder = self.names.get(key)
        if kept is not None and holder is None and held is None:
            held = kept[0]   # the name is held for its end to be collected
        if account and (isinstance(holder, Client) and not holder.account
                        or held is not None and not held.proof.account):
            self.accounts.add(key)   # the account's name from now on: a namesake without it is let go
            if isinstance(holder, Client):
                self._let_namesake_go(holder)
                holder = self.names.get(key)
        if holder is not None or held is not None or key in self.accounts and not account:
            client.send(nack("Username was already taken"))
            return
        if account:
            self.accounts.add(key)
        client.username, client.name_key, client.spectator = name, key, spectator
        client.account = account
        client.secret = new_secret() if secret is not None else None
        client.state = LOBBY
        self.names[key] = client
        self._ack_login(client)

    def _collect(self, client: Client, key: str, account: bool, secret: Any) -> None:
        """A log-in of a held seat whose game ended meanwhile (while the lobby was down, or
        the seat's connection lost): ACK, then what ended it; the client is in the lobby."""
        held, end = self.collect.pop(key)
        held.timer.cancel()
        client.account = account
        client.secret = secret if isinstance(secret, str) else (new_secret() if secret is True else None)
        client.username, client.name_key, client.state = held.name, key, LOBBY
        self.names[key] = client
        self._ack_login(client)
        for message in end:
            client.send(message)
        self._collected(held.room, (client,))

    @staticmethod
    def _ack_login(client: Client) -> None:
        """The ACK of a log-in: with the reconnect secret when the client asked for one."""
        client.send(ACK if client.secret is None else {"type": "ACK", "secret": client.secret})

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
            raise _Refused
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
            raise _Refused
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
            raise _Refused

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
        while self.room_ids:
            room_id = self.room_ids.pop(0)
            self.ids_drawn += 1
            if room_id not in self.rooms and room_id not in self.leaving:
                self._note_ids()
                return room_id
        while True:   # 7.3: uniform in 1000..9998 until free
            room_id = self.id_rng.randint(1000, 9998)
            self.ids_drawn += 1
            if room_id not in self.rooms and room_id not in self.leaving:
                self._note_ids()
                return room_id

    def _note_ids(self) -> None:
        """The journal counts the ids drawn: a lobby started again draws on from there
        (the same ids, in the same order, as if it had not stopped)."""
        if self.journal is not None:
            self.journal.note("ids_drawn", self.ids_drawn)

    def skip_ids(self, drawn: int) -> None:
        """Draw ``drawn`` ids (those a lobby drew before it stopped) and forget them."""
        for _ in range(drawn - self.ids_drawn):
            if self.room_ids:
                self.room_ids.pop(0)
            else:
                self.id_rng.randint(1000, 9998)
        self.ids_drawn = max(self.ids_drawn, drawn)

    def _seat(self, room: Room, member: Client | HouseBot) -> None:
        """Put ``member`` in the next seat and tell the room (6.6.1)."""
        seat = len(room.members)
        fields = room.hosted.events.seat_fields if room.hosted.events is not None else _no_fields
        for other, name in enumerate(room.usernames):
            member.send({"type": "ADD_PLAYER", "username": name, "position": other, **fields(other, room.players)})
        room.members.append(member)
        room.usernames.append(member.username or "")
        room.listing = None
        self._listings.clear()
        member.room, member.seat = room, seat
        if isinstance(member, Client):
            member.state = IN_ROOM
        room.broadcast([{"type": "ADD_PLAYER", "username": member.username, "position": seat,
                         **fields(seat, room.players)}])
        self.touch(room)

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
            self._join_failed(client)
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
        fields = room.hosted.events.seat_fields if room.hosted.events is not None else _no_fields
        for seat, name in enumerate(room.usernames):
            client.send({"type": "ADD_PLAYER", "username": name, "position": seat, **fields(seat, room.players)})
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

    def _get_game_state(self, client: Client, _m: dict[str, Any]) -> None:
        room = client.room
        if room is None:
            client.send(nack("Not yet in a room!"))
        elif not room.started:
            client.send(nack("The game has not started yet"))
        elif room.referee is not None:
            if client.seat < 0:
                client.send(*room.referee.views.spectator_message(client.pictures))
            else:
                client.send(room.referee.view_message(client.seat))
        else:
            client.send(*self._game_state(room))

    def _game_state(self, room: Room) -> tuple[dict[str, Any], bytes]:
        """GAME_STATE for the room's game, encoded once per state of the game."""
        if room.snapshot is None or room.snapshot[0] is not room.game:
            assert room.hosted.events is not None
            message = {"type": "GAME_STATE", "state": room.hosted.events.snapshot(room.game)}
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
        if client.seat < 0:
            client.send(nack("Spectators do not play"))
            return
        if room.hosted.events is None:
            client.send(nack(f"{room.hosted.name} is played by REPLY to each CALL"))
            return
        self._apply_event(room, client.seat, m, client)

    def _apply_event(self, room: Room, seat: int, m: dict[str, Any], client: Client | None) -> None:
        """The event of ``seat`` (from ``client``, or from a house bot): the game's rules,
        then its broadcasts and the reply (7.4), and the policy for a refused one."""
        game = room.hosted.events
        assert game is not None
        self.events += 1
        in_turn = game.current(room.game) == seat
        state = room.game
        room.game, broadcasts, reply = game.step(room.game, seat, m)
        if reply.get("type") == "ACK":
            if room.game is not state:
                self.note(room, "step", {"s": seat, "e": m})
            room.last = broadcasts
            room.broadcast(broadcasts)
            if client is not None:
                client.send(reply)
            if self.latencies is not None:
                self.latencies.append(time.perf_counter() - self.arrived)
            self._after_change(room, accepted=True)
            return
        if client is None:   # a house bot's event refused: the bot is out
            logger.info(f"room {room.id}: bot {room.usernames[seat]}'s event refused: {reply.get('errorMessage')}")
            self._eject(room, seat, "EJECTED")
            return
        client.send(reply)
        if not in_turn or game.suspended(room.game):
            return   # a race, not a rule break (4.4)
        if self.config.referee:
            self._eject(room, seat, "EJECTED")
        elif self.config.max_nacks_per_turn:
            room.nacks += 1
            # 7.8: maxNacksPerTurn is the number of invalid events *tolerated* per turn (the
            # referee policy, which tolerates none, could not be written as a count since 0
            # means unlimited), so the one beyond it is what ends the player's game.
            if room.nacks > self.config.max_nacks_per_turn:
                self.lost(client, "TIMEOUT", f"{room.nacks} invalid events this turn")

    def _reply(self, client: Client, m: dict[str, Any]) -> None:
        referee = self._referee_of(client)
        if referee is not None:
            referee.reply(client, m)

    def _check(self, client: Client, m: dict[str, Any]) -> Awaitable[None] | None:
        referee = self._referee_of(client)
        return referee.check(client, m) if referee is not None else None

    def _referee_of(self, client: Client) -> RefereeGame | None:
        """The referee of the room the seat of ``client`` plays by calls (a ``REPLY`` or a
        ``CHECK`` goes to it); None, and the NACK sent, otherwise."""
        room = client.room
        if room is None:
            client.send(nack("Not yet in a room!"))
        elif not room.started:
            client.send(nack("The game has not started yet"))
        elif client.seat < 0:
            client.send(nack("Spectators do not play"))
        elif room.referee is None:
            client.send(nack(f"{room.hosted.name} is played by GAME_EVENT"))
        else:
            return room.referee
        return None

    # -- rooms ------------------------------------------------------------------------

    def _after_change(self, room: Room, accepted: bool = False, elapsed: float = 0.0) -> None:
        """After the game changed: end the room at END_GAME, else (re)start the turn timer
        and the NACK count for whoever the game now waits for; a house bot's turn is
        taken once the loop has handled what is at hand."""
        game = room.hosted.events
        assert game is not None
        if room.views is not None:
            self._send_views(room)
        if game.finished(room.game):
            room.ended = [self._game_state(room)[0], *[m for m in room.last if m.get("type") == "END_GAME"]]
            self._dissolve(room)
            return
        current = game.current(room.game)
        turn = game.turn(room.game) if game.turn is not None else current
        if current != room.current or turn != room.turn:
            room.nacks = 0
        room.turn = turn
        restart = current != room.current or accepted or room.turn_timer is None
        room.current = current
        waiting = current is not None and not game.suspended(room.game)
        if room.turn_timer is not None and (restart or not waiting):
            room.turn_timer.cancel()   # a suspended game waits for nobody
            room.turn_timer = None
        if current is not None and waiting and isinstance(room.members[current], HouseBot):
            asyncio.get_running_loop().call_soon(self._house_turn, room, room.game)
        elif restart and waiting and current is not None and self._turn_limit(room, current):
            room.turn_timer = asyncio.get_running_loop().call_later(   # ``elapsed``: of a turn resumed
                max(0.0, self._turn_limit(room, current) - elapsed), self._turn_timeout, room, current)

    def _send_views(self, room: Room) -> None:
        """The game as it is now to every seat and spectator that asked for views
        (``server.event_views``): a person's seat the game waits for with its moves."""
        views = room.views
        assert views is not None
        for member in room.members:
            if isinstance(member, Client) and member.views and member.room is room:
                message = views.message(room.game, member.seat, member.pictures, member.person)
                limit = self._turn_limit(room, member.seat)
                if "moves" in message and limit:
                    message["limit"] = limit   # the turn's timer starts now
                member.send(message)
        for watcher in room.watchers:
            if watcher.views:
                watcher.send(views.message(room.game, None, watcher.pictures))

    def _house_turn(self, room: Room, state: Any) -> None:
        """A house bot's event, if the game still waits for it in the same state."""
        game = room.hosted.events
        if self.rooms.get(room.id) is not room or room.game is not state or game is None:
            return
        seat = game.current(state)
        bot = room.members[seat] if seat is not None else None
        if seat is None or not isinstance(bot, HouseBot):
            return
        try:
            event = bot.player.act(game.snapshot(state))
        except Exception as exc:   # a built-in's bug (or a silent kind): the bot is out
            logger.debug("room %s: house bot %s failed", room.id, bot.username, exc_info=True)
            logger.info(f"room {room.id}: bot {bot.username} failed: {type(exc).__name__}: {exc}")
            self._eject(room, seat, "EJECTED")
            return
        if not isinstance(event, dict):
            self._eject(room, seat, "EJECTED")
            return
        self._apply_event(room, seat, {**event, "type": game.event_type}, None)

    def _turn_limit(self, room: Room, seat: int) -> float:
        """The seconds seat ``seat`` has for its turn in a room played by events (0: no
        limit): ``turnTimeoutSeconds``; for a person's seat ``personTimeoutSeconds``, else
        the game's time for a person (never less than the turn's)."""
        turn = self.config.turn_timeout
        member = room.members[seat] if 0 <= seat < len(room.members) else None
        if not (isinstance(member, Client) and member.person):
            return turn
        if self.config.person_timeout is not None:
            return self.config.person_timeout
        person = room.hosted.descriptor.person_limit if room.hosted.descriptor is not None else None
        return turn if person is None else max(turn, person)

    def _turn_timeout(self, room: Room, seat: int) -> None:
        room.turn_timer = None
        game = room.hosted.events
        if self.rooms.get(room.id) is not room or game is None or game.current(room.game) != seat:
            return
        member = room.members[seat]
        why = f"no valid event within {self._turn_limit(room, seat):g} s"
        if self.config.referee:
            self._eject(room, seat, "TIMEOUT", why)
        elif isinstance(member, Client) and member.person:
            # a person is told, and stays in the lobby; the room closes as for any departure (7.5)
            member.send({"type": "PLAYER_DISCONNECT", "username": member.username, "roomClosed": True,
                         "reason": "TIMEOUT", "message": why})
            logger.info(f"{member.username}: {why}")
            self._close_room(room, member, "TIMEOUT")
        elif isinstance(member, Client):
            self.lost(member, "TIMEOUT", why)

    def _eject(self, room: Room, seat: int, reason: str, why: str | None = None) -> None:
        """7.7: the seat's team is eliminated, the others are told, its connection closed
        (a person's is not: it is told why, and is back in the lobby)."""
        game = room.hosted.events
        assert game is not None
        member = room.members[seat]
        room.members[seat] = None
        if isinstance(member, HouseBot):
            self._release(member)
        elif member is not None and member.person:
            member.room, member.seat, member.person, member.views, member.state = None, -1, False, False, LOBBY
            member.send({"type": "PLAYER_DISCONNECT", "username": member.username, "roomClosed": False,
                         "reason": reason, "message": why or f"ejected ({reason})"})
            logger.info(f"{member.username}: ejected ({reason})")
        elif member is not None:
            member.room, member.seat, member.state = None, -1, LOBBY
            self.lost(member, reason, f"ejected ({reason})")
        self.note(room, "eject", {"s": seat, "reason": reason})
        self.touch(room)
        room.game, broadcasts = game.eject(room.game, seat, reason)
        room.last = broadcasts
        room.broadcast(broadcasts)
        self._after_change(room)

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

    def left(self) -> None:
        """Ended rooms whose end every reader's connection has written (or lost) leave
        the journal."""
        for room_id, readers in list(self.leaving.items()):
            if all(client.written >= batch or client.state == CLOSED for client, batch in readers):
                del self.leaving[room_id]
                if self.journal is not None and room_id not in self.rooms:
                    self.journal.drop(room_id)

    def release(self, bot: HouseBot) -> None:
        """A house bot leaves (``_release``)."""
        self._release(bot)

    def _release(self, bot: HouseBot) -> None:
        """A house bot leaves: its name is free again."""
        key = self.name_key(bot.username)
        if self.names.get(key) is bot:
            del self.names[key]
        bot.room, bot.seat = None, -1

    # -- what a room played by calls asks of the lobby (server.referee_rooms) ---------------

    def tell(self, room: Room, message: dict[str, Any]) -> None:
        """``message`` to everybody in the room."""
        room.broadcast([message])

    def encode(self, message: dict[str, Any]) -> bytes:
        return _encode(message)

    def unseat(self, room: Room, seat: int) -> None:
        """The referee ejected ``seat``: its member is back in the lobby (a house bot is
        gone); a room with nobody left to tell is closed."""
        member = room.members[seat] if seat < len(room.members) else None
        self._drop_hold(room, seat)
        if member is None:   # a seat that left, or was held for its person and not taken back
            asyncio.get_running_loop().call_soon(self._close_if_abandoned, room, room.usernames[seat], "EJECTED")
            return
        room.members[seat] = None
        self.touch(room)
        if isinstance(member, HouseBot):
            self._release(member)
        elif member.room is room:
            member.room, member.seat, member.person, member.views = None, -1, False, False
            if member.state == IN_ROOM:
                member.state = LOBBY
            self._back_in_lobby(member)
        # not from inside the referee: the room's end stops it
        asyncio.get_running_loop().call_soon(self._close_if_abandoned, room, member.username or "", "EJECTED")

    def referee_over(self, room: Room, outcome: dict[str, Any]) -> None:
        """The referee ended the game: ``END_GAME`` to the room, which then ceases to exist."""
        if self.rooms.get(room.id) is not room:
            return
        logger.info(f"room {room.id}: game over: " + json.dumps(outcome.get("winners"), ensure_ascii=False))
        room.ended = [outcome]
        assert room.referee is not None
        # each seat's view of the last state, for a held seat that collects the end later
        room.finals = {seat: room.referee.view_message(seat) for seat in range(len(room.usernames))}
        room.broadcast([outcome])
        self._dissolve(room)

    # -- resilience mode (7.6) --------------------------------------------------------

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
        room.game, broadcasts = _events(room).disconnect(room.game, seat, self.config.solo_timeout)
        room.last = broadcasts
        room.broadcast(broadcasts)
        self._suspension(room)
        self._after_change(room)

    def _suspension(self, room: Room) -> None:
        game = _events(room)
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

    def _solo_over(self, room: Room) -> None:
        room.solo_timer = None
        if self.rooms.get(room.id) is not room:
            return
        if all(member is None for member in room.members):
            logger.info(f"room {room.id}: nobody came back; closed")
            self._dissolve(room)
            return
        self.note(room, "abandon", {})
        room.game, broadcasts = _events(room).abandon(room.game)
        room.last = broadcasts
        room.broadcast(broadcasts)
        self._after_change(room)

    def _reconnect(self, client: Client, key: str) -> None:
        restored = self.reserved[key].restored
        room, seat = self._take_back(client, key)
        if not room.started:   # a waiting room, journaled before a restart: the seat as it was
            room.members[seat] = client
            self._ack_login(client)
            fields = room.hosted.events.seat_fields if room.hosted.events is not None else _no_fields
            for other, name in enumerate(room.usernames):
                client.send({"type": "ADD_PLAYER", "username": name, "position": other,
                             **fields(other, room.players)})
            return
        broadcasts: list[dict[str, Any]] = []
        if not restored:   # a restart is no departure the game saw: nothing to undo
            self.note(room, "reconnect", {"s": seat})
            room.game, broadcasts = _events(room).reconnect(room.game, seat)
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

    # -- a held seat of a room played by calls (docs/lobby.md, "Coming back") -------------

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

    # -- shutting down -----------------------------------------------------------------

    async def stop(self) -> None:
        """Stop: the journal committed and closed first (what the teardown does to the
        rooms is no change of theirs: a restart resumes them), then every connection."""
        if self.journal is not None:
            self.left()
            try:
                self.journal.close(clean=True)
            except JournalError as exc:
                logger.error("%s", exc)
        if self._alive_task is not None:
            self._alive_task.cancel()
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
        for room in list(self.rooms.values()):
            room.cancel_timers()
            if room.referee is not None and not room.referee.over:
                room.referee.stop()
        if tasks:
            await asyncio.wait(tasks, timeout=_LINGER_SECONDS + 1)
        for task in tasks:
            task.cancel()
        if self._thinkers is not None:
            self._thinkers.shutdown(wait=False, cancel_futures=True)


async def serve_lobby(games: GameDescriptor[Any, Any] | LobbyGame | Sequence[GameDescriptor[Any, Any]], config: LobbyConfig,
                      debug_log: Callable[[str], None] | None = None,
                      ready: Callable[[int], None] | None = None) -> None:
    """Run a lobby of ``games`` on ``config.host:config.port`` until cancelled or sent
    SIGTERM (then it stops cleanly: its journal committed and closed, every connection
    closed, within a few seconds)."""
    lobby = Lobby(games, config, debug_log)
    server = await lobby.start(config.host, config.port)
    port = server.sockets[0].getsockname()[1]
    logger.info(f"lobby listening on {config.host}:{port}")
    logger.info(f"lobby: at most {lobby.max_connections or 'any number of'} connections at once (file-handle limit "
                f"{file_limit()}), {config.max_connections_per_address or 'any number'} from one address of which "
                f"{lobby.addresses.max_unlogged or 'any number'} not logged in, each logged in within "
                f"{min(t for t in (config.login_timeout, config.login_within, float('inf')) if t > 0):g} s")
    if ready is not None:
        ready(port)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGTERM, stopping.set)
    except (NotImplementedError, RuntimeError, ValueError):   # not the main thread (a test's lobby)
        pass
    try:
        await stopping.wait()
        logger.info(f"lobby stopping (SIGTERM): {len(lobby.rooms)} room(s)"
                    + (" kept in the journal" if lobby.journal is not None else " closed"))
    finally:
        try:
            loop.remove_signal_handler(signal.SIGTERM)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
        await lobby.stop()
