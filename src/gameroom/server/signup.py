"""Signing players up over TCP, as every game's server does.

Every accepted connection starts reading its sign-up message at once, beside the others:
one JSON value within the first-byte and completion limits counted from its acceptance
(the *name deadline*), the name taken from it by the protocol's greeting and checked. A
connection that fails — nothing in time, not JSON, a bad name — is closed and logged the
moment it fails, which frees its place. Players are then taken **in acceptance order**,
as the specs' one-at-a-time sign-up would take them (answered with ``"ok"`` when the
greeting says so): a player whose name arrived waits only for the connections accepted
before it to finish or miss their own deadlines. So silent connections cost their own
deadline, all at once, never one deadline after the other: twenty of them made before
the honest clients delay a game by one name deadline, where reading them in turn kept
the honest clients out of every waiting period (issue 17, finding 6).

When sign-up ends is the rules' policy: waiting periods run beside the sign-up, and when
a period expires with enough players sign-up stops — but only between two sign-ups, so
the sign-up at the head of the line finishes first (at most one name deadline); or the
minimum is awaited and then one wait per further connection. Reaching the maximum stops
sign-up at once.

Sign-up survives anything a connection sends: whatever goes wrong with one connection is
logged (quoting a bounded prefix of what it sent) and closes only that connection. What a
crowd can hold is bounded too: at most :data:`MAX_PENDING` connections are being signed up
at once, each buffering at most about twice :data:`SIGNUP_MAX_VALUE_BYTES` (a name is a
few dozen bytes; the reference pads with 5000 spaces). When that many wait and another
arrives, the one that has waited longest without completing its name *from the address
that has the most such connections* is closed to make room (an honest client sends its name
at once), and one address may have at most :data:`PENDING_PER_ADDRESS` connections without
a name at once (beyond, the newcomer is closed at the door, ``server.admission.Gate``:
before any stream is made for it, and only the first of an address's burst logged), so
neither a crowd of silent or trickling connections nor one address can lock honest
clients out. While it waits, the server says
every few seconds how sign-up stands.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections import deque
from dataclasses import dataclass

from gameroom.core.hosting import SignupRules
from gameroom.core.protocol import PLAIN_NAME, Greeting
from gameroom.remote.connection import Connection, ConnectionClosed, JSONStreamError, ReadTimeout
from gameroom.remote.jsonstream import DEFAULT_MAX_VALUE_BYTES, preview
from gameroom.server.admission import Connected, Gate, Listening, Refusal, file_limit
from gameroom.server.lobby_limits import address_key

__all__ = ["MAX_PENDING", "PENDING_PER_ADDRESS", "PROGRESS_SECONDS", "SIGNUP_MAX_VALUE_BYTES", "SignedUp", "Signup"]

logger = logging.getLogger(__name__)

MAX_PENDING = 64                    # connections being signed up at once
PENDING_PER_ADDRESS = 8             # of them, from one address without a name yet
SIGNUP_MAX_VALUE_BYTES = 64 * 1024  # what one not-yet-signed-up connection may buffer
PROGRESS_SECONDS = 5.0              # how often a waiting server says how sign-up stands


@dataclass
class SignedUp:
    name: str
    connection: Connection


class _Attempt:
    """One accepted connection's sign-up: read at once, taken in acceptance order. ``name``
    is set when a valid name arrived; ``done`` resolves when the name is in or the
    connection failed (and was closed)."""

    __slots__ = ("connection", "done", "name", "reader", "accepted", "address")

    def __init__(self, connection: Connection, accepted: float, address: str = "") -> None:
        self.connection = connection
        self.address = address
        self.accepted = accepted
        self.name: str | None = None
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.reader: asyncio.Task[None] | None = None


class Signup:
    """Accepts connections on a port and collects named players by the rules; the rules'
    policy decides when to stop (it drives the steps of ``core.hosting.SignupSteps``)."""

    def __init__(self, rules: SignupRules, greeting: Greeting = PLAIN_NAME) -> None:
        self.rules = rules
        self.greeting = greeting
        self.players: list[SignedUp] = []
        self._line: deque[_Attempt] = deque()       # not yet taken, in acceptance order
        self._reading = 0                            # of them, not failed (read or being read)
        self._arrived = asyncio.Event()              # set while the line is not empty
        self._full = asyncio.Event()
        self._busy = asyncio.Lock()   # held while the attempt at the head is being taken
        self._stopped = False
        self._server: Listening | None = None
        self._late: list[Connection] = []
        self._unnamed: dict[str, int] = {}          # address -> its connections without a name yet
        self._background: asyncio.Task[None] | None = None

    async def listen(self, host: str, port: int, sock: socket.socket | None = None) -> None:
        """Listen on ``host:port``, or accept on ``sock``, a listening socket made elsewhere
        (a sandboxed program's, in its own network namespace: ``league.programs``)."""
        def admit(peer: object) -> Refusal | Connected:
            """Refused at the door (nothing is made, nothing is said: the specs answer no
            sign-up) when its address or the sign-up is full; else counted at once (as
            reading its name: its stream is made on a later turn of the loop). Late
            connections are kept."""
            if self._stopped:
                return accepted
            address = address_key(peer)
            unnamed = self._unnamed.get(address, 0)
            if unnamed >= PENDING_PER_ADDRESS:
                return Refusal(address, f"{unnamed} connections from its address are signing up without a name yet")
            if self._reading >= MAX_PENDING and not self._make_room():
                return Refusal(address, f"{MAX_PENDING} connections are signing up")
            self._unnamed[address] = unnamed + 1
            self._reading += 1
            return lambda reader, writer: accepted(reader, writer, address)

        def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, address: str | None = None) -> None:
            """``address``: counted by :func:`admit` (None: a late connection, kept)."""
            connection = Connection(reader, writer, SIGNUP_MAX_VALUE_BYTES)
            if address is None or self._stopped:
                self._late.append(connection)
                return
            attempt = _Attempt(connection, asyncio.get_running_loop().time(), address)
            attempt.done.add_done_callback(lambda _: self._named(address))
            attempt.reader = asyncio.get_running_loop().create_task(self._read_sign_up(attempt))
            self._line.append(attempt)
            self._arrived.set()

        file_limit()   # the process may hold as many files as its hard limit allows (many games at once)
        gate = Gate(admit, logger)
        if sock is not None:
            self._server = await gate.listen(sock=sock, backlog=self.rules.backlog)
            return
        self._server = await gate.listen(host, port, reuse_address=True, backlog=self.rules.backlog)

    @property
    def port(self) -> int | None:
        """The port listened on (the one the system chose when asked for port 0)."""
        if self._server is None or not self._server.sockets:
            return None
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    def _named(self, address: str) -> None:
        """One of ``address``'s connections has its name, or failed."""
        left = self._unnamed.get(address, 0) - 1
        if left > 0:
            self._unnamed[address] = left
        else:
            self._unnamed.pop(address, None)

    def _make_room(self) -> bool:
        """Close the connection that has waited longest without completing its name, of the
        address with the most such connections; False when every waiting connection has
        sent its name (the newcomer is refused)."""
        unnamed = [attempt for attempt in self._line if not attempt.done.done()]
        counts: dict[str, int] = {}
        for attempt in unnamed:
            counts[attempt.address] = counts.get(attempt.address, 0) + 1
        for attempt in unnamed:   # in acceptance order: the oldest of the address holding most
            if counts[attempt.address] == max(counts.values()):
                waited = asyncio.get_running_loop().time() - attempt.accepted
                self._fail(attempt, f"no name after {waited:.1f} s while {MAX_PENDING} connections were signing "
                                    "up: closed to make room")
                return True
        return False

    def _fail(self, attempt: _Attempt, why: str) -> None:
        if attempt.done.done():
            return
        self._reading -= 1
        logger.info(f"improper sign-up from {attempt.connection.peer}: {why}")
        attempt.connection.close()
        attempt.done.set_result(None)
        if attempt.reader is not None and attempt.reader is not asyncio.current_task():
            attempt.reader.cancel()

    async def _read_sign_up(self, attempt: _Attempt) -> None:
        """Read and check one connection's name, within its deadline; close it on failure."""
        rules, connection = self.rules, attempt.connection
        try:
            try:
                message = await connection.read_value(rules.name_first_byte, rules.name_complete)
            except (ReadTimeout, ConnectionClosed, JSONStreamError) as exc:
                self._fail(attempt, str(exc))
                return
            try:
                name = self.greeting.name_of(message)
            except ValueError:
                self._fail(attempt, self._invalid(preview(message)))
                return
            if not rules.valid_name(name):
                self._fail(attempt, self._invalid(preview(name)))
                return
            attempt.name = name
            if not attempt.done.done():
                attempt.done.set_result(None)
        except asyncio.CancelledError:
            raise
        except Exception as exc:   # whatever one connection does, sign-up goes on
            logger.debug("improper sign-up from %s", attempt.connection.peer, exc_info=True)
            self._fail(attempt, f"{type(exc).__name__}: {preview(str(exc))}")

    def _invalid(self, shown: str) -> str:
        """Why a name is refused: the name and, when the rules say it, what a name is (the
        specs send no reply to a name, so this line is where the refusal is explained)."""
        rule = self.rules.name_rule
        return f"invalid name {shown}" + (f": a name is {rule}" if rule else "")

    async def _take(self, attempt: _Attempt) -> bool:
        """Wait for the attempt (at most its own name deadline) and take it as a player
        when its name is valid: answer it if the greeting says so. True when it became one."""
        await attempt.done
        if attempt.name is None:
            return False     # failed (and counted out) while it was read
        self._reading -= 1
        if self.greeting.ack is not None:
            try:
                await attempt.connection.send(self.greeting.ack)
            except (ConnectionError, OSError) as exc:
                attempt.name = None
                logger.info(f"improper sign-up from {attempt.connection.peer}: cannot answer: {exc}")
                attempt.connection.close()
                return False
        attempt.connection.max_value_bytes = DEFAULT_MAX_VALUE_BYTES   # a player's replies may be large
        self.players.append(SignedUp(attempt.name, attempt.connection))
        logger.info(f"signed up {attempt.name} ({len(self.players)})")
        if len(self.players) >= self.rules.max_players:
            self._full.set()
        return True

    async def _wait_for_line(self) -> None:
        while not self._line:
            self._arrived.clear()
            await self._arrived.wait()

    async def _next_in_line(self) -> _Attempt:
        await self._wait_for_line()
        return self._line.popleft()

    async def _sign_up_loop(self) -> None:
        while not self._stopped and len(self.players) < self.rules.max_players:
            await self._wait_for_line()
            async with self._busy:   # popped only inside: a stop between sign-ups leaves it late
                if self._stopped:
                    return
                await self._take(self._line.popleft())

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
                logger.info(f"waiting for sign-ups: {len(self.players)} signed up (a game needs "
                         f"{rules.min_players}..{rules.max_players})"
                         + ("" if left is None else f", {left:.0f} s left in this period"))

    def between_sign_ups(self) -> asyncio.Lock:
        return self._busy

    async def next_connection(self, seconds: float | None) -> _Attempt | None:
        """The next connection in acceptance order (its sign-up is being read already)."""
        try:
            return await asyncio.wait_for(self._next_in_line(), seconds)
        except asyncio.TimeoutError:
            return None

    async def sign_up(self, connection: _Attempt) -> bool:
        async with self._busy:
            return await self._take(connection)

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
            self._stop_reading()
        return list(reversed(self.players)) if self.rules.newest_first else list(self.players)

    def _stop_reading(self) -> None:
        """Sign-up is over: connections still in line are late (kept open, unread, until
        the game ends, as the specs say of connections after sign-up)."""
        self._reading = 0
        while self._line:
            attempt = self._line.popleft()
            if attempt.reader is not None:
                attempt.reader.cancel()
            if not attempt.connection.closed:
                self._late.append(attempt.connection)

    def stop_listening(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def close_all(self) -> None:
        """Close every connection this sign-up touched (players, waiting and late ones)."""
        for player in self.players:
            player.connection.close()
        self._stop_reading()
        for connection in self._late:
            connection.close()
