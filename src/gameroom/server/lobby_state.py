"""What every part of the lobby shares (:class:`LobbyState`): its games, configuration,
connections, names, rooms, held seats and journal, and the few acts on them all parts
use (journaling a room, a name's key, the log-in's ACK); and the room ids it draws
(:class:`RoomIds`).

The lobby's behaviour is built on this state in layers, each a class of its own module
that extends the one below (``server.lobby_departures``, ``server.lobby_play``,
``server.lobby_rooms``, ``server.lobby_login``; ``server.lobby.Lobby`` is all of them):
a departure, a game's step and a seating all change the same rooms, seats and names at
once, within the handling of one message, so the state stays one object's rather than
being handed between parts.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Awaitable, Callable, Sequence

from gameroom.core.game import GameDescriptor
from gameroom.core.lobbygame import LobbyGame
from gameroom.server.journal import TICK, Journal, JournalError
from gameroom.server.journal_resume import room_row
from gameroom.server.lobby_clients import Connections
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.lobby_games import HouseBot, hosted_games
from gameroom.server.lobby_identity import Held
from gameroom.server.lobby_limits import username_key
from gameroom.server.lobby_members import ACK, CLOSED, Client, Room

__all__ = ["LobbyState", "RoomIds"]

logger = logging.getLogger(__name__)

_THINKERS = 4   # worker threads of house bots (rooms played by calls)


class RoomIds:
    """The ids of new rooms: the configured ones first (test hooks), then drawn uniformly
    in 1000..9998 (7.3) until one is free; counted, so that a lobby started again from its
    journal draws on from where it stopped."""

    def __init__(self, config: LobbyConfig) -> None:
        self.listed = list(config.room_ids)
        # Without a seed, room ids come from the system's generator: ids of private rooms must
        # not be predictable from the time (failed joins are throttled besides, 7.3 keeps
        # ids within 1000..9998).
        self.rng: random.Random = (random.Random(config.seed) if config.seed is not None
                                   else secrets.SystemRandom())
        self.drawn = 0   # ids drawn (the journal's, to draw on from there)

    def draw(self, taken: Callable[[int], bool]) -> int:
        """A new room's id, one that is not ``taken``."""
        while self.listed:
            room_id = self.listed.pop(0)
            self.drawn += 1
            if not taken(room_id):
                return room_id
        while True:   # 7.3: uniform in 1000..9998 until free
            room_id = self.rng.randint(1000, 9998)
            self.drawn += 1
            if not taken(room_id):
                return room_id

    def skip(self, drawn: int) -> None:
        """Draw ``drawn`` ids (those a lobby drew before it stopped) and forget them."""
        for _ in range(drawn - self.drawn):
            if self.listed:
                self.listed.pop(0)
            else:
                self.rng.randint(1000, 9998)
        self.drawn = max(self.drawn, drawn)


class LobbyState(ABC):
    """Every connection and room of one server, for one game or several, and what the
    parts of the lobby do with them all.

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
        self.connections = Connections(self, config)
        self.clients: set[Client] = self.connections.clients   # the same set: every connection
        self.addresses = self.connections.addresses            # the same book: each address's quotas
        self.names: dict[str, Client | HouseBot] = {}   # username_key -> its connection (or house bot)
        # resilience, and a held seat of a room played by calls: username_key -> the hold
        # (server.lobby_identity: its room, seat, grace timer, name, settings and proof)
        self.reserved: dict[str, Held] = {}
        self.accounts: set[str] = set()   # username keys of the web room's accounts (logged in with a credential)
        self.rooms: dict[int, Room] = {}
        self.room_ids = RoomIds(config)
        self._listings: dict[tuple[Any, ...], bytes] = {}   # filters -> PUBLIC_ROOMS, encoded
        self.base_seed = config.seed if config.seed is not None else time.time_ns() % (1 << 32)
        self.games_started = 0
        self.events = 0                 # game events handled, for benchmarks
        self.calls = 0                  # CALLs sent by the referees of rooms played by calls, likewise
        self.drawings = 0               # pictures the referees of rooms played by calls drew, likewise
        self.slices: list[float] | None = None   # processor seconds each referee held the loop, when measured
        self.arrived = 0.0              # when the bytes being handled arrived
        self.latencies: list[float] | None = None   # event arrival -> reply queued, when measured
        self._thinkers: ThreadPoolExecutor | None = None
        self.journal: Journal | None = None   # server.journal, opened by start() when configured
        self._alive_task: asyncio.Task[Any] | None = None
        self.collect: dict[str, tuple[Held, list[dict[str, Any]]]] = {}   # held seats of ended games: their end
        # ended rooms kept in the journal until their end is written: id -> (reader, its batch)
        self.leaving: dict[int, list[tuple[Client, int]]] = {}

    # -- what a connection asks of its lobby (server.lobby_members.Host) -------------------

    @abstractmethod
    def handle(self, client: Client, message: Any) -> Awaitable[None] | None:
        """Handle one message of ``client`` (``server.lobby.Lobby.handle``)."""

    @abstractmethod
    def lost(self, client: Client, reason: str, why: str) -> None:
        """The connection is gone or must go (``server.lobby_departures.Departures.lost``)."""

    def forget(self, client: Client) -> None:
        """The connection is over: it no longer counts against its address."""
        self.connections.forget(client)

    async def join_turn(self, client: Client) -> None:
        """Before an ACCESS_ROOM is looked at: wait while the client or its address has
        failed too many joins lately (``Connections.join_turn``)."""
        await self.connections.join_turn(client)

    # -- the journal -------------------------------------------------------------------

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

    def left(self) -> None:
        """Ended rooms whose end every reader's connection has written (or lost) leave
        the journal."""
        for room_id, readers in list(self.leaving.items()):
            if all(client.written >= batch or client.state == CLOSED for client, batch in readers):
                del self.leaving[room_id]
                if self.journal is not None and room_id not in self.rooms:
                    self.journal.drop(room_id)

    def thinkers(self) -> ThreadPoolExecutor:
        """The worker threads on which house bots of rooms played by calls think (made on
        first use; a few: their searches share the interpreter with the loop)."""
        if self._thinkers is None:
            self._thinkers = ThreadPoolExecutor(_THINKERS, thread_name_prefix="house-bot")
        return self._thinkers

    # -- names -------------------------------------------------------------------------

    def name_key(self, name: str) -> str:
        """Names with one key are one user (case-insensitive unless configured otherwise)."""
        return name if self.config.case_sensitive_usernames else username_key(name)

    @staticmethod
    def _ack_login(client: Client) -> None:
        """The ACK of a log-in: with the reconnect secret when the client asked for one."""
        client.send(ACK if client.secret is None else {"type": "ACK", "secret": client.secret})
