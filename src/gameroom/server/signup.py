"""Signing players up over TCP, as every game's server does.

Connections are handled one at a time in the order they were accepted: read one JSON
value (the name) within the first-byte and completion limits, check it, and either keep
the connection as a player or close it. Waiting periods run beside the sign-up: when a
period expires with enough players, sign-up stops — but only between two sign-ups, so a
sign-up in progress finishes first. Reaching the maximum stops sign-up at once.

Sign-up survives anything a connection sends: whatever goes wrong with one connection is
logged (quoting a bounded prefix of what it sent) and closes only that connection. What a
crowd can hold is bounded too: at most :data:`MAX_PENDING` connections wait their turn
(later ones are closed at once), and until signed up a connection buffers at most
:data:`SIGNUP_MAX_VALUE_BYTES` (a name is a few dozen bytes; the reference pads with 5000
spaces). While it waits, the server says every few seconds how sign-up stands.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Callable

from gameroom.core.hosting import SignupRules
from gameroom.remote.connection import Connection, ConnectionClosed, JSONStreamError, ReadTimeout
from gameroom.remote.jsonstream import DEFAULT_MAX_VALUE_BYTES, preview

__all__ = ["SignedUp", "Signup", "MAX_PENDING", "SIGNUP_MAX_VALUE_BYTES", "PROGRESS_SECONDS"]

MAX_PENDING = 64                    # connections waiting for their sign-up turn
SIGNUP_MAX_VALUE_BYTES = 64 * 1024  # what one not-yet-signed-up connection may buffer
PROGRESS_SECONDS = 5.0              # how often a waiting server says how sign-up stands


@dataclass
class SignedUp:
    name: str
    connection: Connection


class Signup:
    """Accepts connections on a port and collects named players by the rules."""

    def __init__(self, rules: SignupRules, log: Callable[[str], None] | None = None) -> None:
        self.rules = rules
        self.log = log or (lambda _text: None)
        self.players: list[SignedUp] = []
        self._pending: asyncio.Queue[Connection] = asyncio.Queue()
        self._full = asyncio.Event()
        self._busy = asyncio.Lock()   # held while one sign-up is being read
        self._stopped = False
        self._server: asyncio.AbstractServer | None = None
        self._late: list[Connection] = []

    async def listen(self, host: str, port: int) -> None:
        async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connection = Connection(reader, writer, SIGNUP_MAX_VALUE_BYTES)
            if self._stopped:
                self._late.append(connection)
            elif self._pending.qsize() >= MAX_PENDING:
                self.log(f"refused {connection.peer}: {MAX_PENDING} connections already wait to sign up")
                connection.close()
            else:
                self._pending.put_nowait(connection)

        self._server = await asyncio.start_server(accepted, host, port, reuse_address=True,
                                                  backlog=self.rules.backlog)

    async def _sign_up_one(self, connection: Connection) -> None:
        rules = self.rules
        try:
            name = await connection.read_value(rules.name_first_byte, rules.name_complete)
            valid = rules.valid_name(name)
        except ReadTimeout as exc:
            self.log(f"improper sign-up from {connection.peer}: {exc}")
            connection.close()
            return
        except (ConnectionClosed, JSONStreamError) as exc:
            self.log(f"improper sign-up from {connection.peer}: {exc}")
            connection.close()
            return
        except Exception as exc:   # whatever one connection does, sign-up goes on
            self.log(f"improper sign-up from {connection.peer}: {type(exc).__name__}: {preview(str(exc))}")
            connection.close()
            return
        if not valid:
            self.log(f"improper sign-up from {connection.peer}: invalid name {preview(name)}")
            connection.close()
            return
        connection.max_value_bytes = DEFAULT_MAX_VALUE_BYTES   # a player's replies may be large
        self.players.append(SignedUp(name, connection))
        self.log(f"signed up {name} ({len(self.players)})")
        if len(self.players) >= rules.max_players:
            self._full.set()

    async def _sign_up_loop(self) -> None:
        while not self._stopped and len(self.players) < self.rules.max_players:
            connection = await self._pending.get()
            async with self._busy:
                if self._stopped:
                    self._late.append(connection)
                    return
                try:
                    await self._sign_up_one(connection)
                except Exception as exc:   # never let one connection end sign-up
                    self.log(f"improper sign-up from {connection.peer}: {type(exc).__name__}")
                    connection.close()

    async def run(self) -> list[SignedUp]:
        """Run the waiting periods; return the signed-up players (possibly too few)."""
        loop_task = asyncio.get_running_loop().create_task(self._sign_up_loop())
        try:
            for period in range(self.rules.periods):
                if await self._wait_period(period):
                    break
                async with self._busy:   # answer only between sign-ups
                    if len(self.players) >= self.rules.min_players:
                        self._stopped = True
                        break
        finally:
            self._stopped = True
            async with self._busy:
                loop_task.cancel()
            await asyncio.gather(loop_task, return_exceptions=True)
            self.stop_listening()
        return list(self.players)

    async def _wait_period(self, period: int) -> bool:
        """Wait out one waiting period (True if the maximum signed up meanwhile), saying
        every few seconds how sign-up stands, so a waiting server does not look hung."""
        loop = asyncio.get_running_loop()
        rules = self.rules
        deadline = loop.time() + rules.period_seconds
        while (remaining := deadline - loop.time()) > 0:
            try:
                await asyncio.wait_for(self._full.wait(), min(remaining, PROGRESS_SECONDS))
                return True
            except asyncio.TimeoutError:
                pass
            left = deadline - loop.time()
            if left > 0.5:
                self.log(f"waiting for sign-ups: {len(self.players)} signed up (a game needs "
                         f"{rules.min_players}..{rules.max_players}); period {period + 1} of {rules.periods}, "
                         f"{left:.0f} s left")
        return False

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
