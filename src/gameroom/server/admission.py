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

A stream server (the lobby, a game's sign-up, the arena's remote-bot port) refuses at the
door: its :class:`Gate` accepts on the listening socket itself, a few connections at a
time, and asks the server's ``admit`` about each before anything else is made — no
transport, stream, task or client — so a crowd reconnecting as fast as it is turned away
costs an accept, a send and a close each, and an honest client's read waits behind at
most a batch of them. Only the first refusal of an address's burst is logged and lingers
so that its words are read (:class:`Refusals`).
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import resource
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from gameroom.server.lobby_limits import address_key

__all__ = ["ACCEPT_BATCH", "Admission", "Connected", "Gate", "Listening", "Place", "Refusal", "Refusals",
           "TrustedProxies", "file_limit", "connection_cap", "FILE_RESERVE"]

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


Connected = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Any]
"""What an admitted connection's stream is handed to (a coroutine function: run as a task)."""

ACCEPT_BATCH = 16
"""Connections the gate accepts each time its listening socket is ready. asyncio's own
server accepted up to the backlog (1,024) at once, so an honest client's read waited
behind a whole wave of a crowd's reconnections in one turn of the loop; in batches of 16
the loop serves whatever else is ready between two batches."""

ACCEPT_PAUSE_SECONDS = 1.0
"""Out of file handles (or kernel memory) while accepting: the gate stops accepting this
long (as asyncio's servers do) instead of retrying at once, every turn of the loop."""

_SEND = socket.MSG_DONTWAIT | socket.MSG_NOSIGNAL   # a refusal's words: never waited for, never a signal
_OUT_OF_HANDLES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


class Gate:
    """The door of a stream server (the lobby, a game's sign-up, the arena's remote-bot
    port): it listens and accepts on its own, so a refused connection costs an accept, a
    send and a close — never a transport, a task or a stream.

    :meth:`listen` binds (or takes) the listening sockets and watches them
    (``loop.add_reader``); each time one is ready at most ``batch`` connections are
    accepted (:data:`ACCEPT_BATCH`), so a wave of reconnections is spread over several
    turns of the loop and the reads of admitted clients interleave with it. Each accepted
    socket is judged by ``admit(peer)`` (``peer``: its address as ``accept()`` gives it)
    at once, in the order accepted:

    * a :class:`Refusal` is sent its words with a non-blocking ``send`` and the socket is
      closed; the first refusal of an address's burst is logged (with the count of those
      refused without a word since: :class:`Refusals`) and lingers ``linger_seconds``
      half-closed, its input read and dropped, so the peer reads the words and the end
      rather than a reset — at most ``max_lingering`` at once, beyond which it is closed
      at once too;
    * anything else is the function the admitted connection's stream is handed to
      (:data:`Connected`): the stream ``asyncio.start_server`` would have made, over
      ``loop.connect_accepted_socket``, on a later turn of the loop and in the order
      admitted. What ``admit`` counts for a connection it counts when it admits it, so a
      batch of accepts cannot overshoot a quota; ``entering`` is the number admitted whose
      stream is not made yet.

    ``admitted`` and ``refused`` count the connections of each kind."""

    def __init__(self, admit: Callable[[Any], Refusal | Connected], logger: logging.Logger, limit: int = 1 << 16,
                 linger_seconds: float = 2.0, max_lingering: int = 64, quiet: float = 10.0,
                 batch: int = ACCEPT_BATCH) -> None:
        self.admit, self.logger = admit, logger
        self.limit, self.linger_seconds, self.max_lingering = limit, linger_seconds, max_lingering
        self.batch = max(1, batch)
        self.refusals = Refusals(quiet)
        self.lingering = 0
        self.entering = 0
        self.admitted = self.refused = 0
        self._streams: set[asyncio.Task[None]] = set()

    async def listen(self, host: str | None = None, port: int | None = None, *, sock: socket.socket | None = None,
                     backlog: int = 100, reuse_address: bool = True) -> "Listening":
        """Listen on ``host:port`` (every address ``host`` names; None or "": all of this
        machine's), or on ``sock``, a socket bound elsewhere; as ``loop.create_server``."""
        loop = asyncio.get_running_loop()
        sockets = [sock] if sock is not None else await _bound(loop, host, port, reuse_address)
        try:
            for one in sockets:
                one.listen(backlog)
                one.setblocking(False)
        except OSError:
            if sock is None:   # made here: closed here
                for one in sockets:
                    one.close()
            raise
        return Listening(self, loop, sockets)

    def _accept(self, listening: "Listening", sock: socket.socket) -> None:
        """The listening ``sock`` is ready: accept and judge a batch of connections."""
        for _ in range(self.batch):
            try:
                accepted, peer = sock.accept()
            except (BlockingIOError, InterruptedError):
                return   # none left: the next readiness
            except OSError as exc:
                if exc.errno in _OUT_OF_HANDLES:
                    self.logger.warning(f"accepting connections: {exc.strerror}; accepting again in "
                                        f"{ACCEPT_PAUSE_SECONDS:g} s")
                    listening.pause(sock, ACCEPT_PAUSE_SECONDS)
                return   # another (a connection aborted before it was accepted): the next readiness
            try:
                verdict = self.admit(peer)
            except BaseException:
                accepted.close()
                raise
            if isinstance(verdict, Refusal):
                self.refused += 1
                self._refuse(accepted, peer, verdict)
            else:
                self.admitted += 1
                self.entering += 1
                task = listening.loop.create_task(self._stream(listening.loop, accepted, verdict))
                self._streams.add(task)   # held: the loop keeps only a weak reference to a task
                task.add_done_callback(self._streams.discard)

    async def _stream(self, loop: asyncio.AbstractEventLoop, sock: socket.socket, connected: Connected) -> None:
        """Make an admitted socket's stream and hand it to ``connected``."""
        entered = False

        def handed(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> Any:
            nonlocal entered
            entered = True
            self.entering -= 1
            return connected(reader, writer)

        def protocol() -> asyncio.StreamReaderProtocol:
            return asyncio.StreamReaderProtocol(asyncio.StreamReader(limit=self.limit), handed)

        try:
            await loop.connect_accepted_socket(protocol, sock)
        except BaseException as exc:
            if not entered:   # only when the loop is closing: nothing was made for it
                self.entering -= 1
                sock.close()
            if not isinstance(exc, Exception):
                raise
            self.logger.info(f"a connection admitted could not be made a stream: {exc}")

    def _refuse(self, sock: socket.socket, peer: Any, refusal: Refusal) -> None:
        if refusal.said:
            try:
                sock.send(refusal.said, _SEND)
            except OSError:
                pass   # reset by its peer already, or its buffer full: closed without the words
        unsaid = self.refusals.refused(refusal.key, time.monotonic())
        if unsaid is None:   # the rest of a burst: closed at once, said in the next line
            sock.close()
            return
        self.logger.info(f"{f'{peer[0]}:{peer[1]}' if isinstance(peer, tuple) else peer}: refused: {refusal.why}"
                         + (f" ({unsaid} more from {refusal.key} refused since the last such line)" if unsaid else ""))
        if not refusal.said or self.lingering >= self.max_lingering:
            sock.close()
            return
        try:   # half-closed: the peer reads the words and the end; what it still sends is dropped
            sock.shutdown(socket.SHUT_WR)
        except OSError:   # the peer is gone already: nothing to linger for
            sock.close()
            return
        _Lingering(self, asyncio.get_running_loop(), sock)


class _Lingering:
    """The first refusal of a burst, half-closed: its input read and dropped until its
    peer closes or ``linger_seconds`` pass (then closed: a reset, if it still sends)."""

    __slots__ = ("gate", "loop", "sock", "fd", "timer")

    def __init__(self, gate: Gate, loop: asyncio.AbstractEventLoop, sock: socket.socket) -> None:
        self.gate, self.loop, self.sock, self.fd = gate, loop, sock, sock.fileno()
        gate.lingering += 1
        loop.add_reader(self.fd, self.drop)
        self.timer: asyncio.TimerHandle | None = loop.call_later(gate.linger_seconds, self.end)

    def drop(self) -> None:
        try:
            data = self.sock.recv(65536, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""   # reset: over
        if not data:
            self.end()

    def end(self) -> None:
        if self.timer is None:
            return   # ended already
        self.timer.cancel()
        self.timer = None
        self.loop.remove_reader(self.fd)
        self.sock.close()
        self.gate.lingering -= 1


class Listening:
    """The listening sockets of a :class:`Gate` (what ``loop.create_server`` returns, in
    the part the servers use): ``sockets``, :meth:`close`."""

    def __init__(self, gate: Gate, loop: asyncio.AbstractEventLoop, sockets: list[socket.socket]) -> None:
        self.gate, self.loop = gate, loop
        self.sockets: tuple[socket.socket, ...] = tuple(sockets)
        self._paused: dict[socket.socket, asyncio.TimerHandle] = {}
        for sock in self.sockets:
            loop.add_reader(sock.fileno(), gate._accept, self, sock)

    def is_serving(self) -> bool:
        return bool(self.sockets)

    def pause(self, sock: socket.socket, seconds: float) -> None:
        """Stop accepting on ``sock`` for ``seconds``."""
        self.loop.remove_reader(sock.fileno())
        self._paused[sock] = self.loop.call_later(seconds, self._resume, sock)

    def _resume(self, sock: socket.socket) -> None:
        if self._paused.pop(sock, None) is not None and sock in self.sockets:
            self.loop.add_reader(sock.fileno(), self.gate._accept, self, sock)

    def close(self) -> None:
        """Stop listening (the connections made stay, as a server's do)."""
        sockets, self.sockets = self.sockets, ()
        for timer in self._paused.values():
            timer.cancel()
        for sock in sockets:
            if sock not in self._paused:
                self.loop.remove_reader(sock.fileno())
            sock.close()
        self._paused.clear()

    async def wait_closed(self) -> None:
        """Nothing to wait for: closed at once."""


async def _bound(loop: asyncio.AbstractEventLoop, host: str | None, port: int | None,
                 reuse_address: bool) -> list[socket.socket]:
    """A socket bound to each address ``host:port`` resolves to (as ``loop.create_server``
    binds them); the first error closes those made and is raised (its ``errno`` kept)."""
    infos = await loop.getaddrinfo(host or None, port or 0, family=socket.AF_UNSPEC, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys((f, t, p, c, a) for f, t, p, c, a in infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            if reuse_address:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:   # the IPv4 addresses have sockets of their own
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets
