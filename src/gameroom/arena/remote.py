"""Remote bots: programs that run on their owners' machines and connect to the arena.

A participant registers a remote bot and is shown its secret token once (only its SHA-256
is stored). The bot connects to the arena's remote port (``remote`` in arena.toml) and
signs up as to any server of its game, with the token where its name goes; the arena
answers as the game's greeting says. A signed-up connection waits in the *hall* (one per
bot: a newer connection replaces an older one) until the ladder seats it in a game — one
game per connection, as on every gameroom server: the bot connects again for the next.

Sign-up is bounded like the servers' (``server.signup``): a first byte and a complete
value within ``[limits] head_seconds`` (:data:`SIGNUP_SECONDS` by default), at most
:data:`SIGNUP_MAX_VALUE_BYTES` buffered; an unknown token closes the connection. The
connections are admitted as the pages' are (``server.admission``, the ``[limits]``
figures): at most ``connections_per_address`` from one address and, of them,
``unfinished_per_address`` not yet signed up, so one address's silent connections never
turn away another's bot (300 of them did, under one cap of 256 for everyone); the total is
kept under the file-handle limit. A waiting connection that closes leaves the hall.

Games with a remote bot are played in the arena's own process (its connection lives
here), on a thread of their own (``league.table.play_table`` with the remote seats given);
calls to it are timed as any remote player's (``remote.blocking``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from gameroom.arena.tables import EntryRow, VersionRow, digest
from gameroom.core.match import Seat
from gameroom.remote.connection import Connection
from gameroom.remote.jsonstream import DEFAULT_MAX_VALUE_BYTES
from gameroom.server.admission import Admission, connection_cap

__all__ = ["Hall", "SIGNUP_SECONDS", "MAX_CONNECTIONS", "SIGNUP_MAX_VALUE_BYTES"]

log = logging.getLogger("gameroom.arena")

SIGNUP_SECONDS = 10.0
SIGNUP_MAX_VALUE_BYTES = 4096
MAX_CONNECTIONS = 256
WATCH_SECONDS = 0.5


class Hall:
    """Remote bots' waiting connections (see the module)."""

    def __init__(self, engine: Any, greeting_of: Callable[[str], Any], changed: Callable[[], None]) -> None:
        from gameroom.league.programs import network_loop

        self.engine = engine
        self.greeting_of = greeting_of   # competition -> its game's protocol greeting
        self.changed = changed
        self.loop = network_loop()
        self.waiting: dict[str, Connection] = {}   # bot (version name) -> connection
        self.lock = threading.Lock()
        self.admission = Admission(connection_cap(MAX_CONNECTIONS), MAX_CONNECTIONS // 4, 16)
        self.signup_seconds = SIGNUP_SECONDS
        self.server: asyncio.AbstractServer | None = None
        self.port: int | None = None

    def listen(self, host: str, port: int) -> int:
        """Listen on host:port (0: a free port); the port."""
        async def start() -> int:
            self.server = await asyncio.start_server(self._accepted, host, port, reuse_address=True, backlog=64)
            return self.server.sockets[0].getsockname()[1]

        self.port = asyncio.run_coroutine_threadsafe(start(), self.loop).result()
        return self.port

    def bound(self, admission: Admission, signup_seconds: float) -> None:
        """Admit connections by ``admission`` from now on, each signing up within
        ``signup_seconds`` (the arena's ``[limits]``)."""
        self.admission, self.signup_seconds = admission, signup_seconds

    @property
    def open(self) -> int:
        """Connections admitted and not yet seated or gone."""
        return self.admission.open

    def close(self) -> None:
        async def stop() -> None:
            if self.server is not None:
                self.server.close()
            for connection in list(self.waiting.values()):
                connection.close()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = Connection(reader, writer, SIGNUP_MAX_VALUE_BYTES)
        admission = self.admission
        place = admission.enter(writer.get_extra_info("peername"))
        if isinstance(place, str):
            log.info("remote connection refused", extra={"fields": {"peer": str(connection.peer), "reason": place}})
            connection.close()
            return
        try:
            await self._sign_up(connection, place)
        except Exception as exc:   # whatever one connection does, the hall goes on
            # the traceback only at DEBUG: a bad client is routine, a bug of ours is not
            log.info("remote sign-up refused", exc_info=log.isEnabledFor(logging.DEBUG),
                     extra={"fields": {"peer": str(connection.peer), "reason": f"{type(exc).__name__}: {exc}"[:200]}})
            connection.close()
        finally:
            admission.leave(place)

    async def _sign_up(self, connection: Connection, place: Any) -> None:
        message = await connection.read_value(self.signup_seconds, self.signup_seconds)
        place.unfinished = False
        token = message if isinstance(message, str) else None
        found = await asyncio.to_thread(self._bot_of, token, message)
        if found is None:
            log.info("remote sign-up refused", extra={"fields": {"peer": str(connection.peer),
                                                                 "reason": "unknown token"}})
            connection.close()
            return
        bot, competition = found
        greeting = self.greeting_of(competition)
        if greeting.ack is not None:
            await connection.send(greeting.ack)
        connection.max_value_bytes = DEFAULT_MAX_VALUE_BYTES
        with self.lock:
            older = self.waiting.get(bot)
            self.waiting[bot] = connection
        if older is not None:
            older.close()
        log.info("remote bot waiting", extra={"fields": {"bot": bot}})
        self.changed()
        while True:   # until it is seated, or hangs up first (then it leaves the hall)
            await asyncio.sleep(WATCH_SECONDS)
            with self.lock:
                if self.waiting.get(bot) is not connection:
                    return   # seated, or replaced by a newer connection
                if connection.at_eof or connection.closed:
                    del self.waiting[bot]
                    connection.close()
                    self.changed()
                    return

    def _bot_of(self, token: str | None, message: Any) -> tuple[str, str] | None:
        """(the playing or qualifying version's bot, its competition) of a token."""
        candidates = [token] if token is not None else []
        if not candidates:   # a game whose sign-up message wraps the name
            for name in ("name", "username"):
                if isinstance(message, dict) and isinstance(message.get(name), str):
                    candidates.append(message[name])
        for candidate in candidates:
            if not 8 <= len(candidate) <= 100:
                continue
            with Session(self.engine) as session:
                entry = session.scalar(select(EntryRow).where(EntryRow.token_hash == digest(candidate)))
                if entry is None:
                    continue
                version = session.scalar(select(VersionRow).where(VersionRow.entry_id == entry.id,
                                                                  VersionRow.status.in_(("active", "qualifying")))
                                         .order_by(VersionRow.number.desc()))
                if version is not None:
                    return version.bot, entry.competition
        return None

    def ready(self) -> set[str]:
        """The bots with a connection waiting."""
        with self.lock:
            return set(self.waiting)

    def take(self, bot: str) -> Connection | None:
        with self.lock:
            return self.waiting.pop(bot, None)

    def seat(self, protocol: Any, connection: Connection, name: str) -> Seat:
        """A seat over a waiting connection (made on the hall's loop, where it signed up)."""
        from gameroom.remote.proxy_player import remote_seat

        async def make() -> Seat:
            return remote_seat(protocol, connection, self.loop, name)

        return asyncio.run_coroutine_threadsafe(make(), self.loop).result(30)
