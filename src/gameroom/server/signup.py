"""Signing players up over TCP, as every game's server does.

Connections are handled one at a time in the order they were accepted: read one JSON
value (the name) within the first-byte and completion limits, check it, and either keep
the connection as a player or close it. Waiting periods run beside the sign-up: when a
period expires with enough players, sign-up stops — but only between two sign-ups, so a
sign-up in progress finishes first. Reaching the maximum stops sign-up at once.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Callable

from gameroom.core.hosting import SignupRules
from gameroom.remote.connection import Connection, ConnectionClosed, JSONStreamError, ReadTimeout

__all__ = ["SignedUp", "Signup"]


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
            connection = Connection(reader, writer)
            if self._stopped:
                self._late.append(connection)
            else:
                self._pending.put_nowait(connection)

        self._server = await asyncio.start_server(accepted, host, port, reuse_address=True,
                                                  backlog=self.rules.backlog)

    async def _sign_up_one(self, connection: Connection) -> None:
        rules = self.rules
        try:
            name = await connection.read_value(rules.name_first_byte, rules.name_complete)
        except ReadTimeout as exc:
            self.log(f"improper sign-up from {connection.peer}: {exc}")
            connection.close()
            return
        except (ConnectionClosed, JSONStreamError) as exc:
            self.log(f"improper sign-up from {connection.peer}: {exc}")
            connection.close()
            return
        if not rules.valid_name(name):
            self.log(f"improper sign-up from {connection.peer}: invalid name {name!r}")
            connection.close()
            return
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
                await self._sign_up_one(connection)

    async def run(self) -> list[SignedUp]:
        """Run the waiting periods; return the signed-up players (possibly too few)."""
        loop_task = asyncio.get_running_loop().create_task(self._sign_up_loop())
        try:
            for _period in range(self.rules.periods):
                try:
                    await asyncio.wait_for(self._full.wait(), self.rules.period_seconds)
                    break
                except asyncio.TimeoutError:
                    pass
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
