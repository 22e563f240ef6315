"""Signing players up over TCP, as every game's server does.

Connections are handled one at a time in the order they were accepted: read one JSON
value (the sign-up message) within the first-byte and completion limits, take the name
from it by the protocol's greeting, check it, answer it when the greeting says so (``"ok"``),
and either keep the connection as a player or close it. When sign-up ends is the rules'
policy: waiting periods run beside the sign-up, and when a period expires with enough
players sign-up stops — but only between two sign-ups, so a sign-up in progress finishes
first; or the minimum is awaited and then one wait per further connection. Reaching the
maximum stops sign-up at once.

Sign-up survives anything a connection sends: whatever goes wrong with one connection is
logged (quoting a bounded prefix of what it sent) and closes only that connection. What a
crowd can hold is bounded too: at most :data:`MAX_PENDING` connections wait their turn
(later ones are closed at once), and until signed up a connection buffers at most
:data:`SIGNUP_MAX_VALUE_BYTES` (a name is a few dozen bytes; the reference pads with 5000
spaces). While it waits, the server says every few seconds how sign-up stands.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from dataclasses import dataclass
from typing import Callable

from gameroom.core.hosting import SignupRules
from gameroom.core.protocol import PLAIN_NAME, Greeting
from gameroom.remote.connection import Connection, ConnectionClosed, JSONStreamError, ReadTimeout
from gameroom.remote.jsonstream import DEFAULT_MAX_VALUE_BYTES, preview

__all__ = ["SignedUp", "Signup", "MAX_PENDING", "SIGNUP_MAX_VALUE_BYTES", "PROGRESS_SECONDS"]

logger = logging.getLogger(__name__)

MAX_PENDING = 64                    # connections waiting for their sign-up turn
SIGNUP_MAX_VALUE_BYTES = 64 * 1024  # what one not-yet-signed-up connection may buffer
PROGRESS_SECONDS = 5.0              # how often a waiting server says how sign-up stands


@dataclass
class SignedUp:
    name: str
    connection: Connection


class Signup:
    """Accepts connections on a port and collects named players by the rules; the rules'
    policy decides when to stop (it drives the steps of ``core.hosting.SignupSteps``)."""

    def __init__(self, rules: SignupRules, log: Callable[[str], None] | None = None,
                 greeting: Greeting = PLAIN_NAME) -> None:
        self.rules = rules
        self.greeting = greeting
        self.log = log or (lambda _text: None)
        self.players: list[SignedUp] = []
        self._pending: asyncio.Queue[Connection] = asyncio.Queue()
        self._full = asyncio.Event()
        self._busy = asyncio.Lock()   # held while one sign-up is being read
        self._stopped = False
        self._server: asyncio.Server | None = None
        self._late: list[Connection] = []
        self._background: asyncio.Task[None] | None = None

    async def listen(self, host: str, port: int, sock: socket.socket | None = None) -> None:
        """Listen on ``host:port``, or accept on ``sock``, a listening socket made elsewhere
        (a sandboxed program's, in its own network namespace: ``league.programs``)."""
        async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connection = Connection(reader, writer, SIGNUP_MAX_VALUE_BYTES)
            if self._stopped:
                self._late.append(connection)
            elif self._pending.qsize() >= MAX_PENDING:
                self.log(f"refused {connection.peer}: {MAX_PENDING} connections already wait to sign up")
                connection.close()
            else:
                self._pending.put_nowait(connection)

        if sock is not None:
            self._server = await asyncio.start_server(accepted, sock=sock, backlog=self.rules.backlog)
            return
        self._server = await asyncio.start_server(accepted, host, port, reuse_address=True,
                                                  backlog=self.rules.backlog)

    @property
    def port(self) -> int | None:
        """The port listened on (the one the system chose when asked for port 0)."""
        if self._server is None or not self._server.sockets:
            return None
        return self._server.sockets[0].getsockname()[1]

    async def _sign_up_one(self, connection: Connection) -> bool:
        try:
            return await self._read_sign_up(connection)
        except Exception as exc:   # whatever one connection does, sign-up goes on
            logger.debug("improper sign-up from %s", connection.peer, exc_info=True)
            self.log(f"improper sign-up from {connection.peer}: {type(exc).__name__}: {preview(str(exc))}")
            connection.close()
            return False

    async def _read_sign_up(self, connection: Connection) -> bool:
        rules = self.rules
        try:
            message = await connection.read_value(rules.name_first_byte, rules.name_complete)
        except ReadTimeout as exc:
            self.log(f"improper sign-up from {connection.peer}: {exc}")
            connection.close()
            return False
        except (ConnectionClosed, JSONStreamError) as exc:
            self.log(f"improper sign-up from {connection.peer}: {exc}")
            connection.close()
            return False
        try:
            name = self.greeting.name_of(message)
        except ValueError as exc:
            name = exc
        if isinstance(name, ValueError) or not rules.valid_name(name):
            shown = message if isinstance(name, ValueError) else name
            self.log(f"improper sign-up from {connection.peer}: invalid name {preview(shown)}")
            connection.close()
            return False
        if self.greeting.ack is not None:
            try:
                await connection.send(self.greeting.ack)
            except (ConnectionError, OSError) as exc:
                self.log(f"improper sign-up from {connection.peer}: cannot answer: {exc}")
                connection.close()
                return False
        connection.max_value_bytes = DEFAULT_MAX_VALUE_BYTES   # a player's replies may be large
        self.players.append(SignedUp(name, connection))
        self.log(f"signed up {name} ({len(self.players)})")
        if len(self.players) >= rules.max_players:
            self._full.set()
        return True

    async def _sign_up_loop(self) -> None:
        while not self._stopped and len(self.players) < self.rules.max_players:
            connection = await self._pending.get()
            async with self._busy:
                if self._stopped:
                    self._late.append(connection)
                    return
                await self._sign_up_one(connection)

    # -- the steps a policy drives (core.hosting.SignupSteps) ----------------------------

    @property
    def count(self) -> int:
        return len(self.players)

    def sign_up_in_background(self) -> None:
        if self._background is None:
            self._background = asyncio.get_running_loop().create_task(self._sign_up_loop())

    async def wait_full(self, seconds: float | None) -> bool:
        """Wait until the maximum has signed up (True) or ``seconds`` pass, saying every few
        seconds how sign-up stands, so a waiting server does not look hung."""
        loop = asyncio.get_running_loop()
        deadline = None if seconds is None else loop.time() + seconds
        while True:
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                return False
            try:
                await asyncio.wait_for(self._full.wait(), PROGRESS_SECONDS if remaining is None
                                       else min(remaining, PROGRESS_SECONDS))
                return True
            except asyncio.TimeoutError:
                pass
            left = None if deadline is None else deadline - loop.time()
            if left is None or left > 0.5:
                rules = self.rules
                self.log(f"waiting for sign-ups: {len(self.players)} signed up (a game needs "
                         f"{rules.min_players}..{rules.max_players})"
                         + ("" if left is None else f", {left:.0f} s left in this period"))

    def between_sign_ups(self) -> asyncio.Lock:
        return self._busy

    async def next_connection(self, seconds: float | None) -> Connection | None:
        try:
            return await asyncio.wait_for(self._pending.get(), seconds)
        except asyncio.TimeoutError:
            return None

    async def sign_up(self, connection: Connection) -> bool:
        async with self._busy:
            return await self._sign_up_one(connection)

    async def run(self) -> list[SignedUp]:
        """Sign up by the rules' policy; return the signed-up players (possibly too few), in
        seating order."""
        try:
            await self.rules.signup_policy.run(self, self.rules)
        finally:
            self._stopped = True
            if self._background is not None:
                async with self._busy:
                    self._background.cancel()
                await asyncio.gather(self._background, return_exceptions=True)
            self.stop_listening()
        return list(reversed(self.players)) if self.rules.newest_first else list(self.players)

    def stop_listening(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def close_all(self) -> None:
        """Close every connection this sign-up touched (players, queued and late ones)."""
        for player in self.players:
            player.connection.close()
        while not self._pending.empty():
            self._pending.get_nowait().close()
        for connection in self._late:
            connection.close()
