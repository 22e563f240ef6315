"""Signing players up over TCP, as every game's server does.

Connections are handled one at a time in the order they were accepted: read one JSON
value (the sign-up message) within the first-byte and completion limits, take the name
from it by the protocol's greeting, check it, answer it when the greeting says so (``"ok"``),
and either keep the connection as a player or close it. When sign-up ends is the rules'
policy: waiting periods run beside the sign-up, and when a period expires with enough
players sign-up stops — but only between two sign-ups, so a sign-up in progress finishes
first; or the minimum is awaited and then one wait per further connection. Reaching the
maximum stops sign-up at once.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Callable

from gameroom.core.hosting import SignupRules
from gameroom.core.protocol import PLAIN_NAME, Greeting
from gameroom.remote.connection import Connection, ConnectionClosed, JSONStreamError, ReadTimeout

__all__ = ["SignedUp", "Signup"]


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
        self._server: asyncio.AbstractServer | None = None
        self._late: list[Connection] = []
        self._background: asyncio.Task[None] | None = None

    async def listen(self, host: str, port: int) -> None:
        async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connection = Connection(reader, writer)
            if self._stopped:
                self._late.append(connection)
            else:
                self._pending.put_nowait(connection)

        self._server = await asyncio.start_server(accepted, host, port, reuse_address=True,
                                                  backlog=self.rules.backlog)

    async def _sign_up_one(self, connection: Connection) -> bool:
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
            self.log(f"improper sign-up from {connection.peer}: invalid name {shown!r}")
            connection.close()
            return False
        if self.greeting.ack is not None:
            try:
                await connection.send(self.greeting.ack)
            except (ConnectionError, OSError) as exc:
                self.log(f"improper sign-up from {connection.peer}: cannot answer: {exc}")
                connection.close()
                return False
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
        try:
            await asyncio.wait_for(self._full.wait(), seconds)
            return True
        except asyncio.TimeoutError:
            return False

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
