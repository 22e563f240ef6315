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
kept under the file-handle limit. A connection over them is refused at the door
(``server.admission.Gate``): closed without a word before anything is made for it, one log
line for an address's burst. A waiting connection that closes leaves the hall.

Remote bots that stay: with ``remote = "HOST:0"`` the port is chosen once and kept in the
database (``arena_settings``), so a restarted arena listens where its bots connect; a
port kept but taken by another program stops the start with one line saying so. The hall
remembers when each bot's connection was last seen and what last happened to it (hung
up while waiting, replaced by a newer connection, refused because its bot is disabled or
has no version playing, the arena stopped): kept on the entry (``seen_at``, ``note``), so
its page and the standings say whether it is connected and, when it is not, why.

Games with a remote bot are played in the arena's own process (its connection lives
here), on a thread of their own (``league.table.play_table`` with the remote seats given);
calls to it are timed as any remote player's (``remote.blocking``).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from gameroom.arena.tables import EntryRow, VersionRow, digest, now, set_setting, setting
from gameroom.core.errors import GameroomError
from gameroom.core.match import Seat
from gameroom.remote.connection import Connection
from gameroom.remote.jsonstream import DEFAULT_MAX_VALUE_BYTES
from gameroom.server.admission import Admission, Connected, Gate, Listening, Place, Refusal, connection_cap
from gameroom.server.lobby_limits import address_key

__all__ = ["Hall", "HallError", "Bearer", "SIGNUP_SECONDS", "MAX_CONNECTIONS", "SIGNUP_MAX_VALUE_BYTES",
           "PORT_SETTING"]

log = logging.getLogger("gameroom.arena")

SIGNUP_SECONDS = 10.0
SIGNUP_MAX_VALUE_BYTES = 4096
MAX_CONNECTIONS = 256
WATCH_SECONDS = 0.5
PORT_SETTING = "remote_port"
"""The setting that keeps the port chosen for ``remote = "HOST:0"``."""
SEEN_WRITE_SECONDS = 30.0
"""A connection seen again within this of the stored time is not written again (the
page's "last seen" is the hall's own, to the second, while the arena runs)."""


class HallError(GameroomError):
    """The hall cannot listen where it must (the message says why)."""


@dataclass(frozen=True)
class Bearer:
    """The entry whose token a sign-up bears: the version that plays (``bot``), or why none
    may (``refusal``)."""

    entry: str
    competition: str
    bot: str | None = None
    refusal: str | None = None


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
        # refused at the door: nothing made, nothing said (a sign-up has no refusal), one line a burst
        self.gate = Gate(self._admit, log)
        self.signup_seconds = SIGNUP_SECONDS
        self.server: Listening | None = None
        self.port: int | None = None
        self.entry_of: dict[str, str] = {}          # bot (version) -> its entry
        self.seen: dict[str, datetime] = {}         # entry -> when its connection was last seen
        self.notes: dict[str, str] = {}             # entry -> what last happened to its connection
        self._written: dict[str, datetime] = {}     # entry -> the seen_at last written

    def listen(self, host: str, port: int) -> int:
        """Listen on host:port; the port. Port 0: the port chosen the first time, kept in
        the database (a free one, then kept)."""
        kept = setting(self.engine, PORT_SETTING) if port == 0 else None
        chosen = int(kept) if kept is not None and kept.isdigit() else port

        async def start() -> int:
            self.server = await self.gate.listen(host, chosen, backlog=64)
            port: int = self.server.sockets[0].getsockname()[1]
            return port

        try:
            self.port = asyncio.run_coroutine_threadsafe(start(), self.loop).result()
        except OSError as exc:
            if kept is not None and exc.errno == errno.EADDRINUSE:
                raise HallError(f"remote: the port chosen for remote bots before, {chosen} (kept so that they "
                                f"reach it after a restart), is in use by another program: free it, or give "
                                f"remote = \"{host}:PORT\"") from None
            raise HallError(f"remote: cannot listen on {host}:{chosen}: {exc.strerror or exc}") from None
        if port == 0 and kept is None:
            set_setting(self.engine, PORT_SETTING, str(self.port))
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
        """Stop listening and hang up every waiting connection (the arena stops: each bot's
        page says so)."""
        async def stop() -> list[str]:
            if self.server is not None:
                self.server.close()
            with self.lock:
                waiting, self.waiting = dict(self.waiting), {}
            for connection in waiting.values():
                connection.close()
            return list(waiting)

        bots = asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        for bot in bots:
            self._note(self.entry_of.get(bot), f"the arena stopped at {_clock()}: connect again when it is back "
                                               f"(port {self.port} stays)")

    # -- what the pages show -------------------------------------------------------------

    def status(self, entry: str, bots: set[str]) -> dict[str, Any]:
        """An entry's connection as the hall knows it: ``waiting`` (True when one of its
        ``bots`` waits here), ``seen`` (ISO time or None) and ``note``."""
        with self.lock:
            waiting = any(bot in self.waiting for bot in bots)
        seen = self.seen.get(entry)
        return {"waiting": waiting, "seen": seen.isoformat() if seen else None, "note": self.notes.get(entry)}

    def turn_away(self, bots: set[str], note: str) -> None:
        """Hang up the waiting connections of ``bots`` (their entry disabled), with why."""
        with self.lock:
            found = [(bot, self.waiting.pop(bot)) for bot in bots if bot in self.waiting]
        for bot, connection in found:
            self.loop.call_soon_threadsafe(connection.close)
            self._note(self.entry_of.get(bot), note)
        if found:
            self.changed()

    def _note(self, entry: str | None, note: str | None, seen: bool = True) -> None:
        """Remember (and keep on the entry) that its connection was seen now, and what
        happened (None: nothing to tell)."""
        if entry is None:
            return
        moment = now()
        if seen:
            self.seen[entry] = moment
        if note is not None:
            self.notes[entry] = note
        written = self._written.get(entry)
        if note is None and written is not None and moment - written < timedelta(seconds=SEEN_WRITE_SECONDS):
            return
        self._written[entry] = moment
        with Session(self.engine) as session, session.begin():
            row = session.scalar(select(EntryRow).where(EntryRow.name == entry))
            if row is not None:
                if seen:
                    row.seen_at = moment
                if note is not None:
                    row.note = note

    def _admit(self, peer: object) -> Refusal | Connected:
        """A new connection at the door (``server.admission.Gate``): a place of the
        admission, or refused before anything is made for it."""
        admission = self.admission
        place = admission.enter(peer)
        if isinstance(place, str):
            return Refusal(address_key(peer), place)
        return lambda reader, writer: self._accepted(reader, writer, admission, place)

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, admission: Admission,
                        place: Place) -> None:
        connection = Connection(reader, writer, SIGNUP_MAX_VALUE_BYTES)
        try:
            await self._sign_up(connection, place)
        except Exception as exc:   # whatever one connection does, the hall goes on
            # the traceback only at DEBUG: a bad client is routine, a bug of ours is not
            log.info("remote sign-up refused", exc_info=log.isEnabledFor(logging.DEBUG),
                     extra={"fields": {"peer": str(connection.peer), "reason": f"{type(exc).__name__}: {exc}"[:200]}})
            connection.close()
        finally:
            admission.leave(place)

    async def _sign_up(self, connection: Connection, place: Place) -> None:
        message = await connection.read_value(self.signup_seconds, self.signup_seconds)
        place.unfinished = False
        token = message if isinstance(message, str) else None
        found = await asyncio.to_thread(self._bearer, token, message)
        if found is None or found.bot is None:
            reason = "unknown token" if found is None else found.refusal
            log.info("remote sign-up refused", extra={"fields": {"peer": str(connection.peer), "reason": reason}})
            if found is not None:
                await asyncio.to_thread(self._note, found.entry, f"refused at {_clock()}: {found.refusal}")
                self.changed()
            connection.close()
            return
        bot, competition = found.bot, found.competition
        self.entry_of[bot] = found.entry
        greeting = self.greeting_of(competition)
        if greeting.ack is not None:
            await connection.send(greeting.ack)
        connection.max_value_bytes = DEFAULT_MAX_VALUE_BYTES
        with self.lock:
            older = self.waiting.get(bot)
            self.waiting[bot] = connection
        if older is not None:
            older.close()
        await asyncio.to_thread(self._note, found.entry,
                                None if older is None else f"a newer connection replaced the one waiting at {_clock()} "
                                                           f"(is the bot running twice?)")
        log.info("remote bot waiting", extra={"fields": {"bot": bot}})
        self.changed()
        while True:   # until it is seated, or hangs up first (then it leaves the hall)
            await asyncio.sleep(WATCH_SECONDS)
            with self.lock:
                if self.waiting.get(bot) is not connection:
                    return   # seated, or replaced by a newer connection
                gone = connection.at_eof or connection.closed
                if gone:
                    del self.waiting[bot]
            if gone:
                connection.close()
                await asyncio.to_thread(self._note, found.entry, f"hung up at {_clock()} while waiting for a game")
                self.changed()
                return

    def _bearer(self, token: str | None, message: Any) -> Bearer | None:
        """What a token leads to: its entry's qualifying or playing version, or why the
        entry may not play now; None for a token of no entry."""
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
                if entry.disabled is not None:
                    return Bearer(entry.name, entry.competition, refusal=f"disabled by staff: {entry.disabled}")
                version = session.scalar(select(VersionRow).where(VersionRow.entry_id == entry.id,
                                                                  VersionRow.status.in_(("active", "qualifying")))
                                         .order_by(VersionRow.number.desc()))
                if version is not None:
                    return Bearer(entry.name, entry.competition, version.bot)
                latest = session.scalar(select(VersionRow).where(VersionRow.entry_id == entry.id)
                                        .order_by(VersionRow.number.desc()))
                what = f"v{latest.number} is {latest.status}" if latest is not None else "it has no version"
                return Bearer(entry.name, entry.competition,
                                 refusal=f"no version of {entry.name} is qualifying or playing ({what}); "
                                         "register it again for a new version and token")
        return None

    def ready(self) -> set[str]:
        """The bots with a connection waiting."""
        with self.lock:
            return set(self.waiting)

    def take(self, bot: str) -> Connection | None:
        with self.lock:
            connection = self.waiting.pop(bot, None)
        if connection is not None:
            self.seen[self.entry_of.get(bot, bot)] = now()
        return connection

    def seat(self, protocol: Any, connection: Connection, name: str) -> Seat:
        """A seat over a waiting connection (made on the hall's loop, where it signed up)."""
        from gameroom.remote.proxy_player import remote_seat

        async def make() -> Seat:
            return remote_seat(protocol, connection, self.loop, name)

        return asyncio.run_coroutine_threadsafe(make(), self.loop).result(30)


def _clock() -> str:
    """The time of an event as a page shows it (UTC, to the second)."""
    return now().strftime("%Y-%m-%d %H:%M:%S UTC")
