"""The lobby's connections (:class:`Connections`): accepted within the server's and each
address's quotas (``server.lobby_limits``) or refused with one NACK, logged in within
their time, kept alive by PING and PONG (7.8), their failed joins throttled, and all
closed when the lobby stops. What a connection is and holds is ``server.lobby_members``.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from typing import Any

from gameroom.server.admission import Connected, Gate, Listening, Refusal, connection_cap
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.lobby_limits import AddressBook
from gameroom.server.lobby_members import (CONNECTED, IN_ROOM, LINGER_SECONDS, LOBBY, READ_CHUNK, Client, Host, encode,
                                           nack)

__all__ = ["Connections"]

logger = logging.getLogger(__name__)

# Connections the kernel holds before we accept them. The default (100) overflowed when the
# bots of 500 rooms connected in the same second: the kernel drops a SYN it cannot queue and
# the client's kernel retries after 1, 3, 7, 15 s, so a room waited that long for a player
# (the lobby benchmark saw 13 s stalls). The kernel caps it at net.core.somaxconn.
_BACKLOG = 1024
# Connections refused over their address's quota that may linger at once (to let the peer
# read the refusal); beyond, a refused connection is closed at once (server.admission.Gate).
_MAX_LINGERING_REFUSALS = 64
_KERNEL_SEND_BUFFER = 65536   # per connection (Linux doubles it for its bookkeeping)


class Connections:
    """Every connection of one lobby (``host``): its listening server, the quotas of each
    address, the keep-alive."""

    def __init__(self, host: Host, config: LobbyConfig) -> None:
        self.host, self.config = host, config
        self.clients: set[Client] = set()
        self.addresses = AddressBook(config.max_connections_per_address, config.max_rooms_per_address,
                                     config.failed_joins_per_minute_per_address,
                                     # no quota of connections per address: none of unlogged ones either
                                     config.max_unlogged_per_address if config.max_connections_per_address else 0)
        self.max_connections = connection_cap(config.max_connections) if config.max_connections else 0
        # new connections are admitted (or refused) at the door, before any Client is made
        self.gate = Gate(self._admit, logger, limit=READ_CHUNK, linger_seconds=LINGER_SECONDS,
                         max_lingering=_MAX_LINGERING_REFUSALS)
        self._too_many = encode(nack("Too many connections from your address"))
        self._unlogged_why = (f"{config.max_unlogged_per_address} connections from your address have not logged in "
                              "yet (maxUnloggedPerAddress)")
        self._too_unlogged = encode(nack(self._unlogged_why))
        self.server: Listening | None = None
        self._ping_task: asyncio.Task[Any] | None = None

    async def listen(self, host: str, port: int) -> Listening:
        """Accept connections on ``host:port`` (and PING them, when configured)."""
        self.server = await self.gate.listen(host, port, backlog=_BACKLOG)
        if self.config.ping_interval > 0:
            self._ping_task = asyncio.get_running_loop().create_task(self._keep_alive())
        return self.server

    def _admit(self, peer: object) -> Refusal | Connected:
        """A new connection at the door (``server.admission.Gate``): counted against its
        address's quotas (its Client made by :meth:`_accept` once its stream is), or
        refused with one NACK before anything is made for it."""
        _, address, _ = Client.addresses_of(peer, self.config.relay_addresses)
        connections = len(self.clients) + self.gate.entering
        if self.max_connections and connections >= self.max_connections:
            why = f"The server has {connections} connections, its most (maxConnections)"
            return Refusal(address, why, encode(nack(why)))
        over = self.addresses.over(address)
        if over == "unlogged":
            return Refusal(address, self._unlogged_why, self._too_unlogged)
        if over is not None:
            return Refusal(address, f"{self.config.max_connections_per_address} connections from {address} already",
                           self._too_many)
        self.addresses.connect(address)
        return self._accept

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """An admitted connection (counted by :meth:`_admit` just before): its Client."""
        client = Client(self.host, reader, writer)
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

    def join_failed(self, client: Client) -> None:
        """A join of ``client`` failed: it and its address wait longer before the next."""
        now = time.monotonic()
        client.joins.failed(now)
        use = self.addresses.uses.get(client.address)
        if use is not None and use.joins is not None:
            use.joins.failed(now)

    def _login_deadline(self, client: Client, within: float) -> None:
        if client.state == CONNECTED:
            logger.info(f"{client.peer}: no LOGIN within {within:g} s")
            client.close()

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
            self.host.lost(client, "CONNECTION_LOST", f"no PONG within {timeout:g} s")

    def close_all(self) -> list[asyncio.Task[Any]]:
        """Stop listening and pinging, and close every connection at once (what is queued
        for them is thrown away); their tasks, to be awaited."""
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
        return tasks
