"""What one address may hold of a listening server: the admission of every server of the
platform (the web room and the arena's pages on uvicorn, the arena's remote-bot port, the
lobby, a game's sign-up).

Each accepted connection takes a :class:`Place` from the server's :class:`Admission`
before anything is read from it, and gives it back when it closes. Three bounds:

* ``total``: connections open at once. It is kept under the process's file-handle limit
  (:func:`file_limit` raises the soft ``RLIMIT_NOFILE`` to the hard one and leaves room for
  the process's own files), so a crowd is refused one connection at a time instead of
  the server failing to accept anything ("Too many open files");
* ``per_address``: connections one address may hold open;
* ``unfinished_per_address``: connections of one address that have not yet completed
  what a client sends first (an HTTP request's head, a remote bot's sign-up, a lobby
  LOGIN), a smaller number. Slow and silent connections are what costs a server without
  costing the client anything, so one address may hold only a few of them; the servers
  also close each one after its own time-out (``head_seconds`` and the like).

Addresses are counted by ``lobby_limits.address_key`` (an IPv6 client by its /64). The
addresses of trusted reverse proxies (:class:`TrustedProxies`) are not counted per
address: every client behind a proxy arrives from it, and the web room counts the
forwarded client address at the request level instead. A refusal is a sentence naming
the configuration key that sets the bound, in the words of the server's configuration
(``--connections-per-address``, or arena.toml's ``[limits] connections_per_address``).

A stream server (the lobby, a game's sign-up) refuses at the door: its :class:`Gate` is
the protocol of every new connection and asks the server's ``admit`` before anything else
is made — no stream, task or client — so a crowd reconnecting as fast as it is turned
away costs an accept, a write and a close each. Only the first refusal of an address's
burst is logged and lingers so that its words are read (:class:`Refusals`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

from gameroom.server.lobby_limits import address_key

__all__ = ["Admission", "Gate", "Place", "Refusal", "Refusals", "TrustedProxies", "file_limit", "connection_cap",
           "FILE_RESERVE"]

FILE_RESERVE = 128
"""File handles kept for the process's own use (its database, logs, pipes, programs) below
the limit, at least; a tenth of the limit when that is more."""


def file_limit() -> int:
    """Raise the soft limit of open files to the hard limit (where it is lower) and return
    the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20) if soft != resource.RLIM_INFINITY else 1 << 20
    if soft == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass   # kept as it was: the cap below follows it
    return soft


def connection_cap(wanted: int, limit: int | None = None) -> int:
    """The connections a server may hold at once: ``wanted``, kept under the file-handle
    ``limit`` (this process's, raised first, when not given) less the reserve."""
    limit = file_limit() if limit is None else limit
    return max(1, min(wanted, limit - max(FILE_RESERVE, limit // 10)))


class TrustedProxies:
    """The addresses (or networks) of reverse proxies whose forwarded client address is
    believed: written as uvicorn's ``forwarded_allow_ips``, a comma-separated list;
    empty: none (the default)."""

    def __init__(self, text: str | Iterable[str] = "") -> None:
        parts = [p.strip() for p in (text.split(",") if isinstance(text, str) else text) if p.strip()]
        self.text = ",".join(parts)
        self.networks = []
        for part in parts:
            try:
                self.networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"{part[:60]!r} is not an IP address or network") from None

    def __bool__(self) -> bool:
        return bool(self.networks)

    def __contains__(self, host: object) -> bool:
        try:
            address = ipaddress.ip_address(str(host).split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address.version == net.version and address in net for net in self.networks)


class Place:
    """One admitted connection: its address's key and whether it is still *unfinished*
    (has not completed what a client sends first; the server clears and sets it)."""

    __slots__ = ("key", "unfinished", "counted", "given_back")

    def __init__(self, key: str, counted: bool) -> None:
        self.key = key
        self.unfinished = True
        self.counted = counted   # False: a trusted proxy's, not counted per address
        self.given_back = False


@dataclass(frozen=True)
class Bounds:
    total: int
    per_address: int
    unfinished_per_address: int


class Admission:
    """The open connections of one server, counted in all and per address (see the
    module's docstring). Used from the server's event loop only: no lock."""

    def __init__(self, total: int, per_address: int, unfinished_per_address: int,
                 trusted: TrustedProxies | None = None, key_name: Callable[[str], str] = lambda k: k) -> None:
        self.bounds = Bounds(total, per_address, unfinished_per_address)
        self.trusted = trusted if trusted is not None else TrustedProxies()
        self.key_name = key_name
        self.open = 0
        self.refused = 0
        self.by_address: dict[str, set[Place]] = {}

    def enter(self, peer: object) -> Place | str:
        """A place for a connection from ``peer`` (a ``peername``), or why there is none."""
        bounds = self.bounds
        host = peer[0] if isinstance(peer, tuple) and peer else peer
        key = address_key(peer)
        if self.open >= bounds.total:
            self.refused += 1
            return (f"the server has {self.open} connections open, its most ({self.key_name('max_connections')}); "
                    "try again in a moment")
        counted = host not in self.trusted
        if counted:
            places = self.by_address.get(key, ())
            if len(places) >= bounds.per_address:
                self.refused += 1
                return (f"{len(places)} connections are open from your address, the most one address may "
                        f"({self.key_name('connections_per_address')})")
            unfinished = sum(1 for place in places if place.unfinished)
            if unfinished >= bounds.unfinished_per_address:
                self.refused += 1
                return (f"{unfinished} connections from your address have not sent their first request yet, the "
                        f"most one address may ({self.key_name('unfinished_per_address')})")
        place = Place(key, counted)
        self.open += 1
        if counted:
            self.by_address.setdefault(key, set()).add(place)
        return place

    def leave(self, place: Place | None) -> None:
        """Give a place back (once; None and a place given back already are ignored)."""
        if place is None or place.given_back:
            return
        place.given_back = True
        self.open -= 1
        if place.counted:
            places = self.by_address.get(place.key)
            if places is not None:
                places.discard(place)
                if not places:
                    del self.by_address[place.key]

    def holding(self, peer: object) -> int:
        """Connections open from ``peer``'s address."""
        return len(self.by_address.get(address_key(peer), ()))


class Refusals:
    """Connections refused per address, told apart as the first of a burst or the rest.

    The first refusal of an address (none in the last ``quiet`` seconds) is logged and
    lingers, so an honest client over its quota reads the words that say why; the rest of
    a burst — a crowd reconnecting as fast as it is turned away — is closed at once and
    counted, the count said in the next line logged for that address. A crowd of
    thousands then costs the loop a write and a close each, not a log line and a lingering
    connection each (the lobby's honest clients waited behind those)."""

    def __init__(self, quiet: float = 10.0) -> None:
        self.quiet = quiet
        self.last: dict[str, tuple[float, int]] = {}   # address -> (first of its burst, refused since)

    def refused(self, key: str, now: float) -> int | None:
        """Count a refusal of ``key``: None while its burst lasts (close it at once, say
        nothing), else how many were refused without a word since the last line (log
        and linger)."""
        first, since = self.last.get(key, (float("-inf"), 0))
        if now - first < self.quiet:
            self.last[key] = (first, since + 1)
            return None
        self.last[key] = (now, 0)
        if len(self.last) > 4096:   # bounded: forget the addresses whose bursts are over
            self.last = {k: v for k, v in self.last.items() if now - v[0] < self.quiet}
        return since


class Refusal(NamedTuple):
    """Why ``Gate.admit`` turns a connection away."""
    key: str            # its address's key: refusals are counted in bursts per address
    why: str            # the reason, for the log line of the first of a burst
    said: bytes = b""   # written to the peer before it is closed (nothing: closed without a word)


class Gate:
    """The door of an asyncio stream server: the protocol factory to give
    ``loop.create_server`` (or :meth:`listen`) in place of ``asyncio.start_server``'s.

    Each new connection's protocol asks ``admit(transport)`` first. ``None`` admits it:
    its stream reader and protocol are made as ``asyncio.start_server`` makes them and
    ``connected(reader, writer)`` is called at once (a plain function runs within the
    admission, so nothing is admitted twice before it counts; a coroutine becomes a task).
    A :class:`Refusal` is written its words and closed before any stream, task or client
    exists and before the socket is even watched for input; the first refusal of an
    address's burst is logged (with the count of those refused without a word since) and
    lingers ``linger_seconds`` half-closed, its input dropped, so the peer reads the words
    rather than a reset — at most ``max_lingering`` at once, beyond which it is closed at
    once too. ``admitted`` and ``refused`` count the connections of each kind."""

    def __init__(self, admit: Callable[[asyncio.Transport], Refusal | None],
                 connected: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Any], logger: logging.Logger,
                 limit: int = 1 << 16, linger_seconds: float = 2.0, max_lingering: int = 64,
                 quiet: float = 10.0) -> None:
        self.admit, self.connected, self.logger = admit, connected, logger
        self.limit, self.linger_seconds, self.max_lingering = limit, linger_seconds, max_lingering
        self.refusals = Refusals(quiet)
        self.lingering = 0
        self.admitted = self.refused = 0

    def __call__(self) -> asyncio.Protocol:
        return _Door(self)

    async def listen(self, host: str | None = None, port: int | None = None, **options: Any) -> asyncio.Server:
        """``loop.create_server`` with this door (``sock=``, ``backlog=``... as it takes them)."""
        return await asyncio.get_running_loop().create_server(self, host, port, **options)

    def _enter(self, door: "_Door", transport: asyncio.Transport) -> None:
        refusal = self.admit(transport)
        if refusal is None:
            self.admitted += 1
            reader = asyncio.StreamReader(limit=self.limit)
            protocol = asyncio.StreamReaderProtocol(reader, self.connected)
            transport.set_protocol(protocol)
            protocol.connection_made(transport)
            return
        self.refused += 1
        if refusal.said:
            transport.write(refusal.said)
        unsaid = self.refusals.refused(refusal.key, time.monotonic())
        if unsaid is None:
            transport.close()   # what was said is flushed first
            return
        peer = transport.get_extra_info("peername")
        self.logger.info(f"{f'{peer[0]}:{peer[1]}' if isinstance(peer, tuple) else peer}: refused: {refusal.why}"
                         + (f" ({unsaid} more from {refusal.key} refused since the last such line)" if unsaid else ""))
        if not refusal.said or self.lingering >= self.max_lingering or not transport.can_write_eof():
            transport.close()
            return
        # half-closed: the peer reads the words and its end; what it still sends is dropped
        try:
            transport.write_eof()
        except OSError:   # the peer is gone already (reset): nothing to linger for
            transport.abort()
            return
        self.lingering += 1
        door.lingers = asyncio.get_running_loop().call_later(self.linger_seconds, transport.abort)


class _Door(asyncio.Protocol):
    """A new connection until the gate admits it (then its protocol is the stream's) or
    the end of a refused one."""

    __slots__ = ("gate", "lingers")

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.lingers: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream's transport (uvloop's is not a subclass of asyncio's classes: not checked)
        self.gate._enter(self, cast(asyncio.Transport, transport))

    def data_received(self, data: bytes) -> None:
        pass   # a refused connection's input is dropped while it lingers

    def eof_received(self) -> bool:
        return False   # the peer is done: closed

    def connection_lost(self, exc: Exception | None) -> None:
        if self.lingers is not None:
            self.lingers.cancel()
            self.lingers = None
            self.gate.lingering -= 1
